//! The arithmetic: true positives (a finding matched to a golden comment),
//! false positives (a finding matched to none), false negatives (a golden
//! comment no finding matched), and from them
//!
//! - precision = tp / (tp + fp), `null` when there are no findings;
//! - recall = tp / (tp + fn), `null` when there are no golden comments;
//! - F1 = 2·tp / (2·tp + fp + fn) (the harmonic mean of the two where both
//!   exist, 0 when one is 0), `null` only when there is nothing at all.
//!
//! Totals add the counts of the complete cases and compute the ratios once
//! (micro-averaged), as the public benchmark reports them.

use schemars::JsonSchema;
use serde::Serialize;

use crit_core::Severity;

/// Counts and the ratios computed from them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, JsonSchema)]
pub struct Score {
    pub tp: usize,
    pub fp: usize,
    #[serde(rename = "fn")]
    pub fn_: usize,
    pub precision: Option<f64>,
    pub recall: Option<f64>,
    pub f1: Option<f64>,
}

impl Score {
    pub fn new(tp: usize, fp: usize, fn_: usize) -> Score {
        let ratio = |num: usize, den: usize| (den > 0).then(|| num as f64 / den as f64);
        Score {
            tp,
            fp,
            fn_,
            precision: ratio(tp, tp + fp),
            recall: ratio(tp, tp + fn_),
            f1: ratio(2 * tp, 2 * tp + fp + fn_),
        }
    }

    /// The counts of both, the ratios computed again.
    pub fn plus(self, other: Score) -> Score {
        Score::new(self.tp + other.tp, self.fp + other.fp, self.fn_ + other.fn_)
    }
}

/// The benchmark's severity scale (`Critical`, `High`, `Medium`, `Low`), which
/// golden comments carry; a finding's P0–P3 map onto it in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    Critical,
    High,
    Medium,
    Low,
    /// A golden comment with no (or another) severity.
    Unrated,
}

impl Level {
    pub const ALL: [Level; 5] = [
        Level::Critical,
        Level::High,
        Level::Medium,
        Level::Low,
        Level::Unrated,
    ];

    /// A golden comment's severity, in any case.
    pub fn of_golden(word: &str) -> Level {
        match word.trim().to_ascii_lowercase().as_str() {
            "critical" => Level::Critical,
            "high" => Level::High,
            "medium" => Level::Medium,
            "low" => Level::Low,
            _ => Level::Unrated,
        }
    }

    /// A finding's severity on the benchmark's scale.
    pub fn of_finding(s: Severity) -> Level {
        match s {
            Severity::P0 => Level::Critical,
            Severity::P1 => Level::High,
            Severity::P2 => Level::Medium,
            Severity::P3 => Level::Low,
            Severity::Info => Level::Unrated,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Level::Critical => "critical",
            Level::High => "high",
            Level::Medium => "medium",
            Level::Low => "low",
            Level::Unrated => "unrated",
        }
    }
}

/// One severity's counts: a true positive and a false negative count at the
/// golden comment's severity, a false positive at the finding's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
pub struct LevelScore {
    pub severity: Level,
    #[serde(flatten)]
    pub score: Score,
}

/// Per-severity counts being added up.
#[derive(Debug, Clone, Default)]
pub(crate) struct ByLevel {
    counts: [(usize, usize, usize); 5],
}

impl ByLevel {
    pub(crate) fn tp(&mut self, l: Level) {
        self.counts[l as usize].0 += 1;
    }
    pub(crate) fn fp(&mut self, l: Level) {
        self.counts[l as usize].1 += 1;
    }
    pub(crate) fn fn_(&mut self, l: Level) {
        self.counts[l as usize].2 += 1;
    }

    pub(crate) fn add(&mut self, other: &ByLevel) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            a.0 += b.0;
            a.1 += b.1;
            a.2 += b.2;
        }
    }

    /// The severities that have any count, in the scale's order.
    pub(crate) fn scores(&self) -> Vec<LevelScore> {
        Level::ALL
            .iter()
            .zip(self.counts.iter())
            .filter(|(_, c)| c.0 + c.1 + c.2 > 0)
            .map(|(l, c)| LevelScore {
                severity: *l,
                score: Score::new(c.0, c.1, c.2),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_and_their_empty_cases() {
        let s = Score::new(2, 1, 1);
        assert!((s.precision.unwrap() - 2.0 / 3.0).abs() < 1e-12);
        assert!((s.recall.unwrap() - 2.0 / 3.0).abs() < 1e-12);
        assert!((s.f1.unwrap() - 2.0 / 3.0).abs() < 1e-12);
        // No findings: precision undefined, recall and F1 zero.
        let s = Score::new(0, 0, 3);
        assert_eq!((s.precision, s.recall, s.f1), (None, Some(0.0), Some(0.0)));
        // No golden comments: recall undefined.
        let s = Score::new(0, 2, 0);
        assert_eq!((s.precision, s.recall, s.f1), (Some(0.0), None, Some(0.0)));
        // Nothing at all.
        assert_eq!(Score::new(0, 0, 0).f1, None);
        // F1 is the harmonic mean where both exist.
        let s = Score::new(3, 1, 5);
        let (p, r) = (s.precision.unwrap(), s.recall.unwrap());
        assert!((s.f1.unwrap() - 2.0 * p * r / (p + r)).abs() < 1e-12);
    }

    #[test]
    fn golden_words_and_finding_levels_share_a_scale() {
        assert_eq!(Level::of_golden("HIGH"), Level::High);
        assert_eq!(Level::of_golden("blocker"), Level::Unrated);
        assert_eq!(Level::of_finding(Severity::P0), Level::Critical);
        assert_eq!(Level::of_finding(Severity::P3), Level::Low);
    }
}
