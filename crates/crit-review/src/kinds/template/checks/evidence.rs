//! Checking what reviewers quote. A finding from crit's findings contract
//! carries `evidence` (the lines at its location, copied from the file) and,
//! for a convention breach, `convention` (the rule, copied from the
//! conventions given). A model that misremembers code, or invents a rule,
//! cannot hide it here:
//!
//! - the quote is at the cited lines (give or take a few): kept;
//! - it is elsewhere in the file: the finding moves to where it is and drops
//!   one severity level (its reviewer was not precise), with a note;
//! - it is nowhere in the file, nor in the change's diff for that file (a
//!   removed line): dismissed, cause `evidence_not_found`;
//! - a quoted convention that is not in the conventions: dismissed, cause
//!   `convention_not_found`.
//!
//! Quotes are compared line by line with whitespace collapsed, leading diff
//! markers and line numbers stripped, and `…` or `...` lines allowed to skip.
//! A finding without a quote, or one whose file cannot be read, is kept as is.

use std::path::Path;

use crit_core::{Dismissed, Finding, Location, Severity};

/// Lines a quote may sit away from the cited range and still count as there.
const SLACK: u32 = 3;

/// What a check needs: where files are, the diff text of the change (for
/// quotes of removed lines), and the conventions the reviewers were given.
pub(crate) struct Sources<'a> {
    pub root: &'a Path,
    pub patch: &'a str,
    pub conventions: &'a str,
}

/// Checks every finding with a quote; moves those that fail to `dismissed`.
pub(crate) fn check(
    findings: &mut Vec<Finding>,
    dismissed: &mut Vec<Dismissed>,
    src: &Sources<'_>,
) {
    let mut kept = Vec::with_capacity(findings.len());
    for mut f in std::mem::take(findings) {
        if let Some(rule) = f.convention.clone()
            && !src.conventions.is_empty()
            && find(&lines_of(src.conventions), &quote_lines(&rule)).is_none()
        {
            dismissed.push(Dismissed {
                reason: format!(
                    "the convention it quotes is not in the project conventions given to reviewers: “{}”",
                    short(&rule)
                ),
                finding: f,
                cause: "convention_not_found".into(),
            });
            continue;
        }
        match verdict(&f, src) {
            Quote::There | Quote::Unchecked => kept.push(f),
            Quote::Elsewhere(start, end) => {
                let was = f
                    .location
                    .as_ref()
                    .map(Location::display)
                    .unwrap_or_default();
                if let Some(path) = f.path().map(str::to_string) {
                    f.location = Some(Location::lines(path, start, end));
                }
                let before = f.severity;
                f.severity = one_lower(f.severity);
                f.body = format!(
                    "{}\n\n_crit: the quoted code is at lines {start}–{end}, not at {was} as reported; \
                     moved there, and lowered from {} to {}._",
                    f.body.trim_end(),
                    before.code(),
                    f.severity.code()
                );
                kept.push(f);
            }
            Quote::Missing => {
                let reason = format!(
                    "the code it quotes as evidence is not in {}: “{}”",
                    f.path().unwrap_or("the file"),
                    short(f.evidence.as_deref().unwrap_or_default())
                );
                dismissed.push(Dismissed {
                    finding: f,
                    cause: "evidence_not_found".into(),
                    reason,
                });
            }
        }
    }
    *findings = kept;
}

enum Quote {
    There,
    Elsewhere(u32, u32),
    Missing,
    Unchecked,
}

fn verdict(f: &Finding, src: &Sources<'_>) -> Quote {
    let (
        Some(evidence),
        Some(Location::File {
            path,
            line_start,
            line_end,
        }),
    ) = (&f.evidence, &f.location)
    else {
        return Quote::Unchecked;
    };
    let quote = quote_lines(evidence);
    if quote.is_empty() {
        return Quote::Unchecked;
    }
    let in_diff = || find(&diff_lines(src.patch, path), &quote).is_some();
    let Some(text) = read(src.root, path) else {
        // A deleted file, or one that cannot be read: the diff is all there is.
        return if src.patch.is_empty() || in_diff() {
            Quote::Unchecked
        } else {
            Quote::Missing
        };
    };
    let lines = lines_of(&text);
    let all = find_all(&lines, &quote);
    let (start, end) = (
        line_start.unwrap_or(1),
        line_end.or(*line_start).unwrap_or(u32::MAX),
    );
    let near =
        |(s, e): &(u32, u32)| *s <= end.saturating_add(SLACK) && e.saturating_add(SLACK) >= start;
    if line_start.is_none() && !all.is_empty() || all.iter().any(near) {
        return Quote::There;
    }
    match all.first() {
        Some((s, e)) => Quote::Elsewhere(*s, *e),
        None if in_diff() => Quote::There,
        None => Quote::Missing,
    }
}

/// The file at `path` under `root`, when it is inside the root and text.
fn read(root: &Path, path: &str) -> Option<String> {
    let root = root.canonicalize().ok()?;
    let full = root.join(path).canonicalize().ok()?;
    if !full.starts_with(&root) || !full.is_file() {
        return None;
    }
    let bytes = crit_core::files::read_capped(&full, Default::default()).ok()?;
    String::from_utf8(bytes).ok()
}

