//! The review gate before Claude Code's agent stops: when it stops with
//! uncommitted changes, crit reviews them and, when the gate fails, sends the
//! agent back with the blocking findings. It fails closed and never loops:
//!
//! - a change already reviewed (same fingerprint) is not reviewed again: one
//!   that passed lets the agent stop, one that failed is sent back with the
//!   same reason;
//! - a review that could not decide (an error, a timeout, an unreadable
//!   answer) sends the agent back too, and the next stop reviews again;
//! - within one turn of the user (Claude Code's `stop_hook_active` says the
//!   agent is continuing because a stop hook blocked) the gate blocks at most
//!   `max_rounds` times; then it lets the agent stop and tells the user, in
//!   the message Claude Code shows them, that the change did not pass.

use crit_core::{FailOn, Finding, ReviewResult};

use crate::state::StopState;

/// What to do before reviewing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Before {
    /// The change passed its review as it is now: the agent may stop.
    Passed,
    /// The same change failed before: send it back with the same reason.
    Again { reason: String, rounds: u32 },
    /// The gate sent the agent back `max_rounds` times this turn: let it
    /// stop, and tell the user why.
    LetGo(String),
    /// Review the change; the gate has blocked `rounds` times this turn.
    Review { rounds: u32 },
}

/// Decides from the remembered `state`, the change's `fingerprint`, and
/// Claude Code's `stop_hook_active`.
pub fn before(
    state: Option<&StopState>,
    fingerprint: &str,
    stop_hook_active: bool,
    max_rounds: u32,
) -> Before {
    // A new turn of the user starts the count again.
    let rounds = match (stop_hook_active, state) {
        (true, Some(s)) => s.rounds,
        _ => 0,
    };
    let same = state.filter(|s| !s.fingerprint.is_empty() && s.fingerprint == fingerprint);
    if let Some(s) = same {
        let Some(reason) = &s.blocked else {
            return Before::Passed;
        };
        if rounds >= max_rounds {
            return Before::LetGo(limit(rounds, max_rounds, "without changing what failed"));
        }
        return Before::Again {
            reason: reason.clone(),
            rounds,
        };
    }
    if rounds >= max_rounds {
        return Before::LetGo(limit(
            rounds,
            max_rounds,
            "and the change was not reviewed again",
        ));
    }
    Before::Review { rounds }
}

fn limit(rounds: u32, max_rounds: u32, what: &str) -> String {
    format!(
        "the review gate sent the agent back {rounds} time{} this turn (max_rounds {max_rounds}) {what}",
        if rounds == 1 { "" } else { "s" }
    )
}

/// The change's fingerprint: its files (status, line counts) and patch.
pub fn fingerprint(change: &crit_project::scope::Change) -> String {
    let mut text = String::new();
    for f in &change.files {
        text.push_str(&format!(
            "{}\0{:?}\0{}\0{}\0{}\n",
            f.path,
            f.status,
            f.additions,
            f.deletions,
            f.old_path.as_deref().unwrap_or("")
        ));
    }
    text.push('\0');
    text.push_str(&change.patch);
    crit_os::seal::sha256_hex(text.as_bytes())
}

/// The findings that fail the gate, most severe first; all findings when the
/// verdict alone failed it.
pub fn blocking(result: &ReviewResult, fail_on: FailOn) -> Vec<&Finding> {
    let sorted = result.sorted_findings();
    let blocking: Vec<&Finding> = sorted
        .iter()
        .copied()
        .filter(|f| fail_on.blocks(f))
        .collect();
    if blocking.is_empty() {
        sorted
    } else {
        blocking
    }
}

/// At most this many findings are listed in the reason.
pub const MAX_LISTED: usize = 20;

