//! The Martian Code Review Bench's own arithmetic and judge, reproduced
//! exactly (its `step3_judge_comments.py` and leaderboard code), beside
//! crit's strict one-to-one scoring.
//!
//! Per pull request, from one answer per (golden comment, candidate) pair:
//! - a golden comment is found when any candidate matches it: candidates are
//!   taken in order and a match replaces the best so far only when its
//!   confidence is strictly higher, starting from 0 (a match at confidence 0
//!   never counts); one candidate may be the best of several golden comments,
//!   and each of those is a true positive;
//! - a false positive is a candidate text that was never any golden
//!   comment's best so far (duplicate texts are one candidate; one that led
//!   once and was later beaten is not a false positive);
//! - golden comments are keyed by their text too, as the benchmark's are;
//! - a pair whose judge failed is no match, and the review is still scored;
//! - a pull request with no golden comments is skipped.
//!
//! Totals add tp, fp and fn over the scored reviews; precision =
//! tp/(tp+fp), recall = tp/(tp+fn), F1 their harmonic mean, each 0 where the
//! benchmark's code gives 0.

pub mod ask;
pub mod export;
mod judge;
pub mod replay;

use std::collections::BTreeMap;

use crit_core::Finding;

use crate::score::Score;

pub use judge::{
    EXTRACT_SYSTEM, EXTRACT_USER, JUDGE_SYSTEM, JUDGE_USER, extract_user, judge_user,
    parse_extracted, parse_judge_answer,
};

/// The judge's answer to one pair, as the benchmark reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PairAnswer {
    /// `match` (truthy) and `confidence` (0 when absent).
    Answer { matched: bool, confidence: f64 },
    /// The judge failed (after its retries): no match.
    Failed,
}

/// One review's counts under the benchmark's rules; `None` when it has no
/// golden comments (the benchmark skips it).
pub fn score_review(
    golden: &[&str],
    candidates: &[&str],
    answer: impl Fn(usize, usize) -> PairAnswer,
) -> Option<Score> {
    if golden.is_empty() {
        return None;
    }
    // golden text → best confidence so far (insertion order kept by index).
    let mut best: BTreeMap<&str, f64> = BTreeMap::new();
    let mut matched: BTreeMap<&str, bool> = BTreeMap::new();
    for g in golden {
        best.insert(g, 0.0);
    }
    for c in candidates {
        matched.insert(c, false);
    }
    for (gi, g) in golden.iter().enumerate() {
        for (ci, c) in candidates.iter().enumerate() {
            let PairAnswer::Answer {
                matched: true,
                confidence,
            } = answer(gi, ci)
            else {
                continue;
            };
            let slot = best.entry(g).or_insert(0.0);
            if confidence > *slot {
                *slot = confidence;
                matched.insert(c, true);
            }
        }
    }
    let tp = best.values().filter(|b| **b > 0.0).count();
    let fn_ = best.len() - tp;
    let fp = matched.values().filter(|m| !**m).count();
    Some(Score::new(tp, fp, fn_))
}

/// The benchmark's ratios over summed counts: 0 where it divides by zero.
pub fn leaderboard(tp: usize, fp: usize, fn_: usize) -> Score {
    let ratio = |n: usize, d: usize| if d == 0 { 0.0 } else { n as f64 / d as f64 };
    let p = ratio(tp, tp + fp);
    let r = ratio(tp, tp + fn_);
    let f1 = if p + r > 0.0 {
        2.0 * p * r / (p + r)
    } else {
        0.0
    };
    Score {
        tp,
        fp,
        fn_,
        precision: Some(p),
        recall: Some(r),
        f1: Some(f1),
    }
}

/// A finding as one candidate issue: its title, and the first sentence of
/// its explanation when it has one (the benchmark's candidates are one
/// sentence each, naming the problem and its effect).
pub fn candidate_text(f: &Finding) -> String {
    let title = f.title.trim().trim_end_matches('.');
    let body = f.body.trim();
    let first = body
        .split_inclusive(['\n'])
        .next()
        .unwrap_or_default()
        .split_inclusive(". ")
        .next()
        .unwrap_or_default()
        .trim();
    match first {
        "" => title.to_string(),
        s => format!("{title}: {s}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ans(m: bool, c: f64) -> PairAnswer {
        PairAnswer::Answer {
            matched: m,
            confidence: c,
        }
    }

    #[test]
    fn a_later_beaten_leader_is_no_false_positive_and_zero_confidence_never_counts() {
        // g0: c0 leads at 0.6, c1 beats it at 0.9; g1: c0 matches at 0.
        let s = score_review(&["g0", "g1"], &["c0", "c1", "c2"], |g, c| match (g, c) {
            (0, 0) => ans(true, 0.6),
            (0, 1) => ans(true, 0.9),
            (1, 0) => ans(true, 0.0),
            _ => ans(false, 0.9),
        })
        .unwrap();
        assert_eq!((s.tp, s.fp, s.fn_), (1, 1, 1));
        // Equal confidence does not replace the leader.
        let s = score_review(&["g0"], &["c0", "c1"], |_, _| ans(true, 0.5)).unwrap();
        assert_eq!((s.tp, s.fp, s.fn_), (1, 1, 0));
        assert_eq!(score_review(&[], &["c0"], |_, _| ans(true, 1.0)), None);
    }

    #[test]
    fn leaderboard_ratios_are_zero_where_undefined() {
        let s = leaderboard(0, 0, 0);
        assert_eq!(
            (s.precision, s.recall, s.f1),
            (Some(0.0), Some(0.0), Some(0.0))
        );
        let s = leaderboard(3, 1, 5);
        let (p, r) = (0.75, 3.0 / 8.0);
        assert!((s.f1.unwrap() - 2.0 * p * r / (p + r)).abs() < 1e-12);
    }

    #[test]
    fn a_candidate_is_the_title_and_the_first_sentence() {
        let f = Finding::new("Negative slice.", crit_core::Severity::P1, "code")
            .with_body("QuerySets reject it. It raises.\nMore.");
        assert_eq!(candidate_text(&f), "Negative slice: QuerySets reject it.");
        let f = Finding::new("Only a title", crit_core::Severity::P1, "code");
        assert_eq!(candidate_text(&f), "Only a title");
    }
}
