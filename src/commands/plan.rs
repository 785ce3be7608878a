//! `crit plan PATH` and `crit plan verify PATH`: thin wiring around crit-checks.

mod files;

use std::io::{IsTerminal, Write};
use std::path::Path;

use anyhow::anyhow;
use crit_checks::{AnswerBook, Freshness, Options, PromptAsker, Report};
use crit_core::Verdict;
use crit_project::Kind;
use crit_review::plan::{PanelChoice, PlanOutcome, PlanReview, review_plan};

use crate::backend;
use crate::cli::{CommonArgs, PlanAction, PlanArgs};
use crate::exit::{CliError, Code};
use crate::output::{self, OutputPlan};
use crate::progress::StderrProgress;
use crate::runner;

pub fn run(common: &CommonArgs, args: PlanArgs) -> Result<Code, CliError> {
    runner::init_logging(common);
    if let Some(PlanAction::Verify { path }) = &args.action {
        return verify(common, path);
    }
    let target = args.path.as_deref().ok_or_else(|| {
        CliError::usage(anyhow!(
            "crit plan needs a PATH: a session directory, a plan.md, or session://ID"
        ))
    })?;
    let target = in_cwd(common, target);
    let output = OutputPlan::from_common(common)?;
    let book = AnswerBook::parse(&args.answer).map_err(|e| CliError::usage(anyhow!(e)))?;
    let options = Options::from_env(&common.env);
    // Signals stop the LLM panel (its reviewers' processes included); the
    // checks' own writes are atomic and finish first.
    let stop = runner::Stop::new();
    stop.listen()?;
    // The panel's reviewers run here; the checks call the panel synchronously
    // from this thread.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::could_not_run(anyhow!("starting the async runtime: {e}")))?;
    let env = common.env.clone();
    let settings = backend::project(common, &env).and_then(|p| backend::settings(&p, Kind::Plan));
    let unloaded = settings
        .as_ref()
        .err()
        .map(|e| format!("the backend is misconfigured: {}", e.message()));
    let panel = match (&settings, &unloaded) {
        (Ok(s), _) => PanelChoice::Settings(s),
        (Err(_), why) => PanelChoice::Off(why.as_deref().unwrap_or_default()),
    };
    let progress: Option<std::sync::Arc<dyn crit_review::panel::Progress>> = match common.quiet {
        true => None,
        false => Some(std::sync::Arc::new(StderrProgress::new(&common.env))),
    };
    let req = PlanReview {
        target: &target,
        panel,
        options: &options,
        runtime: runtime.handle().clone(),
        cancel: stop.cancel.clone(),
        progress,
        log: !common.no_log,
        env: &env,
    };
    let before = files::Before::take(&target, options.home.as_deref());
    let interactive =
        !args.non_interactive && std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let PlanOutcome {
        report,
        result,
        audit_error,
    } = if interactive {
        let mut asker = PromptAsker::new(book, std::io::stdin().lock(), std::io::stderr());
        review_plan(req, &mut asker)
    } else {
        let mut book = book;
        review_plan(req, &mut book)
    };
    // The reviewers are done; nothing left on the runtime is waited for.
    runtime.shutdown_background();
    if let Some(e) = audit_error {
        eprintln!(
            "crit: could not append to the audit log: {}",
            output::printable(&e.to_string())
        );
    }
    let gate = settings.as_ref().ok().and_then(|s| s.gate);
    let code = exit_code(gate, &report, &result);
    let plain_text = common.format.is_none() && !common.json && common.output.is_none();
    if plain_text {
        // Expert-review's text block quotes the plan and the panel's words.
        let text = report.render_text();
        let text = match output.dest {
            None => output::printable(&text),
            Some(_) => crit_core::redact::Redactor::process()
                .redact_str(&text)
                .into_owned(),
        };
        write_text(output.dest.as_deref(), &text)?;
    } else {
        output.emit(&result)?;
    }
    if let Some(line) = before.and_then(|b| b.changes())
        && !common.quiet
    {
        eprintln!("crit: {}", output::printable(&line));
    }
    Ok(stop.signal().map_or(code, runner::Signal::code))
}

/// 0 APPROVED; 1 REJECTED or INCOMPLETE (the plan is not approved); ERROR is 2
/// for a bad path or configuration, 3 when the review could not run. With a
/// gate asked for (`--fail-on`, `--exit-code`), the result's `passed`, which
/// the plan review decided at the settings' level.
fn exit_code(
    gate: Option<crit_core::FailOn>,
    report: &Report,
    result: &crit_core::ReviewResult,
) -> Code {
    match &report.result {
        Err(e) if e.is_config_error() => Code::Usage,
        Err(_) => Code::CouldNotRun,
        Ok(_) if gate.is_some() => runner::gate_code(gate, result),
        Ok(_) if report.verdict() == Verdict::Pass => Code::Ok,
        Ok(_) => Code::GateFailed,
    }
}

fn verify(common: &CommonArgs, path: &str) -> Result<Code, CliError> {
    let target = in_cwd(common, path);
    let options = Options::from_env(&common.env);
    let (paths, freshness) =
        crit_checks::verify(&target, &options).map_err(|e| CliError::usage(anyhow!(e)))?;
    let (code, line) = match freshness {
        Freshness::Fresh => (
            Code::Ok,
            format!(
                "approved: {} is the plan {} approved, under the same checks",
                paths.plan.display(),
                paths.marker.display()
            ),
        ),
        Freshness::Missing => (
            Code::GateFailed,
            format!(
                "not approved: {} has no approval marker; run `crit plan {target}`",
                paths.plan.display()
            ),
        ),
        Freshness::Stale => (
            Code::GateFailed,
            format!(
                "stale: {} changed after its approval; run `crit plan {target}` again",
                paths.plan.display()
            ),
        ),
        other => (
            Code::GateFailed,
            format!(
                "not approved: {}; run `crit plan {target}` again",
                crit_claude_code::plan_gate::why_not(other, &paths.plan)
            ),
        ),
    };
    if !common.quiet {
        println!("{}", output::printable(&line));
    }
    Ok(code)
}

/// Relative paths are taken from `--cwd` when it is given.
fn in_cwd(common: &CommonArgs, target: &str) -> String {
    match &common.cwd {
        Some(cwd) if !target.starts_with("session://") && Path::new(target).is_relative() => {
            cwd.join(target).display().to_string()
        }
        _ => target.to_string(),
    }
}

fn write_text(dest: Option<&Path>, text: &str) -> Result<(), CliError> {
    match dest {
        Some(path) => crate::output::write_file(path, text).map_err(CliError::could_not_run),
        None => {
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(CliError::could_not_run(anyhow!("writing to stdout: {e}")))
                }
                _ => Ok(()),
            }
        }
    }
}
