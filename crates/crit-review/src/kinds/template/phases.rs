//! A template review's phases, in order: the change prepared (inputs, scope,
//! redaction), the review set up (whose rules, suppressions, the session),
//! the panel asked, and the result concluded (the finish steps, coverage,
//! crit's own notes, the session log). [`super::run`] runs them.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use crit_agent::redaction::ToolRedactor;
use crit_core::ReviewResult;
use crit_llm::Backend;
use minijinja::Value;

use super::checks::finish::Finish;
use super::checks::{post, suggestions};
use super::run::*;
use super::{Builder, PromptSource, diff, plans as plan};
use crate::engine::panel::{self, FollowUp, PanelEnv, ProgressEvent, SharedTranscript};
use crate::engine::redaction::{self, Removed};
use crate::engine::session::{self, Session};
use crit_project::context::{self, ContextError, Conventions};
use crit_project::learnings::Learnings;
use crit_project::scope::{Change, Scope};
use crit_project::suppress::Suppressions;
use crit_project::trust::ProjectRules;

/// The review's inputs and change, redacted for the prompts.
pub(super) struct Prepared {
    /// Inputs after defaults, as given (the result keeps them so).
    pub inputs: BTreeMap<String, String>,
    /// Every input that enters a prompt, redacted.
    pub prompt_inputs: super::Inputs,
    pub scope: Option<Scope>,
    /// Redacted: what reviewers are sent.
    pub change: Option<Change>,
    /// The patch as git gave it, for the hunk cache's keys only.
    pub raw_patch: String,
    /// What redaction removed from the change.
    pub change_removed: Vec<Removed>,
    /// The scope is a diff (not files, not a survey).
    pub is_diff: bool,
}

/// The review started: its inputs resolved and checked, and its change (if
/// any) being read by git on a thread of its own while the rest is set up.
pub(super) struct Started {
    inputs: super::Inputs,
    scope: Option<Scope>,
    change: Option<Pending>,
}

/// The change of a started review.
enum Pending {
    /// The caller's, read already.
    Given(Box<Change>),
    Read(tokio::task::JoinHandle<Result<Change, crit_project::scope::ScopeError>>),
}

/// Starts the review: the inputs are checked, and the change's read begins.
/// Call it from within the runtime: the read is a blocking task of it.
pub(super) fn start(req: &ReviewRequest, opts: &ReviewOptions) -> Result<Started, ReviewError> {
    let template = &req.template;
    let inputs = template.resolve_inputs(&req.inputs)?;
    template.check_files(&inputs, &req.cwd)?;
    let scope = match (&template.prompt, &req.scope) {
        (PromptSource::Builder(Builder::Code), Some(s)) => Some(s.clone()),
        (PromptSource::Builder(Builder::Code), None) => Some(scope_from_inputs(&inputs.0)?),
        (PromptSource::Template(_) | PromptSource::Command(_), _) => None,
    };
    let change = match (&scope, &req.change) {
        (Some(_), Some(c)) => Some(Pending::Given(Box::new(c.clone()))),
        (Some(s), None) => Some(Pending::Read(
            match opts
                .reading
                .as_ref()
                .and_then(|r| r.take(&req.root, s, &opts.scope_options()))
            {
                // Joined off the async threads, as a read here would run.
                Some(taken) => tokio::task::spawn_blocking(move || taken.finish()),
                None => start_compute(&req.root, s, opts),
            },
        )),
        (None, _) => None,
    };
    Ok(Started {
        inputs,
        scope,
        change,
    })
}

/// The started review's change, read and redacted for the prompts.
pub(super) async fn prepare(
    started: Started,
    req: &ReviewRequest,
    opts: &ReviewOptions,
) -> Result<Prepared, ReviewError> {
    let Started {
        inputs,
        scope,
        change,
    } = started;
    let mut change = match change {
        Some(Pending::Given(c)) => Some(*c),
        Some(Pending::Read(reading)) => Some(finish_compute(reading, &req.root).await?),
        None => None,
    };
    // A change too big for one request takes a while to prepare: said at
    // once, before redaction, screening and the parts.
    if let (Some(c), Some(p)) = (&change, &opts.progress)
        && c.patch.len() > opts.parts.part_bytes
    {
        p.event(&ProgressEvent::Note {
            reviewer: "crit".into(),
            text: format!(
                "the change: {} file{}, {:.1} MB of diff; preparing its parts",
                c.files.len(),
                if c.files.len() == 1 { "" } else { "s" },
                c.patch.len() as f64 / 1e6
            ),
        });
    }
    let raw_patch = change.as_ref().map(|c| c.patch.clone()).unwrap_or_default();
    let change_removed: Vec<Removed> = change
        .as_mut()
        .map(|c| redaction::redact_change(c, &opts.redactor))
        .unwrap_or_default();
    let prompt_inputs = super::Inputs(
        inputs
            .0
            .iter()
            .map(|(k, v)| (k.clone(), redaction::redact_str(v, &opts.redactor)))
            .collect(),
    );
    let is_diff = matches!(
        scope,
        Some(
            Scope::Diff(_)
                | Scope::Range(_)
                | Scope::Commits(_)
                | Scope::Uncommitted
                | Scope::Since(_)
                | Scope::Within(..)
                | Scope::Union(_)
        )
    );
    Ok(Prepared {
        inputs: inputs.0,
        prompt_inputs,
        scope,
        change,
        raw_patch,
        change_removed,
        is_diff,
    })
}

