//! The panel's answers merged into one result: all must pass.

use crit_core::{FailOn, Finding, ReviewResult, ReviewerOutcome, ReviewerStatus, Verdict};
use serde_json::Value;

use super::ReviewerRun;

/// Merge `runs` into the result of `review`. Every finding is kept with its
/// reviewer's name; usage and cost add up; the verdict is the most serious
/// of the reviewers' ([`effective_verdict`]); `passed` follows the default
/// gate (callers re-apply theirs). A reviewer that did not finish makes the
/// whole result not pass.
pub fn aggregate(review: &str, runs: &[ReviewerRun]) -> ReviewResult {
    let active: Vec<&ReviewerRun> = runs
        .iter()
        .filter(|r| r.outcome.status != ReviewerStatus::Skipped)
        .collect();
    let verdict = Verdict::combine(active.iter().map(|r| effective_verdict(r)));
    let mut result = ReviewResult::new(review, verdict);
    result.verdict_from_findings = !active.is_empty() && active.iter().all(|r| r.derived);
    let floors: Vec<Verdict> = active.iter().filter_map(|r| unexplained(r)).collect();
    result.verdict_floor = (!floors.is_empty()).then(|| Verdict::combine(floors));
    for run in runs {
        result.findings.extend(run.findings.iter().cloned());
        result.reviewers.push(run.outcome.clone());
        result.usage += run.outcome.usage;
        result.cost_usd = crit_core::usage::add_cost(result.cost_usd, run.outcome.cost_usd);
    }
    result
        .warnings
        .extend(unpriced(runs.iter().map(|r| &r.outcome)));
    result.warnings.extend(runs.iter().flat_map(|r| {
        r.notes
            .iter()
            .map(move |n| format!("{}: {n}", r.outcome.name))
    }));
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

/// What a reviewer's answer says of the work: for one that answered with
/// structured findings and finished, the worse of its own word and the
/// verdict its findings call for ([`Verdict::from_findings`]) — a `PASS` over
/// a P1 finding is `FAIL`, and a `FAIL` with no finding stays `FAIL`;
/// otherwise its own word.
pub fn effective_verdict(run: &ReviewerRun) -> Verdict {
    if run.derived && run.outcome.status == ReviewerStatus::Completed {
        Verdict::combine([run.outcome.verdict, Verdict::from_findings(&run.findings)])
    } else {
        run.outcome.verdict
    }
}

/// A finished reviewer's `FAIL` or `CONCERNS` that its own findings do not
/// account for (a `FAIL` over nothing blocking, a `CONCERNS` over nothing at
/// all): that word stands as the review's floor, whatever later happens to
/// the findings.
fn unexplained(run: &ReviewerRun) -> Option<Verdict> {
    let own = run.outcome.verdict;
    let implied = Verdict::from_findings(&run.findings);
    let worse = matches!(
        (own, implied),
        (Verdict::Fail, Verdict::Concerns | Verdict::Pass) | (Verdict::Concerns, Verdict::Pass)
    );
    (run.outcome.status == ReviewerStatus::Completed && worse).then_some(own)
}

/// The runs of one panel over the parts of a split change, one run per
/// reviewer (in the first part's order): usage and cost add up, the reviews
/// take as long as the slowest part, the findings join — one problem
/// reported in two parts (same fingerprint, overlapping lines) counts once, at
/// its most severe — the worst status stands and the verdicts combine. With
/// one part, the runs as they are.
pub fn merge_parts(mut parts: Vec<Vec<ReviewerRun>>) -> Vec<ReviewerRun> {
    if parts.len() <= 1 {
        return parts.pop().unwrap_or_default();
    }
    let count = parts.len();
    let mut merged: Vec<ReviewerRun> = Vec::new();
    // Each reviewer's summary is said once: that of its part with the worst
    // verdict (the first such part), labelled; every part's answer stays in
    // `raw`, each under its label.
    let mut summaries: Vec<(Verdict, String)> = Vec::new();
    for (p, runs) in parts.into_iter().enumerate() {
        for run in runs {
            let label = format!("[part {}] ", p + 1);
            let said = (
                run.outcome.verdict,
                prefixed(&format!("[part {} of {count}] ", p + 1), &run.summary),
            );
            match merged
                .iter()
                .position(|m| m.outcome.name == run.outcome.name)
            {
                None => {
                    let mut first = run;
                    first.raw = prefixed(&label, &first.raw);
                    merged.push(first);
                    summaries.push(said);
                }
                Some(i) => {
                    let worse = Verdict::combine([summaries[i].0, said.0]) != summaries[i].0
                        || (summaries[i].1.is_empty() && !said.1.is_empty());
                    if worse {
                        summaries[i] = said;
                    }
                    fold(&mut merged[i], run, &label);
                }
            }
        }
    }
    for (m, (_, summary)) in merged.iter_mut().zip(summaries) {
        m.summary = summary;
        m.findings = distinct(std::mem::take(&mut m.findings));
        m.outcome.findings = m.findings.len();
    }
    merged
}

fn prefixed(label: &str, text: &str) -> String {
    if text.trim().is_empty() {
        String::new()
    } else {
        format!("{label}{}", text.trim())
    }
}

fn fold(m: &mut ReviewerRun, run: ReviewerRun, label: &str) {
    let rank = |s: ReviewerStatus| match s {
        ReviewerStatus::Completed | ReviewerStatus::Skipped => 0,
        ReviewerStatus::Incomplete => 1,
        ReviewerStatus::ParseError => 2,
        ReviewerStatus::Failed => 3,
    };
    if rank(run.outcome.status) > rank(m.outcome.status) {
        m.outcome.status = run.outcome.status;
    }
    m.outcome.verdict = Verdict::combine([m.outcome.verdict, run.outcome.verdict]);
    m.outcome.usage += run.outcome.usage;
    // An unknown price anywhere leaves the sum unknown.
    m.outcome.cost_usd = crit_core::usage::add_cost(m.outcome.cost_usd, run.outcome.cost_usd);
    m.outcome.duration_ms = m.outcome.duration_ms.max(run.outcome.duration_ms);
    if let Some(e) = run.outcome.error {
        m.outcome.error = Some(match m.outcome.error.take() {
            Some(prev) => format!("{prev}; {label}{e}"),
            None => format!("{label}{e}"),
        });
    }
    if let Some(e) = run.parse_error {
        m.parse_error = Some(match m.parse_error.take() {
            Some(prev) if prev == e => prev,
            Some(prev) => format!("{prev}; {e}"),
            None => e,
        });
    }
    let more = prefixed(label, &run.raw);
    if !more.is_empty() {
        if !m.raw.is_empty() {
            m.raw.push_str("\n\n");
        }
        m.raw.push_str(&more);
    }
    m.findings.extend(run.findings);
    m.timed_out |= run.timed_out;
    m.derived &= run.derived;
    m.notes.extend(run.notes.iter().cloned());
    m.structured = m.structured.take().or(run.structured);
    m.sub_agents.extend(run.sub_agents);
}

/// Each problem once: the same fingerprint at overlapping lines (or both
/// without lines) is one finding, its most severe copy.
pub(crate) fn distinct(findings: Vec<Finding>) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    for f in findings {
        match out.iter_mut().find(|o| o.id == f.id && overlaps(o, &f)) {
            Some(o) if f.severity < o.severity => *o = f,
            Some(_) => {}
            None => out.push(f),
        }
    }
    out
}

