//! mala's `ReviewResult`: `passed`, `issues` (`file`, `line_start`,
//! `line_end`, `priority`, `title`, `body`, `reviewer`), `parse_error`,
//! `fatal_error`, `review_log_path`.
//!
//! `priority` is 0–3 (P0–P3); an `info` note (a redacted secret, a thing done
//! well) has no priority of its own and is listed as 3, the least, rather
//! than dropped. A finding with no file or lines has `null` there.

use serde_json::{Value, json};

use crate::{Finding, ReviewResult, Severity};

pub fn value(result: &ReviewResult) -> Value {
    json!({
        "passed": result.passed,
        "issues": result.sorted_findings().into_iter().map(issue).collect::<Vec<_>>(),
        "parse_error": result.parse_error,
        "fatal_error": result.fatal_error,
        "review_log_path": result.session_log_path,
    })
}

fn issue(f: &Finding) -> Value {
    let priority = match f.severity {
        Severity::P0 => 0,
        Severity::P1 => 1,
        Severity::P2 => 2,
        Severity::P3 | Severity::Info => 3,
    };
    let loc = f.location.as_ref();
    json!({
        "file": loc.map(crate::Location::path),
        "line_start": loc.and_then(crate::Location::start_line),
        "line_end": loc.and_then(crate::Location::end_line),
        "priority": priority,
        "title": f.title,
        "body": f.body,
        "reviewer": f.reviewer,
    })
}
