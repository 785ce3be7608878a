//! A template review from start to finish: what to review and how (the
//! request, the options), why one could not start, the entry points the CLI
//! and library users call ([`run_template`]), and the helpers of its phases
//! (in `phases.rs`: the change prepared, the review set up, the panel
//! asked, the result concluded).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use crit_agent::{Hooks, HooksConfig};
use crit_core::redact::Redactor;
use crit_core::{FailOn, ReviewResult, Verdict};
use crit_llm::Backend;
use tokio_util::sync::CancellationToken;

use crate::engine::panel::{self, FollowUp, PanelEnv, Progress};
use crate::engine::session::{self, Session, SessionMeta};
use crate::kinds::template::{Limits, Origin, Template, TemplateError};
use crit_project::context::{self, ContextOptions, UnderReview};
use crit_project::scope::{self, Change, FilterMode, Scope, ScopeOptions};
use crit_project::trust::{self, Gated, ProjectRules};

use super::estimate::{CostPlan, Spending};
use super::{PartLimits, VerifyMode, phases};
use crate::engine::hunk_cache::HunkCache;

/// What to review.
#[derive(Debug, Clone)]
pub struct ReviewRequest {
    pub template: Template,
    /// Inputs as given (defaults are applied here).
    pub inputs: BTreeMap<String, String>,
    /// For templates built with the code builder: what the change is. `None`
    /// takes it from the `diff` / `files` inputs, else surveys the project.
    pub scope: Option<Scope>,
    /// The change `scope` names when the caller has read it already (the
    /// Stop gate fingerprints the change it reviews), computed with
    /// [`ReviewOptions::scope_options`]: reviewed as handed, not read again.
    /// `None`: read here.
    pub change: Option<Change>,
    /// The author's notes on the work, put into the user message.
    pub context_file: Option<PathBuf>,
    /// The project root: tools are confined to it, sessions live under it.
    pub root: PathBuf,
    /// Where project conventions are collected down to.
    pub cwd: PathBuf,
}

/// How to run it.
#[derive(Clone)]
pub struct ReviewOptions {
    pub fail_on: FailOn,
    /// `--model`: every reviewer uses it.
    pub model_override: Option<String>,
    /// The configured model, for reviewers and templates that name none.
    pub default_model: String,
    /// Flags and config over the template's limits.
    pub limits: Limits,
    /// Drop findings outside the change (code reviews only).
    pub filter: Option<FilterMode>,
    pub max_findings: Option<usize>,
    /// Review only this part of the change (code reviews only); the result
    /// records it as the `shard` input, for `crit report merge`.
    pub shard: Option<crit_core::shard::Shard>,
    /// Save the session under `.crit/sessions/` and append the audit line.
    pub log: bool,
    /// The effective configuration, for `session.json` (secrets are removed).
    pub config_snapshot: serde_json::Value,
    /// The environment the front end read: where the audit log and caches
    /// go (`XDG_*`, `HOME`), whose trust store judges the project, what git
    /// and the tools' programs see (`PATH`, …). Empty by default: a library
    /// caller hands down its own (or [`crit_os::Env::from_process`]).
    pub env: crit_os::Env,
    pub hooks: Hooks,
    /// Whose rules judge the change (suppressions, a project template's
    /// hooks). `None`: found from `env` as the CLI does (the trust store; in
    /// CI, the base revision).
    pub rules: Option<Arc<ProjectRules>>,
    pub progress: Option<Arc<dyn Progress>>,
    pub cancel: CancellationToken,
    /// Removes secrets from what reviewers are sent and from everything the
    /// review writes; it learns each secret found in the review's inputs and
    /// tools' results, so a model repeating one is redacted too (default: a
    /// clone of [`Redactor::process`], which every writer of this process
    /// shares, so what it learns is hidden in sessions, transcripts,
    /// cassettes and outputs alike).
    pub redactor: Redactor,
    /// A change bigger than one request is split into parts of this size, at
    /// most this many (`--max-chunks`); what does not fit is left out and
    /// makes the review INCOMPLETE.
    pub parts: PartLimits,
    /// Accept a review that could not see all of its change (`--allow-partial`):
    /// its coverage says what was left out, its verdict is not held back.
    pub allow_partial: bool,
    /// Hunks reviewed before with nothing found (`None`: off, as with
    /// `--no-cache`).
    pub hunk_cache: Option<HunkCache>,
    /// Which findings get a second look (`--verify`); `None`: the template's
    /// `verify:`, else blocking ones.
    pub verify: Option<VerifyMode>,
    /// The model of that second look; empty: haiku on Anthropic's API, the
    /// review's own model on an OpenAI-compatible server.
    pub verify_model: String,
    /// How many of a panel must report a finding (`--consensus`); `None`: the
    /// template's `consensus:`, else every finding counts.
    pub consensus: Option<panel::Consensus>,
    /// When a panel's later reviewers start (`panel_start`).
    pub panel_start: crit_project::PanelStart,
    /// Asked with the review's plan and estimated cost before its first
    /// request (`None`: spent without asking, as a library caller chose).
    pub spending: Option<Arc<dyn Spending>>,
    /// Globs of files left out of a code review, each listed in its coverage.
    pub ignore: Vec<String>,
    /// Findings crit dismissed on a dispute in this change's threads (a
    /// `--post` run reads them there): dismissed again while their proof
    /// holds.
    pub disputed: Vec<crate::kinds::template::checks::disputed::DisputeDismissal>,
    /// The change, being read already by the caller (who knew the scope
    /// before the review was set up): used when it is of exactly the scope
    /// and [`ReviewOptions::scope_options`] of the review, else read again.
    pub reading: Option<scope::Reading>,
}

