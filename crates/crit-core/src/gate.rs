//! The pass/fail gate: which results pass, under which policy.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{ReviewResult, Severity, Verdict};

/// What makes a review fail its gate (`--fail-on`).
///
/// Whatever the policy, a result never passes when its verdict is inconclusive
/// (`UNKNOWN`, `ERROR`, `INCOMPLETE`), when it carries a `parse_error`, or when
/// `fatal_error` is set: reviews fail closed. `Never` only turns the *findings* gate
/// off.
///
/// A `FAIL` verdict fails every policy but `Never`, unless crit derived it
/// from the findings (`verdict_from_findings`): then the findings decide, so
/// `P0` passes a review whose only blocking findings are P1. A reviewer's own
/// `FAIL` or `CONCERNS` that its findings do not account for
/// (`verdict_floor`) is always its word: `FAIL` fails every policy but
/// `Never`, `CONCERNS` fails `Concerns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum FailOn {
    /// Fail on any P0 finding or a `FAIL` verdict.
    #[cfg_attr(feature = "clap", value(alias = "blocker"))]
    P0,
    /// Fail on P0 or P1 findings or a `FAIL` verdict (the default).
    #[default]
    #[cfg_attr(feature = "clap", value(alias = "major"))]
    P1,
    /// Fail on P0–P2 findings, a `FAIL` verdict.
    #[cfg_attr(feature = "clap", value(alias = "minor"))]
    P2,
    /// Fail on any P0–P3 finding, a `FAIL` verdict.
    #[cfg_attr(feature = "clap", value(alias = "nit"))]
    P3,
    /// Fail on anything but a clean `PASS`: any P0–P3 finding, `CONCERNS` or `FAIL`.
    Concerns,
    /// Findings and verdict words never fail the gate (inconclusive results still do).
    Never,
}

impl FailOn {
    pub fn parse(s: &str) -> Option<FailOn> {
        match s.trim().to_ascii_lowercase().as_str() {
            "p0" => Some(FailOn::P0),
            "p1" => Some(FailOn::P1),
            "p2" => Some(FailOn::P2),
            "p3" => Some(FailOn::P3),
            "concerns" | "needs_work" => Some(FailOn::Concerns),
            "never" | "none" => Some(FailOn::Never),
            _ => None,
        }
    }

    fn threshold(self) -> Option<Severity> {
        match self {
            FailOn::P0 => Some(Severity::P0),
            FailOn::P1 => Some(Severity::P1),
            FailOn::P2 => Some(Severity::P2),
            FailOn::P3 | FailOn::Concerns => Some(Severity::P3),
            FailOn::Never => None,
        }
    }

    /// Whether `finding` alone fails the gate under this policy.
    pub fn blocks(self, finding: &crate::Finding) -> bool {
        self.threshold()
            .is_some_and(|t| finding.severity.at_least(t))
    }

    /// Whether `result` passes under this policy.
    pub fn passes(self, result: &ReviewResult) -> bool {
        if result.fatal_error || result.parse_error.is_some() || result.verdict.is_inconclusive() {
            return false;
        }
        if self == FailOn::Never {
            return true;
        }
        let floor = result.verdict_floor.unwrap_or(Verdict::Pass);
        if result.verdict == Verdict::Fail && !result.verdict_from_findings
            || floor == Verdict::Fail
        {
            return false;
        }
        if self == FailOn::Concerns
            && (result.verdict == Verdict::Concerns || floor == Verdict::Concerns)
        {
            return false;
        }
        match self.threshold() {
            Some(t) => !result.findings.iter().any(|f| f.severity.at_least(t)),
            None => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Finding;

    fn result(verdict: Verdict, severities: &[Severity]) -> ReviewResult {
        let mut r = ReviewResult::new("t", verdict);
        r.findings = severities
            .iter()
            .map(|s| Finding::new("x", *s, "r"))
            .collect();
        r
    }

    #[test]
    fn default_blocks_p0_p1_only() {
        assert!(FailOn::default().passes(&result(Verdict::Pass, &[])));
        assert!(
            FailOn::default().passes(&result(Verdict::Concerns, &[Severity::P2, Severity::P3]))
        );
        assert!(!FailOn::default().passes(&result(Verdict::Concerns, &[Severity::P1])));
        assert!(!FailOn::default().passes(&result(Verdict::Fail, &[])));
        assert!(FailOn::default().passes(&result(Verdict::Pass, &[Severity::Info])));
    }

    #[test]
    fn inconclusive_never_passes() {
        for v in [Verdict::Unknown, Verdict::Error, Verdict::Incomplete] {
            for g in [FailOn::Never, FailOn::P0, FailOn::P1] {
                assert!(!g.passes(&result(v, &[])), "{v} passed under {g:?}");
            }
        }
        let mut r = result(Verdict::Pass, &[]);
        r.parse_error = Some("timeout".into());
        assert!(!FailOn::Never.passes(&r));
    }

    #[test]
    fn a_fail_derived_from_findings_is_judged_by_them() {
        let mut r = result(Verdict::Fail, &[Severity::P1, Severity::P2]);
        assert!(!FailOn::P0.passes(&r), "a reviewer's own FAIL blocks");
        r.verdict_from_findings = true;
        assert!(FailOn::P0.passes(&r));
        assert!(!FailOn::P1.passes(&r));
        r.findings[0].severity = Severity::P0;
        assert!(!FailOn::P0.passes(&r));
    }

    #[test]
    fn a_reviewers_word_its_findings_do_not_explain_stands() {
        let mut r = result(Verdict::Fail, &[]);
        r.verdict_from_findings = true;
        r.verdict_floor = Some(Verdict::Fail);
        for g in [
            FailOn::P0,
            FailOn::P1,
            FailOn::P2,
            FailOn::P3,
            FailOn::Concerns,
        ] {
            assert!(!g.passes(&r), "{g:?}");
        }
        assert!(FailOn::Never.passes(&r));
        let mut r = result(Verdict::Concerns, &[]);
        r.verdict_from_findings = true;
        r.verdict_floor = Some(Verdict::Concerns);
        assert!(!FailOn::Concerns.passes(&r));
        for g in [FailOn::P0, FailOn::P1, FailOn::P2, FailOn::P3] {
            assert!(g.passes(&r), "{g:?}");
        }
    }

    #[test]
    fn thresholds() {
        let r = result(Verdict::Concerns, &[Severity::P2]);
        assert!(FailOn::P1.passes(&r));
        assert!(!FailOn::P2.passes(&r));
        assert!(!FailOn::Concerns.passes(&r));
        assert!(FailOn::Never.passes(&result(Verdict::Fail, &[Severity::P0])));
        assert!(!FailOn::Concerns.passes(&result(Verdict::Concerns, &[])));
        assert_eq!(FailOn::parse("P2"), Some(FailOn::P2));
        assert_eq!(FailOn::parse("bogus"), None);
    }
}
