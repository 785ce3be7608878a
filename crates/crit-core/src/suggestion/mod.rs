//! A finding's suggested replacement: when it may be offered, how it is
//! applied, and how each destination writes it.
//!
//! A suggestion replaces whole lines `line_start..=line_end` of the new file
//! with its text. It is offered only when those lines exist, the text differs
//! from them, keeps their indentation, and is small (a reviewer's local,
//! certain fix, not a rewrite). The text is written without its final
//! newline: the lines it replaces keep theirs.

mod apply;

pub use apply::{Applied, Edit, NotApplied, apply};

use crate::Finding;

/// Most bytes a suggestion's text may have.
pub const MAX_BYTES: usize = 8 * 1024;
/// Most lines a suggestion may replace, or hold.
pub const MAX_LINES: usize = 20;
/// A suggestion holds at most this many times the lines it replaces.
pub const MAX_GROWTH: usize = 3;

/// Why a suggestion cannot be offered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SuggestionError {
    #[error("the finding has no line range for the suggestion to replace")]
    NoLines,
    #[error("lines {start}-{end} are not in the file, which has {lines} lines")]
    LinesMissing { start: u32, end: u32, lines: usize },
    #[error("the suggestion is the same as the lines it would replace")]
    Unchanged,
    #[error("the suggestion has {bytes} bytes, more than the {limit} a suggestion may have")]
    TooLarge { bytes: usize, limit: usize },
    #[error("the suggestion spans {lines} lines, more than the {limit} a suggestion may span")]
    TooManyLines { lines: usize, limit: usize },
    #[error(
        "the suggestion has {lines} lines for {replaced} flagged, more than {MAX_GROWTH} times as many: a rewrite, not a fix"
    )]
    Grows { lines: usize, replaced: usize },
    #[error("the suggestion is indented by {got}, the lines it replaces by {expected}")]
    Indentation { expected: String, got: String },
    #[error("the lines hold text crit hid from the reviewer (a secret)")]
    Redacted,
    #[error("the file could not be read to check it: {0}")]
    Unreadable(String),
}

/// The text that replaces the lines: the suggestion without one final
/// newline, with CRLF read as LF. `None` without a suggestion.
pub fn replacement(finding: &Finding) -> Option<String> {
    finding.suggestion.as_deref().map(normalize)
}

fn normalize(text: &str) -> String {
    let text = text.replace("\r\n", "\n");
    match text.strip_suffix('\n') {
        Some(t) => t.to_string(),
        None => text,
    }
}

/// The line range a suggestion replaces (1-based, inclusive).
pub fn range(finding: &Finding) -> Option<(u32, u32)> {
    let loc = finding.location.as_ref()?;
    let start = loc.start_line().filter(|s| *s >= 1)?;
    Some((start, loc.end_line().unwrap_or(start).max(start)))
}

/// Checks `finding`'s suggestion against `new_file`, the text of its file
/// after the change (the caller reads it). `Ok` holds the lines it would
/// replace (LF-separated, no final newline); a finding without a suggestion
/// passes with none.
pub fn check(finding: &Finding, new_file: &str) -> Result<String, SuggestionError> {
    let Some(text) = finding.suggestion.as_deref() else {
        return Ok(String::new());
    };
    let (start, end) = range(finding).ok_or(SuggestionError::NoLines)?;
    let lines: Vec<&str> = new_file.lines().collect();
    let (s, e) = (start as usize, end as usize);
    if e > lines.len() {
        return Err(SuggestionError::LinesMissing {
            start,
            end,
            lines: lines.len(),
        });
    }
    let current = &lines[s - 1..e];
    check_replacement(text, current)?;
    Ok(current
        .iter()
        .map(|l| l.trim_end_matches('\r'))
        .collect::<Vec<_>>()
        .join("\n"))
}

/// Settles `finding`'s suggestion against its file after the change
/// (`Err`: why the file could not be read, [`SuggestionError::Unreadable`]):
/// offered, with the lines it replaces recorded, or removed, with why in
/// `suggestion_refused`.
pub fn settle(finding: &mut Finding, new_file: Result<&str, SuggestionError>) {
    if finding.suggestion.is_none() {
        return;
    }
    let checked = new_file.and_then(|text| check(finding, text));
    match checked {
        Ok(replaces) => finding.suggestion_replaces = Some(replaces),
        Err(why) => {
            finding.suggestion = None;
            finding.suggestion_replaces = None;
            finding.suggestion_refused = Some(why.to_string());
        }
    }
}

