//! The review templates' markdown severity format:
//!
//! ```text
//! ## Summary
//! [overall assessment: PASS | CONCERNS | FAIL]
//!
//! ## Findings
//!
//! ### [PASS|CONCERN|FAIL] Finding title
//! Description of the finding with specific file/line references.
//! ```
//!
//! The verdict is the first verdict word in the `## Summary` section (or on a
//! `Verdict:` line). An answer that names none is `UNKNOWN` — which, unlike the
//! templates' published version, never passes. File references (`src/a.rs:12`,
//! `src/a.rs:12-20`, `` `src/a.rs` ``) are picked out of each finding's text.

use std::sync::LazyLock;

use regex::Regex;

use super::{ParseContext, ParsedAnswer};
use crate::{Finding, Location, Verdict, scale};

/// The `parse_error` of a markdown answer that names no verdict.
pub const NO_VERDICT: &str =
    "no verdict: expected a '## Summary' section naming PASS, CONCERNS or FAIL";

static HEADING: LazyLock<Regex> = LazyLock::new(|| re(r"^(#{1,6})\s+(.*?)\s*#*\s*$"));
static FINDING: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^\[\s*(PASS|CONCERNS?|FAIL)\s*\]\s*[:\-–—]?\s*(.*)$"));
static VERDICT_WORD: LazyLock<Regex> =
    LazyLock::new(|| re(r"\b(PASS|CONCERNS|CONCERN|FAIL|INCOMPLETE)\b"));
