//! `crit hook pre-commit review|prompt`: what the pre-commit framework's hooks
//! run (`.pre-commit-hooks.yaml`). pre-commit calls a hook with fixed
//! arguments and no shell, so the scope comes from here: at pre-push the
//! commits being pushed (`PRE_COMMIT_FROM_REF..PRE_COMMIT_TO_REF`; on a first
//! push to a new remote, which pre-commit gives no range, the pushed branch
//! against the remote's or the local default branch, see
//! `crit_project::scope::push_scope`), otherwise the change about to be
//! committed (pre-commit has stashed what is not staged). Both gate: a review
//! that does not pass fails the hook.

use std::path::PathBuf;

use anyhow::anyhow;
use clap::{Arg, ArgAction, Args, FromArgMatches};
use crit_project::scope::Scope;

use crate::cli::{CommonArgs, ReviewArgs, RunArgs};
use crate::exit::{CliError, Code};

pub fn run(common: CommonArgs, event: &str, args: &[String]) -> Result<Code, CliError> {
    match event {
        "review" => review(gated(common), args),
        "prompt" => prompt(gated(common), args),
        other => Err(CliError::usage(anyhow!(
            "crit hook pre-commit {other}: unsupported event (supported: review, prompt)"
        ))),
    }
}

/// A hook that never fails is no gate: the default gate unless one was asked for.
fn gated(mut common: CommonArgs) -> CommonArgs {
    common.exit_code = true;
    common
}

/// `crit review code` over what is being committed or pushed; `args` are
/// more review flags (`--fail-on p2`, `--filter added`).
fn review(common: CommonArgs, args: &[String]) -> Result<Code, CliError> {
    let env = |k: &str| common.env.non_empty(k).map(str::to_string);
    let push = (
        env("PRE_COMMIT_REMOTE_NAME"),
        env("PRE_COMMIT_LOCAL_BRANCH"),
    );
    let scope: Vec<String> = match (env("PRE_COMMIT_FROM_REF"), env("PRE_COMMIT_TO_REF"), push) {
        (Some(from), Some(to), _) => vec!["--diff".into(), format!("{from}..{to}")],
        // A push the remote has none of the history of (a first push to a
        // new remote): pre-commit names no range, but the commits are
        // still what is pushed, never the uncommitted changes.
        (_, _, (Some(remote), Some(local))) => {
            let root = common.cwd.clone().unwrap_or_else(|| PathBuf::from("."));
            let chosen = crit_project::scope::push_scope(&root, &remote, &local, &common.env)
                .map_err(CliError::usage)?;
            if !common.quiet {
                eprintln!("crit: {}", crate::output::printable(&chosen.why));
            }
            match chosen.scope {
                Scope::Range(range) | Scope::Diff(range) => vec!["--diff".into(), range],
                other => {
                    return Err(CliError::could_not_run(anyhow!(
                        "the push of `{local}` has no range to review ({other:?})"
                    )));
                }
            }
        }
        _ => vec!["--uncommitted".into()],
    };
    let argv: Vec<String> = std::iter::once("code".to_string())
        .chain(scope)
        .chain(args.iter().cloned())
        .collect();
    super::review::run(common, &ReviewArgs { args: argv })
}

/// The prompt files pre-commit passes, reviewed by crit's reviewers through
/// `crit run`; flags before the files are crit's common flags.
fn prompt(common: CommonArgs, args: &[String]) -> Result<Code, CliError> {
    let cmd = CommonArgs::augment_args(clap::Command::new("crit hook pre-commit prompt")).arg(
        Arg::new("files")
            .action(ArgAction::Append)
            .value_name("FILE"),
    );
    let matches = cmd
        .try_get_matches_from(std::iter::once("prompt".to_string()).chain(args.iter().cloned()))
        .map_err(|e| CliError::usage(anyhow!("{e}")))?;
    let later =
        CommonArgs::from_arg_matches(&matches).map_err(|e| CliError::usage(anyhow!("{e}")))?;
    let files: Vec<String> = matches
        .get_many::<String>("files")
        .map(|v| v.cloned().collect())
        .unwrap_or_default();
    if files.is_empty() {
        return Ok(Code::Ok);
    }
    let list: Vec<String> = files.iter().map(|f| format!("`{f}`")).collect();
    let text = format!(
        "Review these prompt files, about to be committed: {}. They are instructions \
         for a language model. Read each one and report what would make a model \
         misread or misuse it: ambiguous or contradictory instructions, missing \
         constraints or acceptance criteria, unsafe handling of untrusted input \
         (prompt injection), and secrets. Cite each problem at its file and line.",
        list.join(", ")
    );
    let args = RunArgs {
        text: Some(text),
        prompt: None,
        config: None,
    };
    super::run::run(&common.overlay(later), &args)
}
