//! The phases of one prompt review, in the order [`super::review`] runs them:
//! the reviewers the prompt calls for, a cached answer, the panel asked, its
//! answers read, the editor, the cache filled; and how a review ends (fails
//! open, or finishes with its findings and diff).

use std::time::{Duration, Instant, SystemTime};

use crit_core::Usage;
use crit_llm::Backend;

use super::{GRACE, PromptOptions, PromptRequest};
use crate::context::ProjectContext;
use crate::critique;
use crate::editor::{self, Edit, EditorError, EditorInput};
use crate::result::{
    self, FailedBecause, Outcome, PromptReview, ReviewerCritique, ReviewerReport, ReviewerState,
    Status,
};
use crate::reviewers::{self, Reviewer};
use crate::{cache, guardrails, model_editor, render, triggers};
use crit_project::config::prompt_review::{EditorMode, Mode};
use crit_review::panel::{self, PanelEnv, ReviewerPlan, ReviewerRun};

/// A reviewer the prompt called for, with what it is asked.
pub(super) type Asked = (Reviewer, ReviewerPlan);

/// The reviewers the prompt's triggers select, each planned (a reviewer that
/// cannot be is reported as failed, with why); every one selected, active or
/// not, gets its report.
pub(super) fn plan_reviewers(
    review: &mut PromptReview,
    req: &PromptRequest,
    opts: &PromptOptions,
    ctx: &ProjectContext,
) -> Vec<Asked> {
    let cfg = &opts.config;
    let mut asked = Vec::new();
    for s in triggers::select(cfg, &req.prompt, ctx) {
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
        let planned = reviewers::resolve(&s.name, &rcfg, &ctx.stack).and_then(|r| {
            Ok((
                r.plan(&req.prompt, &opts.reviewer_model, opts.deadline())?,
                r,
            ))
        });
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
    asked
}

/// The review the cache holds under `key`, as this request's (nothing spent
/// on it, this request's trigger, source and notes).
pub(super) fn cached(
    req: &PromptRequest,
    opts: &PromptOptions,
    key: &str,
    started: Instant,
) -> Option<PromptReview> {
    let dir = opts.cache_dir.as_ref()?;
    let mut hit = cache::load(dir, key, &req.prompt, SystemTime::now())?;
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
    Some(hit)
}

/// The panel's runs, or `None` when it outlived the deadline (its reviewers
/// are then cancelled).
pub(super) async fn ask(
    backend: &Backend,
    asked: &[Asked],
    env: &PanelEnv,
    deadline: Duration,
) -> Option<Vec<ReviewerRun>> {
    let plans: Vec<ReviewerPlan> = asked.iter().map(|(_, p)| p.clone()).collect();
    match tokio::time::timeout(deadline + GRACE, panel::run_panel(backend, &plans, env)).await {
        Ok(runs) => Some(runs),
        Err(_) => {
            env.cancel.cancel();
            None
        }
    }
}

/// Each run into its reviewer's report, and its critique, usage and price
/// into the review; what it is billed in `mode`. The first rate limit a
/// reviewer met, said for people.
pub(super) fn record(
    review: &mut PromptReview,
    asked: &[Asked],
    runs: &[ReviewerRun],
    mode: Mode,
    deadline: Duration,
) -> Option<String> {
    let mut rate_limited = None;
    for ((reviewer, _), run) in asked.iter().zip(runs) {
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
    review.cost_usd = billed(mode, review.api_price_usd);
    for r in &mut review.reviewers {
        r.cost_usd = billed(mode, r.api_price_usd);
    }
    rate_limited
}

/// Why the review cannot go on to the editor: a rate limit, or no critique
/// at all (every reviewer timed out, or was unavailable). Otherwise a
/// warning names the reviewers that were unavailable, if any.
pub(super) fn unanswered(
    review: &mut PromptReview,
    asked: usize,
    rate_limited: Option<String>,
    deadline: Duration,
) -> Option<(FailedBecause, String)> {
    if let Some(why) = rate_limited {
        return Some((FailedBecause::RateLimited, format!("rate limited: {why}")));
    }
    if review.critiques.is_empty() {
        let all_timed_out = review
            .reviewers
            .iter()
            .filter(|r| r.state != ReviewerState::NotRun)
            .all(|r| r.state == ReviewerState::TimedOut);
        return Some(if all_timed_out {
            (
                FailedBecause::Deadline,
                format!("timed out after {:.1}s", deadline.as_secs_f64()),
            )
        } else {
            (
                FailedBecause::ReviewersUnavailable,
                format!("all {asked} reviewers were unavailable"),
            )
        });
    }
    let unavailable = review.unavailable();
    if unavailable > 0 {
        review.warnings.push(format!(
            "{unavailable} reviewer{} unavailable",
            if unavailable == 1 { "" } else { "s" }
        ));
    }
    None
}

/// The critiques merged into a refined prompt: the deterministic editor, the
/// guardrail check by meaning, then the model editor when it is the mode.
/// `Err` is the finished review when the editor gave up.
pub(super) async fn refine(
    mut review: PromptReview,
    req: &PromptRequest,
    opts: &PromptOptions,
    asked: &[Asked],
    backend: &Backend,
    env: &PanelEnv,
    started: Instant,
) -> Result<PromptReview, PromptReview> {
    let cfg = &opts.config;
    let deadline = opts.deadline();
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
    let edit = match editor::edit(&input) {
        Ok(edit) => edit,
        Err(e) => return Err(editor_failed(review, req, started, &e)),
    };
    // Contradictions the editor cannot see in the words: by meaning.
    let left = deadline.saturating_sub(started.elapsed());
    let edit = guardrails::settle(&mut review, edit, &input, backend, opts, left, env).await;
    let mut review = apply_edit(review, edit);
    if cfg.editor.mode == EditorMode::Model && review.status == Status::Refined {
        let left = deadline.saturating_sub(started.elapsed());
        model_editor::rephrase(&mut review, backend, opts, left, env).await;
    }
    Ok(review)
}

/// The editor gave up: the raw critiques are shown, the original proceeds.
fn editor_failed(
    mut review: PromptReview,
    req: &PromptRequest,
    started: Instant,
    e: &EditorError,
) -> PromptReview {
    review.status = Status::EditorFailed;
    review.failed_because = Some(FailedBecause::EditorFailed);
    review.raw_critiques = Some(render::critique_bullets(&review));
    review.warnings.push(format!(
        "the editor failed ({e}); the raw critiques are shown and the original prompt proceeds"
    ));
    review.findings = result::findings(&review.critiques, &req.prompt, req.source.as_deref());
    review.duration_ms = millis(started.elapsed());
    review.decide(None);
    review
}

/// A finished review every reviewer answered, kept for the same prompt in
/// the same setup (without its warnings, which are the request's).
pub(super) fn store(req: &PromptRequest, opts: &PromptOptions, key: &str, review: &PromptReview) {
    let Some(dir) = &opts.cache_dir else {
        return;
    };
    let mut stored = review.clone();
    stored.warnings.clear();
    if let Err(e) = cache::store(dir, key, &req.prompt, &stored, SystemTime::now()) {
        tracing::warn!("prompt review cache {}: {e}", dir.display());
    }
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
pub(super) fn setup_fingerprint(opts: &PromptOptions, asked: &[Asked]) -> String {
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

pub(super) fn fail_open(
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

pub(super) fn finish(mut review: PromptReview, started: Instant) -> PromptReview {
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

pub(super) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
