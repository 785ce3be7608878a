//! Folding results into one: fingerprints deduplicated, usage and cost summed,
//! the verdict recomputed, missing shards failing closed, idempotence.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crit_core::merge::{MergeError, Part, merge};
use crit_core::{Dismissed, FailOn, Finding, Location, ReviewResult, Severity, Usage, Verdict};

fn finding(title: &str, sev: Severity, path: &str, line: u32) -> Finding {
    Finding::new(title, sev, "code").with_location(Location::lines(path, line, line))
}

fn shard(i: u32, n: u32, verdict: Verdict, findings: Vec<Finding>) -> Part {
    let mut r = ReviewResult::new("code", verdict);
    r.findings = findings;
    r.inputs.insert("shard".into(), format!("{i}/{n}"));
    r.inputs.insert("diff".into(), "main".into());
    r.usage = Usage {
        input_tokens: 100 * u64::from(i),
        output_tokens: 10,
        ..Usage::default()
    };
    r.cost_usd = Some(0.01 * f64::from(i));
    r.duration_ms = 1000 * u64::from(i);
    r.summary = format!("summary {i}");
    r.apply_gate(FailOn::default());
    Part {
        name: format!("shard{i}.json"),
        result: r,
    }
}

fn ids(r: &ReviewResult) -> Vec<String> {
    let mut v: Vec<String> = r.findings.iter().map(|f| f.id.clone()).collect();
    v.sort();
    v
}

fn four() -> Vec<Part> {
    vec![
        shard(
            1,
            4,
            Verdict::Concerns,
            vec![finding("Nit", Severity::P3, "a.rs", 1)],
        ),
        shard(
            2,
            4,
            Verdict::Fail,
            vec![
                finding("Leak", Severity::P1, "b.rs", 4),
                // The same problem, reported again from a general remark's angle.
                finding("Nit", Severity::P2, "a.rs", 9),
            ],
        ),
        shard(3, 4, Verdict::Pass, vec![]),
        shard(
            4,
            4,
            Verdict::Concerns,
            vec![finding("Style", Severity::P3, "d.rs", 2)],
        ),
    ]
}

#[test]
fn shards_fold_into_one_result() {
    let m = merge(four()).unwrap();
    assert_eq!(m.findings.len(), 3, "{:?}", m.findings);
    let nit = m.findings.iter().find(|f| f.title == "Nit").unwrap();
    assert_eq!(nit.severity, Severity::P2, "the most severe copy stays");
    assert_eq!(m.verdict, Verdict::Fail);
    assert!(!m.passed);
    assert_eq!(m.usage.input_tokens, 1000);
    assert_eq!(m.usage.output_tokens, 40);
    assert!((m.cost_usd.unwrap() - 0.10).abs() < 1e-9);
    assert_eq!(m.duration_ms, 4000);
    assert_eq!(m.inputs["shard"], "1,2,3,4/4");
    assert_eq!(m.inputs["diff"], "main");
    assert!(
        m.summary
            .starts_with("[shard 1/4] summary 1\n\n[shard 2/4] summary 2")
    );
    assert_eq!(m.parse_error, None);
}

#[test]
fn the_gate_is_applied_once_to_the_merged_findings() {
    let mut parts = four();
    parts.remove(1);
    parts.insert(
        1,
        shard(
            2,
            4,
            Verdict::Concerns,
            vec![finding("Leak", Severity::P2, "b.rs", 4)],
        ),
    );
    let mut m = merge(parts).unwrap();
    assert_eq!(m.verdict, Verdict::Concerns);
    assert!(m.passed, "every shard passed the default gate");
    m.apply_gate(FailOn::P2);
    assert!(!m.passed);
}

#[test]
fn a_missing_shard_fails_closed() {
    let mut parts = four();
    parts.remove(2);
    let m = merge(parts).unwrap();
    assert_eq!(m.verdict, Verdict::Fail, "FAIL still says the most");
    let mut parts = four();
    parts.retain(|p| p.result.verdict != Verdict::Fail);
    let m = merge(parts).unwrap();
    assert_eq!(m.verdict, Verdict::Incomplete);
    assert!(!m.passed);
    assert!(
        m.summary.starts_with("Missing shard(s) 2/4"),
        "{}",
        m.summary
    );
    assert_eq!(m.inputs["shard"], "1,3,4/4");
    // One shard alone is not the whole change either.
    let alone = merge(vec![shard(3, 4, Verdict::Pass, vec![])]).unwrap();
    assert_eq!(alone.verdict, Verdict::Incomplete);
    assert!(!alone.passed);
    let mut m = merge(
        four()
            .into_iter()
            .filter(|p| !p.name.contains('2'))
            .collect(),
    )
    .unwrap();
    m.apply_gate(FailOn::Never);
    assert!(!m.passed, "no gate lets an incomplete merge pass");
}

