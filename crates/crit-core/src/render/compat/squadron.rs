//! The review templates' `ReviewResult.to_dict()`: `verdict`, `findings`
//! (`severity`, `title`, `description`, `file_ref`), `raw_output`,
//! `template_name`, `input_files`, `timestamp`.
//!
//! Verdicts: PASS, CONCERNS and FAIL as they are; crit's INCOMPLETE and
//! ERROR have no word there and print as UNKNOWN, which no consumer takes
//! for a pass. Severities: P0 and P1 are FAIL, P2 and P3 CONCERN, `info`
//! PASS (the markdown format's scale, read back).

use serde_json::{Value, json};

use crate::{Finding, ReviewResult, Severity, Verdict};

pub fn value(result: &ReviewResult) -> Value {
    let verdict = match result.verdict {
        Verdict::Pass => "PASS",
        Verdict::Concerns => "CONCERNS",
        Verdict::Fail => "FAIL",
        Verdict::Incomplete | Verdict::Unknown | Verdict::Error => "UNKNOWN",
    };
    json!({
        "verdict": verdict,
        "findings": result.sorted_findings().into_iter().map(finding).collect::<Vec<_>>(),
        "raw_output": result.raw_output,
        "template_name": result.review,
        "input_files": result.inputs,
        "timestamp": result.started_at,
    })
}

fn finding(f: &Finding) -> Value {
    let severity = match f.severity {
        Severity::P0 | Severity::P1 => "FAIL",
        Severity::P2 | Severity::P3 => "CONCERN",
        Severity::Info => "PASS",
    };
    json!({
        "severity": severity,
        "title": f.display_title(),
        "description": f.body,
        "file_ref": f.location.as_ref().map(crate::Location::display),
    })
}