fn overlaps(a: &Finding, b: &Finding) -> bool {
    let range = |f: &Finding| {
        let l = f.location.as_ref()?;
        Some((l.start_line()?, l.end_line()?))
    };
    match (range(a), range(b)) {
        (Some((s1, e1)), Some((s2, e2))) => s1 <= e2 && s2 <= e1,
        (None, None) => true,
        _ => false,
    }
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

/// One reviewer's `parse_error` as is (mala's reviewer's exact strings, `timeout`);
/// several, each with its reviewer's name — except that a panel where every
/// failure was a timeout says just `timeout`.
fn merged_parse_error(runs: &[&ReviewerRun]) -> Option<String> {
    let errors: Vec<(&ReviewerRun, &str)> = runs
        .iter()
        .filter_map(|r| Some((*r, r.parse_error.as_deref()?)))
        .collect();
    if runs.is_empty() {
        return Some("no reviewer ran".into());
    }
    match errors.as_slice() {
        [] => None,
        [(_, e)] if runs.len() == 1 => Some((*e).to_string()),
        _ if errors.iter().all(|(r, _)| r.timed_out) => Some("timeout".into()),
        _ => Some(
            errors
                .iter()
                .map(|(r, e)| format!("{}: {e}", r.outcome.name))
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
    use crit_core::{Finding, Location, ReviewerOutcome, Severity, Usage};

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
            failure: None,
            sub_agents: Vec::new(),
            derived: false,
            notes: Vec::new(),
        }
    }

    #[test]
    fn parts_merge_into_one_run_per_reviewer() {
        let at = |line| {
            Finding::new("Leak", Severity::P2, "a").with_location(Location::lines(
                "x.rs",
                line,
                line + 2,
            ))
        };
        let mut a1 = run("a", Verdict::Concerns, None);
        a1.findings = vec![at(10)];
        let mut a2 = run("a", Verdict::Fail, None);
        let mut worse = at(11);
        worse.severity = Severity::P1;
        a2.findings = vec![worse, at(40)];
        a2.outcome.status = ReviewerStatus::Incomplete;
        let merged = merge_parts(vec![vec![a1], vec![a2]]);
        assert_eq!(merged.len(), 1);
        let m = &merged[0];
        assert_eq!(m.outcome.usage.input_tokens, 20);
        assert_eq!(m.outcome.status, ReviewerStatus::Incomplete);
        assert_eq!(m.outcome.verdict, Verdict::Fail);
        // Lines 10-12 and 11-13: one problem, at its most severe; line 40 another.
        assert_eq!(m.findings.len(), 2);
        assert_eq!(m.findings[0].severity, Severity::P1);
        // The summary once: the worst part's (FAIL, part 2); each part's answer in raw.
        assert_eq!(m.summary, "[part 2 of 2] a summary");
        assert!(
            m.raw.starts_with("[part 1] a raw\n\n[part 2] a raw"),
            "{}",
            m.raw
        );
    }

    #[test]
    fn structured_findings_decide_the_verdict_and_the_word_is_kept() {
        let mut said_pass = run("a", Verdict::Pass, None);
        said_pass.derived = true;
        said_pass
            .findings
            .push(Finding::new("Leak", Severity::P1, "a"));
        let r = aggregate("x", std::slice::from_ref(&said_pass));
        assert_eq!(r.verdict, Verdict::Fail);
        assert_eq!(r.reviewers[0].verdict, Verdict::Pass, "its own word stays");
        assert!(r.verdict_from_findings);
        let mut said_fail = run("b", Verdict::Fail, None);
        said_fail.derived = true;
        said_fail
            .findings
            .push(Finding::new("Naming", Severity::P2, "b"));
        // Its own FAIL is worse than a P2 calls for: the word stands.
        let r = aggregate("x", &[said_fail.clone()]);
        assert_eq!(r.verdict, Verdict::Fail);
        assert_eq!(r.verdict_floor, Some(Verdict::Fail));
        assert!(!r.passed);
        // A FAIL with no finding at all (a markdown answer read as the
        // findings contract) is never a pass either.
        let mut bare = run("c", Verdict::Fail, None);
        bare.derived = true;
        let r = aggregate("x", &[bare]);
        assert_eq!(
            (r.verdict, r.verdict_floor),
            (Verdict::Fail, Some(Verdict::Fail))
        );
        assert!(!crit_core::FailOn::P0.passes(&r));
        // A reviewer without structured findings keeps deciding by its word.
        let words = run("c", Verdict::Fail, None);
        let r = aggregate("x", &[said_fail, words]);
        assert_eq!(r.verdict, Verdict::Fail);
        assert!(!r.verdict_from_findings);
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
