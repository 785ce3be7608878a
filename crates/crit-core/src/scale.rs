//! Every original tool's severity and verdict words, mapped onto crit's one scale.
//!
//! This is the only place these mappings live.
//!
//! | source | word | crit |
//! | --- | --- | --- |
//! | review templates' markdown finding (`### [X] Title`) | `FAIL` | `P1` (blocks under the default gate) |
//! |  | `CONCERN` | `P2` |
//! |  | `PASS` | `info` |
//! | review templates' markdown verdict (`## Summary`) | `PASS` / `CONCERNS` / `FAIL` | `PASS` / `CONCERNS` / `FAIL` |
//! | prompt-review critique severity | `blocker` / `major` / `minor` / `nit` | `P0` / `P1` / `P2` / `P3` |
//! | mala's findings JSON, Codex, Cerberus priority | `0`–`3`, `"P0"`–`"P3"`, `"0"`–`"3"` | `P0`–`P3` |
//! | mala's findings JSON / Cerberus verdict | `PASS` / `FAIL` / `NEEDS_WORK` | `PASS` / `FAIL` / `CONCERNS` |
//! | Codex `overall_correctness` | `patch is correct` / `patch is incorrect` | `PASS` / `FAIL` |
//! | expert-review plan verdict | `APPROVED` / `REJECTED` / `INCOMPLETE` / `ERROR` | `PASS` / `FAIL` / `INCOMPLETE` / `ERROR` |
//!
//! The markdown format's `FAIL` maps to P1 rather than P0 because that format has one failing
//! level only; P1 keeps it blocking under the default gate without claiming the
//! "must not ship" certainty a P0 carries.

use crate::{Severity, Verdict};

/// The review templates' markdown finding tags: `PASS`, `CONCERN`, `FAIL` (case-insensitive).
pub fn markdown_severity(word: &str) -> Option<Severity> {
    match word.trim().to_ascii_uppercase().as_str() {
        "FAIL" => Some(Severity::P1),
        "CONCERN" | "CONCERNS" => Some(Severity::P2),
        "PASS" => Some(Severity::Info),
        _ => None,
    }
}

/// The review templates' markdown summary verdicts: `PASS`, `CONCERNS` (or `CONCERN`), `FAIL`.
pub fn markdown_verdict(word: &str) -> Option<Verdict> {
    match word.trim().to_ascii_uppercase().as_str() {
        "PASS" => Some(Verdict::Pass),
        "CONCERNS" | "CONCERN" => Some(Verdict::Concerns),
        "FAIL" => Some(Verdict::Fail),
        _ => None,
    }
}

/// The prompt-review pipeline's critique severities: `blocker`, `major`, `minor`, `nit`.
pub fn critique_severity(word: &str) -> Option<Severity> {
    match word.trim().to_ascii_lowercase().as_str() {
        "blocker" => Some(Severity::P0),
        "major" => Some(Severity::P1),
        "minor" => Some(Severity::P2),
        "nit" => Some(Severity::P3),
        _ => None,
    }
}

/// The prompt-review pipeline's word for a severity (`info` has none and maps to `nit`).
pub fn critique_word(severity: Severity) -> &'static str {
    match severity {
        Severity::P0 => "blocker",
        Severity::P1 => "major",
        Severity::P2 => "minor",
        Severity::P3 | Severity::Info => "nit",
    }
}

/// A P0–P3 priority as models write it: `1`, `"1"`, `"P1"`, `"p1"`, `"[P1]"`.
pub fn priority_severity(value: &serde_json::Value) -> Option<Severity> {
    match value {
        serde_json::Value::Number(n) => n.as_u64().and_then(Severity::from_priority),
        serde_json::Value::String(s) => {
            let t = s.trim().trim_start_matches('[').trim_end_matches(']');
            let digits = t.strip_prefix(['P', 'p']).unwrap_or(t);
            digits.parse::<u64>().ok().and_then(Severity::from_priority)
        }
        _ => None,
    }
}

