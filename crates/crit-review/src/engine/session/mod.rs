//! Sessions under `.crit/sessions/` and the audit log.
//!
//! Every review is saved (unless the caller passes `--no-log`) in
//! `<project>/.crit/sessions/<UTC time>-<id>/`:
//!
//! | file | what |
//! | --- | --- |
//! | `session.json` | what ran: [`SessionMeta`], secrets redacted |
//! | `result.json` | the `ReviewResult` |
//! | `suppressed.json` | findings dismissed by `.crit/suppressions.yaml`, when any |
//! | `transcript.jsonl` | every message and tool call, written by crit-agent's sink |
//!
//! `.crit/.gitignore` keeps sessions out of git while `.crit/config.yaml`,
//! `.crit/templates/` and `.crit/suppressions.yaml` stay committable.
//!
//! The audit log ([`append_audit`]) is one JSON line per review under
//! `$XDG_STATE_HOME/crit/audit/`: counts, tokens, cost, hashes — never text.

mod audit;
mod feedback;
mod flagged;
mod redact;
mod store;

use std::collections::BTreeMap;
use std::path::PathBuf;

use crit_core::Verdict;
use serde::{Deserialize, Serialize};

pub use audit::{append_audit, append_audit_at, append_confined, append_gate, audit_dir};
pub use feedback::{
    Feedback, FeedbackKind, FeedbackOutcome, MAX_TEXT, append_feedback, feedback_dir,
    read_feedback, record_suppressions,
};
pub use flagged::{Flagged, lines_hash, path_hash};
pub use redact::{REDACTED, is_secret_key, redact, redact_credentials, redact_text};
pub use store::{RELDO_TRANSCRIPT, Session, list};

/// Saves a finished review: the result into the session, the audit line.
/// Whatever cannot be written (a full disk, a file-size limit) is reported as
/// an error on stderr, never dropped in silence; the review's answer itself
/// still reaches the caller. `transcript_error` is the transcript's first
/// write error, if it had one.
pub fn save(
    session: &Session,
    result: &crit_core::ReviewResult,
    transcript_error: Option<String>,
    env: &crit_os::Env,
    now: std::time::SystemTime,
) {
    save_with(
        session,
        result,
        serde_json::Map::new(),
        transcript_error,
        env,
        now,
    );
}

/// [`save`], with `extra` keys written into `result.json` beside the result's.
pub fn save_with(
    session: &Session,
    result: &crit_core::ReviewResult,
    extra: serde_json::Map<String, serde_json::Value>,
    transcript_error: Option<String>,
    env: &crit_os::Env,
    now: std::time::SystemTime,
) {
    if let Some(e) = transcript_error {
        tracing::error!(
            "the transcript {} is incomplete: writing it failed: {e}",
            session.transcript_path().display()
        );
    }
    if let Err(e) = session.write_result_with(result, extra) {
        tracing::error!("could not save the review's result: {e}");
    }
    if let Err(e) = append_audit_at(env, result, Some(session.id()), session.project_root(), now) {
        tracing::error!("could not append to the audit log: {e}");
    }
    if let Err(e) = record_suppressions(env, result, session.project_root(), now) {
        tracing::error!("could not record the suppressed findings as feedback: {e}");
    }
}

/// What ran, saved as `session.json`. The prompts sent to each reviewer are not
/// here: the transcript has them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionMeta {
    /// The review's name: a template (`code`, `arch`), `run`, `plan`, `prompt`.
    pub review: String,
    /// Input names to values (paths, ranges).
    #[serde(default)]
    pub inputs: BTreeMap<String, String>,
    /// The effective configuration. Redacted before it is written.
    #[serde(default)]
    pub config: serde_json::Value,
    pub cwd: String,
    /// UTC, RFC 3339.
    pub started_at: String,
    pub crit_version: String,
    /// `crit run`'s user prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
}

/// One saved session, as [`list`] shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionSummary {
    pub id: String,
    pub dir: PathBuf,
    pub review: String,
    pub started_at: String,
    /// `None` while the review runs, or when it never finished.
    pub verdict: Option<Verdict>,
    pub passed: Option<bool>,
    pub findings: Option<usize>,
}

/// Why a session or the audit log could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("cannot {action} the session: {source}")]
    Fs {
        action: &'static str,
        source: crit_os::write::FsError,
    },
    #[error("{}: cannot {action}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not a valid {what}: {source}", path.display())]
    Json {
        what: &'static str,
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error(
        "no session `{query}` in {}; give a session id, a unique prefix of one, or `latest`",
        dir.display()
    )]
    NotFound { query: String, dir: PathBuf },
    #[error("session `{query}` is ambiguous: it matches {}; give more characters", matches.join(", "))]
    Ambiguous { query: String, matches: Vec<String> },
    #[error("cannot tell where to write the audit log: set XDG_STATE_HOME or HOME")]
    NoStateDir,
}

impl SessionError {
    fn io(action: &'static str, path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| SessionError::Io {
            action,
            path,
            source,
        }
    }
}
