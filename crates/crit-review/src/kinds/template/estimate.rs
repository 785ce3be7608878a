//! What a review is about to spend, known before its first request: how many
//! parts and requests, the added lines they carry, the input tokens of the
//! first request of each reviewer of each part (`ceil(bytes / 4)`, as crit
//! estimates everywhere) and a cost range on each request's model at list
//! prices. The low end is one turn per request with a short answer; the high
//! end a few turns (every earlier turn sent again, at full price) and a long
//! answer. The front end decides with [`Spending`] whether it is spent.

use std::collections::BTreeSet;

use crit_core::{Source, Sourced, Usage};
use serde::Serialize;

use crate::engine::panel::ReviewerPlan;

/// Output tokens of a short answer: a verdict, a summary, a finding or two.
const LOW_OUTPUT: u64 = 500;
/// Output tokens of a long answer with several findings and tool calls.
const HIGH_OUTPUT: u64 = 4_000;
/// The high end sends each request's input this many times at full price.
const HIGH_INPUT_TIMES: u64 = 2;
/// Bytes a tool's name, description and schema add to a request, about.
const TOOL_BYTES: usize = 1_200;

/// A review's plan and what it may cost, before anything is sent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CostPlan {
    /// Parts the change is split into (1 when it fits one request).
    pub parts: usize,
    /// First requests: one per reviewer and part.
    pub requests: usize,
    /// Added lines the parts carry (`None`: not a diff, documents).
    pub added_lines: Option<usize>,
    /// Estimated input tokens of those first requests.
    pub input_tokens: u64,
    /// The models asked, each once.
    pub models: Vec<String>,
    /// The cost range in USD; `None` when a model has no known price.
    pub usd_low: Option<f64>,
    pub usd_high: Option<f64>,
}

impl CostPlan {
    /// One line for a person: `3 parts, 2 requests each…`.
    pub fn describe(&self) -> String {
        let cost = match (self.usd_low, self.usd_high) {
            (Some(lo), Some(hi)) => format!("${lo:.2}–${hi:.2}"),
            _ => "cost unknown (a model has no known price)".to_string(),
        };
        format!(
            "{} part{}, {} request{}{}, about {} input tokens on {}: {cost}",
            self.parts,
            plural(self.parts),
            self.requests,
            plural(self.requests),
            match self.added_lines {
                Some(n) => format!(", {n} added line{}", plural(n)),
                None => String::new(),
            },
            thousands(self.input_tokens),
            match self.models.is_empty() {
                true => "the backend's default model".to_string(),
                false => self.models.join(", "),
            },
        )
    }
}

/// Asked once, before a review's first request: whether to spend what the
/// plan says. A library caller with no one to ask sets none.
pub trait Spending: Send + Sync {
    /// `true` sends the review; `false` stops it before anything is sent.
    fn approve(&self, plan: &CostPlan) -> bool;

    /// What the review approved with `plan` may spend in all (USD): its
    /// reviewers stop there, and the review is INCOMPLETE, for an estimate
    /// is no promise. `None`: no ceiling (the user allowed any cost).
    fn ceiling(&self, plan: &CostPlan) -> Option<f64> {
        let _ = plan;
        None
    }
}

/// Whether a review on a model with no known price goes out without anyone
/// saying yes, under the spending `limit` (`max_cost_usd`): only when the
/// limit is crit's default. Such a review's spending is never counted, so a
/// limit the user set could not hold it (it fails closed); under crit's own
/// default it is sent, its cost said to be unknown, or a gate on a local
/// model would hold every stop. Every front end asks this one question.
pub fn sends_unpriced(limit: &Sourced<f64>) -> bool {
    limit.source == Source::Default
}

/// No one to ask (an agent's hook, a library caller): a review whose
/// estimate is over the limit is not sent, and one that is spends at most
/// the limit; one on a model with no known price as [`sends_unpriced`] says.
#[derive(Debug, Clone, PartialEq)]
pub struct HoldToLimit {
    /// `max_cost_usd` and where it was set.
    pub limit: Sourced<f64>,
}

impl Spending for HoldToLimit {
    fn approve(&self, plan: &CostPlan) -> bool {
        plan.requests == 0
            || match plan.usd_high {
                Some(high) => high <= self.limit.value,
                None => sends_unpriced(&self.limit),
            }
    }

    fn ceiling(&self, _: &CostPlan) -> Option<f64> {
        Some(self.limit.value)
    }
}

/// The plan of a review whose every part's requests are `parts` (each
/// part's reviewers' plans) carrying `added_lines` added lines.
pub(crate) fn plan(parts: &[Vec<ReviewerPlan>], added_lines: Option<usize>) -> CostPlan {
    let requests = parts.iter().map(|p| p.iter().map(request_tokens));
    let plans = parts.iter().flatten();
    plan_of(plans.zip(requests.flatten()), parts.len(), added_lines)
}

