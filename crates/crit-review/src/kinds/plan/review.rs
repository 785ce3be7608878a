//! A plan review from start to finish, the one way every front end runs it:
//! the plan's deterministic checks (crit-checks), then the persona panel the
//! project's plan settings give (their model, timeout and budget), answers
//! nobody asked for folded into warnings, `passed` decided once at the
//! settings' gate, and the audit line. The command line and Python only
//! wire it: how questions are asked, where the result goes, the exit code.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crit_checks::{Asker, NoPanel, Options, Panel, Report, review_with_panel};
use crit_core::ReviewResult;
use crit_llm::LlmError;
use crit_project::Settings;
use tokio_util::sync::CancellationToken;

use super::LlmPanel;
use crate::engine::panel::Progress;
use crate::engine::session::{self, SessionError};

/// Who sits on the panel after the checks.
#[derive(Debug, Clone, Copy)]
pub enum PanelChoice<'a> {
    /// The panel the plan review's settings give (no backend: none, said).
    Settings(&'a Settings),
    /// No panel, for this reason (the caller switched it off, or the
    /// project's settings did not load); the checks alone decide.
    Off(&'a str),
}

/// What a plan review needs besides the one who answers its questions.
pub struct PlanReview<'a> {
    /// A session directory, a `plan.md`, or `session://ID`.
    pub target: &'a str,
    pub panel: PanelChoice<'a>,
    pub options: &'a Options,
    /// A multi-threaded runtime the panel's reviewers run on. [`review_plan`]
    /// blocks: call it from outside that runtime's workers (the main
    /// thread, or `spawn_blocking`).
    pub runtime: tokio::runtime::Handle,
    pub cancel: CancellationToken,
    pub progress: Option<Arc<dyn Progress>>,
    /// Append the audit line `crit stats` counts (plans have no session
    /// directory).
    pub log: bool,
    /// The environment the front end read, for the audit log's place.
    pub env: &'a crit_os::env::Env,
}

/// A plan review's outcome: the checks' report (for expert-review's own text
/// and the exit code) and the result every output renders.
#[derive(Debug)]
pub struct PlanOutcome {
    pub report: Report,
    pub result: ReviewResult,
    /// The audit line could not be written (no state directory is not an
    /// error: there is nowhere to write it).
    pub audit_error: Option<SessionError>,
}

/// Runs a plan review; `asker` answers the checks' questions (a terminal, or
/// answers given up front).
pub fn review_plan(req: PlanReview<'_>, asker: &mut dyn Asker) -> PlanOutcome {
    let mut panel = panel_for(&req);
    let mut report = review_with_panel(req.target, req.options, asker, panel.as_mut());
    drop(panel);
    for id in asker.unused() {
        report.warnings.push(format!(
            "the answer for `{id}`: no question about this check was asked"
        ));
    }
    let mut result = report.to_review_result();
    if let PanelChoice::Settings(s) = req.panel
        && s.gate.is_some()
    {
        result.apply_gate(s.fail_on.value);
    }
    let audit_error = match req.log {
        true => match session::append_audit(req.env, &result, None, SystemTime::now()) {
            Ok(_) | Err(SessionError::NoStateDir) => None,
            Err(e) => Some(e),
        },
        false => None,
    };
    PlanOutcome {
        report,
        result,
        audit_error,
    }
}

/// The persona panel the settings give, or why there is none.
fn panel_for(req: &PlanReview<'_>) -> Box<dyn Panel> {
    let settings = match req.panel {
        PanelChoice::Settings(s) => s,
        PanelChoice::Off(why) => return Box::new(NoPanel(why.to_string())),
    };
    let selection = match &settings.backend {
        Ok(s) => s,
        Err(LlmError::NoBackend) => {
            return Box::new(NoPanel("no model backend configured".into()));
        }
        Err(e) => {
            return Box::new(NoPanel(format!("the backend is misconfigured: {e}")));
        }
    };
    let built = match selection.build() {
        Ok(b) => b,
        Err(e) => return Box::new(NoPanel(format!("the backend could not start: {e}"))),
    };
    let mut panel = LlmPanel::new(
        built,
        settings.request_model(),
        req.options.home.clone(),
        req.runtime.clone(),
    )
    .with_cancel(req.cancel.clone())
    .with_max_budget_usd(settings.max_budget_usd.as_ref().map(|b| b.value));
    if let Some(t) = &settings.timeout {
        panel = panel.with_timeout(Duration::from_secs(t.value));
    }
    if let Some(p) = &req.progress {
        panel = panel.with_progress(Arc::clone(p));
    }
    Box::new(panel)
}
