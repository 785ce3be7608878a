//! The benchmark's own rules on data in its published shapes: golden
//! comments, a tool's candidates and the judge's answer for each pair,
//! written to hit each rule once (see the comments in the expectations).

use std::path::PathBuf;

use crit_bench::Golden;
use crit_bench::martian::export::Candidates;
use crit_bench::martian::replay::{Decisions, replay};

fn fixture(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/crit-bench/fixtures/martian")
        .join(name);
    std::fs::read_to_string(p).unwrap()
}

fn close(a: Option<f64>, b: f64) {
    let a = a.unwrap();
    assert!((a - b).abs() < 1e-12, "{a} != {b}");
}

#[test]
fn martian_scoring_reproduces_the_benchmarks_arithmetic_and_strict_stays_one_to_one() {
    let golden: Vec<Golden> = serde_json::from_str(&fixture("golden_comments/shop.json")).unwrap();
    let candidates: Candidates = serde_json::from_str(&fixture("candidates.json")).unwrap();
    let decisions: Decisions = serde_json::from_str(&fixture("judge_decisions.json")).unwrap();
    let r = replay(&golden, &candidates, &decisions, "crit");
    // The benchmark's:
    // PR 1: the cache-key candidate is the best match of two golden comments
    //   (2 tp); the first rounding candidate leads and is beaten by the second
    //   (1 tp, and the beaten one is no false positive); the two identical
    //   "helper name" candidates are one false positive; the log-line
    //   candidate matched only at confidence 0, which never counts: tp 3,
    //   fp 2, fn 0.
    // PR 2: one match; the other golden comment's only candidate pair failed
    //   (no match, the review is still scored): tp 1, fp 1, fn 1.
    // PR 3 has no golden comments: skipped.
    // PR 4: no candidates: fn 1.
    assert_eq!((r.martian.tp, r.martian.fp, r.martian.fn_), (4, 3, 2));
    assert_eq!(r.martian_reviews, 3);
    close(r.martian.precision, 4.0 / 7.0);
    close(r.martian.recall, 4.0 / 6.0);
    close(r.martian.f1, 8.0 / 13.0);
    // crit's strict one-to-one, from the same answers:
    // PR 1: three pairs at once (the cache-key candidate serves one comment,
    //   the zero-confidence match the other; the better rounding one the
    //   third), each of the six findings a finding: tp 3, fp 3, fn 0.
    // PR 2: a pair the judge could not decide leaves the review out.
    // PR 3: its one finding is a false positive. PR 4: fn 1.
    assert_eq!((r.strict.tp, r.strict.fp, r.strict.fn_), (3, 4, 1));
    assert_eq!(r.strict_reviews, 3);
    close(r.strict.precision, 3.0 / 7.0);
    close(r.strict.recall, 3.0 / 4.0);
    close(r.strict.f1, 6.0 / 11.0);
    // Another tool's candidates are its own.
    let other = replay(&golden, &candidates, &decisions, "other-tool");
    assert_eq!(
        (other.martian.tp, other.martian.fp, other.martian.fn_),
        (0, 1, 3)
    );
}