/// Whose rules judge the change, what the team suppressed, the conventions
/// reviewers are given, where the session is logged.
pub(super) struct Setup {
    pub rules: Arc<ProjectRules>,
    pub suppressions: Suppressions,
    /// The team's learnings, as the project's rules allow them (in CI, the
    /// base revision's).
    pub learnings: Learnings,
    /// The project's conventions, read for a template that gives them to
    /// its reviewers: taken when the files under review choose among them.
    /// Their error counts only if they are used.
    pub conventions: Option<Result<Conventions, ContextError>>,
    /// Created once the change is read ([`session`]).
    pub session: Option<Session>,
}

/// Reads what the review is set up with; nothing here depends on the
/// change, so it runs while the change is read.
pub(super) fn set_up(req: &ReviewRequest, opts: &ReviewOptions) -> Result<Setup, ReviewError> {
    let rules = match &opts.rules {
        Some(r) => Arc::clone(r),
        None => Arc::new(ProjectRules::discover(&req.root, &opts.env, None)?),
    };
    let suppressions = Suppressions::load_with(&rules)?;
    let learnings = Learnings::load_with(&rules).map_err(ReviewError::Learnings)?;
    let conventions = req
        .template
        .loads_project_context()
        .then(|| context::read_with(&rules, &req.cwd));
    // Built once per process while git reads the change, instead of on the
    // path after it: the shared partials, the directive gate and the
    // findings contract's schema.
    crate::engine::prompts::compile_partials();
    crit_core::screen::build_gate();
    let _ = crit_core::schema::findings_contract();
    Ok(Setup {
        rules,
        suppressions,
        learnings,
        conventions,
        session: None,
    })
}

/// The session the review is logged in, when it is logged.
pub(super) fn session(
    req: &ReviewRequest,
    opts: &ReviewOptions,
    inputs: &BTreeMap<String, String>,
    now: SystemTime,
) -> Result<Option<Session>, ReviewError> {
    Ok(match opts.log {
        true => Some(Session::create(
            &req.root,
            &session_meta(req, inputs, opts, now),
            now,
        )?),
        false => None,
    })
}

/// What asking the panel gave: its result, what redaction found in the
/// conventions, notes and tools' output, and whether the transcript failed.
pub(super) struct Asked {
    pub result: ReviewResult,
    pub removed: Vec<Removed>,
    pub transcript_error: Option<String>,
}

/// The panel asked about the change (or the documents), or no one asked:
/// an empty diff passes, no backend is ERROR.
pub(super) async fn ask(
    backend: Result<&Backend, &crit_llm::LlmError>,
    req: &ReviewRequest,
    opts: &ReviewOptions,
    p: &Prepared,
    setup: &mut Setup,
    conversation: Option<&mut Option<FollowUp>>,
    now: SystemTime,
) -> Result<Asked, ReviewError> {
    let template = &req.template;
    let mut asked = Asked {
        result: ReviewResult::new(&template.name, crit_core::Verdict::Pass),
        removed: Vec::new(),
        transcript_error: None,
    };
    let backend = match (
        p.change.as_ref().filter(|c| p.is_diff && c.is_empty()),
        backend,
    ) {
        // Nothing changed: PASS without asking a model (mala's R1).
        (Some(c), _) => {
            asked.result = no_changes(&template.name, c);
            return Ok(asked);
        }
        (None, Err(why)) => {
            asked.result = ReviewResult::fatal(&template.name, why.to_string());
            return Ok(asked);
        }
        (None, Ok(backend)) => backend,
    };
    let under_review = files_under_review(p.change.as_ref(), &p.inputs, req);
    let project_context = match setup.conventions.take() {
        Some(conventions) => {
            let survey = matches!(p.scope, Some(Scope::Survey));
            let mut cx = project_context(conventions?, survey, &under_review);
            asked
                .removed
                .extend(redaction::redact_context(&mut cx, &opts.redactor));
            screen_context(&mut cx);
            let learned = crate::engine::learnings::learnings_section(
                &setup.learnings,
                &under_review,
                |t| redaction::redact_str(t, &opts.redactor),
            )?;
            match learned.is_empty() {
                true => cx.render(),
                false => format!("{}\n\n{learned}", cx.render().trim_end()),
            }
        }
        None => String::new(),
    };
    let mut extra = BTreeMap::new();
    if let Some(path) = &req.context_file {
        let mut text = read_context_file(path)?;
        let shown = path.display().to_string();
        asked
            .removed
            .extend(redaction::redact_notes(&mut text, &shown, &opts.redactor));
        let (text, _) = crit_core::screen::neutralize(&text);
        extra.insert("context".to_string(), Value::from(text));
        extra.insert(
            "context_path".to_string(),
            Value::from(redaction::redact_str(&shown, &opts.redactor)),
        );
    }
    let transcript = setup
        .session
        .as_ref()
        .and_then(|s| SharedTranscript::for_session_with(s, opts.redactor.clone()));
    let env = PanelEnv {
        root: req.root.clone(),
        add_dirs: Vec::new(),
        project_context,
        hooks: hooks(template, &req.root, opts, setup.session.as_ref())?,
        mcp: Vec::new(),
        transcript,
        progress: opts.progress.clone(),
        cancel: opts.cancel.clone(),
        spend: Default::default(),
        redaction: ToolRedactor::new(opts.redactor.clone()),
        tool_env: crate::engine::panel::tool_env(&opts.env),
        panel_start: opts.panel_start,
        project_commands: Default::default(),
    };
    let job = Job {
        backend,
        template,
        inputs: &p.prompt_inputs,
        under_review: &under_review,
        opts,
        env: &env,
        rules: &setup.rules,
        now,
    };
    asked.result = match p.change.as_ref().filter(|_| p.is_diff) {
        Some(c) => {
            let d = diff::Diff {
                change: c,
                raw_patch: &p.raw_patch,
                removed: &p.change_removed,
            };
            diff::review(&job, &d, extra, conversation).await?
        }
        None => ask_about_documents(&job, p, extra, conversation).await?,
    };
    asked
        .removed
        .extend(env.redaction.found().iter().map(Removed::from_tool));
    asked.transcript_error = env.transcript.as_ref().and_then(|t| t.error());
    Ok(asked)
}

