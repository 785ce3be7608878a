//! `crit statusline`: one line for Claude Code's status line, from the
//! session's status file. Claude Code runs it whenever the conversation
//! changes, so it reads one small file and nothing else.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::SystemTime;

use super::state::{SessionState, Status, Subject};
use crit_review::panel::{Progress, ProgressEvent};

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
        // Why a review could not run may quote an endpoint or a file: one
        // line in the status bar, no escape sequence of its own.
        let why = crit_core::Printable::line(why, crit_core::Dest::Terminal);
        return Some(format!("Review skipped | {why}"));
    }
    Some(format!(
        "Review complete | {} finding{}",
        s.findings,
        if s.findings == 1 { "" } else { "s" }
    ))
}

/// Keeps a session's status file up to date while a review runs: "running"
/// when it starts, one more reviewer on each that starts, the findings when
/// it ends. Passes every event on to `also` (a progress display).
pub struct LiveStatus {
    state: SessionState,
    subject: Subject,
    started: AtomicUsize,
    also: Option<Arc<dyn Progress>>,
}

impl std::fmt::Debug for LiveStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveStatus")
            .field("subject", &self.subject)
            .finish_non_exhaustive()
    }
}

fn now() -> u64 {
    crit_core::timestamp::unix_secs(SystemTime::now())
}

impl LiveStatus {
    /// Marks the review as running (and clears week-old session files).
    pub fn begin(
        state: SessionState,
        subject: Subject,
        also: Option<Arc<dyn Progress>>,
    ) -> Arc<LiveStatus> {
        state.prune(
            std::time::Duration::from_secs(7 * 86_400),
            SystemTime::now(),
        );
        let live = LiveStatus {
            state,
            subject,
            started: AtomicUsize::new(0),
            also,
        };
        live.write(true, 0, None);
        Arc::new(live)
    }

    /// The review ended: `findings`, or why it could not run.
    pub fn finish(&self, reviewers: usize, findings: usize, failed: Option<String>) {
        let status = Status {
            subject: self.subject,
            running: false,
            reviewers,
            findings,
            failed,
            at: now(),
        };
        if let Err(e) = self.state.set_status(&status) {
            tracing::debug!("status line state: {e}");
        }
    }

    fn write(&self, running: bool, reviewers: usize, failed: Option<String>) {
        let status = Status {
            subject: self.subject,
            running,
            reviewers,
            findings: 0,
            failed,
            at: now(),
        };
        if let Err(e) = self.state.set_status(&status) {
            tracing::debug!("status line state: {e}");
        }
    }
}

impl Progress for LiveStatus {
    fn event(&self, event: &ProgressEvent) {
        if let ProgressEvent::Started { .. } = event {
            let n = self.started.fetch_add(1, Ordering::SeqCst) + 1;
            self.write(true, n, None);
        }
        if let Some(also) = &self.also {
            also.event(event);
        }
    }
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
    fn a_hostile_reason_is_one_inert_line() {
        let mut s = st(false, 1, 0, 100);
        s.failed = Some("bad\x1b]0;t\x07 key\n::error::x \u{202E}".into());
        assert_eq!(
            line(Some(&s), 101).as_deref(),
            Some("Review skipped | bad<U+001B>]0;t<U+0007> key ::error::x <U+202E>")
        );
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