/// Checks a suggestion's text against the lines it would replace, when the
/// caller has those lines from elsewhere (a diff hunk).
pub fn check_replacement(text: &str, current: &[&str]) -> Result<(), SuggestionError> {
    if text.len() > MAX_BYTES {
        return Err(SuggestionError::TooLarge {
            bytes: text.len(),
            limit: MAX_BYTES,
        });
    }
    let new = normalize(text);
    let held = if new.is_empty() {
        0
    } else {
        new.split('\n').count()
    };
    let spans = current.len().max(held);
    if spans > MAX_LINES {
        return Err(SuggestionError::TooManyLines {
            lines: spans,
            limit: MAX_LINES,
        });
    }
    if held > current.len().max(1) * MAX_GROWTH {
        return Err(SuggestionError::Grows {
            lines: held,
            replaced: current.len(),
        });
    }
    let old: Vec<&str> = current.iter().map(|l| l.trim_end_matches('\r')).collect();
    if old.join("\n") == new {
        return Err(SuggestionError::Unchanged);
    }
    // A model that drops the indentation would shift the code out of its
    // block: the first line of code keeps the first flagged line's.
    if let (Some(expected), Some(got)) = (indent(old.iter().copied()), indent(new.split('\n')))
        && expected != got
    {
        return Err(SuggestionError::Indentation {
            expected: describe_indent(expected),
            got: describe_indent(got),
        });
    }
    // The reviewer saw a marker where a secret is: its text would write
    // the marker over the secret.
    if new.contains("[REDACTED:") || old.iter().any(|l| l.contains("[REDACTED:")) {
        return Err(SuggestionError::Redacted);
    }
    Ok(())
}

/// The leading white space of the first line that is not blank.
fn indent<'a>(mut lines: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let line = lines.find(|l| !l.trim().is_empty())?;
    Some(&line[..line.len() - line.trim_start().len()])
}

/// `4 spaces`, `1 tab`, `nothing`: white space, for people.
fn describe_indent(ws: &str) -> String {
    if ws.is_empty() {
        return "nothing".into();
    }
    let tabs = ws.chars().filter(|c| *c == '\t').count();
    let spaces = ws.chars().filter(|c| *c == ' ').count();
    let other = ws.chars().count() - tabs - spaces;
    let mut parts = Vec::new();
    for (n, one, many) in [
        (tabs, "tab", "tabs"),
        (spaces, "space", "spaces"),
        (other, "other blank", "other blanks"),
    ] {
        match n {
            0 => {}
            1 => parts.push(format!("1 {one}")),
            n => parts.push(format!("{n} {many}")),
        }
    }
    parts.join(" and ")
}

/// A code fence that `text` cannot close: one backtick more than its longest
/// run of backticks, and at least three.
pub fn fence(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(3))
}

/// GitHub's committable suggestion: a `suggestion` code block, in a review
/// comment on the lines it replaces. Ends with a newline.
pub fn github_block(text: &str) -> String {
    block(text, "suggestion")
}

/// GitLab's committable suggestion, in a comment on the first line it
/// replaces: `suggestion:-0+N` reaches `N` lines below that one.
pub fn gitlab_block(text: &str, lines_below: u32) -> String {
    block(text, &format!("suggestion:-0+{lines_below}"))
}