/// A template over documents (or files, or a survey): one panel, one plan
/// per reviewer.
async fn ask_about_documents(
    job: &Job<'_>,
    p: &Prepared,
    mut extra: BTreeMap<String, Value>,
    conversation: Option<&mut Option<FollowUp>>,
) -> Result<ReviewResult, ReviewError> {
    let (template, opts) = (job.template, job.opts);
    if let Some(c) = &p.change {
        extra.insert("scope".to_string(), Value::from(minijinja::value::Serde(c)));
    }
    let mut plans = plan::plans(template, &p.prompt_inputs, &extra, job.under_review, opts)?;
    let ceiling = approve(
        opts,
        super::estimate::plan(std::slice::from_ref(&plans.run), None),
    )?;
    // What was approved is what may be spent, as over a change: each
    // reviewer stops there (cut short, it is INCOMPLETE).
    if let Some(c) = ceiling {
        for plan in &mut plans.run {
            let b = &mut plan.limits.max_budget_usd;
            *b = Some(b.map_or(c, |b| b.min(c)));
        }
    }
    let mut runs = panel::run_panel(job.backend, &plans.run, job.env).await;
    if let (Some(slot), Some(plan), Some(run)) = (conversation, plans.run.first(), runs.first()) {
        *slot = Some(FollowUp::new(
            job.backend.clone(),
            plan.clone(),
            job.env.clone(),
            run.raw.clone(),
        ));
    }
    runs.extend(plans.skipped);
    let mut result = panel::aggregate(&template.name, &runs);
    post::check(job, &mut result, p.change.as_ref(), ceiling).await;
    Ok(result)
}

/// What the team asked of the findings, the suggestions checked, the
/// coverage held to, crit's own notes, the inputs and times recorded,
/// secrets scrubbed, and the session saved.
pub(super) fn conclude(
    asked: Asked,
    req: &ReviewRequest,
    opts: &ReviewOptions,
    p: &Prepared,
    setup: &Setup,
    (started, now): (Instant, SystemTime),
) -> ReviewResult {
    let Asked {
        mut result,
        removed: found,
        transcript_error,
    } = asked;
    let mut removed = p.change_removed.clone();
    removed.extend(found);
    let finish = Finish {
        change: p.change.as_ref(),
        suppressions: &setup.suppressions,
        learnings: &setup.learnings,
        filter: opts.filter,
        max_findings: opts.max_findings,
        fail_on: opts.fail_on,
        now,
        disputed: &opts.disputed,
        root: &req.root,
    };
    finish.apply(&mut result);
    suggestions::check(&mut result.findings, &req.root, p.scope.as_ref(), &opts.env);
    super::coverage::add_hidden(&mut result, p.change.as_ref());
    hold_for_coverage(&mut result, opts);
    super::coverage::add_ignored(&mut result, p.change.as_ref());
    // crit's own notes: they neither pass nor fail the gate.
    redaction::dedup(&mut removed);
    result.findings.extend(removed.iter().map(Removed::finding));
    result.inputs = p.inputs.clone();
    if let (Some(s), Some(_)) = (opts.shard, &p.change) {
        result
            .inputs
            .insert(crit_core::shard::INPUT_KEY.into(), s.to_string());
    }
    result.started_at = Some(crit_core::timestamp::rfc3339(
        crit_core::timestamp::unix_secs(now),
    ));
    result.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    scrub(&mut result, &opts.redactor);
    if let Some(s) = &setup.session {
        result.session_log_path = Some(s.dir().display().to_string());
        session::save(s, &result, transcript_error, &opts.env, now);
    }
    result
}
