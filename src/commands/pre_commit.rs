//! `crit hook pre-commit review|prompt`: what the pre-commit framework's hooks
//! run (`.pre-commit-hooks.yaml`). pre-commit calls a hook with fixed
//! arguments and no shell, so the scope comes from here: at pre-push the
//! commits being pushed (`PRE_COMMIT_FROM_REF..PRE_COMMIT_TO_REF`), otherwise
//! the change about to be committed (pre-commit has stashed what is not
//! staged). Both gate: a review that does not pass fails the hook.

use anyhow::anyhow;
use clap::{Arg, ArgAction, Args, FromArgMatches};

use crate::cli::{CommonArgs, ReviewArgs, RunArgs};
use crate::exit::{CliError, Code};

pub fn run(common: CommonArgs, event: &str, args: &[String]) -> Result<Code, CliError> {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    match event {
        "review" => review(gated(common), args, env),
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
fn review(
    common: CommonArgs,
    args: &[String],
    env: impl Fn(&str) -> Option<String>,
) -> Result<Code, CliError> {
    let scope: Vec<String> = match (env("PRE_COMMIT_FROM_REF"), env("PRE_COMMIT_TO_REF")) {
        (Some(from), Some(to)) => vec!["--diff".into(), format!("{from}..{to}")],
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
