//! One prompt review from start to finish: context, triggers, the reviewers in
//! parallel (crit's panel runner), the editor, the result. Fails open: whatever
//! goes wrong, the result carries the original prompt and says why.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use crit_core::Usage;
use crit_llm::Backend;
use tokio_util::sync::CancellationToken;

use super::context::{self, ProjectContext};
use super::critique;
use super::editor::{self, Edit, EditorInput};
use super::result::{
    self, FailedBecause, Hashes, Outcome, PROMPT_REVIEW_SCHEMA_VERSION, PromptReview,
    ReviewerCritique, ReviewerReport, ReviewerState, Status,
};
use super::reviewers::{self, Reviewer};
use super::{cache, guardrails, model_editor, render, triggers};
use crit_project::config::prompt_review::{EditorMode, Mode, PromptConfig};
use crit_review::panel::{self, PanelEnv, Progress, ReviewerPlan, ReviewerRun};

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

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Review `req`. Never fails: problems end in [`Status::FailedOpen`] or
/// [`Status::EditorFailed`] with the original prompt and a warning.
pub async fn review(req: &PromptRequest, opts: &PromptOptions) -> PromptReview {
    let started = Instant::now();
    let deadline = opts.deadline();
    let cfg = &opts.config;
    let ctx = context::build(&req.root, &req.cwd, &cfg.context);
    let context_block = ctx.render();
    let mut review = blank(req, &ctx, opts.mode, cfg.editor.mode);
    review.hashes.context = crit_os::seal::sha256_hex(context_block.as_bytes());
    review.warnings.extend(opts.notes.iter().cloned());

    let mut asked: Vec<(Reviewer, ReviewerPlan)> = Vec::new();
    for s in triggers::select(cfg, &req.prompt, &ctx) {
        let rcfg = cfg.reviewers.get(&s.name).cloned().unwrap_or_default();
        let mut report = report(
            &s.name,
            reviewers::label(&s.name, Some(&rcfg)),
            s.why.clone(),
        );
        if !s.active {
            review.reviewers.push(report);
            continue;
        }
        let planned = reviewers::resolve(&s.name, &rcfg, &ctx.stack)
            .and_then(|r| Ok((r.plan(&req.prompt, &opts.reviewer_model, deadline)?, r)));
        // The report carries the reason as text: it is what the user reads.
        match planned {
            Ok((plan, r)) => {
                report.specialists = r.specialists.clone();
                report.model = Some(opts.reviewer_model.clone());
                asked.push((r, plan));
            }
            Err(e) => {
                report.state = ReviewerState::Failed;
                report.why = e.to_string();
            }
        }
        review.reviewers.push(report);
    }

    let setup = setup_fingerprint(opts, &asked);
    let key = cache::key(&req.prompt, &context_block, &setup);
    if let Some(dir) = &opts.cache_dir
        && let Some(mut hit) = cache::load(dir, &key, &req.prompt, SystemTime::now())
    {
        hit.cached = true;
        hit.usage = Usage::default();
        hit.cost_usd = 0.0;
        hit.api_price_usd = 0.0;
        for r in &mut hit.reviewers {
            r.usage = Usage::default();
            r.cost_usd = 0.0;
            r.api_price_usd = 0.0;
            r.duration_ms = 0;
        }
        hit.duration_ms = millis(started.elapsed());
        hit.trigger = req.trigger.clone();
        hit.source = req.source.clone();
        hit.warnings = opts.notes.clone();
        return hit;
    }

    let backend = match &opts.backend {
        Ok(b) => b,
        Err(why) => {
            return fail_open(
                review,
                started,
                FailedBecause::NoBackend,
                format!("no model backend: {why}"),
            );
        }
    };
    if asked.is_empty() {
        review.warnings.push("no reviewer took part".into());
        return finish(review, started);
    }

    let env = PanelEnv {
        root: req.root.clone(),
        project_context: context_block.clone(),
        progress: opts.progress.clone(),
        cancel: opts.cancel.child_token(),
        ..PanelEnv::default()
    };
    let plans: Vec<ReviewerPlan> = asked.iter().map(|(_, p)| p.clone()).collect();
    let runs = match tokio::time::timeout(deadline + GRACE, panel::run_panel(backend, &plans, &env))
        .await
    {
        Ok(runs) => runs,
        Err(_) => {
            env.cancel.cancel();
            return fail_open(
                review,
                started,
                FailedBecause::Deadline,
                format!("timed out after {:.1}s", deadline.as_secs_f64()),
            );
        }
    };

    let mut rate_limited = None;
    for ((reviewer, _), run) in asked.iter().zip(&runs) {
        let Some(report) = review
            .reviewers
            .iter_mut()
            .find(|r| r.name == reviewer.name)
        else {
            continue;
        };
        report.usage = run.outcome.usage;
        report.api_price_usd = run.outcome.cost_usd.unwrap_or(0.0);
        report.duration_ms = run.outcome.duration_ms;
        if let Some(m) = &run.outcome.model {
            report.model = Some(m.clone());
        }
        match read_run(run, reviewer) {
            Ok(critique) => {
                report.findings = critique.findings.len();
                report.state = if critique.no_issues || critique.findings.is_empty() {
                    ReviewerState::NoIssues
                } else {
                    ReviewerState::Ok
                };
                review.critiques.push(ReviewerCritique {
                    reviewer: reviewer.name.clone(),
                    critique,
                });
            }
            Err((state, why)) => {
                if let Some(crit_llm::LlmError::RateLimited { retry_after, .. }) = &run.failure {
                    rate_limited.get_or_insert_with(|| match retry_after {
                        Some(wait) if *wait > deadline => format!(
                            "{why}; the API asks to wait {}s before retrying, longer than the review's {:.1}s budget",
                            wait.as_secs(),
                            deadline.as_secs_f64()
                        ),
                        _ => why.clone(),
                    });
                }
                report.state = state;
                report.why = why;
            }
        }
        review.usage += run.outcome.usage;
        review.api_price_usd += run.outcome.cost_usd.unwrap_or(0.0);
    }
    review.cost_usd = billed(opts.mode, review.api_price_usd);
    for r in &mut review.reviewers {
        r.cost_usd = billed(opts.mode, r.api_price_usd);
    }

    if let Some(why) = rate_limited {
        return fail_open(
            review,
            started,
            FailedBecause::RateLimited,
            format!("rate limited: {why}"),
        );
    }
    if review.critiques.is_empty() {
        let all_timed_out = review
            .reviewers
            .iter()
            .filter(|r| r.state != ReviewerState::NotRun)
            .all(|r| r.state == ReviewerState::TimedOut);
        let (because, why) = if all_timed_out {
            (
                FailedBecause::Deadline,
                format!("timed out after {:.1}s", deadline.as_secs_f64()),
            )
        } else {
            (
                FailedBecause::ReviewersUnavailable,
                format!("all {} reviewers were unavailable", asked.len()),
            )
        };
        return fail_open(review, started, because, why);
    }
    let unavailable = review.unavailable();
    if unavailable > 0 {
        review.warnings.push(format!(
            "{unavailable} reviewer{} unavailable",
            if unavailable == 1 { "" } else { "s" }
        ));
    }

    let rules: Vec<critique::Rules> = asked.iter().map(|(r, _)| r.rules.clone()).collect();
    let critiques: Vec<critique::Critique> = review
        .critiques
        .iter()
        .map(|c| c.critique.clone())
        .collect();
    let input = EditorInput {
        prompt: &req.prompt,
        critiques: &critiques,
        rules: &rules,
        priority_order: &cfg.editor.priority_order,
    };
    let edited = editor::edit(&input);
    let edit = match edited {
        Ok(edit) => edit,
        Err(e) => {
            review.status = Status::EditorFailed;
            review.failed_because = Some(FailedBecause::EditorFailed);
            review.raw_critiques = Some(render::critique_bullets(&review));
            review.warnings.push(format!(
                "the editor failed ({e}); the raw critiques are shown and the original prompt proceeds"
            ));
            review.findings =
                result::findings(&review.critiques, &req.prompt, req.source.as_deref());
            review.duration_ms = millis(started.elapsed());
            review.decide(None);
            return review;
        }
    };
    // Contradictions the editor cannot see in the words: by meaning.
    let left = deadline.saturating_sub(started.elapsed());
    let edit = guardrails::settle(&mut review, edit, &input, backend, opts, left, &env).await;
    let mut review = apply_edit(review, edit);
    if cfg.editor.mode == EditorMode::Model && review.status == Status::Refined {
        let left = deadline.saturating_sub(started.elapsed());
        model_editor::rephrase(&mut review, backend, opts, left, &env).await;
    }
    let all_answered = review.unavailable() == 0;
    let review = finish(review, started);
    if all_answered && let Some(dir) = &opts.cache_dir {
        let mut stored = review.clone();
        stored.warnings.clear();
        if let Err(e) = cache::store(dir, &key, &req.prompt, &stored, SystemTime::now()) {
            tracing::warn!("prompt review cache {}: {e}", dir.display());
        }
    }
    review
}

