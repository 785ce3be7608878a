//! `crit run`: Reldo's orchestrator through the library's `Crit`. Without a
//! format flag, a configured orchestrator prompt's answer prints as Reldo's
//! CLI prints it (the review's text on stdout, the summary on stderr); crit's
//! own orchestrator's findings print as every review's do.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::anyhow;
use crit_core::ReviewResult;
use crit_project::Kind;
use crit_review::orchestrate::{Crit, Cwd, RunConfig};

use crate::backend;
use crate::cli::{CommonArgs, RunArgs};
use crate::exit::{CliError, Code};
use crate::output::{self, OutputPlan};
use crate::progress::StderrProgress;
use crate::runner;
use crit_core::render::compat::Compat;

pub fn run(common: &CommonArgs, args: &RunArgs) -> Result<Code, CliError> {
    match review(common, args) {
        // Reldo's `--json` reports an error as `{"error": …}` on stdout.
        Err(e) if common.compat == Some(Compat::Reldo) => {
            let json = serde_json::json!({ "error": e.message() });
            println!("{}", output::json_printable(&json));
            Err(e)
        }
        other => other,
    }
}

fn review(common: &CommonArgs, args: &RunArgs) -> Result<Code, CliError> {
    runner::init_logging(common);
    // A bad output flag is refused before anything runs.
    let plan = OutputPlan::from_common(common)?;
    let prompt = prompt_of(args)?;
    let given = common.cwd.clone();
    let cwd = given.clone().unwrap_or_else(|| PathBuf::from("."));
    let cwd = cwd
        .canonicalize()
        .map_err(|e| CliError::usage(anyhow!("--cwd {}: {e}", cwd.display())))?;
    let env = common.env.clone();
    let project = backend::project(common, &env)?;
    project.rules().release_warnings();
    let settings = backend::settings(&project, Kind::Run)?;
    let rules = project.rules();
    let path = match &args.config {
        // As in Reldo, a relative --config is relative to --cwd.
        Some(p) if p.is_relative() && given.is_some() => Some(cwd.join(p)),
        Some(p) => Some(p.clone()),
        None => RunConfig::find_with(rules)
            .map_err(CliError::usage)?
            .map(|rel| rules.root().join(rel)),
    };
    // `--cwd` wins over the config's `cwd`, as in Reldo.
    let at = match given {
        Some(_) => Cwd::Given(&cwd),
        None => Cwd::Default(&cwd),
    };
    let mut config = match &path {
        Some(p) => RunConfig::load_with(p, at, &env, rules).map_err(CliError::usage)?,
        None => RunConfig::builtin(&cwd),
    };
    if args.config.is_some() {
        // So a plain `crit trust` can name this file and the command it needs.
        super::trust_hints::note_refused(rules, &env);
    }
    if let Some(t) = common.timeout {
        config.timeout = std::time::Duration::from_secs(t);
    }
    if let Some(n) = common.max_turns {
        config.max_turns = Some(n);
    }
    if let Some(m) = &common.model {
        config.model = Some(m.clone());
    }
    let selection = backend::selection(&settings)?;
    let built = selection
        .build()
        .map_err(|e| CliError::could_not_run(anyhow!("{e}")))?;
    // A prompt of the user's is answered as Reldo's are: text on a terminal.
    // crit's own orchestrator answers in findings, shown as every review's are.
    let users_prompt = config.prompt.is_some();
    // Reldo's format is JSON (`.claude/reldo.json`); crit's own is YAML.
    let reldo = common.compat == Some(Compat::Reldo)
        || config
            .source
            .as_ref()
            .is_some_and(|p| p.extension().is_some_and(|e| e == "json"));
    let mut crit = Crit::new(config, env.clone())
        .with_backend(built, settings.request_model())
        .with_max_budget_usd(settings.max_budget_usd.as_ref().map(|b| b.value))
        .with_fail_on(settings.fail_on.value)
        .reldo_tools(reldo)
        .with_project_commands(settings.project_command_words())
        .verbose(common.verbose > 0);
    // Reldo's `logging.enabled` stands unless `--no-log` turns it off.
    if common.no_log {
        crit = crit.logging(false);
    }
    if !common.quiet {
        crit = crit.with_progress(Arc::new(StderrProgress::new(&common.env)));
    }
    let stop = runner::Stop::new();
    let result = runner::block_on(&stop, |cancel| {
        let crit = crit.with_cancel(cancel);
        async move { crit.review(&prompt).await }
    })?
    .map_err(|e| CliError::usage(anyhow!("{e}")))?;
    if plan.is_terminal() && users_prompt {
        return finish_text(common, &plan, result, &stop, settings.gate);
    }
    // Reldo's CLI fails on a timeout: its scripts see `{"error": …}` and a
    // failed command, gate or not.
    let reldo_error = common.compat == Some(Compat::Reldo)
        && crit_core::render::compat::reldo::timed_out(&result).is_some();
    match runner::finish(common, result, &stop, settings.gate)? {
        Code::Ok | Code::GateFailed if reldo_error => Ok(Code::CouldNotRun),
        code => Ok(code),
    }
}

