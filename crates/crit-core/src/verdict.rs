//! The one verdict enum. `UNKNOWN` and `ERROR` never pass: reviews fail closed.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The overall outcome of a review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Verdict {
    /// Nothing that needs fixing.
    Pass,
    /// Problems worth fixing that need not block (mala's reviewer calls it `NEEDS_WORK`).
    Concerns,
    /// Problems that block.
    Fail,
    /// A limit was hit (turns, budget, time, edits, user abort); partial results kept.
    Incomplete,
    /// The reviewer's output could not be parsed.
    Unknown,
    /// The review could not run.
    Error,
}

impl Verdict {
    /// The word as printed: `PASS`, `CONCERNS`, …
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pass => "PASS",
            Self::Concerns => "CONCERNS",
            Self::Fail => "FAIL",
            Self::Incomplete => "INCOMPLETE",
            Self::Unknown => "UNKNOWN",
            Self::Error => "ERROR",
        }
    }

    /// True for the verdicts that say the review itself did not finish properly.
    /// Such a result never passes a gate, whatever its findings.
    pub fn is_inconclusive(self) -> bool {
        matches!(self, Self::Incomplete | Self::Unknown | Self::Error)
    }

    /// Combine two reviewers' verdicts: the worse one wins. Inconclusive outcomes
    /// outrank everything because a panel that did not finish cannot pass.
    pub fn worst(self, other: Verdict) -> Verdict {
        if self.rank() >= other.rank() {
            self
        } else {
            other
        }
    }

    /// The verdict of several reviews of one piece of work (a panel's
    /// reviewers, the shards of a change): FAIL says the most about the work,
    /// so it wins; then the ways a review can fall short (ERROR, UNKNOWN,
    /// INCOMPLETE), then CONCERNS, then PASS. None at all is not a pass either.
    pub fn combine(verdicts: impl IntoIterator<Item = Verdict>) -> Verdict {
        const ORDER: [Verdict; 6] = [
            Verdict::Fail,
            Verdict::Error,
            Verdict::Unknown,
            Verdict::Incomplete,
            Verdict::Concerns,
            Verdict::Pass,
        ];
        let all: Vec<Verdict> = verdicts.into_iter().collect();
        ORDER
            .into_iter()
            .find(|v| all.contains(v))
            .unwrap_or(Verdict::Unknown)
    }

    /// The verdict findings call for: `FAIL` when any is P0 or P1, `CONCERNS`
    /// when the worst is P2 or P3, `PASS` otherwise (`info` notes never count).
    /// crit derives a reviewer's verdict from its structured findings with
    /// this, so a reviewer's `PASS` over a P1 finding cannot pass a gate and a
    /// `FAIL` resting on P2 findings does not block.
    pub fn from_findings<'a>(findings: impl IntoIterator<Item = &'a crate::Finding>) -> Verdict {
        let worst = findings
            .into_iter()
            .map(|f| f.severity)
            .filter(|s| *s != crate::Severity::Info)
            .min();
        match worst {
            Some(s) if s.at_least(crate::Severity::P1) => Verdict::Fail,
            Some(_) => Verdict::Concerns,
            None => Verdict::Pass,
        }
    }

    fn rank(self) -> u8 {
        match self {
            Self::Pass => 0,
            Self::Concerns => 1,
            Self::Fail => 2,
            Self::Incomplete => 3,
            Self::Unknown => 4,
            Self::Error => 5,
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worst_prefers_inconclusive_and_failures() {
        assert_eq!(Verdict::Pass.worst(Verdict::Concerns), Verdict::Concerns);
        assert_eq!(Verdict::Fail.worst(Verdict::Concerns), Verdict::Fail);
        assert_eq!(Verdict::Fail.worst(Verdict::Unknown), Verdict::Unknown);
        assert_eq!(Verdict::Error.worst(Verdict::Pass), Verdict::Error);
    }

    #[test]
    fn from_findings_follows_the_worst_severity() {
        use crate::{Finding, Severity};
        let f = |s| Finding::new("x", s, "r");
        assert_eq!(Verdict::from_findings(&[]), Verdict::Pass);
        assert_eq!(Verdict::from_findings(&[f(Severity::Info)]), Verdict::Pass);
        assert_eq!(
            Verdict::from_findings(&[f(Severity::P3), f(Severity::P2)]),
            Verdict::Concerns
        );
        assert_eq!(
            Verdict::from_findings(&[f(Severity::P3), f(Severity::P1)]),
            Verdict::Fail
        );
        assert_eq!(Verdict::from_findings(&[f(Severity::P0)]), Verdict::Fail);
    }

    #[test]
    fn serde_uses_upper_case_words() {
        assert_eq!(
            serde_json::to_string(&Verdict::Concerns).unwrap(),
            "\"CONCERNS\""
        );
        let v: Verdict = serde_json::from_str("\"INCOMPLETE\"").unwrap();
        assert_eq!(v, Verdict::Incomplete);
    }
}