#[test]
fn merging_is_idempotent() {
    let once = merge(four()).unwrap();
    let again = merge(four()).unwrap();
    assert_eq!(once, again, "deterministic");
    let merged = Part {
        name: "merged.json".into(),
        result: once.clone(),
    };
    assert_eq!(merge(vec![merged.clone()]).unwrap(), once);
    assert_eq!(merge(vec![merged.clone(), merged]).unwrap(), once);
    // The same shard file twice counts once.
    let mut doubled = four();
    doubled.push(four().remove(0));
    assert_eq!(merge(doubled).unwrap(), once);
    // Any order gives the same findings.
    let mut reversed = four();
    reversed.reverse();
    assert_eq!(ids(&merge(reversed).unwrap()), ids(&once));
}

#[test]
fn merged_halves_merge_into_the_whole() {
    let mut parts = four();
    let back = parts.split_off(2);
    let a = merge(parts).unwrap();
    let b = merge(back).unwrap();
    assert_eq!(a.verdict, Verdict::Fail);
    assert_eq!(b.verdict, Verdict::Incomplete, "half of the change");
    let whole = merge(vec![
        Part {
            name: "a".into(),
            result: a,
        },
        Part {
            name: "b".into(),
            result: b,
        },
    ])
    .unwrap();
    assert_eq!(ids(&whole), ids(&merge(four()).unwrap()));
    assert_eq!(whole.inputs["shard"], "1,2,3,4/4");
}

#[test]
fn conflicting_parts_are_refused_with_both_names() {
    let mut parts = four();
    parts.push(shard(2, 4, Verdict::Pass, vec![]));
    let err = merge(parts).unwrap_err();
    assert!(matches!(err, MergeError::Overlap { index: 2, .. }), "{err}");
    assert!(err.to_string().contains("shard2.json"), "{err}");
    let mut parts = four();
    parts.push(shard(1, 3, Verdict::Pass, vec![]));
    let err = merge(parts).unwrap_err();
    assert!(matches!(err, MergeError::DifferentSplits { .. }), "{err}");
    let mut bad = shard(1, 4, Verdict::Pass, vec![]);
    bad.result.inputs.insert("shard".into(), "5/4".into());
    let err = merge(vec![bad]).unwrap_err();
    assert!(err.to_string().contains("shard1.json"), "{err}");
    assert_eq!(merge(vec![]).unwrap_err(), MergeError::Empty);
}

#[test]
fn a_finding_dismissed_by_one_shard_but_kept_by_another_counts() {
    let leak = finding("Leak", Severity::P1, "b.rs", 4);
    let mut parts = four();
    parts[0].result.dismissed.push(Dismissed {
        finding: leak.clone(),
        cause: "outside_change".into(),
        reason: "outside the change (filter: file)".into(),
        proof: String::new(),
    });
    parts[2].result.dismissed.push(Dismissed {
        finding: finding("Elsewhere", Severity::P2, "z.rs", 1),
        cause: "outside_change".into(),
        reason: "outside the change (filter: file)".into(),
        proof: String::new(),
    });
    let m = merge(parts).unwrap();
    assert!(m.findings.iter().any(|f| f.id == leak.id));
    assert_eq!(m.dismissed.len(), 1);
    assert_eq!(m.dismissed[0].finding.title, "Elsewhere");
}

#[test]
fn unparseable_or_fatal_parts_keep_the_merge_from_passing() {
    let mut parts = four();
    parts[2].result = ReviewResult::parse_failure("code", "timeout", "");
    parts[2].result.inputs.insert("shard".into(), "3/4".into());
    parts.remove(1);
    parts.insert(1, shard(2, 4, Verdict::Pass, vec![]));
    let m = merge(parts).unwrap();
    assert_eq!(m.verdict, Verdict::Unknown);
    assert_eq!(m.parse_error.as_deref(), Some("shard 3/4: timeout"));
    assert!(!m.passed);
}

#[test]
fn results_of_different_reviews_merge_too() {
    let code = shard(1, 1, Verdict::Pass, vec![]);
    let mut arch = ReviewResult::new("arch", Verdict::Concerns);
    arch.findings.push(Finding::new(
        "Unclear retry policy",
        Severity::P2,
        "architecture",
    ));
    arch.summary = "One gap.".into();
    arch.apply_gate(FailOn::default());
    let m = merge(vec![
        code,
        Part {
            name: "arch.json".into(),
            result: arch,
        },
    ])
    .unwrap();
    assert_eq!(m.review, "code+arch");
    assert_eq!(m.verdict, Verdict::Concerns);
    assert!(m.passed);
    assert!(m.summary.contains("[arch.json]"), "{}", m.summary);
}
