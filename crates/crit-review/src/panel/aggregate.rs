//! The panel's answers merged into one result: all must pass.

use crit_core::{FailOn, ReviewResult, ReviewerOutcome, ReviewerStatus, Verdict};
use serde_json::Value;

use super::ReviewerRun;

/// Merge `runs` into the result of `review`. Every finding is kept with its
/// reviewer's name; usage and cost add up; the verdict is the most serious
/// any reviewer gave; `passed` follows the default gate (callers re-apply
/// theirs). A reviewer that did not finish makes the whole result not pass.
pub fn aggregate(review: &str, runs: &[ReviewerRun]) -> ReviewResult {
    let active: Vec<&ReviewerRun> = runs
        .iter()
        .filter(|r| r.outcome.status != ReviewerStatus::Skipped)
        .collect();
    let verdict = Verdict::combine(active.iter().map(|r| r.outcome.verdict));
    let mut result = ReviewResult::new(review, verdict);
    for run in runs {
        result.findings.extend(run.findings.iter().cloned());
        result.reviewers.push(run.outcome.clone());
        result.usage += run.outcome.usage;
        result.cost_usd = crit_core::usage::add_cost(result.cost_usd, run.outcome.cost_usd);
    }
    result
        .warnings
        .extend(unpriced(runs.iter().map(|r| &r.outcome)));
    result.duration_ms = runs
        .iter()
        .map(|r| r.outcome.duration_ms)
        .max()
        .unwrap_or(0);
    let single = active.len() == 1;
    result.summary = labelled(&active, single, |r| r.summary.as_str());
    result.raw_output = labelled(&active, single, |r| r.raw.as_str());
    result.parse_error = merged_parse_error(&active);
    result.structured_output = merged_structured(&active);
    result.apply_gate(FailOn::default());
    result
}

/// One warning per model with no known price (the review's cost is `null`).
pub fn unpriced<'a>(outcomes: impl Iterator<Item = &'a ReviewerOutcome>) -> Vec<String> {
    let mut models: Vec<String> = Vec::new();
    for o in outcomes.filter(|o| o.cost_usd.is_none()) {
        let model = o.model.clone().unwrap_or_else(|| o.name.clone());
        if !models.contains(&model) {
            models.push(model);
        }
    }
    models
        .into_iter()
        .map(|m| format!("model `{m}` has no known price: the cost is unknown (cost_usd is null)"))
        .collect()
}

/// One reviewer's text as is; several, each under its name.
fn labelled(runs: &[&ReviewerRun], single: bool, text: impl Fn(&ReviewerRun) -> &str) -> String {
    if single {
        return runs
            .first()
            .map(|r| text(r).to_string())
            .unwrap_or_default();
    }
    runs.iter()
        .filter(|r| !text(r).trim().is_empty())
        .map(|r| format!("[{}] {}", r.outcome.name, text(r).trim()))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// One reviewer's `parse_error` as is (seed 003's exact strings, `timeout`);
/// several, each with its reviewer's name — except that a panel where every
/// failure was a timeout says just `timeout`.
fn merged_parse_error(runs: &[&ReviewerRun]) -> Option<String> {
    let errors: Vec<(&str, &str)> = runs
        .iter()
        .filter_map(|r| Some((r.outcome.name.as_str(), r.parse_error.as_deref()?)))
        .collect();
    if runs.is_empty() {
        return Some("no reviewer ran".into());
    }
    match errors.as_slice() {
        [] => None,
        [(_, e)] if runs.len() == 1 => Some((*e).to_string()),
        _ if errors.iter().all(|(_, e)| *e == "timeout") => Some("timeout".into()),
        _ => Some(
            errors
                .iter()
                .map(|(n, e)| format!("{n}: {e}"))
                .collect::<Vec<_>>()
                .join("; "),
        ),
    }
}

fn merged_structured(runs: &[&ReviewerRun]) -> Option<Value> {
    let with: Vec<&&ReviewerRun> = runs.iter().filter(|r| r.structured.is_some()).collect();
    match with.as_slice() {
        [] => None,
        [one] => one.structured.clone(),
        many => Some(Value::Object(
            many.iter()
                .map(|r| {
                    (
                        r.outcome.name.clone(),
                        r.structured.clone().unwrap_or(Value::Null),
                    )
                })
                .collect::<serde_json::Map<_, _>>(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crit_core::{Finding, Severity, Usage};

    fn run(name: &str, verdict: Verdict, parse_error: Option<&str>) -> ReviewerRun {
        ReviewerRun {
            outcome: ReviewerOutcome {
                name: name.into(),
                status: if parse_error.is_some() {
                    ReviewerStatus::ParseError
                } else {
                    ReviewerStatus::Completed
                },
                verdict,
                model: None,
                findings: 0,
                usage: Usage {
                    input_tokens: 10,
                    output_tokens: 5,
                    ..Usage::default()
                },
                cost_usd: Some(0.25),
                duration_ms: 100,
                error: None,
            },
            findings: Vec::new(),
            summary: format!("{name} summary"),
            raw: format!("{name} raw"),
            structured: None,
            parse_error: parse_error.map(str::to_string),
            timed_out: parse_error == Some("timeout"),
            sub_agents: Vec::new(),
        }
    }

    #[test]
    fn all_must_pass() {
        let r = aggregate(
            "x",
            &[run("a", Verdict::Pass, None), run("b", Verdict::Pass, None)],
        );
        assert_eq!(r.verdict, Verdict::Pass);
        assert!(r.passed);
        assert_eq!(r.usage.input_tokens, 20);
        assert!((r.cost_usd.unwrap() - 0.5).abs() < 1e-9);
        let r = aggregate(
            "x",
            &[
                run("a", Verdict::Pass, None),
                run("b", Verdict::Unknown, Some("invalid json: x")),
            ],
        );
        assert_eq!(r.verdict, Verdict::Unknown);
        assert!(!r.passed);
        assert_eq!(r.parse_error.as_deref(), Some("b: invalid json: x"));
    }

    #[test]
    fn fail_wins_and_findings_keep_their_reviewer() {
        let mut a = run("a", Verdict::Fail, None);
        a.findings
            .push(Finding::new("[P1] Leak", Severity::P1, "a"));
        let r = aggregate(
            "x",
            &[a, run("b", Verdict::Error, Some("connection refused"))],
        );
        assert_eq!(r.verdict, Verdict::Fail);
        assert_eq!(r.findings[0].reviewer, "a");
        assert!(!r.passed);
    }

    #[test]
    fn single_reviewer_errors_are_verbatim_and_timeouts_merge() {
        let r = aggregate("x", &[run("a", Verdict::Incomplete, Some("timeout"))]);
        assert_eq!(r.parse_error.as_deref(), Some("timeout"));
        assert_eq!(r.raw_output, "a raw");
        let r = aggregate(
            "x",
            &[
                run("a", Verdict::Incomplete, Some("timeout")),
                run("b", Verdict::Incomplete, Some("timeout")),
            ],
        );
        assert_eq!(r.parse_error.as_deref(), Some("timeout"));
        assert!(!aggregate("x", &[]).passed);
    }
}