/// The reason Claude Code shows the agent: every blocking finding as
/// `path:line [P1] title. Fix: …`, one per line.
pub fn reason(result: &ReviewResult, fail_on: FailOn) -> String {
    let findings = blocking(result, fail_on);
    let mut out = format!(
        "crit reviewed the uncommitted changes and the review gate failed ({}). Fix {} before you finish, then stop again:\n",
        match findings.len() {
            0 => format!("verdict {}", result.verdict.as_str()),
            1 => "1 blocking finding".into(),
            n => format!("{n} blocking findings"),
        },
        if findings.len() == 1 { "it" } else { "them" }
    );
    for f in findings.iter().take(MAX_LISTED) {
        out.push_str(&format!("- {}\n", one_line(f)));
    }
    if findings.len() > MAX_LISTED {
        out.push_str(&format!(
            "- … and {} more (run `crit review code --uncommitted` to see all)\n",
            findings.len() - MAX_LISTED
        ));
    }
    if findings.is_empty() {
        let summary = first_line(&result.summary);
        if !summary.is_empty() {
            out.push_str(&format!("Reviewer's summary: {summary}\n"));
        }
    }
    out.trim_end().to_string()
}

/// What the review could not show a reviewer (its coverage's gaps), for an
/// INCOMPLETE review's reason: `path (why)`, at most [`MAX_LISTED`]; `None`
/// when it has none.
pub fn gaps(result: &ReviewResult) -> Option<String> {
    let coverage = result.coverage.as_ref()?;
    let gaps: Vec<_> = coverage
        .left_out
        .iter()
        .filter(|l| l.cause.is_gap())
        .collect();
    if gaps.is_empty() {
        return None;
    }
    let mut listed: Vec<String> = gaps
        .iter()
        .take(MAX_LISTED)
        .map(|l| {
            // Paths and reasons name the repository's files: shown inert.
            let line = format!("{} ({})", l.path, first_line(&l.reason));
            crit_core::Printable::line(&line, crit_core::Dest::Terminal).to_string()
        })
        .collect();
    if gaps.len() > MAX_LISTED {
        listed.push(format!("… and {} more", gaps.len() - MAX_LISTED));
    }
    Some(format!("no reviewer read {}", listed.join("; ")))
}

/// `src/app.py:2 [P0] eval of user input. Fix: use ast.literal_eval.`
pub fn one_line(f: &Finding) -> String {
    let at = f
        .location
        .as_ref()
        .map(|l| format!("{} ", l.display()))
        .unwrap_or_default();
    // A title that carries its own `[P1]` tag shows it once, as crit's.
    let title = first_line(f.display_title());
    let title = title.trim_end_matches('.');
    let fix = f
        .suggestion
        .as_deref()
        .map(|s| format!("replace with `{}`", first_line(s)))
        .filter(|s| s.len() > "replace with ``".len())
        .or_else(|| {
            let body = first_sentence(&f.body);
            (!body.is_empty()).then_some(body)
        });
    match fix {
        Some(fix) => format!("{at}[{}] {title}. Fix: {fix}", f.severity.code()),
        None => format!("{at}[{}] {title}", f.severity.code()),
    }
}

fn first_line(text: &str) -> String {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty());
    clip(line.unwrap_or(""), 200)
}

fn first_sentence(text: &str) -> String {
    let line = first_line(text);
    let end = line
        .char_indices()
        .find(|(i, c)| *c == '.' && line[i + 1..].starts_with(' '))
        .map_or(line.len(), |(i, _)| i + 1);
    line[..end].to_string()
}