static VERDICT_LINE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^\W*(?:overall\s+)?(?:verdict|assessment)\W*\s*(PASS|CONCERNS?|FAIL)\b")
});
static FILE_LINE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?:^|[\s(\[`'\x22])(/?(?:[\w.\-]+/)*[\w\-][\w.\-]*\.[A-Za-z0-9]+):(\d+)(?:\s*[-–]\s*(\d+))?",
    )
});
static FILE_TICK: LazyLock<Regex> =
    LazyLock::new(|| re(r"`((?:[\w.\-]+/)+[\w.\-]+|[\w\-]+\.[A-Za-z0-9]{1,8})`"));

/// Compile a literal pattern. The patterns are constants exercised by every test
/// in this module, so a failure here is a build-time bug, not a user's input.
#[allow(clippy::expect_used)]
fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("literal regex")
}

/// Parse a markdown answer. Never fails: an answer with no verdict is `UNKNOWN`.
/// Every finding-shaped block is kept: a `### Title` under `## Findings` (or
/// after the summary) with no `[PASS|CONCERN|FAIL]` tag is a CONCERN, and
/// `notes` says so, as it says when findings came with no verdict.
pub fn parse(text: &str, cx: &ParseContext<'_>) -> ParsedAnswer {
    let sections = split_sections(text);
    let mut verdict = None;
    let mut summary = String::new();
    let mut findings = Vec::new();
    let mut notes = Vec::new();
    // Inside `## Findings`, or past the summary: where a sub-heading is a finding.
    let mut in_findings = false;
    for s in &sections {
        let heading = s
            .heading
            .trim_matches(|c: char| c == '*' || c == ':' || c.is_whitespace());
        if heading.eq_ignore_ascii_case("summary") && verdict.is_none() {
            verdict = VERDICT_WORD.find(&s.body).and_then(|m| match m.as_str() {
                // The reviewer could not review all of the work: never a pass.
                "INCOMPLETE" => Some(Verdict::Incomplete),
                word => scale::markdown_verdict(word),
            });
            summary = s.body.trim().to_string();
            in_findings = true;
        } else if let Some(c) = FINDING.captures(heading) {
            let severity = scale::markdown_severity(&c[1]).unwrap_or(crate::Severity::P2);
            findings.push(finding(c[2].trim(), severity, &s.body, cx));
        } else if s.level <= 2 {
            in_findings =
                heading.eq_ignore_ascii_case("findings") || (in_findings && heading.is_empty());
        } else if in_findings && !heading.is_empty() {
            notes.push(format!(
                "finding `{}` has no [PASS|CONCERN|FAIL] tag: kept as a CONCERN",
                heading.chars().take(80).collect::<String>()
            ));
            findings.push(finding(heading, crate::Severity::P2, &s.body, cx));
        }
    }
    if verdict.is_none() {
        verdict = text.lines().find_map(|l| {
            VERDICT_LINE
                .captures(l)
                .and_then(|c| scale::markdown_verdict(&c[1]))
        });
    }
    if verdict.is_none() && !findings.is_empty() {
        notes.push(format!(
            "{} finding(s) but no verdict ('## Summary' naming PASS, CONCERNS or FAIL): the findings are kept and the review does not pass",
            findings.len()
        ));
    }
    ParsedAnswer {
        verdict: verdict.unwrap_or(Verdict::Unknown),
        summary,
        findings,
        notes,
    }
}

fn finding(title: &str, severity: crate::Severity, body: &str, cx: &ParseContext<'_>) -> Finding {
    let title = title.trim().trim_matches('*').trim();
    let title = if title.is_empty() {
        "(untitled finding)"
    } else {
        title
    };
    let mut f = Finding::new(title, severity, cx.reviewer).with_body(body.trim());
    if let Some(loc) = file_reference(&format!("{title}\n{body}"), cx) {
        f = f.with_location(loc);
    }
    f
}

/// Whether `text` is plainly an answer in this format: it has a `## Summary`
/// section or a `### [PASS|CONCERN|FAIL] …` finding.
pub fn has_summary(text: &str) -> bool {
    split_sections(text).iter().any(|s| {
        let heading = s
            .heading
            .trim_matches(|c: char| c == '*' || c == ':' || c.is_whitespace());
        heading.eq_ignore_ascii_case("summary") || FINDING.is_match(heading)
    })
}

/// Whether a prompt already tells the reviewer to answer in this format (a
/// review template written for it): it shows the `## Summary` and
/// `## Findings` sections, or the `[PASS|CONCERN|FAIL]` finding tag.
pub fn describes_format(prompt: &str) -> bool {
    let lower = prompt.to_ascii_lowercase();
    let sections = lower.contains("## summary") && lower.contains("## findings");
    let tag = lower.contains("[pass|concern|fail]") || lower.contains("[pass | concern | fail]");
    sections || tag
}

struct Section {
    /// The number of `#`s; 0 for the text before the first heading.
    level: usize,
    heading: String,
    body: String,
}

/// Split on headings outside code fences. Text before the first heading is a
/// section with an empty heading.
fn split_sections(text: &str) -> Vec<Section> {
    let mut out = vec![Section {
        level: 0,
        heading: String::new(),
        body: String::new(),
    }];
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        }
        if !in_fence && let Some(c) = HEADING.captures(line) {
            out.push(Section {
                level: c[1].len(),
                heading: c[2].to_string(),
                body: String::new(),
            });
            continue;
        }
        if let Some(last) = out.last_mut() {
            last.body.push_str(line);
            last.body.push('\n');
        }
    }
    out
}

fn file_reference(text: &str, cx: &ParseContext<'_>) -> Option<Location> {
    if let Some(c) = FILE_LINE.captures(text) {
        let path = cx.relative_path(&c[1]);
        let start: u32 = c[2].parse().ok()?;
        let end = c
            .get(3)
            .and_then(|m| m.as_str().parse().ok())
            .unwrap_or(start);
        return Some(if start == 0 {
            Location::file(path)
        } else {
            Location::lines(path, start, end)
        });
    }
    FILE_TICK
        .captures(text)
        .map(|c| Location::file(cx.relative_path(&c[1])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_compile() {
        for r in [
            &*HEADING,
            &*FINDING,
            &*VERDICT_WORD,
            &*VERDICT_LINE,
            &*FILE_LINE,
            &*FILE_TICK,
        ] {
            assert!(!r.as_str().is_empty());
        }
    }
}
