//! mala's `ReviewResult`: `passed`, `issues` (`file`, `line_start`,
//! `line_end`, `priority`, `title`, `body`, `reviewer`), `parse_error`,
//! `fatal_error`, `review_log_path`.
//!
//! `passed` is mala's own rule: the verdict is `PASS` (and the result passes
//! crit's gate, which an unreadable or unfinished review never does), so a
//! `CONCERNS` (mala's `NEEDS_WORK`) with only P2 findings is not passed,
//! whatever `--fail-on` says.
//!
//! `priority` is 0–3 (P0–P3); an `info` note (a redacted secret, a thing done
//! well) has no priority of its own and is listed as 3, the least, rather
//! than dropped. A finding with no file or lines has `null` there.

use serde::Serialize;
use serde_json::Value;

use crate::{Finding, ReviewResult, Severity};

/// mala's `ReviewResult`, its fields in mala's order.
#[derive(Serialize)]
pub struct Shape<'a> {
    passed: bool,
    issues: Vec<Issue<'a>>,
    parse_error: Option<&'a str>,
    fatal_error: bool,
    review_log_path: Option<&'a str>,
}

/// mala's `ReviewIssue`, in mala's order.
#[derive(Serialize)]
pub struct Issue<'a> {
    file: Option<&'a str>,
    line_start: Option<u32>,
    line_end: Option<u32>,
    priority: u8,
    title: &'a str,
    body: &'a str,
    reviewer: &'a str,
}

pub fn shape(result: &ReviewResult) -> Shape<'_> {
    Shape {
        passed: result.passed && result.verdict == crate::Verdict::Pass,
        issues: result.sorted_findings().into_iter().map(issue).collect(),
        parse_error: result.parse_error.as_deref(),
        fatal_error: result.fatal_error,
        review_log_path: result.session_log_path.as_deref(),
    }
}

pub fn value(result: &ReviewResult) -> Value {
    serde_json::to_value(shape(result)).unwrap_or(Value::Null)
}

fn issue(f: &Finding) -> Issue<'_> {
    let priority = match f.severity {
        Severity::P0 => 0,
        Severity::P1 => 1,
        Severity::P2 => 2,
        Severity::P3 | Severity::Info => 3,
    };
    let loc = f.location.as_ref();
    Issue {
        file: loc.map(crate::Location::path),
        line_start: loc.and_then(crate::Location::start_line),
        line_end: loc.and_then(crate::Location::end_line),
        priority,
        title: &f.title,
        body: &f.body,
        reviewer: &f.reviewer,
    }
}
