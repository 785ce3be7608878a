//! The review templates' `ReviewResult.to_dict()`: `verdict`, `findings`
//! (`severity`, `title`, `description`, `file_ref`), `raw_output`,
//! `template_name`, `input_files`, `timestamp`.
//!
//! Verdicts: PASS, CONCERNS and FAIL as they are; crit's INCOMPLETE and
//! ERROR have no word there and print as UNKNOWN, which no consumer takes
//! for a pass. Severities: P0 and P1 are FAIL, P2 and P3 CONCERN, `info`
//! PASS (the markdown format's scale, read back).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::{Finding, ReviewResult, Severity, Verdict};

/// `ReviewResult.to_dict()`, its fields in the dataclass's order.
#[derive(Serialize)]
pub struct Shape<'a> {
    verdict: &'static str,
    findings: Vec<ShapeFinding<'a>>,
    raw_output: &'a str,
    template_name: &'a str,
    input_files: &'a BTreeMap<String, String>,
    timestamp: Option<&'a str>,
}

/// `ReviewFinding`, in the dataclass's order.
#[derive(Serialize)]
pub struct ShapeFinding<'a> {
    severity: &'static str,
    title: &'a str,
    description: &'a str,
    file_ref: Option<String>,
}

pub fn shape(result: &ReviewResult) -> Shape<'_> {
    let verdict = match result.verdict {
        Verdict::Pass => "PASS",
        Verdict::Concerns => "CONCERNS",
        Verdict::Fail => "FAIL",
        Verdict::Incomplete | Verdict::Unknown | Verdict::Error => "UNKNOWN",
    };
    Shape {
        verdict,
        findings: result.sorted_findings().into_iter().map(finding).collect(),
        raw_output: &result.raw_output,
        template_name: &result.review,
        input_files: &result.inputs,
        timestamp: result.started_at.as_deref(),
    }
}

pub fn value(result: &ReviewResult) -> Value {
    serde_json::to_value(shape(result)).unwrap_or(Value::Null)
}

fn finding(f: &Finding) -> ShapeFinding<'_> {
    let severity = match f.severity {
        Severity::P0 | Severity::P1 => "FAIL",
        Severity::P2 | Severity::P3 => "CONCERN",
        Severity::Info => "PASS",
    };
    ShapeFinding {
        severity,
        title: f.display_title(),
        description: &f.body,
        file_ref: f.location.as_ref().map(crate::Location::display),
    }
}
