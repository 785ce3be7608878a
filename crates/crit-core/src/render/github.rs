//! GitHub Actions workflow commands: one `::error`/`::warning`/`::notice` line
//! per finding, which the runner turns into annotations on the pull request's
//! files with no action or token at all, then one line for the verdict.
//!
//! Escaping follows the runner's own rules (actions/toolkit `escapeData` and
//! `escapeProperty`): every value is a [`Printable`] for a CI log (`%`, CR and
//! LF percent-encoded, control and hidden characters shown as `<U+XXXX>`),
//! and properties also encode `:` and `,`, so no text from a model can end a
//! command early, start a new one on its own line, or add a property.

use std::fmt::Write as _;

use super::{Level, RenderOptions, level};
use crate::printable::{Dest, Printable};
use crate::{Finding, ReviewResult};

pub(super) fn render(result: &ReviewResult, options: &RenderOptions) -> String {
    let mut out = String::new();
    for f in result.sorted_findings() {
        out.push_str(&annotation(f, options));
    }
    out.push_str(&verdict_line(result, options));
    out
}

fn annotation(f: &Finding, options: &RenderOptions) -> String {
    let command = match level(f.severity) {
        Level::Error => "error",
        Level::Warning => "warning",
        Level::Note => "notice",
    };
    let mut props: Vec<(&str, String)> = Vec::new();
    if let Some(loc) = &f.location {
        props.push(("file", loc.path().trim_start_matches("./").to_string()));
        if let Some(start) = loc.start_line() {
            let start = start.max(1);
            props.push(("line", start.to_string()));
            let end = loc.end_line().unwrap_or(start).max(start);
            if end > start {
                props.push(("endLine", end.to_string()));
            }
        }
    }
    let reviewer = if f.reviewer.is_empty() {
        options.tool_name.clone()
    } else {
        format!("{}/{}", options.tool_name, f.reviewer)
    };
    // A title is one line in the annotation's header.
    let title = one_line(&format!(
        "{} {} ({reviewer})",
        f.severity.code(),
        f.display_title()
    ));
    props.push(("title", title));
    let body = f.body.trim();
    let mut message = if body.is_empty() {
        f.display_title().to_string()
    } else {
        body.to_string()
    };
    if let Some(rule) = &f.rule_id {
        let _ = write!(message, "\n\nRule: {rule}");
    }
    command_line(command, &props, &message)
}

/// The review's outcome, so a log or a checks page shows it even when no
/// finding has a file: an error when the gate did not pass, else a notice.
fn verdict_line(result: &ReviewResult, options: &RenderOptions) -> String {
    let command = if result.passed { "notice" } else { "error" };
    let title = format!(
        "{} {}: {}",
        options.tool_name, result.review, result.verdict
    );
    let mut message = String::new();
    if let Some(err) = &result.parse_error {
        let _ = write!(message, "The review did not complete: {err}\n\n");
    }
    if !result.summary.trim().is_empty() {
        let _ = write!(message, "{}\n\n", result.summary.trim());
    }
    let counts: Vec<String> = result
        .severity_counts()
        .iter()
        .map(|(s, n)| format!("{n} {}", s.code()))
        .collect();
    let found = match counts.is_empty() {
        true => "no findings".to_string(),
        false => counts.join(", "),
    };
    let gate = if result.passed {
        "gate passed"
    } else {
        "gate not passed"
    };
    let _ = write!(message, "{found}; {gate}");
    command_line(command, &[("title", one_line(&title))], &message)
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn command_line(command: &str, props: &[(&str, String)], message: &str) -> String {
    let props: Vec<String> = props
        .iter()
        .map(|(k, v)| format!("{k}={}", escape_property(v)))
        .collect();
    let sep = if props.is_empty() { "" } else { " " };
    format!(
        "::{command}{sep}{}::{}\n",
        props.join(","),
        escape_data(message)
    )
}

/// actions/toolkit `escapeData`, on text made printable in a CI log.
fn escape_data(s: &str) -> String {
    Printable::new(s, Dest::CiLog).into_string()
}

/// actions/toolkit `escapeProperty`, on text made printable in a CI log.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_matches_the_toolkit() {
        assert_eq!(escape_data("50% a\r\nb::c"), "50%25 a%0D%0Ab::c");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
        // `%` first, so an already-encoded sequence is not decoded by the runner.
        assert_eq!(escape_data("%0A"), "%250A");
        assert_eq!(escape_data("\x1b[31m"), "<U+001B>[31m");
    }
}