fn report(name: &str, label: String, why: String) -> ReviewerReport {
    ReviewerReport {
        name: name.to_string(),
        label,
        state: ReviewerState::NotRun,
        why,
        model: None,
        findings: 0,
        usage: Usage::default(),
        cost_usd: 0.0,
        api_price_usd: 0.0,
        duration_ms: 0,
        specialists: Vec::new(),
    }
}

/// In subscription mode the tokens are part of the user's plan.
fn billed(mode: Mode, api_price: f64) -> f64 {
    match mode {
        Mode::Subscription => 0.0,
        Mode::Api => api_price,
    }
}

/// Everything besides the prompt and the context that decides the answer.
fn setup_fingerprint(opts: &PromptOptions, asked: &[(Reviewer, ReviewerPlan)]) -> String {
    let mut s = serde_json::to_string(&opts.config).unwrap_or_default();
    s.push('\0');
    s.push_str(&opts.backend_label);
    s.push('\0');
    s.push_str(&opts.editor_model);
    for (_, p) in asked {
        s.push('\0');
        s.push_str(&p.name);
        s.push('\0');
        s.push_str(&p.model);
        s.push('\0');
        s.push_str(&p.system);
    }
    s
}

/// The critique in a reviewer's run, or its state and why there is none.
fn read_run(
    run: &ReviewerRun,
    reviewer: &Reviewer,
) -> Result<critique::Critique, (ReviewerState, String)> {
    use crit_core::ReviewerStatus;
    let error = || {
        run.outcome
            .error
            .clone()
            .or_else(|| run.parse_error.clone())
            .unwrap_or_else(|| "no answer".into())
    };
    if run.timed_out {
        return Err((ReviewerState::TimedOut, error()));
    }
    match run.outcome.status {
        ReviewerStatus::Failed | ReviewerStatus::Incomplete | ReviewerStatus::Skipped => {
            return Err((ReviewerState::Failed, error()));
        }
        ReviewerStatus::Completed | ReviewerStatus::ParseError => {}
    }
    let Some(answer) = &run.structured else {
        return Err((
            ReviewerState::Skipped,
            format!("malformed critique: {}", error()),
        ));
    };
    critique::check(answer, &reviewer.rules)
        .map_err(|why| (ReviewerState::Skipped, format!("malformed critique: {why}")))
}

