//! `crit plan PATH` and `crit plan verify PATH`: thin wiring around crit-checks.

mod files;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::anyhow;
use crit_checks::{
    AnswerBook, Freshness, NoPanel, Options, Panel, PromptAsker, Report, review_with_panel,
};
use crit_core::Verdict;
use crit_llm::Env;
use crit_project::Kind;
use crit_review::plan::LlmPanel;

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
    let options = Options::from_env(&crit_os::env::Env::from_process());
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
    let env = Env::from_process();
    let settings = backend::project(common, &env).and_then(|p| backend::settings(&p, Kind::Plan));
    // The gate asked for, at the level the settings resolve (a config that
    // does not load leaves the flags' own).
    let gate = match &settings {
        Ok(s) => s.gate.map(|_| s.fail_on.value),
        Err(_) => match (common.fail_on, common.exit_code) {
            (Some(f), _) => Some(output::fail_on(f)),
            (None, true) => Some(crit_core::FailOn::default()),
            (None, false) => None,
        },
    };
    let mut panel = panel_for(
        common,
        settings,
        options.home.clone(),
        &stop,
        runtime.handle(),
    );

    let before = files::Before::take(&target, options.home.as_deref());
    let interactive =
        !args.non_interactive && std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let (mut report, unused) = if interactive {
        let mut asker = PromptAsker::new(book, std::io::stdin().lock(), std::io::stderr());
        let report = review_with_panel(&target, &options, &mut asker, panel.as_mut());
        (report, asker.book.unused())
    } else {
        let mut book = book;
        let report = review_with_panel(&target, &options, &mut book, panel.as_mut());
        (report, book.unused())
    };
    drop(panel);
    // The reviewers are done; nothing left on the runtime is waited for.
    runtime.shutdown_background();
    for id in unused {
        report.warnings.push(format!(
            "--answer {id}=…: no question about this check was asked"
        ));
    }

    let plain_text = common.format.is_none() && !common.json && common.output.is_none();
    let mut result = report.to_review_result();
    let code = exit_code(gate, &report, &mut result);
    if !common.no_log {
        // The audit line `crit stats` counts; plans have no session directory.
        let now = std::time::SystemTime::now();
        match crit_review::session::append_audit(|k| std::env::var(k).ok(), &result, None, now) {
            Ok(_) | Err(crit_review::session::SessionError::NoStateDir) => {}
            Err(e) => eprintln!(
                "crit: could not append to the audit log: {}",
                output::printable(&e.to_string())
            ),
        }
    }
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
/// for a bad path or configuration, 3 when the review could not run. An
/// explicit `--fail-on`/`--exit-code` gate applies on top for reviews that ran:
/// `passed` is decided here, once, at the settings' level.
fn exit_code(
    gate: Option<crit_core::FailOn>,
    report: &Report,
    result: &mut crit_core::ReviewResult,
) -> Code {
    match &report.result {
        Err(e) if e.is_config_error() => Code::Usage,
        Err(_) => Code::CouldNotRun,
        Ok(_) => match gate {
            Some(level) => {
                result.apply_gate(level);
                runner::gate_code(gate, result)
            }
            None if report.verdict() == Verdict::Pass => Code::Ok,
            None => Code::GateFailed,
        },
    }
}

fn verify(common: &CommonArgs, path: &str) -> Result<Code, CliError> {
    let target = in_cwd(common, path);
    let options = Options::from_env(&crit_os::env::Env::from_process());
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

/// The LLM panel when a model backend is configured; otherwise none, with
/// the reason the output gives.
fn panel_for(
    common: &CommonArgs,
    settings: Result<crit_project::Settings, CliError>,
    home: Option<PathBuf>,
    stop: &runner::Stop,
    runtime: &tokio::runtime::Handle,
) -> Box<dyn Panel> {
    let found = settings.and_then(|settings| Ok((backend::selection_if_any(&settings)?, settings)));
    let (selection, settings) = match found {
        Ok((Some(s), settings)) => (s, settings),
        Ok((None, _)) => {
            return Box::new(NoPanel("no model backend configured".into()));
        }
        Err(e) => {
            return Box::new(NoPanel(format!(
                "the backend is misconfigured: {}",
                e.message()
            )));
        }
    };
    let built = match selection.build() {
        Ok(b) => b,
        Err(e) => return Box::new(NoPanel(format!("the backend could not start: {e}"))),
    };
    let mut panel = LlmPanel::new(built, settings.request_model(), home, runtime.clone())
        .with_cancel(stop.cancel.clone())
        .with_max_budget_usd(settings.max_budget_usd.as_ref().map(|b| b.value));
    if let Some(t) = &settings.timeout {
        panel = panel.with_timeout(std::time::Duration::from_secs(t.value));
    }
    if !common.quiet {
        panel = panel.with_progress(std::sync::Arc::new(StderrProgress::new()));
    }
    Box::new(panel)
}

fn write_text(dest: Option<&Path>, text: &str) -> Result<(), CliError> {
    match dest {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| CliError::could_not_run(anyhow!("writing {}: {e}", path.display()))),
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