/// The plan when only the first part is built: every other part's requests
/// are the first part's with its work replaced by theirs. `work_bytes`:
/// each part's diff, in bytes.
pub(crate) fn plan_from_first(
    first: &[ReviewerPlan],
    work_bytes: &[usize],
    added_lines: Option<usize>,
) -> CostPlan {
    let first_work = work_bytes.first().copied().unwrap_or(0);
    let requests = work_bytes.iter().flat_map(|w| {
        first.iter().map(move |p| {
            let fixed = request_bytes(p).saturating_sub(first_work);
            (p, tokens(fixed + w))
        })
    });
    plan_of(requests, work_bytes.len(), added_lines)
}

fn plan_of<'a>(
    requests: impl Iterator<Item = (&'a ReviewerPlan, u64)>,
    parts: usize,
    added_lines: Option<usize>,
) -> CostPlan {
    let mut plan = CostPlan {
        parts,
        requests: 0,
        added_lines,
        input_tokens: 0,
        models: Vec::new(),
        usd_low: Some(0.0),
        usd_high: Some(0.0),
    };
    let mut models = BTreeSet::new();
    for (p, input) in requests {
        plan.requests += 1;
        plan.input_tokens += input;
        if !p.model.is_empty() {
            models.insert(crit_llm::pricing::resolve_alias(&p.model));
        }
        let low = price(&p.model, input, LOW_OUTPUT);
        let high = price(&p.model, input * HIGH_INPUT_TIMES, HIGH_OUTPUT);
        plan.usd_low = plan.usd_low.zip(low).map(|(a, b)| a + b);
        plan.usd_high = plan.usd_high.zip(high).map(|(a, b)| a + b);
    }
    plan.models = models.into_iter().collect();
    plan
}

/// One request's price at list rates, each request priced alone (a long
/// context's higher rates apply per request).
fn price(model: &str, input: u64, output: u64) -> Option<f64> {
    let usage = Usage {
        input_tokens: input,
        output_tokens: output,
        ..Usage::default()
    };
    let cost = crit_llm::pricing::cost(model, &usage);
    cost.priced.then_some(cost.usd)
}

fn request_bytes(p: &ReviewerPlan) -> usize {
    let shared = p
        .shared
        .as_ref()
        .map(|s| s.system.len() + s.work.len())
        .unwrap_or(0);
    shared + p.system.len() + p.user.len() + TOOL_BYTES * p.tools.len()
}

fn request_tokens(p: &ReviewerPlan) -> u64 {
    tokens(request_bytes(p))
}

fn tokens(bytes: usize) -> u64 {
    (bytes as u64).div_ceil(4)
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::panel::SharedPrompt;

    fn reviewer(model: &str, work: usize) -> ReviewerPlan {
        ReviewerPlan {
            name: "r".into(),
            model: model.into(),
            system: String::new(),
            user: "u".repeat(400),
            shared: Some(SharedPrompt {
                system: "s".repeat(4_000),
                work: "w".repeat(work),
            }),
            tools: Vec::new(),
            output: crate::OutputSpec::Schema(serde_json::json!({})),
            limits: Default::default(),
            max_output_tokens: 100,
            sub_agents: Vec::new(),
        }
    }

    #[test]
    fn the_first_part_stands_for_the_others_with_their_own_work() {
        let built = plan(
            &[
                vec![reviewer("sonnet", 40_000)],
                vec![reviewer("sonnet", 8_000)],
            ],
            Some(120),
        );
        let guessed = plan_from_first(&[reviewer("sonnet", 40_000)], &[40_000, 8_000], Some(120));
        assert_eq!(built, guessed);
        assert_eq!(built.requests, 2);
        assert_eq!(built.input_tokens, (44_400 + 12_400) / 4);
        let (lo, hi) = (built.usd_low.unwrap(), built.usd_high.unwrap());
        assert!(lo > 0.0 && hi > lo, "{lo} {hi}");
        assert!(built.describe().contains("2 parts"), "{}", built.describe());
    }

    #[test]
    fn an_unpriced_model_makes_the_cost_unknown_never_zero() {
        let p = plan(&[vec![reviewer("no-such-model-x", 100)]], None);
        assert_eq!((p.usd_low, p.usd_high), (None, None));
        assert!(p.describe().contains("cost unknown"), "{}", p.describe());
        // A limit cannot hold what is never counted: not sent.
        let set = HoldToLimit {
            limit: Sourced::explicit(100.0, "--max-cost"),
        };
        assert!(!set.approve(&p));
        let default = HoldToLimit {
            limit: Sourced::new(100.0, Source::Default),
        };
        assert!(default.approve(&p));
    }
}