impl std::fmt::Debug for ReviewOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReviewOptions")
            .field("fail_on", &self.fail_on)
            .field("model_override", &self.model_override)
            .field("default_model", &self.default_model)
            .field("limits", &self.limits)
            .field("filter", &self.filter)
            .field("max_findings", &self.max_findings)
            .field("shard", &self.shard)
            .field("log", &self.log)
            .field("parts", &self.parts)
            .field("allow_partial", &self.allow_partial)
            .field("hunk_cache", &self.hunk_cache)
            .field("verify", &self.verify)
            .field("consensus", &self.consensus)
            .field("panel_start", &self.panel_start)
            .field("spending", &self.spending.is_some())
            .finish_non_exhaustive()
    }
}

impl ReviewOptions {
    /// Defaults for a library caller: default gate, logging on, no progress.
    pub fn new(default_model: impl Into<String>) -> Self {
        ReviewOptions {
            fail_on: FailOn::default(),
            model_override: None,
            default_model: default_model.into(),
            limits: Limits::default(),
            filter: None,
            max_findings: None,
            shard: None,
            log: true,
            config_snapshot: serde_json::Value::Null,
            env: crit_os::Env::new(),
            hooks: Hooks::default(),
            rules: None,
            progress: None,
            cancel: CancellationToken::new(),
            redactor: Redactor::process().clone(),
            parts: PartLimits::default(),
            allow_partial: false,
            hunk_cache: None,
            verify: None,
            verify_model: String::new(),
            consensus: None,
            panel_start: Default::default(),
            spending: None,
            ignore: Vec::new(),
            disputed: Vec::new(),
            reading: None,
        }
    }

    /// The options a project's settings give a review, the one way every
    /// front end (the command line, the agents' hooks, Python, the bench)
    /// makes them: the gate level, the models, the limits, the verifier's
    /// model, when a panel starts, whose rules judge the change, the
    /// environment and the configuration recorded in the session. What is
    /// left (a progress display, the hunk cache, the diff filter, …) belongs
    /// to one invocation, and the caller sets it.
    pub fn from_settings(
        project: &crit_project::Project,
        settings: &crit_project::Settings,
    ) -> Self {
        let mut opts = ReviewOptions::new(settings.request_model());
        opts.fail_on = settings.fail_on.value;
        opts.model_override = settings.model_override.clone();
        opts.limits = Limits {
            max_turns: settings.max_turns.as_ref().map(|s| s.value),
            timeout_secs: settings.timeout.as_ref().map(|s| s.value),
            max_budget_usd: settings.max_budget_usd.as_ref().map(|s| s.value),
            max_tokens: None,
        };
        opts.verify_model = settings.verify_model.value.clone();
        opts.panel_start = settings.panel_start.value;
        opts.ignore = settings.ignore_globs();
        opts.rules = Some(Arc::clone(project.rules()));
        opts.env = project.env().clone();
        opts.config_snapshot = serde_json::to_value(settings.rows()).unwrap_or_default();
        opts
    }
}

