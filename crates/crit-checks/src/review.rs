//! One `crit plan` run: SETUP (or ERROR), the state machine, and the approval
//! marker, written before the verdict is returned (expert-review's APPROVED step 1);
//! and [`verify`], which recomputes what an approval covers.

use std::path::PathBuf;
use std::time::Instant;

use crate::approval::{self, Freshness};
use crate::error::CheckError;
use crate::machine::{self, Asker, Incomplete, Limits, Outcome, Run};
use crate::matcher::CheckSet;
use crate::panel::{NoPanel, Panel, PanelRequest, PanelVote, VoiceKind, VoiceRequest};
use crate::session::{FileStore, SessionPaths, write_in};
use crate::sources::{self, SourceDirs};
use crate::state::{Context, Reviewers, State, minimal_context_yaml};
use crate::state_file::StateSeal;
use crate::voice::{PlanAt, VoicedAsker};
use crit_os::seal::SealKey;

/// How a review runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// The user's home, for `session://` and `~/.claude/...` sources.
    pub home: Option<PathBuf>,
    /// crit's per-user state directory: the key that seals approvals and
    /// state.yaml lives there, outside every plan directory.
    pub state_dir: Option<PathBuf>,
    pub limits: Limits,
    /// Why the LLM panel did not run, shown in the output. The deterministic
    /// checks alone decide the verdict then.
    pub panel_not_run: Option<String>,
}

/// No home and no state directory: approvals cannot be sealed. A front end
/// uses [`Options::from_env`].
impl Default for Options {
    fn default() -> Self {
        Options {
            home: None,
            state_dir: None,
            limits: Limits::default(),
            panel_not_run: Some("no model backend configured".into()),
        }
    }
}