fn fail_open(
    mut review: PromptReview,
    started: Instant,
    because: FailedBecause,
    why: String,
) -> PromptReview {
    review.status = Status::FailedOpen;
    review.failed_because = Some(because);
    review.refined = review.original.clone();
    review.warnings.push(format!(
        "prompt review could not run ({why}); the original prompt proceeds"
    ));
    review.duration_ms = millis(started.elapsed());
    review.decide(None);
    review
}

fn apply_edit(mut review: PromptReview, edit: Edit) -> PromptReview {
    review.status = if edit.changed() {
        Status::Refined
    } else {
        Status::NoChanges
    };
    review.refined = edit.refined;
    review.changes = edit.applied;
    review.deduplicated = edit.deduplicated;
    review.dropped = edit.dropped;
    review.conflicts = edit.conflicts;
    review.disagreements = edit.disagreements;
    review
}

fn finish(mut review: PromptReview, started: Instant) -> PromptReview {
    review.findings = result::findings(
        &review.critiques,
        &review.original,
        review.source.as_deref(),
    );
    review.diff = result::unified_diff(&review.original, &review.refined);
    review.duration_ms = millis(started.elapsed());
    review.outcome = match review.status {
        Status::Refined => Outcome::Reviewed,
        Status::NoChanges => Outcome::NoChanges,
        _ => Outcome::FailedOpen,
    };
    if review.status == Status::NoChanges {
        review.chosen = Some(review.original.clone());
    }
    review
}
