//! JUnit XML, the test report every CI shows (GitLab `artifacts: reports:
//! junit`, Jenkins, Azure Pipelines, CircleCI, test-reporter actions).
//!
//! One `<testsuite>` per review. Each finding is a `<testcase>` (classname
//! `crit.<review>.<reviewer>`): while the result did not pass its gate, a
//! P0–P3 finding fails it; a result that passed fails no finding's case (the
//! gate let them through: they are notes), and an info note always passes.
//! One more test case stands for the review itself: it fails when the result
//! did not pass its gate, and is an `<error>` when the review did not complete,
//! so a broken review is never a green test run. The counts on `<testsuites>`
//! and `<testsuite>` add up to what the cases say.

use std::fmt::Write as _;

use super::RenderOptions;
use crate::printable::{Dest, Printable};
use crate::{Finding, ReviewResult, Severity};

pub(super) fn render(result: &ReviewResult, options: &RenderOptions) -> String {
    let findings = result.sorted_findings();
    let failures = findings.iter().filter(|f| fails(f, result)).count()
        + usize::from(!result.passed && !inconclusive(result));
    let errors = usize::from(inconclusive(result));
    let tests = findings.len() + 1;
    let time = format!("{:.3}", result.duration_ms as f64 / 1000.0);
    let suite = format!("{} {}", options.tool_name, result.review);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"0\" time=\"{time}\">",
        attr(&options.tool_name)
    );
    let mut suite_attrs = format!(
        "name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"0\" time=\"{time}\"",
        attr(&suite)
    );
    if let Some(ts) = result.started_at.as_deref().and_then(timestamp) {
        let _ = write!(suite_attrs, " timestamp=\"{ts}\"");
    }
    let _ = writeln!(out, "  <testsuite {suite_attrs}>");
    let _ = writeln!(
        out,
        "    <properties>\n      <property name=\"verdict\" value=\"{}\"/>\n      <property name=\"passed\" value=\"{}\"/>\n    </properties>",
        result.verdict, result.passed
    );
    out.push_str(&verdict_case(result, options));
    for f in findings {
        out.push_str(&finding_case(f, result, options));
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// Whether `f`'s case fails: only what the gate failed on counts, so a
/// passing result is a green test run.
fn fails(f: &Finding, result: &ReviewResult) -> bool {
    !result.passed && f.severity != Severity::Info
}

fn inconclusive(result: &ReviewResult) -> bool {
    result.verdict.is_inconclusive() || result.parse_error.is_some() || result.fatal_error
}

fn verdict_case(result: &ReviewResult, options: &RenderOptions) -> String {
    let classname = format!("{}.{}", options.tool_name, result.review);
    let name = format!("{} {}: verdict", options.tool_name, result.review);
    let mut out = format!(
        "    <testcase name=\"{}\" classname=\"{}\" time=\"0\"",
        attr(&name),
        attr(&classname)
    );
    let summary = result.summary.trim();
    if inconclusive(result) {
        let why = result
            .parse_error
            .as_deref()
            .unwrap_or("the review did not complete");
        let _ = write!(
            out,
            ">\n      <error message=\"{}\" type=\"{}\">{}</error>\n    </testcase>\n",
            attr(&format!("{}: {why}", result.verdict)),
            result.verdict,
            text(summary)
        );
    } else if !result.passed {
        let _ = write!(
            out,
            ">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>\n",
            attr(&format!("{}: the gate did not pass", result.verdict)),
            result.verdict,
            text(summary)
        );
    } else if !summary.is_empty() {
        let _ = write!(
            out,
            ">\n      <system-out>{}</system-out>\n    </testcase>\n",
            text(summary)
        );
    } else {
        out.push_str("/>\n");
    }
    out
}

fn finding_case(f: &Finding, result: &ReviewResult, options: &RenderOptions) -> String {
    let reviewer = if f.reviewer.is_empty() {
        "reviewer"
    } else {
        &f.reviewer
    };
    let classname = format!("{}.{}.{reviewer}", options.tool_name, result.review);
    let where_ = f
        .location
        .as_ref()
        .map(|l| format!(" ({})", l.display()))
        .unwrap_or_default();
    let name = format!("{} {}{where_}", f.severity.code(), f.display_title());
    let mut out = format!(
        "    <testcase name=\"{}\" classname=\"{}\" time=\"0\"",
        attr(&name),
        attr(&classname)
    );
    if let Some(loc) = &f.location {
        let _ = write!(out, " file=\"{}\"", attr(loc.path()));
        if let Some(line) = loc.start_line() {
            let _ = write!(out, " line=\"{}\"", line.max(1));
        }
    }
    let mut detail = String::new();
    if let Some(l) = &f.location {
        let _ = writeln!(detail, "{}", l.display());
    }
    if !f.body.trim().is_empty() {
        let _ = writeln!(detail, "{}", f.body.trim());
    }
    if let Some(rule) = &f.rule_id {
        let _ = writeln!(detail, "Rule: {rule}");
    }
    let _ = write!(detail, "Fingerprint: {}", f.id);
    if fails(f, result) {
        let _ = write!(
            out,
            ">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>\n",
            attr(f.display_title()),
            f.severity.code(),
            text(&detail)
        );
    } else {
        let _ = write!(
            out,
            ">\n      <system-out>{}</system-out>\n    </testcase>\n",
            text(&detail)
        );
    }
    out
}

/// `2026-11-21T13:05:09Z` as JUnit's timestamp (no zone: the XSD's pattern).
fn timestamp(rfc3339: &str) -> Option<String> {
    let t = rfc3339.trim().trim_end_matches('Z');
    let ok = t.len() == 19
        && t.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            10 => b == b'T',
            13 | 16 => b == b':',
            _ => b.is_ascii_digit(),
        });
    ok.then(|| t.to_string())
}

/// Element text: an XML [`Printable`] (markup, quotes and line breaks as
/// references, control and hidden characters shown as `<U+XXXX>`).
fn text(s: &str) -> Printable {
    Printable::new(s, Dest::Xml)
}

/// Attribute values: the same escaping holds there too.
fn attr(s: &str) -> Printable {
    text(s)
}
