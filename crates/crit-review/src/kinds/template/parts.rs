//! Running the parts of a split change: each part is the same panel with the
//! same instructions and conventions over its own piece of the diff. Parts
//! run side by side, as many at a time as the provider's rate limits allow
//! (see the engine's pace), after the first part's first request
//! has written the shared prefix to the prompt cache when the others can
//! read it (else all at once); a part that would start
//! after the review's budget is spent is not sent, and says so.

use crit_agent::RunLimits;
use crit_core::{LeftOutCause, ReviewerStatus};
use crit_llm::Backend;
use tokio_util::sync::CancellationToken;

use super::coverage::PartOutcome;
use crate::engine::pace::{self, Pace};
use crate::engine::panel::{self, PanelEnv, ReviewerPlan, ReviewerRun};

/// Runs each part's plans; returns, per part, its runs and how it went.
pub(super) async fn run(
    backend: &Backend,
    parts: &[Vec<ReviewerPlan>],
    env: &PanelEnv,
    limits: RunLimits,
) -> Vec<(Vec<ReviewerRun>, PartOutcome)> {
    let warmed = CancellationToken::new();
    let pace = Pace::new(pace::START);
    let hold = parts.len() > 1
        && parts
            .first()
            .and_then(|p| p.first())
            .is_some_and(|first| panel::parts_wait(backend, first, env));
    let runs = parts.iter().enumerate().map(|(i, plans)| {
        let (warmed, pace) = (warmed.clone(), pace.clone());
        async move {
            if i > 0 && hold {
                tokio::select! {
                    () = warmed.cancelled() => {}
                    () = env.cancel.cancelled() => {}
                }
            }
            let slot = pace.slot().await;
            let not_sent = match spent(env, &limits) {
                Some(why) => Some(skipped(LeftOutCause::Budget, why)),
                None if env.cancel.is_cancelled() => Some(skipped(
                    LeftOutCause::ReviewerFailed,
                    "the review was cancelled".into(),
                )),
                None => None,
            };
            if let Some(outcome) = not_sent {
                warmed.cancel();
                if let Some(slot) = slot {
                    pace.done(slot, None);
                }
                return (Vec::new(), outcome);
            }
            let runs = match i {
                0 => panel::run_panel_warming(backend, plans, env, &warmed).await,
                _ => panel::run_panel(backend, plans, env).await,
            };
            if let Some(slot) = slot {
                pace.done(slot, backend.model.headroom());
            }
            let outcome = outcome(&runs);
            (runs, outcome)
        }
    });
    let ran = futures_util::future::join_all(runs).await;
    let (limit, peak) = pace.stats();
    tracing::debug!(parts = parts.len(), peak, limit, "parts in flight");
    ran
}

/// Why a part may not start: the budget is spent.
fn spent(env: &PanelEnv, limits: &RunLimits) -> Option<String> {
    if let Some(max) = limits.max_budget_usd
        && env.spend.usd() >= max
    {
        return Some(format!(
            "the review's budget of ${max:.2} was spent (${:.2}) before this part ran",
            env.spend.usd()
        ));
    }
    if let Some(max) = limits.max_tokens
        && env.spend.tokens() >= max
    {
        return Some(format!(
            "the review's budget of {max} tokens was spent before this part ran"
        ));
    }
    None
}

fn skipped(cause: LeftOutCause, why: String) -> PartOutcome {
    PartOutcome {
        skipped: Some((cause, why)),
        ..PartOutcome::default()
    }
}

fn outcome(runs: &[ReviewerRun]) -> PartOutcome {
    let mut o = PartOutcome::default();
    for r in runs {
        match r.outcome.status {
            ReviewerStatus::Completed => o.done.push(r.outcome.name.clone()),
            ReviewerStatus::Skipped => {}
            _ => o.failed.push((
                r.outcome.name.clone(),
                r.outcome
                    .error
                    .clone()
                    .or_else(|| r.parse_error.clone())
                    .unwrap_or_else(|| format!("{:?}", r.outcome.status).to_lowercase()),
            )),
        }
    }
    o
}
