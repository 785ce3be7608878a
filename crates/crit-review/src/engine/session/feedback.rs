//! The team's feedback on crit's findings: one JSON line per event under
//! `$XDG_STATE_HOME/crit/audit/feedback/YYYY-MM-DD.jsonl` (UTC date) — a reply
//! that disputed a finding and how the re-check ended, a 👍/👎 reaction on
//! crit's comment, a thread resolved without the flagged lines changing, a
//! suppression. `crit bench mine` counts them per reviewer, rule and
//! severity; `crit learn` proposes learnings from them.
//!
//! Unlike the review lines beside it, a feedback line keeps the path the
//! finding pointed at and the reply's words (redacted, cut to
//! [`MAX_TEXT`] characters): a learning is written in the team's words and
//! scoped to paths. Nothing in a line is trusted: it came from a forge and a
//! person (or an agent) who may be hostile, and is printed only through the
//! printable type.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crit_core::timestamp;
use serde::{Deserialize, Serialize};

use super::SessionError;
use super::audit::{append_confined, audit_dir};

/// The reply's words kept, at most (characters).
pub const MAX_TEXT: usize = 2000;

/// What the team did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FeedbackKind {
    /// A reply disputed the finding; `outcome` says how the re-check ended.
    Dispute,
    /// A reaction on crit's comment; `outcome` is `up` or `down`.
    Reaction,
    /// The thread was resolved and the flagged lines were left as they were.
    ResolvedUnchanged,
    /// The finding was suppressed (`.crit/suppressions.yaml` or inline).
    Suppression,
}

/// How an event ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FeedbackOutcome {
    /// The re-check proved the finding wrong; it was dismissed with proof.
    Dismissed,
    /// The re-check found no proof; crit kept the finding and said why.
    Kept,
    /// 👍
    Up,
    /// 👎
    Down,
    /// No verdict of crit's (a resolved thread, a suppression).
    Noted,
}

/// One event of feedback on one finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Feedback {
    /// RFC 3339, UTC (set by [`append_feedback`]).
    #[serde(default)]
    pub ts: String,
    pub kind: FeedbackKind,
    pub outcome: FeedbackOutcome,
    /// The finding's fingerprint (16 hex digits).
    pub fingerprint: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reviewer: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// `P0` … `P3`, `info`.
    pub severity: String,
    /// The file the finding pointed at, from the project root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// A hash of the project root ([`super::path_hash`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    /// `github` or `gitlab`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forge: Option<String>,
    /// Where it was said: the comment's or the thread's web URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<String>,
    /// Who said it (the forge login).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// The reply's words, redacted and cut to [`MAX_TEXT`] characters.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
}

/// `audit/feedback` in the user's state directory.
pub fn feedback_dir(env: &crit_os::Env) -> Option<PathBuf> {
    audit_dir(env).map(|d| d.join("feedback"))
}

/// Appends `event` (its text redacted and cut, its time set from `now`) to
/// today's feedback file and returns the file's path.
pub fn append_feedback(
    env: &crit_os::Env,
    event: &Feedback,
    now: SystemTime,
) -> Result<PathBuf, SessionError> {
    let dir = feedback_dir(env).ok_or(SessionError::NoStateDir)?;
    let secs = timestamp::unix_secs(now);
    let mut line = event.clone();
    line.ts = timestamp::rfc3339(secs);
    line.text = super::redact_text(&line.text)
        .chars()
        .take(MAX_TEXT)
        .collect();
    let name = format!("{}.jsonl", timestamp::date(secs));
    let path = dir.join(&name);
    let mut bytes = serde_json::to_vec(&line).map_err(|source| SessionError::Json {
        what: "feedback line",
        path: path.clone(),
        source,
    })?;
    bytes.push(b'\n');
    append_confined(&dir, &name, &bytes).map_err(|source| SessionError::Fs {
        action: "append to the feedback log",
        source,
    })?;
    Ok(path)
}

/// Records each finding `result` dismissed by the team's suppressions as
/// feedback of kind [`FeedbackKind::Suppression`] (the suppression's reason
/// as the text), so mining and learnings see what the team silenced.
/// `root` is the project the review ran in, for the line's `repo`.
pub fn record_suppressions(
    env: &crit_os::Env,
    result: &crit_core::ReviewResult,
    root: Option<&Path>,
    now: SystemTime,
) -> Result<usize, SessionError> {
    let repo = root.map(|r| {
        let r = r.canonicalize().unwrap_or_else(|_| r.to_path_buf());
        super::path_hash(&r.display().to_string())
    });
    let mut n = 0;
    for d in result.dismissed.iter().filter(|d| d.cause == "suppressed") {
        let f = &d.finding;
        let fp_ok = f.id.len() == 16 && f.id.bytes().all(|b| b.is_ascii_hexdigit());
        if !fp_ok {
            continue;
        }
        let event = Feedback {
            ts: String::new(),
            kind: FeedbackKind::Suppression,
            outcome: FeedbackOutcome::Noted,
            fingerprint: f.id.clone(),
            reviewer: f.reviewer.clone(),
            rule: f.rule_id.clone(),
            severity: f.severity.code().to_string(),
            path: f
                .path()
                .map(|p| p.trim_start_matches("./").to_string())
                .filter(|p| project_path(p)),
            repo: repo.clone(),
            forge: None,
            thread: None,
            author: None,
            text: d.reason.clone(),
        };
        append_feedback(env, &event, now)?;
        n += 1;
    }
    Ok(n)
}

/// A path from the project root (not absolute, no `..`), as a finding
/// written by a model may not be.
fn project_path(p: &str) -> bool {
    !p.is_empty() && !p.starts_with('/') && !p.split('/').any(|c| c == ".." || c.is_empty())
}

/// Every feedback line in `dir`'s `*.jsonl` files, oldest file first, and
/// how many lines were not feedback (skipped, never an error).
pub fn read_feedback(dir: &Path) -> (Vec<Feedback>, usize) {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    names.sort();
    let mut out = Vec::new();
    let mut skipped = 0;
    for path in names {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            match serde_json::from_str::<Feedback>(line) {
                Ok(f) => out.push(f),
                Err(_) => skipped += 1,
            }
        }
    }
    (out, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_redacted_cut_and_read_back() {
        let tmp = tempfile::tempdir().unwrap();
        let state = tmp.path().to_str().unwrap().to_string();
        let env = crit_os::Env::new().with("XDG_STATE_HOME", state);
        let event = Feedback {
            ts: String::new(),
            kind: FeedbackKind::Dispute,
            outcome: FeedbackOutcome::Kept,
            fingerprint: "0123456789abcdef".into(),
            reviewer: "security".into(),
            rule: None,
            severity: "P1".into(),
            path: Some("src/a.rs".into()),
            repo: None,
            forge: Some("github".into()),
            thread: None,
            author: Some("dev".into()),
            text: format!("token ghp_{} {}", "a".repeat(36), "x".repeat(3000)),
        };
        let path = append_feedback(&env, &event, SystemTime::UNIX_EPOCH).unwrap();
        let (read, skipped) = read_feedback(path.parent().unwrap());
        assert_eq!(skipped, 0);
        assert_eq!(read.len(), 1);
        assert!(!read[0].text.contains("ghp_aaaa"), "{}", read[0].text);
        assert_eq!(read[0].text.chars().count(), MAX_TEXT);
        assert_eq!(read[0].ts, "1970-01-01T00:00:00Z");
    }
}