fn block(text: &str, info: &str) -> String {
    let text = normalize(text);
    let fence = fence(&text);
    if text.is_empty() {
        format!("{fence}{info}\n{fence}\n")
    } else {
        format!("{fence}{info}\n{text}\n{fence}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Location, Severity};

    fn finding(start: u32, end: u32, text: &str) -> Finding {
        Finding::new("x", Severity::P2, "r")
            .with_location(Location::lines("a.rs", start, end))
            .with_suggestion(text)
    }

    const FILE: &str = "one\ntwo\nthree\n";

    #[test]
    fn a_change_to_existing_lines_passes() {
        assert_eq!(check(&finding(2, 2, "TWO"), FILE), Ok("two".into()));
        assert_eq!(
            check(&finding(2, 3, "TWO\nTHREE\n"), FILE),
            Ok("two\nthree".into())
        );
        // Deleting the lines is a change too.
        assert_eq!(check(&finding(1, 1, ""), FILE), Ok("one".into()));
        assert_eq!(
            check(&Finding::new("x", Severity::P2, "r"), FILE),
            Ok(String::new()),
            "no suggestion, nothing to check"
        );
    }

    #[test]
    fn settling_records_the_lines_or_why_not() {
        let mut ok = finding(2, 2, "TWO");
        settle(&mut ok, Ok(FILE));
        assert_eq!(ok.suggestion_replaces.as_deref(), Some("two"));
        assert_eq!(ok.suggestion_refused, None);
        let mut same = finding(2, 2, "two");
        settle(&mut same, Ok(FILE));
        assert_eq!(same.suggestion, None);
        assert_eq!(
            same.suggestion_refused.as_deref(),
            Some("the suggestion is the same as the lines it would replace")
        );
        let mut unread = finding(2, 2, "TWO");
        settle(
            &mut unread,
            Err(SuggestionError::Unreadable("a symlink".into())),
        );
        assert_eq!(unread.suggestion, None);
        assert!(unread.suggestion_refused.unwrap().contains("a symlink"));
    }

    #[test]
    fn lines_must_exist() {
        assert_eq!(
            check(&finding(3, 4, "x"), FILE),
            Err(SuggestionError::LinesMissing {
                start: 3,
                end: 4,
                lines: 3
            })
        );
        let whole_file = Finding::new("x", Severity::P2, "r")
            .with_location(Location::file("a.rs"))
            .with_suggestion("x");
        assert_eq!(check(&whole_file, FILE), Err(SuggestionError::NoLines));
        let nowhere = Finding::new("x", Severity::P2, "r").with_suggestion("x");
        assert_eq!(check(&nowhere, FILE), Err(SuggestionError::NoLines));
        let mut zero = finding(1, 1, "x");
        zero.location = Some(Location::File {
            path: "a.rs".into(),
            line_start: Some(0),
            line_end: Some(0),
        });
        assert_eq!(check(&zero, FILE), Err(SuggestionError::NoLines));
    }

    #[test]
    fn the_same_text_is_no_suggestion() {
        assert_eq!(
            check(&finding(2, 2, "two"), FILE),
            Err(SuggestionError::Unchanged)
        );
        assert_eq!(
            check(&finding(1, 2, "one\r\ntwo\r\n"), "one\r\ntwo\r\n"),
            Err(SuggestionError::Unchanged)
        );
    }

    #[test]
    fn indentation_is_kept() {
        let file = "fn f() {\n    let x = g();\n}\n";
        assert_eq!(
            check(&finding(2, 2, "    let x = g()?;"), file),
            Ok("    let x = g();".into())
        );
        assert_eq!(
            check(&finding(2, 2, "let x = g()?;"), file),
            Err(SuggestionError::Indentation {
                expected: "4 spaces".into(),
                got: "nothing".into()
            })
        );
        assert_eq!(
            check(&finding(2, 2, "\tlet x = g()?;"), file)
                .unwrap_err()
                .to_string(),
            "the suggestion is indented by 1 tab, the lines it replaces by 4 spaces"
        );
        // Lines below the first may nest deeper.
        assert!(check(&finding(2, 2, "    if ok {\n        x\n    }"), file).is_ok());
    }

    #[test]
    fn a_secret_hidden_from_the_reviewer_is_never_written_over() {
        let file = "let key = \"[REDACTED:aws-key]\";\n";
        assert_eq!(
            check(&finding(1, 1, "let key = env();"), "let key = 1;\n").map(|_| ()),
            Ok(())
        );
        assert_eq!(
            check(&finding(1, 1, "let key = env();"), file),
            Err(SuggestionError::Redacted)
        );
    }

    #[test]
    fn size_is_bounded() {
        let big = "x".repeat(MAX_BYTES + 1);
        assert!(matches!(
            check(&finding(1, 1, &big), FILE),
            Err(SuggestionError::TooLarge { .. })
        ));
        let tall = "x\n".repeat(MAX_LINES + 1);
        assert!(matches!(
            check(&finding(1, 1, &tall), FILE),
            Err(SuggestionError::TooManyLines { .. })
        ));
        assert!(check(&finding(1, 1, "a\nb\nc"), FILE).is_ok());
        assert_eq!(
            check(&finding(1, 1, "a\nb\nc\nd"), FILE),
            Err(SuggestionError::Grows {
                lines: 4,
                replaced: 1
            })
        );
        let long_file = "l\n".repeat(MAX_LINES + 5);
        assert!(matches!(
            check(&finding(1, MAX_LINES as u32 + 1, "x"), &long_file),
            Err(SuggestionError::TooManyLines { .. })
        ));
    }

    #[test]
    fn fences_outlast_the_text() {
        assert_eq!(fence("plain"), "```");
        assert_eq!(fence("let s = `a`;"), "```");
        assert_eq!(fence("```\ncode\n```"), "````");
        assert_eq!(fence("a ````` b"), "``````");
        let hostile = "x\n```\n</details>\n```suggestion\ny";
        let block = github_block(hostile);
        assert!(block.starts_with("````suggestion\n"), "{block}");
        assert!(block.ends_with("\n````\n"), "{block}");
    }

    #[test]
    fn blocks_for_each_forge() {
        assert_eq!(
            github_block("\tdefer conn.Close()\n"),
            "```suggestion\n\tdefer conn.Close()\n```\n"
        );
        assert_eq!(github_block(""), "```suggestion\n```\n");
        assert_eq!(gitlab_block("a\nb", 1), "```suggestion:-0+1\na\nb\n```\n");
        assert_eq!(
            replacement(&finding(1, 1, "a\r\nb\r\n")),
            Some("a\nb".into())
        );
        assert_eq!(range(&finding(4, 2, "x")), Some((4, 4)));
    }
}
