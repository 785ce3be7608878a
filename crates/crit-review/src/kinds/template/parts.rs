//! Running the parts of a split change: each part is the same panel with the
//! same instructions and conventions over its own piece of the diff. A part
//! is sent as soon as it is built, while the next ones are built. Parts
//! run side by side, as many at a time as the provider's rate limits allow
//! (see the engine's pace), after the first part's first request
//! has written the shared prefix to the prompt cache when the others can
//! read it (else all at once); a part that would start
//! after the review's budget is spent is not sent, and says so.

use crit_agent::RunLimits;
use crit_core::{LeftOutCause, ReviewerStatus};
use crit_llm::Backend;
use tokio_util::sync::CancellationToken;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use futures_util::stream::{FuturesUnordered, StreamExt};

use super::ReviewError;
use super::coverage::PartOutcome;
use crate::engine::pace::{self, Pace};
use crate::engine::panel::{self, PanelEnv, ProgressEvent, ReviewerPlan, ReviewerRun};

/// How many parts may be built and not yet sent: the planning runs ahead of
/// the requests by this much, no more (a big change's parts are not all
/// held in memory while the first ones wait for the provider).
const LOOKAHEAD: usize = 4;

/// Runs each part's plans as it is built: `first` is part 0's, `build(i)`
/// makes part `i`'s (`None`: there are no more) while the parts before it
/// are already on their way. `expected`: how many parts the estimate
/// counted, for the progress until the last is built. Returns, per part
/// built, its runs and how it went, and the error that stopped the
/// building, if one did (the parts already sent still finish, and are
/// returned).
pub(super) async fn run(
    backend: &Backend,
    first: Vec<ReviewerPlan>,
    expected: usize,
    mut build: impl FnMut(usize) -> Result<Option<Vec<ReviewerPlan>>, ReviewError>,
    env: &PanelEnv,
    limits: RunLimits,
) -> (Vec<(Vec<ReviewerRun>, PartOutcome)>, Option<ReviewError>) {
    let warmed = CancellationToken::new();
    let pace = Pace::new(pace::START);
    let tally = Tally::new(expected.max(1), env);
    // Under a budget the later parts also wait for the first part's first
    // answer: what a request really costs is known before they are let in.
    let hold = limits.max_budget_usd.is_some()
        || first
            .first()
            .is_some_and(|p| panel::parts_wait(backend, p, env));
    let held = Reserved::default();
    let ahead = Arc::new(Semaphore::new(LOOKAHEAD));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut failed = None;
    tally.built();
    let _ = tx.send((0, first, None));
    let building = async {
        for i in 1.. {
            // Waits until few enough built parts wait to be sent, and lets
            // the parts already built go out before this one is made.
            let Ok(permit) = Arc::clone(&ahead).acquire_owned().await else {
                break;
            };
            tokio::task::yield_now().await;
            match build(i) {
                Ok(Some(plans)) => {
                    tally.built();
                    if tx.send((i, plans, Some(permit))).is_err() {
                        break;
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        tally.planned();
        drop(tx);
    };
    let one = |i: usize, plans: Vec<ReviewerPlan>, permit: Option<OwnedSemaphorePermit>| {
        let (warmed, pace, tally, held) = (warmed.clone(), pace.clone(), &tally, &held);
        async move {
            if i > 0 && hold {
                tokio::select! {
                    () = warmed.cancelled() => {}
                    () = env.cancel.cancelled() => {}
                }
            }
            let slot = pace.slot().await;
            // Sent or not, it no longer waits: the next part may be built.
            drop(permit);
            let reserve = held.reserve(env, &limits, &plans);
            let not_sent = match spent(env, &limits)
                .or_else(|| reserve.clone().err().map(|e| e.to_string()))
            {
                Some(why) => Some(skipped(LeftOutCause::Budget, why)),
                None if env.cancel.is_cancelled() => Some(skipped(
                    LeftOutCause::ReviewerFailed,
                    "the review was cancelled".into(),
                )),
                None => None,
            };
            if let Some(outcome) = not_sent {
                if let Ok(r) = reserve {
                    held.release(r);
                }
                warmed.cancel();
                if let Some(slot) = slot {
                    pace.done(slot, None);
                }
                tally.answered();
                return (i, (Vec::new(), outcome));
            }
            tally.sent();
            let runs = match i {
                0 => panel::run_panel_warming(backend, &plans, env, &warmed).await,
                _ => panel::run_panel(backend, &plans, env).await,
            };
            if let Ok(r) = reserve {
                let cost = runs.iter().filter_map(|run| run.outcome.cost_usd).sum();
                held.release(r);
                held.finished(cost);
            }
            if let Some(slot) = slot {
                pace.done(slot, backend.model.headroom());
            }
            tally.answered();
            let outcome = outcome(&runs);
            (i, (runs, outcome))
        }
    };
    let running = async {
        let mut ran: Vec<Option<(Vec<ReviewerRun>, PartOutcome)>> = Vec::new();
        let mut in_flight = FuturesUnordered::new();
        let mut open = true;
        loop {
            tokio::select! {
                got = rx.recv(), if open => match got {
                    Some((i, plans, permit)) => {
                        if ran.len() <= i {
                            ran.resize_with(i + 1, || None);
                        }
                        in_flight.push(one(i, plans, permit));
                    }
                    None => open = false,
                },
                Some((i, done)) = in_flight.next(), if !in_flight.is_empty() => {
                    if let Some(slot) = ran.get_mut(i) {
                        *slot = Some(done);
                    }
                }
                else => break,
            }
        }
        ran
    };
    let ((), ran) = tokio::join!(building, running);
    let (limit, peak) = pace.stats();
    tracing::debug!(parts = ran.len(), peak, limit, "parts in flight");
    let ran = ran
        .into_iter()
        .map(|r| r.unwrap_or_else(|| (Vec::new(), never_built())))
        .collect();
    (ran, failed)
}

/// A part never built (building stopped) is never sent: said so.
pub(super) fn never_built() -> PartOutcome {
    skipped(
        LeftOutCause::ReviewerFailed,
        "the review stopped before this part was built".into(),
    )
}

/// The parts' progress, said once the first part is built and once as each
/// part is answered (at most one line per part).
struct Tally<'a> {
    /// The estimate's count until every part is built, then the count.
    total: AtomicUsize,
    env: &'a PanelEnv,
    built: AtomicUsize,
    sent: AtomicUsize,
    answered: AtomicUsize,
}

impl<'a> Tally<'a> {
    fn new(total: usize, env: &'a PanelEnv) -> Self {
        Tally {
            total: AtomicUsize::new(total),
            env,
            built: AtomicUsize::new(0),
            sent: AtomicUsize::new(0),
            answered: AtomicUsize::new(0),
        }
    }

    fn built(&self) {
        if self.built.fetch_add(1, Ordering::Relaxed) == 0 {
            self.say();
        }
    }

    /// Every part is built: their number is known.
    fn planned(&self) {
        let built = self.built.load(Ordering::Relaxed);
        self.total.store(built, Ordering::Relaxed);
    }

    fn sent(&self) {
        self.sent.fetch_add(1, Ordering::Relaxed);
    }

    fn answered(&self) {
        self.answered.fetch_add(1, Ordering::Relaxed);
        self.say();
    }

    fn say(&self) {
        // One part: the reviewers' own lines say it all.
        let built = self.built.load(Ordering::Relaxed);
        let total = self.total.load(Ordering::Relaxed).max(built);
        let (Some(p), true) = (&self.env.progress, total > 1) else {
            return;
        };
        p.event(&ProgressEvent::Parts {
            total,
            built,
            sent: self.sent.load(Ordering::Relaxed),
            answered: self.answered.load(Ordering::Relaxed),
            tokens: self.env.spend.tokens(),
            cost_usd: self.env.spend.usd(),
        });
    }
}

/// What the parts in flight may still spend, held against the budget so
/// that parts running side by side cannot each spend all of it.
#[derive(Default)]
struct Reserved {
    /// USD held for the parts in flight, and how many parts were let in.
    inner: std::sync::Mutex<(f64, usize)>,
    /// The most a finished part cost, in micro-dollars.
    most: std::sync::atomic::AtomicU64,
}

/// Why a part was not started: it would pass the review's budget.
#[derive(Debug, Clone, thiserror::Error)]
enum NotReserved {
    #[error("the review's budget could not be checked")]
    Unchecked,
    #[error(
        "the review's budget of ${max:.2} would be passed: ${spent:.2} spent and ${held:.2} held for the parts under way, about ${share:.2} more for this part; it was not sent"
    )]
    OverBudget {
        max: f64,
        spent: f64,
        held: f64,
        share: f64,
    },
}

impl Reserved {
    /// Holds a part's share before it starts: its estimate, or what parts
    /// have cost so far (on average, or the most a finished one cost) when
    /// that is more: an estimate is no promise.
    /// `Err`: spent and held, it would pass the budget; not started.
    fn reserve(
        &self,
        env: &PanelEnv,
        limits: &RunLimits,
        plans: &[ReviewerPlan],
    ) -> Result<f64, NotReserved> {
        let Ok(mut held) = self.inner.lock() else {
            return Err(NotReserved::Unchecked);
        };
        let spent = env.spend.usd();
        let estimate = super::estimate::plan(&[plans.to_vec()], None)
            .usd_high
            .unwrap_or(0.0);
        let seen = match held.1 {
            0 => 0.0,
            n => spent / n as f64,
        }
        .max(self.most.load(Ordering::Relaxed) as f64 / 1e6);
        let share = estimate.max(seen);
        if let Some(max) = limits.max_budget_usd
            && held.1 > 0
            && spent + held.0 + share > max
        {
            return Err(NotReserved::OverBudget {
                max,
                spent,
                held: held.0,
                share,
            });
        }
        held.0 += share;
        held.1 += 1;
        Ok(share)
    }

    fn release(&self, share: f64) {
        if let Ok(mut held) = self.inner.lock() {
            held.0 = (held.0 - share).max(0.0);
        }
    }

    fn finished(&self, cost_usd: f64) {
        let micro = (cost_usd.max(0.0) * 1e6).min(u64::MAX as f64) as u64;
        self.most.fetch_max(micro, Ordering::Relaxed);
    }
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
