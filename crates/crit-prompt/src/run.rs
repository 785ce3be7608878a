//! One prompt review from start to finish: context, triggers, the reviewers in
//! parallel (crit's panel runner), the editor, the result ([`review`], its
//! phases in `phases.rs`). Fails open: whatever goes wrong, the result carries
//! the original prompt and says why.

mod phases;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crit_core::Usage;
use crit_llm::Backend;
use tokio_util::sync::CancellationToken;

use super::cache;
use super::context::{self, ProjectContext};
use super::result::{
    FailedBecause, Hashes, Outcome, PROMPT_REVIEW_SCHEMA_VERSION, PromptReview, Status,
};
use crit_project::config::prompt_review::{EditorMode, Mode, PromptConfig};
use crit_review::panel::{PanelEnv, Progress};
use phases::{fail_open, finish};

/// After the deadline, this long for the panel to hand back what it has.
const GRACE: Duration = Duration::from_millis(750);

/// What to review.
#[derive(Debug, Clone)]
pub struct PromptRequest {
    pub prompt: String,
    /// The project root: context is read from it, confined to it.
    pub root: PathBuf,
    /// Where conventions are collected down to.
    pub cwd: PathBuf,
    /// What started the review, for the audit log (`cli`, `!!!`).
    pub trigger: String,
    /// The prompt file, for finding locations.
    pub source: Option<String>,
}

/// How to run it.
#[derive(Clone)]
pub struct PromptOptions {
    pub config: PromptConfig,
    /// The backend, or why there is none (the review then fails open).
    pub backend: Result<Backend, crit_llm::LlmError>,
    /// Names the backend in the cache key (`anthropic`, `claude-code`).
    pub backend_label: String,
    pub mode: Mode,
    pub reviewer_model: String,
    pub editor_model: String,
    /// Where cached reviews live; `None` turns the cache off.
    pub cache_dir: Option<PathBuf>,
    pub progress: Option<Arc<dyn Progress>>,
    pub cancel: CancellationToken,
    /// Notes from loading and backend choice, carried into the warnings.
    pub notes: Vec<String>,
}

impl std::fmt::Debug for PromptOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PromptOptions")
            .field("mode", &self.mode)
            .field("backend_label", &self.backend_label)
            .field("reviewer_model", &self.reviewer_model)
            .field("cache_dir", &self.cache_dir)
            .finish_non_exhaustive()
    }
}

impl PromptOptions {
    /// Options for `config` on `backend`, with the models the config names.
    pub fn new(
        config: PromptConfig,
        backend: Result<Backend, crit_llm::LlmError>,
        mode: Mode,
    ) -> Self {
        PromptOptions {
            reviewer_model: config.models.reviewer.clone(),
            editor_model: config.models.editor.clone(),
            config,
            backend,
            backend_label: String::new(),
            mode,
            cache_dir: None,
            progress: None,
            cancel: CancellationToken::new(),
            notes: Vec::new(),
        }
    }

    fn deadline(&self) -> Duration {
        Duration::from_millis(self.config.budget.timeout_ms.max(1))
    }
}

/// A review that did nothing: prompt review is switched off.
pub fn disabled(req: &PromptRequest, why: &str) -> PromptReview {
    let mut r = blank(
        req,
        &ProjectContext::default(),
        Mode::Subscription,
        EditorMode::Deterministic,
    );
    r.status = Status::Disabled;
    r.failed_because = Some(FailedBecause::Disabled);
    r.warnings.push(why.to_string());
    r.decide(None);
    r
}

/// A review that could not start (its settings, a runtime): the original
/// prompt proceeds, and `why` says so.
pub fn failed(req: &PromptRequest, because: FailedBecause, why: &str) -> PromptReview {
    let mut r = blank(
        req,
        &ProjectContext::default(),
        Mode::Subscription,
        EditorMode::Deterministic,
    );
    r.status = Status::FailedOpen;
    r.failed_because = Some(because);
    r.project = req
        .root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    r.warnings.push(format!(
        "prompt review could not run ({why}); the original prompt proceeds"
    ));
    r.decide(None);
    r
}

fn blank(
    req: &PromptRequest,
    ctx: &ProjectContext,
    mode: Mode,
    editor: EditorMode,
) -> PromptReview {
    PromptReview {
        schema_version: PROMPT_REVIEW_SCHEMA_VERSION,
        original: req.prompt.clone(),
        refined: req.prompt.clone(),
        chosen: None,
        status: Status::NoChanges,
        outcome: Outcome::NoChanges,
        failed_because: None,
        warnings: Vec::new(),
        diff: String::new(),
        changes: Vec::new(),
        deduplicated: Vec::new(),
        dropped: Vec::new(),
        conflicts: Vec::new(),
        disagreements: Vec::new(),
        critiques: Vec::new(),
        raw_critiques: None,
        reviewers: Vec::new(),
        findings: Vec::new(),
        usage: Usage::default(),
        cost_usd: 0.0,
        api_price_usd: 0.0,
        duration_ms: 0,
        mode,
        editor,
        cached: false,
        project: ctx.project_name.clone(),
        stack: ctx.stack.clone(),
        trigger: req.trigger.clone(),
        source: req.source.clone(),
        hashes: Hashes {
            prompt: crit_os::seal::sha256_hex(req.prompt.as_bytes()),
            context: String::new(),
        },
    }
}

/// Review `req`. Never fails: problems end in [`Status::FailedOpen`] or
/// [`Status::EditorFailed`] with the original prompt and a warning.
pub async fn review(req: &PromptRequest, opts: &PromptOptions) -> PromptReview {
    let started = Instant::now();
    let deadline = opts.deadline();
    let ctx = context::build(&req.root, &req.cwd, &opts.config.context);
    let context_block = ctx.render();
    let mut review = blank(req, &ctx, opts.mode, opts.config.editor.mode);
    review.hashes.context = crit_os::seal::sha256_hex(context_block.as_bytes());
    review.warnings.extend(opts.notes.iter().cloned());

    let asked = phases::plan_reviewers(&mut review, req, opts, &ctx);
    let setup = phases::setup_fingerprint(opts, &asked);
    let key = cache::key(&req.prompt, &context_block, &setup);
    if let Some(hit) = phases::cached(req, opts, &key, started) {
        return hit;
    }
    let backend = match &opts.backend {
        Ok(b) => b,
        Err(why) => {
            let why = format!("no model backend: {why}");
            return fail_open(review, started, FailedBecause::NoBackend, why);
        }
    };
    if asked.is_empty() {
        review.warnings.push("no reviewer took part".into());
        return finish(review, started);
    }

    let env = PanelEnv {
        root: req.root.clone(),
        project_context: context_block,
        progress: opts.progress.clone(),
        cancel: opts.cancel.child_token(),
        ..PanelEnv::default()
    };
    let Some(runs) = phases::ask(backend, &asked, &env, deadline).await else {
        let why = format!("timed out after {:.1}s", deadline.as_secs_f64());
        return fail_open(review, started, FailedBecause::Deadline, why);
    };
    let rate_limited = phases::record(&mut review, &asked, &runs, opts.mode, deadline);
    if let Some((because, why)) =
        phases::unanswered(&mut review, asked.len(), rate_limited, deadline)
    {
        return fail_open(review, started, because, why);
    }
    let review = match phases::refine(review, req, opts, &asked, backend, &env, started).await {
        Ok(review) => review,
        Err(editor_failed) => return editor_failed,
    };
    let all_answered = review.unavailable() == 0;
    let review = finish(review, started);
    if all_answered {
        phases::store(req, opts, &key, &review);
    }
    review
}