impl Options {
    /// The user's home and crit's state directory from the environment the
    /// front end read.
    pub fn from_env(env: &crit_os::Env) -> Self {
        Options {
            home: env.get("HOME").map(PathBuf::from),
            state_dir: crit_os::dirs::state_dir(env),
            ..Options::default()
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
    /// A panel that could run but was not asked: the checks stopped first
    /// (a question, REJECTED, a limit). It reviews once they approve.
    pub panel_waiting: Option<String>,
    /// What the LLM panel decided, when it ran.
    pub panel: Option<PanelVote>,
    /// REJECTED by a check: the persona's own words on why (a model wrote
    /// them; `None`: the checks' words stand).
    pub rejection_words: Option<String>,
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
        // Said only of a panel that cannot run: one that can is asked once
        // the checks approve, or said to be waiting for them.
        panel_not_run: panel.unavailable(),
        panel_waiting: None,
        panel: None,
        rejection_words: None,
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
    let state_dir = options.state_dir.as_deref().ok_or(CheckError::NoStateDir)?;
    let key = SealKey::open_or_create(state_dir)?;
    let seal = StateSeal::new(&key, &paths.seal_scope());
    let setup = load(&paths, options, &seal, true, &mut report.warnings)?;
    report.reviewers = Some(setup.reviewers.clone());
    report.checks_total = setup.checks.len();
    // 8. → CHECKING
    let mut store = FileStore::new(&paths, &seal, setup.unwritten.clone());
    let ids: Vec<String> = setup.checks.checks().iter().map(|c| c.id.clone()).collect();
    report.warnings.extend(asker.resolve_ids(&ids));
    let at = PlanAt {
        plan_path: &paths.plan,
        project_root: &setup.project_root,
    };
    // The persona words each question (with a model) before it is asked.
    let mut voiced = VoicedAsker {
        inner: asker,
        panel: &mut *panel,
        at,
        last: None,
        warnings: Vec::new(),
    };
    let run = machine::run(
        &setup.checks,
        setup.plan.clone(),
        setup.state,
        setup.reviewers.check_voice(),
        options.limits,
        &mut store,
        &mut voiced,
    );
    // The run's writes, once each, still under the lock; before the panel,
    // which reads the plan as the checks left it.
    store.flush()?;
    let mut run = run?;
    let (last, voice_warnings) = (voiced.last.take(), std::mem::take(&mut voiced.warnings));
    report.warnings.extend(voice_warnings);
    if let (Outcome::Incomplete(Incomplete::AwaitingAnswer(q)), Some(last)) =
        (&mut run.outcome, last)
        && last.check_id == q.check_id
        && last.line == q.line
    {
        q.text = last.text;
    }
    if let Outcome::Rejected {
        check,
        pattern,
        reason,
        line,
    } = &run.outcome
    {
        let lines: Vec<&str> = run.plan.lines().collect();
        let line_text = usize::try_from(*line)
            .ok()
            .and_then(|l| lines.get(l.checked_sub(1)?))
            .map_or("", |l| l.trim());
        let req = VoiceRequest {
            kind: VoiceKind::Rejection,
            persona: setup.reviewers.check_voice(),
            check_id: check,
            pattern,
            reason,
            line: *line,
            line_text,
            plan_path: &paths.plan,
            project_root: &setup.project_root,
        };
        match panel.voice(&req) {
            Some(Ok(words)) => report.rejection_words = Some(crate::voice::one_line(&words)),
            Some(Err(why)) => report.warnings.push(format!(
                "{} could not word the rejection ({why}); the checks' words stand",
                req.persona
            )),
            None => {}
        }
    }
    if run.outcome != Outcome::Approved {
        if report.panel_not_run.is_none() {
            report.panel_waiting = Some(
                match run.outcome {
                    Outcome::Rejected { .. } => "the checks rejected the plan",
                    _ => "the checks have not approved the plan yet; it reviews once they do",
                }
                .into(),
            );
        }
        return Ok(run);
    }
    // The plan as the checks left it (fixes applied), for the panel to read.
    let plan_now = sources::read_confined(&paths.dir, &paths.plan)?.unwrap_or(setup.plan);
    let vote = panel.review(&PanelRequest {
        plan_path: &paths.plan,
        plan: &plan_now,
        reviewers: &setup.reviewers,
        project_root: &setup.project_root,
    });
    let approved = match &vote {
        PanelVote::NotRun(why) => {
            report.panel_not_run = Some(why.clone());
            true
        }
        PanelVote::Ran {
            approved,
            panel,
            auto_selected,
            ..
        } => {
            report.panel_not_run = None;
            if *auto_selected {
                write_panel(&paths, panel, &mut report.warnings);
            }
            *approved
        }
    };
    report.panel = Some(vote);
    if approved {
        let fingerprint = approval::checks_fingerprint(setup.checks.checks(), &run.state);
        approval::write_marker(&paths, &key, &plan_now, &fingerprint)?;
    }
    Ok(run)
}

/// AUTO-SELECT's panel into the plan's context file (expert-review's SETUP
/// step 4): the context as it was read, with `reviewer_personas` added. A
/// failure to write it is a warning: the review itself stands.
fn write_panel(paths: &SessionPaths, panel: &[crate::state::Persona], warnings: &mut Vec<String>) {
    let read = paths.context_to_read().to_path_buf();
    let text = sources::read_confined(&paths.dir, &read)
        .ok()
        .flatten()
        .unwrap_or_default();
    let written = write_in(
        &paths.dir,
        &paths.context,
        &crate::state::with_panel(&text, panel),
    );
    if let Err(e) = written {
        warnings.push(format!("the chosen panel was not saved: {e}"));
    }
}

/// Whether `target`'s approval marker still covers its plan: the plan, the
/// checks and the user's approvals are read again (nothing is written) and
/// held against the sealed marker.
pub fn verify(target: &str, options: &Options) -> Result<(SessionPaths, Freshness), CheckError> {
    let paths = SessionPaths::resolve(target, options.home.as_deref())?;
    if !paths.plan.is_file() {
        return Err(CheckError::PlanNotFound(paths.plan.clone()));
    }
    let key = match options.state_dir.as_deref() {
        Some(dir) => SealKey::open(dir)?,
        None => None,
    };
    let Some(key) = key else {
        // Nothing was ever sealed here: a marker, if any, is not crit's.
        let freshness = approval::check_marker(&paths, None, "", "")?;
        return Ok((paths, freshness));
    };
    let seal = StateSeal::new(&key, &paths.seal_scope());
    let setup = match load(&paths, options, &seal, false, &mut Vec::new()) {
        Ok(s) => s,
        Err(CheckError::StateEdited { .. }) => return Ok((paths, Freshness::StateEdited)),
        Err(e) => return Err(e),
    };
    let fingerprint = approval::checks_fingerprint(setup.checks.checks(), &setup.state);
    let freshness = approval::check_marker(&paths, Some(&key), &setup.plan, &fingerprint)?;
    Ok((paths, freshness))
}

/// What SETUP read.
struct Setup {
    plan: String,
    reviewers: Reviewers,
    project_root: PathBuf,
    checks: CheckSet,
    state: State,
    /// A new or reset state to write even if the run changes nothing.
    unwritten: Option<State>,
}

/// SETUP steps 2–7. With `write`, a missing context.yaml or state.yaml is
/// created (and a malformed state.yaml reset) as expert-review says.
fn load(
    paths: &SessionPaths,
    options: &Options,
    seal: &StateSeal<'_>,
    write: bool,
    warnings: &mut Vec<String>,
) -> Result<Setup, CheckError> {
    let plan = match sources::read_confined(&paths.dir, &paths.plan)? {
        None => return Err(CheckError::PlanNotFound(paths.plan.clone())),
        Some(p) if p.trim().is_empty() => return Err(CheckError::EmptyPlan),
        Some(p) => p,
    };
    // 3. context.yaml, created minimal when missing
    let context_path = paths.context_to_read().to_path_buf();
    let context_text = match sources::read_confined(&paths.dir, &context_path)? {
        Some(t) => t,
        None => {
            let t = minimal_context_yaml();
            if write {
                write_in(&paths.dir, &paths.context, &t)?;
            }
            t
        }
    };
    let mut context = Context::parse(&context_path, &context_text)?;
    // 4. who reviews
    let (reviewers, warning) = Reviewers::from_context(&context);
    warnings.extend(warning);
    // 5.–6. project root and checks
    let project_root = sources::project_root(
        &paths.dir,
        context.project_root.as_deref(),
        options.home.as_deref(),
    );
    let dirs = SourceDirs {
        session: paths.dir.clone(),
        project_root: project_root.clone(),
        home: options.home.clone(),
    };
    let context_checks = context.checks.take().map(|c| (context_path.as_path(), c));
    let loaded = sources::load(&dirs, context_checks)?;
    let checks = CheckSet::compile(loaded.checks)?;
    // 7. state.yaml, or the default (a malformed one is reset with a warning;
    // one edited outside crit is refused). A new or reset one is written with
    // the run's other writes, once.
    let mut unwritten = false;
    let state = match sources::read_confined(&paths.dir, &paths.state) {
        Ok(Some(text)) => {
            let (state, warning) = match seal.read(&paths.state, &text) {
                Ok(read) => read,
                // One crit did not write (expert-review's own): untrusted,
                // its approvals ignored and its counts kept as a floor.
                Err(CheckError::StateEdited { .. })
                    if write && crate::state_file::StateSeal::unsealed(&text) =>
                {
                    let (state, warning) = seal.floor(&paths.state, &text);
                    (state, Some(warning))
                }
                Err(e) => return Err(e),
            };
            if let Some(w) = warning {
                warnings.push(w);
                unwritten = true;
            }
            state
        }
        Ok(None) => {
            unwritten = true;
            State::default()
        }
        // A symlink (or a FIFO) in its place is refused, never reset over.
        Err(e @ CheckError::Fs(_)) => return Err(e),
        Err(e) => {
            warnings.push(format!("{e}; state.yaml was reset to the default state"));
            State::default()
        }
    };
    Ok(Setup {
        plan,
        reviewers,
        project_root,
        checks,
        unwritten: (write && unwritten).then(|| state.clone()),
        state,
    })
}