impl ReviewOptions {
    /// How a review reads its change: this review's shard and ignored
    /// files, the patch never cut (a change bigger than one request is
    /// split into parts). A caller that hands the review its change reads
    /// it with these.
    pub fn scope_options(&self) -> ScopeOptions {
        ScopeOptions {
            shard: self.shard,
            ignore: self.ignore.clone(),
            max_patch_bytes: usize::MAX,
            env: self.env.clone(),
            ..ScopeOptions::default()
        }
    }
}

/// Why a review could not start. Anything that goes wrong once reviewers
/// run is in the result instead (it fails closed, it does not error).
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error(transparent)]
    Template(#[from] TemplateError),
    #[error(transparent)]
    Scope(#[from] scope::ScopeError),
    #[error(transparent)]
    Context(#[from] context::ContextError),
    #[error(transparent)]
    Suppressions(#[from] crit_project::suppress::SuppressError),
    #[error(transparent)]
    Learnings(crit_project::error::FileError),
    #[error("the learnings' prompt: {0}")]
    LearningsPrompt(#[from] crate::engine::prompts::PromptError),
    #[error(transparent)]
    Session(#[from] session::SessionError),
    #[error("cannot read the context file {}: {source}", path.display())]
    ContextFile {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the template's hooks: {0}")]
    Hooks(String),
    #[error(transparent)]
    Rules(#[from] trust::TrustError),
    /// The review's estimated cost was not approved: nothing was sent.
    #[error("not reviewed: {}; nothing was sent", .0.describe())]
    NotApproved(Box<CostPlan>),
}

/// Runs `req`: everything a template review does, in order.
pub async fn run_template(
    backend: &Backend,
    req: &ReviewRequest,
    opts: &ReviewOptions,
) -> Result<ReviewResult, ReviewError> {
    Ok(run(Ok(backend), req, opts, false).await?.0)
}

/// [`run_template`] when there may be no backend (`Err` says why): a review
/// that needs no model (an empty change passes, as mala's reviewer passes
/// it) runs as usual; one that needs a model is ERROR with `fatal_error`,
/// saved like any other result, so a pipeline still gets a `ReviewResult`.
pub async fn run_template_or(
    backend: Result<&Backend, &crit_llm::LlmError>,
    req: &ReviewRequest,
    opts: &ReviewOptions,
) -> Result<ReviewResult, ReviewError> {
    Ok(run(backend, req, opts, false).await?.0)
}

/// [`run_template`], keeping the first reviewer ready for follow-up
/// questions about its review (`None` when no reviewer ran).
pub async fn run_template_with_follow_up(
    backend: &Backend,
    req: &ReviewRequest,
    opts: &ReviewOptions,
) -> Result<(ReviewResult, Option<FollowUp>), ReviewError> {
    run(Ok(backend), req, opts, true).await
}

/// A template review, phase by phase (see [`super::phases`]).
async fn run(
    backend: Result<&Backend, &crit_llm::LlmError>,
    req: &ReviewRequest,
    opts: &ReviewOptions,
    follow_up: bool,
) -> Result<(ReviewResult, Option<FollowUp>), ReviewError> {
    let started = Instant::now();
    let now = SystemTime::now();
    // The change is read (git) while the rest is set up.
    let reading = phases::start(req, opts)?;
    let mut setup = phases::set_up(req, opts)?;
    let prepared = phases::prepare(reading, req, opts).await?;
    setup.session = phases::session(req, opts, &prepared.inputs, now)?;
    let mut conversation = None;
    let asked = phases::ask(
        backend,
        req,
        opts,
        &prepared,
        &mut setup,
        follow_up.then_some(&mut conversation),
        now,
    )
    .await?;
    let result = phases::conclude(asked, req, opts, &prepared, &setup, (started, now));
    Ok((result, conversation))
}

/// The review's plan put to whoever decides on spending (nothing sent yet),
/// and what the review may then spend in all.
pub(super) fn approve(opts: &ReviewOptions, plan: CostPlan) -> Result<Option<f64>, ReviewError> {
    match &opts.spending {
        Some(s) if !s.approve(&plan) => Err(ReviewError::NotApproved(Box::new(plan))),
        Some(s) => Ok(s.ceiling(&plan)),
        None => Ok(None),
    }
}

/// What a review's steps share once it runs.
pub(crate) struct Job<'a> {
    pub backend: &'a Backend,
    pub template: &'a Template,
    pub inputs: &'a crate::kinds::template::Inputs,
    pub under_review: &'a [String],
    pub opts: &'a ReviewOptions,
    pub env: &'a PanelEnv,
    pub rules: &'a ProjectRules,
    pub now: SystemTime,
}

impl Job<'_> {
    /// A template setting that can dismiss findings (`consensus:` other than
    /// `any`, `verify:` other than `off`) counts from a project's own template
    /// only as the project's rules allow: the change under review may have
    /// written it.
    pub(crate) fn template_may_relax(&self, key: &str, value: &str) -> bool {
        let t = self.template;
        if t.origin != Origin::Project {
            return true;
        }
        let file = t
            .path
            .as_deref()
            .map(|p| trust::relative(self.rules.root(), p))
            .unwrap_or_default();
        self.rules
            .allow(Gated::new(file, 0, key, value.to_string()))
    }
}

/// Every secret the review's redactor knows (it learned those of the
/// review's inputs and tools' results) is hidden in the result, wherever a
/// model may have repeated one: the result goes to stdout and to disk.
pub(super) fn scrub(result: &mut ReviewResult, redactor: &Redactor) {
    let Ok(mut value) = serde_json::to_value(&*result) else {
        return;
    };
    if redactor.redact_json(&mut value) == 0 {
        return;
    }
    match serde_json::from_value(value) {
        Ok(clean) => *result = clean,
        Err(e) => tracing::error!("cannot redact the result: {e}"),
    }
}

/// A review that saw less than all of its change is at best INCOMPLETE,
/// unless the user accepted a partial review; either way the summary says so.
pub(super) fn hold_for_coverage(result: &mut ReviewResult, opts: &ReviewOptions) {
    let Some(c) = result.coverage.as_mut() else {
        return;
    };
    c.partial_allowed = opts.allow_partial;
    if c.complete {
        return;
    }
    let gaps = c.gap_files().len();
    let note = format!(
        "Not all of the change was reviewed: {} file{} left out (see coverage){}.",
        gaps,
        if gaps == 1 { "" } else { "s" },
        if opts.allow_partial {
            "; a partial review was accepted"
        } else {
            ""
        }
    );
    result.summary = match result.summary.trim().is_empty() {
        true => note,
        false => format!("{note}\n\n{}", result.summary.trim()),
    };
    if !opts.allow_partial {
        result.verdict = Verdict::combine([result.verdict, Verdict::Incomplete]);
        result.apply_gate(opts.fail_on);
    }
}

/// Hidden characters in the conventions are made visible too: they are read
/// from the checkout under review.
pub(super) fn screen_context(cx: &mut context::ProjectContext) {
    for s in &mut cx.sections {
        let (text, hits) = crit_core::screen::neutralize(&s.text);
        if !hits.is_empty() {
            s.text = text;
        }
    }
}

/// `--context FILE`, at most the input limit of it.
pub(super) fn read_context_file(path: &Path) -> Result<String, ReviewError> {
    let bytes = crit_core::files::read_capped(path, Default::default()).map_err(|e| match e {
        crit_core::files::ReadError::Io { source, .. } => ReviewError::ContextFile {
            path: path.to_path_buf(),
            source,
        },
        crit_core::files::ReadError::TooLarge { limit, .. } => ReviewError::ContextFile {
            path: path.to_path_buf(),
            source: std::io::Error::other(format!(
                "larger than the {} limit for an input",
                crit_core::files::human_bytes(limit)
            )),
        },
    })?;
    String::from_utf8(bytes).map_err(|e| ReviewError::ContextFile {
        path: path.to_path_buf(),
        source: std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        ),
    })
}

/// Starts reading the change `scope` names. git runs synchronously: off
/// the async threads, so other work (setting the review up, a panel
/// elsewhere in the process, the Ctrl-C listener) goes on meanwhile.
pub(super) fn start_compute(
    root: &Path,
    scope: &Scope,
    review: &ReviewOptions,
) -> tokio::task::JoinHandle<Result<Change, scope::ScopeError>> {
    let (root, scope) = (root.to_path_buf(), scope.clone());
    let opts = review.scope_options();
    tokio::task::spawn_blocking(move || scope::compute(&root, &scope, &opts))
}

/// The change [`start_compute`] read.
pub(super) async fn finish_compute(
    reading: tokio::task::JoinHandle<Result<Change, scope::ScopeError>>,
    root: &Path,
) -> Result<Change, scope::ScopeError> {
    match reading.await {
        Ok(r) => r,
        Err(e) => Err(scope::ScopeError::Io {
            path: root.to_path_buf(),
            source: std::io::Error::other(e.to_string()),
        }),
    }
}

/// `diff` (a ref or a range) and `files` inputs of the code template.
pub(super) fn scope_from_inputs(
    inputs: &BTreeMap<String, String>,
) -> Result<Scope, scope::ScopeError> {
    let files: Vec<String> = inputs.get("files").into_iter().cloned().collect();
    Scope::from_options(inputs.get("diff").map(String::as_str), &[], false, &files)
}

pub(super) fn no_changes(review: &str, change: &Change) -> ReviewResult {
    let mut r = ReviewResult::new(review, Verdict::Pass);
    r.summary = format!("No changes in {}: nothing to review.", change.description);
    r
}

/// Root-relative paths of what is under review: the change's files, or the
/// documents named by the inputs.
pub(super) fn files_under_review(
    change: Option<&Change>,
    inputs: &BTreeMap<String, String>,
    req: &ReviewRequest,
) -> Vec<String> {
    if let Some(c) = change {
        return c.paths().into_iter().map(str::to_string).collect();
    }
    let root = req.root.canonicalize().unwrap_or_else(|_| req.root.clone());
    inputs
        .values()
        .filter_map(|v| {
            let p = req.cwd.join(v).canonicalize().ok()?;
            if !p.is_file() {
                return None;
            }
            let rel = p.strip_prefix(&root).ok()?;
            Some(rel.to_string_lossy().replace('\\', "/"))
        })
        .collect()
}

/// The conventions that apply to the files under review (read where the
/// project's rules come from: in CI the base revision's, as a pull request
/// does not write its reviewers' rules).
pub(super) fn project_context(
    conventions: context::Conventions,
    survey: bool,
    files: &[String],
) -> context::ProjectContext {
    let under = match survey {
        true => UnderReview::Everything,
        false => UnderReview::Files(files),
    };
    let cx = conventions.select(under, &ContextOptions::default());
    for o in &cx.omitted {
        tracing::info!("project context: left out {}: {}", o.path, o.reason);
    }
    cx
}

/// The template's hooks (Claude Code's shape) and the caller's, with the
/// session facts their inputs carry. A project template's hooks are here only
/// when the project's rules allowed them as the registry loaded it.
pub(super) fn hooks(
    template: &Template,
    root: &Path,
    opts: &ReviewOptions,
    session: Option<&Session>,
) -> Result<Hooks, ReviewError> {
    let mut hooks = opts.hooks.clone();
    if let Some(value) = &template.hooks {
        let config: HooksConfig =
            serde_json::from_value(value.clone()).map_err(|e| ReviewError::Hooks(e.to_string()))?;
        for h in config
            .command_hooks(root)
            .map_err(|e| ReviewError::Hooks(e.to_string()))?
        {
            hooks.push(h);
        }
    }
    Ok(match session {
        Some(s) => hooks.with_session(s.id(), Some(s.transcript_path())),
        None => hooks,
    })
}

pub(super) fn session_meta(
    req: &ReviewRequest,
    inputs: &BTreeMap<String, String>,
    opts: &ReviewOptions,
    now: SystemTime,
) -> SessionMeta {
    SessionMeta {
        review: req.template.name.clone(),
        inputs: inputs.clone(),
        config: opts.config_snapshot.clone(),
        cwd: req.cwd.display().to_string(),
        started_at: crit_core::timestamp::rfc3339(crit_core::timestamp::unix_secs(now)),
        crit_version: env!("CARGO_PKG_VERSION").to_string(),
        prompt: None,
    }
}
