//! `crit statusline`: one line for Claude Code's status line, from the
//! session's status file. Claude Code runs it whenever the conversation
//! changes, so it reads one small file and nothing else.

use super::state::{Status, Subject};

/// A running review older than this is taken for dead (its hook was killed).
pub const RUNNING_FOR_AT_MOST: u64 = 15 * 60;
/// How long "Review complete" stays up.
pub const SHOWN_FOR: u64 = 10 * 60;

/// The line for `status` at `now` (Unix seconds), or nothing.
pub fn line(status: Option<&Status>, now: u64) -> Option<String> {
    let s = status?;
    let age = now.saturating_sub(s.at);
    let what = match s.subject {
        Subject::Prompt => "prompt",
        Subject::Changes => "changes",
    };
    if s.running {
        if age > RUNNING_FOR_AT_MOST {
            return None;
        }
        return Some(match s.reviewers {
            0 => format!("Reviewing {what}…"),
            1 => format!("Reviewing {what} (1 reviewer)…"),
            n => format!("Reviewing {what} ({n} reviewers)…"),
        });
    }
    if age > SHOWN_FOR {
        return None;
    }
    if let Some(why) = &s.failed {
        return Some(format!("Review skipped | {why}"));
    }
    Some(format!(
        "Review complete | {} finding{}",
        s.findings,
        if s.findings == 1 { "" } else { "s" }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(running: bool, reviewers: usize, findings: usize, at: u64) -> Status {
        Status {
            subject: Subject::Prompt,
            running,
            reviewers,
            findings,
            failed: None,
            at,
        }
    }

    #[test]
    fn the_plugins_lines() {
        assert_eq!(
            line(Some(&st(true, 4, 0, 100)), 101).as_deref(),
            Some("Reviewing prompt (4 reviewers)…")
        );
        assert_eq!(
            line(Some(&st(false, 4, 4, 100)), 101).as_deref(),
            Some("Review complete | 4 findings")
        );
        assert_eq!(
            line(Some(&st(false, 4, 1, 100)), 101).as_deref(),
            Some("Review complete | 1 finding")
        );
        assert_eq!(line(None, 0), None);
    }

    #[test]
    fn stale_states_show_nothing() {
        assert_eq!(
            line(Some(&st(true, 4, 0, 0)), RUNNING_FOR_AT_MOST + 1),
            None
        );
        assert_eq!(line(Some(&st(false, 4, 4, 0)), SHOWN_FOR + 1), None);
    }
}