/// A line as compared: trimmed, whitespace collapsed.
fn norm(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn lines_of(text: &str) -> Vec<String> {
    text.lines().map(norm).collect()
}

/// The quote's lines, without the line numbers and diff markers a model may
/// copy from the prompt's diff (`  41 + code`), a Read result (`41\tcode`)
/// or git (`+code`), blank lines dropped; `…` marks a gap. Stripping only
/// shortens a line, and lines match by containment, so it never makes a
/// quote that is there look missing.
fn quote_lines(quote: &str) -> Vec<String> {
    static NUMBERED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        #[allow(clippy::expect_used)]
        // A literal pattern, exercised by this module's tests.
        regex::Regex::new(r"^\s*\d+(?: [+ -] |\t|: |\| )").expect("literal regex")
    });
    quote
        .lines()
        .map(|l| {
            let t = match NUMBERED.find(l) {
                Some(m) => &l[m.end()..],
                None => l,
            };
            let t = t.trim_start();
            let t = t.strip_prefix(['+', '-']).unwrap_or(t);
            norm(t)
        })
        .filter(|l| !l.is_empty())
        .collect()
}

/// Lines of the diff sections of `path` (without their markers).
fn diff_lines(patch: &str, path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut mine = false;
    for l in patch.lines() {
        if let Some(rest) = l.strip_prefix("diff --git ") {
            mine = rest.ends_with(&format!(" b/{path}")) || rest.contains(&format!("/{path} "));
            continue;
        }
        if mine && !l.starts_with("@@") && !l.starts_with("+++") && !l.starts_with("---") {
            out.push(norm(l.get(1..).unwrap_or_default()));
        }
    }
    out
}

fn find(lines: &[String], quote: &[String]) -> Option<(u32, u32)> {
    find_all(lines, quote).into_iter().next()
}

/// Every place (1-based first and last line) where `quote` matches: each
/// quote line is contained in its file line (a quote may be part of a long
/// line), consecutive, except that a `…` line skips up to 50 lines.
fn find_all(lines: &[String], quote: &[String]) -> Vec<(u32, u32)> {
    let pieces: Vec<&[String]> = quote
        .split(|l| l == "…" || l == "..." || l == "[…]")
        .filter(|p| !p.is_empty())
        .collect();
    let Some(first) = pieces.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for start in 0..lines.len() {
        let Some(mut end) = run_at(lines, start, first) else {
            continue;
        };
        let mut ok = true;
        for piece in &pieces[1..] {
            match (end..(end + 50).min(lines.len())).find_map(|s| run_at(lines, s, piece)) {
                Some(e) => end = e,
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            out.push((line_no(start + 1), line_no(end)));
        }
    }
    out
}

/// Where a run of `piece` lines starting at `start` ends (exclusive).
fn run_at(lines: &[String], start: usize, piece: &[String]) -> Option<usize> {
    let end = start + piece.len();
    (end <= lines.len()
        && lines[start..end]
            .iter()
            .zip(piece)
            .all(|(l, q)| l.contains(q.as_str())))
    .then_some(end)
}

fn line_no(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn one_lower(s: Severity) -> Severity {
    match s {
        Severity::P0 => Severity::P1,
        Severity::P1 => Severity::P2,
        Severity::P2 => Severity::P3,
        other => other,
    }
}

fn short(text: &str) -> String {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match one.char_indices().nth(120) {
        Some((i, _)) => format!("{}…", &one[..i]),
        None => one,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(path: &str, start: u32, end: u32, evidence: &str) -> Finding {
        let mut f = Finding::new("Leak", Severity::P1, "code")
            .with_location(Location::lines(path, start, end));
        f.evidence = Some(evidence.to_string());
        f
    }

    fn project() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("src")).unwrap();
        let mut text = String::new();
        for i in 1..=40 {
            text.push_str(&format!("    let v{i} = compute({i});\n"));
        }
        text.push_str("    conn.close()\n");
        std::fs::write(d.path().join("src/a.rs"), text).unwrap();
        d
    }

    #[test]
    fn quotes_are_checked_against_the_file() {
        let d = project();
        let src = Sources {
            root: d.path(),
            patch: "diff --git a/src/gone.rs b/src/gone.rs\n--- a/src/gone.rs\n+++ /dev/null\n@@ -1 +0,0 @@\n-old_code();\n",
            conventions: "# Project conventions\n<file path=\"CLAUDE.md\">\nErrors are returned, never unwrapped.\n</file>",
        };
        let mut findings = vec![
            // At the cited lines, copied with the diff's numbers and marker.
            finding(
                "src/a.rs",
                10,
                11,
                "   10 +     let v10 = compute(10);\n   11 +     let v11 = compute(11);",
            ),
            // Elsewhere in the file: moved and lowered.
            finding("src/a.rs", 2, 2, "let v30 = compute(30);"),
            // Nowhere: dismissed.
            finding("src/a.rs", 5, 5, "let v5 = compute(5).unwrap();"),
            // A removed line of a deleted file: in the diff, kept.
            finding("src/gone.rs", 1, 1, "old_code();"),
            // Elided with …
            finding(
                "src/a.rs",
                1,
                40,
                "let v1 = compute(1);\n…\nlet v40 = compute(40);",
            ),
        ];
        let mut convention = finding("src/a.rs", 41, 41, "conn.close()");
        convention.convention = Some("Errors are always logged.".into());
        findings.push(convention);
        let mut dismissed = Vec::new();
        check(&mut findings, &mut dismissed, &src);
        assert_eq!(findings.len(), 4);
        assert_eq!(
            findings[1].location.as_ref().unwrap().start_line(),
            Some(30)
        );
        assert_eq!(findings[1].severity, Severity::P2);
        assert!(findings[1].body.contains("lowered from P1 to P2"));
        let causes: Vec<&str> = dismissed.iter().map(|d| d.cause.as_str()).collect();
        assert_eq!(causes, ["evidence_not_found", "convention_not_found"]);
        assert!(
            dismissed[0].reason.contains("compute(5).unwrap()"),
            "{}",
            dismissed[0].reason
        );
    }

    #[test]
    fn paths_outside_the_root_are_not_read() {
        let d = project();
        assert!(read(d.path(), "../../etc/passwd").is_none());
        assert!(read(d.path(), "src/a.rs").is_some());
    }
}