fn clip(text: &str, max: usize) -> String {
    let clean = crit_core::terminal::sanitize(text);
    if clean.chars().count() <= max {
        return clean.into_owned();
    }
    let cut: String = clean.chars().take(max).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crit_core::{Location, Severity, Verdict};

    fn state(fp: &str, rounds: u32, blocked: Option<&str>) -> StopState {
        StopState {
            fingerprint: fp.into(),
            rounds,
            at: 0,
            blocked: blocked.map(str::to_string),
            ..StopState::default()
        }
    }

    #[test]
    fn fails_closed_and_never_loops() {
        assert_eq!(before(None, "a", false, 2), Before::Review { rounds: 0 });
        // The same change that passed: the agent may stop.
        assert_eq!(
            before(Some(&state("a", 0, None)), "a", false, 2),
            Before::Passed
        );
        // The same change that failed: sent back with the same reason,
        // whether or not the user wrote since.
        for active in [false, true] {
            assert_eq!(
                before(Some(&state("a", 1, Some("eval"))), "a", active, 2),
                Before::Again {
                    reason: "eval".into(),
                    rounds: u32::from(active)
                }
            );
        }
        // ... until the round limit: let go, and the user is told.
        assert!(matches!(
            before(Some(&state("a", 2, Some("eval"))), "a", true, 2),
            Before::LetGo(_)
        ));
        // A changed change, continuing after a block: counted.
        assert_eq!(
            before(Some(&state("a", 1, Some("eval"))), "b", true, 2),
            Before::Review { rounds: 1 }
        );
        assert!(matches!(
            before(Some(&state("a", 2, None)), "b", true, 2),
            Before::LetGo(_)
        ));
        // The user wrote again: the count starts over.
        assert_eq!(
            before(Some(&state("a", 2, None)), "b", false, 2),
            Before::Review { rounds: 0 }
        );
        // A review that could not decide remembers no change: reviewed again.
        assert_eq!(
            before(Some(&state("", 1, None)), "a", true, 2),
            Before::Review { rounds: 1 }
        );
        // max_rounds 0: the gate never sends the agent back, and says so.
        assert!(matches!(before(None, "a", false, 0), Before::LetGo(_)));
    }

    #[test]
    fn the_reason_lists_blocking_findings_one_per_line() {
        let mut r = ReviewResult::new("code", Verdict::Fail);
        r.findings = vec![
            Finding::new("Style nit", Severity::P3, "code").with_location(Location::file("a.py")),
            Finding::new("eval of user input", Severity::P0, "code")
                .with_location(Location::lines("src/app.py", 2, 2))
                .with_body("Any input runs as Python. Use ast.literal_eval.\nMore."),
            Finding::new("Leaks the pool\nhandle", Severity::P1, "code")
                .with_location(Location::lines("src/db.py", 10, 12))
                .with_suggestion("with pool.get() as conn:"),
        ];
        let text = reason(&r, FailOn::P1);
        assert_eq!(
            text,
            "crit reviewed the uncommitted changes and the review gate failed (2 blocking findings). Fix them before you finish, then stop again:\n\
             - src/app.py:2 [P0] eval of user input. Fix: Any input runs as Python.\n\
             - src/db.py:10-12 [P1] Leaks the pool. Fix: replace with `with pool.get() as conn:`"
        );
    }

    #[test]
    fn a_title_that_carries_its_own_tag_shows_it_once() {
        // mala's reviewers and the markdown format put the priority in the title.
        let f = Finding::new("[P1] eval on input", Severity::P1, "code")
            .with_location(Location::lines("app.py", 2, 2));
        assert_eq!(one_line(&f), "app.py:2 [P1] eval on input");
        let f = Finding::new("[p0]  eval on input", Severity::P0, "code");
        assert_eq!(one_line(&f), "[P0] eval on input");
    }

    #[test]
    fn a_fail_verdict_without_blocking_findings_still_explains_itself() {
        let mut r = ReviewResult::new("code", Verdict::Fail);
        r.summary = "Deletes the users\x1b table.\x07".into();
        let text = reason(&r, FailOn::P1);
        assert!(text.contains("(verdict FAIL)"), "{text}");
        // Control characters are shown, not obeyed.
        assert!(
            text.ends_with("Reviewer's summary: Deletes the users<U+001B> table.<U+0007>"),
            "{text}"
        );
    }

    #[test]
    fn an_incomplete_review_names_what_no_reviewer_read() {
        let mut r = ReviewResult::new("code", Verdict::Incomplete);
        assert_eq!(gaps(&r), None);
        let mut c = crit_core::Coverage::default();
        let left = |path: &str, cause| crit_core::LeftOut {
            path: path.into(),
            hunks: 0,
            lines: 0,
            cause,
            reason: "too large\x1b[2J\nsecond line".into(),
        };
        c.left_out
            .push(left("gen.py", crit_core::LeftOutCause::Ignored));
        r.coverage = Some(c.clone());
        // What the user chose to leave out is no gap.
        assert_eq!(gaps(&r), None);
        c.left_out
            .push(left("big\x07.py", crit_core::LeftOutCause::NotSent));
        r.coverage = Some(c);
        assert_eq!(
            gaps(&r).as_deref(),
            Some("no reviewer read big<U+0007>.py (too large<U+001B>[2J)")
        );
    }
}