/// Reldo's terminal output: the answer as the orchestrator wrote it on
/// stdout, and on stderr why it could not be read (when it could not) and
/// the summary line. The exit code is [`runner::finish`]'s.
fn finish_text(
    common: &CommonArgs,
    plan: &OutputPlan,
    result: ReviewResult,
    stop: &runner::Stop,
    gate: Option<crit_core::FailOn>,
) -> Result<Code, CliError> {
    let gated = runner::gate_code(gate, &result);
    plan.emit_text(&result.raw_output)?;
    runner::warn(common, &result);
    if !common.quiet {
        let color = plan.color && std::io::stderr().is_terminal();
        if let Some(why) = &result.parse_error {
            eprintln!("crit: {}", output::printable(&unfinished(&result, why)));
        }
        eprintln!("{}", crit_core::render::summary_line(&result, color));
        if let Some(dir) = &result.session_log_path {
            eprintln!("session: {}", output::printable(&shown(Path::new(dir))));
        }
    }
    runner::exit_code(&result, stop, gated)
}

/// Why the answer could not be read, in a sentence: a limit the
/// orchestrator hit is named with the setting that raises it.
fn unfinished(result: &ReviewResult, why: &str) -> String {
    let detail = result
        .reviewers
        .iter()
        .find(|r| r.name == "orchestrator")
        .and_then(|r| r.error.as_deref())
        .unwrap_or(why);
    let raise = match why {
        "max_turns" => "--max-turns, or max_turns in the config",
        "timeout" => "--timeout, or timeout_seconds in the config",
        "max_budget_usd" => "--max-budget-usd",
        _ => return why.to_string(),
    };
    format!("the orchestrator stopped before it answered: it {detail} (raise {raise})")
}

/// A path as short as it can be shown: relative to the working directory
/// when under it.
fn shown(p: &Path) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| p.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| p.to_path_buf())
        .display()
        .to_string()
}

/// The positional PROMPT or `--prompt`; `-` reads stdin.
fn prompt_of(args: &RunArgs) -> Result<String, CliError> {
    let given = args
        .text
        .clone()
        .or_else(|| args.prompt.clone())
        .unwrap_or_default();
    let text = if given == "-" {
        let bytes = crit_core::files::read_capped_from(
            std::io::stdin().lock(),
            std::path::Path::new("<stdin>"),
            Default::default(),
        )
        .map_err(|e| CliError::usage(anyhow!("reading the prompt: {e}")))?;
        // Reldo strips a prompt read from stdin (a heredoc's or echo's newline).
        String::from_utf8(bytes)
            .map_err(|_| CliError::usage(anyhow!("the prompt on stdin is not UTF-8 text")))?
            .trim()
            .to_string()
    } else {
        given
    };
    if text.trim().is_empty() {
        return Err(CliError::usage(anyhow!(
            "the prompt is empty: say what to review, e.g. crit run \"Review src/auth.rs\""
        )));
    }
    Ok(text)
}