/// mala's findings JSON and Cerberus verdicts: `PASS`, `FAIL`, `NEEDS_WORK`; crit's own
/// `CONCERNS` is accepted too. Exact upper-case words, as the contract says.
pub fn findings_json_verdict(word: &str) -> Option<Verdict> {
    match word {
        "PASS" => Some(Verdict::Pass),
        "FAIL" => Some(Verdict::Fail),
        "NEEDS_WORK" | "CONCERNS" => Some(Verdict::Concerns),
        _ => None,
    }
}

/// mala's findings-JSON word for a verdict, for tools that speak that contract.
pub fn findings_json_word(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Pass => "PASS",
        Verdict::Concerns => "NEEDS_WORK",
        _ => "FAIL",
    }
}

/// Codex's `overall_correctness`.
pub fn codex_verdict(overall_correctness: &str) -> Option<Verdict> {
    match overall_correctness.trim().to_ascii_lowercase().as_str() {
        "patch is correct" | "correct" => Some(Verdict::Pass),
        "patch is incorrect" | "incorrect" => Some(Verdict::Fail),
        _ => None,
    }
}

/// expert-review's plan verdicts.
pub fn plan_verdict(word: &str) -> Option<Verdict> {
    match word.trim() {
        "APPROVED" => Some(Verdict::Pass),
        "REJECTED" => Some(Verdict::Fail),
        "INCOMPLETE" => Some(Verdict::Incomplete),
        "ERROR" => Some(Verdict::Error),
        _ => None,
    }
}

/// expert-review's word for a verdict.
pub fn plan_word(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Pass => "APPROVED",
        Verdict::Fail | Verdict::Concerns => "REJECTED",
        Verdict::Incomplete => "INCOMPLETE",
        Verdict::Unknown | Verdict::Error => "ERROR",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn markdown_words() {
        assert_eq!(markdown_severity("FAIL"), Some(Severity::P1));
        assert_eq!(markdown_severity("concern"), Some(Severity::P2));
        assert_eq!(markdown_severity("PASS"), Some(Severity::Info));
        assert_eq!(markdown_severity("WARN"), None);
        assert_eq!(markdown_verdict("Concerns"), Some(Verdict::Concerns));
        assert_eq!(markdown_verdict("UNKNOWN"), None);
    }

    #[test]
    fn critique_round_trip() {
        for w in ["blocker", "major", "minor", "nit"] {
            assert_eq!(critique_word(critique_severity(w).unwrap()), w);
        }
        assert_eq!(critique_severity("BLOCKER"), Some(Severity::P0));
        assert_eq!(critique_word(Severity::Info), "nit");
    }

    #[test]
    fn priorities_in_every_spelling() {
        for (v, s) in [
            (json!(0), Severity::P0),
            (json!("1"), Severity::P1),
            (json!("P2"), Severity::P2),
            (json!("p3"), Severity::P3),
            (json!("[P1]"), Severity::P1),
        ] {
            assert_eq!(priority_severity(&v), Some(s), "{v}");
        }
        for bad in [json!(4), json!(-1), json!("high"), json!(1.5), json!(null)] {
            assert_eq!(priority_severity(&bad), None, "{bad}");
        }
    }

    #[test]
    fn verdict_words() {
        assert_eq!(findings_json_verdict("NEEDS_WORK"), Some(Verdict::Concerns));
        assert_eq!(findings_json_verdict("pass"), None);
        assert_eq!(findings_json_word(Verdict::Concerns), "NEEDS_WORK");
        assert_eq!(findings_json_word(Verdict::Unknown), "FAIL");
        assert_eq!(codex_verdict("Patch is incorrect"), Some(Verdict::Fail));
        assert_eq!(plan_verdict("APPROVED"), Some(Verdict::Pass));
        assert_eq!(plan_word(Verdict::Unknown), "ERROR");
        for w in ["APPROVED", "REJECTED", "INCOMPLETE", "ERROR"] {
            assert_eq!(plan_word(plan_verdict(w).unwrap()), w);
        }
    }
}
