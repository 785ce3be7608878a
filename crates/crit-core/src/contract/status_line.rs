//! Reldo's answer convention: free text whose status line says PASS or FAIL.
//!
//! Reldo returns the orchestrator's text as written and leaves the verdict to
//! the caller's prompt; its example reviewers "return STATUS: PASS if no
//! issues, STATUS: FAIL with violations list". crit reads that status strictly:
//!
//! - the last non-empty line is `STATUS: PASS` or `STATUS: FAIL`, or
//! - the first non-empty line is (the example reviewers put it first, with
//!   the violations under it), or
//! - the answer starts with `PASS:` or `FAIL:`.
//!
//! Case does not matter; a line may carry markdown emphasis (`**STATUS: PASS**`)
//! and a final full stop, nothing else. An answer with no such status, or with
//! both PASS and FAIL, is UNKNOWN: it never passes a gate. A `STATUS:` line in
//! the middle of the text (a quoted sub-agent, an example) is not a status.

use super::ParsedAnswer;
use crate::Verdict;

/// The `parse_error` of an answer with no status.
pub const NO_STATUS: &str = "no status: expected the last line to be `STATUS: PASS` or `STATUS: FAIL` (or the answer to start with `PASS:` or `FAIL:`)";
/// The `parse_error` of an answer that says both.
pub const BOTH_STATUSES: &str = "conflicting status: the answer says both PASS and FAIL";

/// The verdict of a Reldo-style answer; the text itself is the summary's source.
pub fn parse(text: &str) -> ParsedAnswer {
    let verdict = match statuses(text).as_slice() {
        [] => Verdict::Unknown,
        [first, rest @ ..] if rest.iter().all(|v| v == first) => *first,
        _ => Verdict::Unknown,
    };
    ParsedAnswer {
        verdict,
        summary: String::new(),
        findings: Vec::new(),
        notes: Vec::new(),
    }
}

/// Why `text` has no usable status, when it has none: [`NO_STATUS`] or
/// [`BOTH_STATUSES`].
pub fn problem(text: &str) -> Option<&'static str> {
    let found = statuses(text);
    match found.as_slice() {
        [] => Some(NO_STATUS),
        [first, rest @ ..] if rest.iter().all(|v| v == first) => None,
        _ => Some(BOTH_STATUSES),
    }
}

/// Every status the answer states, in the three places one may stand.
fn statuses(text: &str) -> Vec<Verdict> {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut found = Vec::new();
    if let Some(v) = lines.last().and_then(|l| status_line(l)) {
        found.push(v);
    }
    if lines.len() > 1
        && let Some(v) = lines.first().and_then(|l| status_line(l))
    {
        found.push(v);
    }
    if let Some(v) = lines.first().and_then(|l| leading_word(l)) {
        found.push(v);
    }
    found
}

/// `STATUS: PASS` / `STATUS: FAIL`, alone on its line.
fn status_line(line: &str) -> Option<Verdict> {
    let l = unemphasised(line);
    let rest = strip_prefix_ci(l, "status")?.trim_start();
    let rest = rest.strip_prefix(':')?.trim();
    let rest = unemphasised(rest);
    let word = rest.strip_suffix('.').unwrap_or(rest).trim();
    verdict_word(word)
}

/// `PASS: …` / `FAIL: …` at the very start of the answer.
fn leading_word(line: &str) -> Option<Verdict> {
    let l = unemphasised(line);
    let (word, _) = l.split_once(':')?;
    verdict_word(unemphasised(word))
}

fn verdict_word(word: &str) -> Option<Verdict> {
    if word.eq_ignore_ascii_case("pass") {
        Some(Verdict::Pass)
    } else if word.eq_ignore_ascii_case("fail") {
        Some(Verdict::Fail)
    } else {
        None
    }
}

/// The line without surrounding whitespace and markdown emphasis (`*`, `_`, `` ` ``).
fn unemphasised(s: &str) -> &str {
    s.trim().trim_matches(['*', '_', '`']).trim()
}

fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(text: &str) -> Verdict {
        parse(text).verdict
    }

    #[test]
    fn the_last_line_decides() {
        assert_eq!(verdict("All good.\n\nSTATUS: PASS\n"), Verdict::Pass);
        assert_eq!(verdict("Problems.\nSTATUS: FAIL"), Verdict::Fail);
        assert_eq!(verdict("ok\n**Status: pass**\n\n"), Verdict::Pass);
        assert_eq!(verdict("ok\nstatus:FAIL."), Verdict::Fail);
        assert_eq!(verdict("ok\n`STATUS: PASS`"), Verdict::Pass);
    }

    #[test]
    fn the_first_line_and_a_leading_word_count_too() {
        assert_eq!(
            verdict("STATUS: FAIL\n- app/User.php:2 public password"),
            Verdict::Fail
        );
        assert_eq!(verdict("PASS: nothing to fix"), Verdict::Pass);
        assert_eq!(verdict("fail: two violations\n- a\n- b"), Verdict::Fail);
        assert_eq!(verdict("STATUS: PASS\nSTATUS: PASS"), Verdict::Pass);
    }

    #[test]
    fn none_or_both_is_unknown() {
        for text in [
            "",
            "Looks fine to me.",
            "The reviewers said STATUS: PASS.",
            "STATUS: MAYBE",
            "STATUS: PASSED",
            "a\nSTATUS: PASS\nb",
            "PASSING: yes",
            "STATUS: FAIL\n- x\nSTATUS: PASS",
            "PASS: but\nSTATUS: FAIL",
        ] {
            assert_eq!(verdict(text), Verdict::Unknown, "{text:?}");
        }
        assert_eq!(problem("nothing"), Some(NO_STATUS));
        assert_eq!(problem("PASS: x\nSTATUS: FAIL"), Some(BOTH_STATUSES));
        assert_eq!(problem("STATUS: PASS"), None);
    }
}
