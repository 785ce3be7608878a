//! One `crit plan` run: SETUP (or ERROR), the state machine, and the approval
//! marker, written before the verdict is returned (seed APPROVED step 1).

use std::path::PathBuf;
use std::time::Instant;

use crate::error::CheckError;
use crate::machine::{self, Asker, Limits, Outcome, Run};
use crate::matcher::CheckSet;
use crate::panel::{NoPanel, Panel, PanelRequest, PanelVote};
use crate::session::{FileStore, SessionPaths, write_atomic};
use crate::sources::{self, SourceDirs};
use crate::state::{Context, Reviewers, State, minimal_context_yaml};

/// How a review runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// The user's home, for `session://` and `~/.claude/...` sources.
    pub home: Option<PathBuf>,
    pub limits: Limits,
    /// Why the LLM panel did not run, shown in the output. The deterministic
    /// checks alone decide the verdict then.
    pub panel_not_run: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            home: std::env::var_os("HOME").map(PathBuf::from),
            limits: Limits::default(),
            panel_not_run: Some("no model backend configured".into()),
        }
    }
}

/// Everything the output needs.
#[derive(Debug)]
pub struct Report {
    /// What the user asked to review, as given.
    pub target: String,
    pub paths: Option<SessionPaths>,
    pub reviewers: Option<Reviewers>,
    pub checks_total: usize,
    pub result: Result<Run, CheckError>,
    /// Warnings for the output (malformed state.yaml reset, redundant persona, …).
    pub warnings: Vec<String>,
    pub panel_not_run: Option<String>,
    /// What the LLM panel decided, when it ran.
    pub panel: Option<PanelVote>,
    pub duration_ms: u64,
}

/// Run the review of `target` to a verdict, with no LLM panel.
pub fn review(target: &str, options: &Options, asker: &mut dyn Asker) -> Report {
    let reason = options
        .panel_not_run
        .clone()
        .unwrap_or_else(|| "no model backend configured".into());
    review_with_panel(target, options, asker, &mut NoPanel(reason))
}

/// Run the review of `target`; once the checks approve, `panel` votes too,
/// and the marker is written only if it approves (or did not run).
pub fn review_with_panel(
    target: &str,
    options: &Options,
    asker: &mut dyn Asker,
    panel: &mut dyn Panel,
) -> Report {
    let started = Instant::now();
    let mut report = Report {
        target: target.to_string(),
        paths: None,
        reviewers: None,
        checks_total: 0,
        result: Err(CheckError::EmptyPlan),
        warnings: Vec::new(),
        panel_not_run: options.panel_not_run.clone(),
        panel: None,
        duration_ms: 0,
    };
    report.result = setup_and_run(target, options, asker, panel, &mut report);
    report.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    report
}

fn setup_and_run(
    target: &str,
    options: &Options,
    asker: &mut dyn Asker,
    panel: &mut dyn Panel,
    report: &mut Report,
) -> Result<Run, CheckError> {
    let paths = SessionPaths::resolve(target, options.home.as_deref())?;
    report.paths = Some(paths.clone());
    // 2. plan.md, missing or empty → ERROR. The lock comes first so no other run
    // edits the plan between this read and our writes.
    if !paths.plan.is_file() {
        return Err(CheckError::PlanNotFound(paths.plan.clone()));
    }
    let _lock = paths.lock()?;
    let plan = match sources::read(&paths.plan)? {
        None => return Err(CheckError::PlanNotFound(paths.plan.clone())),
        Some(p) if p.trim().is_empty() => return Err(CheckError::EmptyPlan),
        Some(p) => p,
    };
    // 3. context.yaml, created minimal when missing
    let context_text = match sources::read(&paths.context)? {
        Some(t) => t,
        None => {
            let t = minimal_context_yaml();
            write_atomic(&paths.context, &t)?;
            t
        }
    };
    let mut context = Context::parse(&paths.context, &context_text)?;
    // 4. who reviews
    let (reviewers, warning) = Reviewers::from_context(&context);
    report.warnings.extend(warning);
    report.reviewers = Some(reviewers.clone());
    // 5.–6. project root and checks
    let project_root = sources::project_root(
        &paths.dir,
        context.project_root.as_deref(),
        options.home.as_deref(),
    );
    let dirs = SourceDirs {
        session: paths.dir.clone(),
        project_root,
        home: options.home.clone(),
    };
    let context_checks = context.checks.take().map(|c| (paths.context.as_path(), c));
    let loaded = sources::load(&dirs, context_checks)?;
    let checks = CheckSet::compile(loaded.checks)?;
    report.checks_total = checks.len();
    // 7. state.yaml, or the default (a malformed one is reset with a warning)
    let state = match sources::read(&paths.state) {
        Ok(Some(text)) => {
            let (state, warning) = State::parse_or_reset(&paths.state, &text);
            if let Some(w) = warning {
                report.warnings.push(w);
                write_atomic(&paths.state, &state.to_yaml())?;
            }
            state
        }
        Ok(None) => {
            let state = State::default();
            write_atomic(&paths.state, &state.to_yaml())?;
            state
        }
        Err(e) => {
            report
                .warnings
                .push(format!("{e}; state.yaml was reset to the default state"));
            State::default()
        }
    };
    // 8. → CHECKING
    let mut store = FileStore { paths: &paths };
    let run = machine::run(
        &checks,
        plan.clone(),
        state,
        reviewers.check_voice(),
        options.limits,
        &mut store,
        asker,
    )?;
    if run.outcome != Outcome::Approved {
        return Ok(run);
    }
    // The plan as the checks left it (fixes applied), for the panel to read.
    let plan_now = sources::read(&paths.plan)?.unwrap_or(plan);
    let vote = panel.review(&PanelRequest {
        plan_path: &paths.plan,
        plan: &plan_now,
        reviewers: &reviewers,
        project_root: &dirs.project_root,
    });
    let approved = match &vote {
        PanelVote::NotRun(why) => {
            report.panel_not_run = Some(why.clone());
            true
        }
        PanelVote::Ran { approved, .. } => {
            report.panel_not_run = None;
            *approved
        }
    };
    report.panel = Some(vote);
    if approved {
        paths.write_marker()?;
    }
    Ok(run)
}
