//! What crit remembers about one agent's session between hook calls, in
//! small JSON files under `$XDG_STATE_HOME/crit/<agent>/sessions/`
//! (`claude-code`, `codex`, …: two agents' sessions never share a memory):
//!
//! - `<id>.status.json`: the review running or just finished, for `crit statusline`;
//! - `<id>.pending.json`: a refined prompt waiting for the user's answer;
//! - `<id>.stop.json`: the review gate's rounds and the last reviewed change.
//!
//! The id is the agent's session id when it is a plain token, else its
//! hash; files older than a week are removed when a new review starts.
//! Another agent's session that began before its state had a directory of
//! its own (when every agent's was `claude-code`'s) is read from there
//! until its own is written.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crit_os::git::refs::RefSnapshot;
use crit_prompt::audit::Awaiting;

use crate::agent::Agent;

/// `$XDG_STATE_HOME/crit/claude-code/sessions`, else under `~/.local/state`.
pub fn sessions_dir(env: &crit_os::Env) -> Option<PathBuf> {
    agent_sessions_dir(env, Agent::ClaudeCode)
}

/// `$XDG_STATE_HOME/crit/<agent>/sessions`, else under `~/.local/state`.
pub fn agent_sessions_dir(env: &crit_os::Env, agent: Agent) -> Option<PathBuf> {
    crit_os::dirs::state_dir(env).map(|d| d.join(agent.id()).join("sessions"))
}

/// A file name part for `session_id`.
pub fn session_key(session_id: &str) -> String {
    let plain = (1..=128).contains(&session_id.len())
        && session_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if plain {
        session_id.to_string()
    } else {
        crit_os::seal::sha256_hex(session_id.as_bytes())[..32].to_string()
    }
}

/// One session's files.
#[derive(Debug, Clone)]
pub struct SessionState {
    dir: PathBuf,
    key: String,
    /// Where this session's files were before its agent had a directory of
    /// its own: read when its own has none, never written.
    legacy: Option<PathBuf>,
}

impl SessionState {
    pub fn new(dir: PathBuf, session_id: &str) -> Self {
        SessionState {
            dir,
            key: session_key(session_id),
            legacy: None,
        }
    }

    /// For the Claude Code session named by `session_id`, under `env`'s
    /// state directory.
    pub fn of(env: &crit_os::Env, session_id: &str) -> Option<Self> {
        SessionState::of_agent(env, Agent::ClaudeCode, session_id)
    }

    /// For `agent`'s session named by `session_id`.
    pub fn of_agent(env: &crit_os::Env, agent: Agent, session_id: &str) -> Option<Self> {
        let mut state = SessionState::new(agent_sessions_dir(env, agent)?, session_id);
        if agent != Agent::ClaudeCode {
            state.legacy = sessions_dir(env);
        }
        Some(state)
    }

    fn path(&self, kind: &str) -> PathBuf {
        self.dir.join(self.name(kind))
    }

    fn name(&self, kind: &str) -> String {
        format!("{}.{kind}.json", self.key)
    }

    fn read<T: DeserializeOwned>(&self, kind: &str) -> Option<T> {
        self.read_up_to(kind, 64 * 1024)
    }

    fn read_up_to<T: DeserializeOwned>(&self, kind: &str, max_bytes: u64) -> Option<T> {
        let limits = crit_core::files::InputLimits { max_bytes };
        let bytes = match crit_core::files::read_capped(&self.path(kind), limits) {
            Ok(b) => b,
            // Only while its own directory has no such file at all.
            Err(e) if e.is_not_found() => {
                let old = self.legacy.as_ref()?.join(self.name(kind));
                crit_core::files::read_capped(&old, limits).ok()?
            }
            Err(_) => return None,
        };
        serde_json::from_slice(&bytes).ok()
    }

    /// Owner-only, beneath the sessions directory, no symlink followed.
    fn write<T: Serialize>(&self, kind: &str, value: &T) -> std::io::Result<()> {
        let root = crit_os::write::Root::open_or_create(&self.dir, 0o700)?;
        let bytes = serde_json::to_vec(value).map_err(std::io::Error::other)?;
        let name = self.name(kind);
        root.write_atomic_with(&name, &bytes, crit_os::write::WriteOptions::private())?;
        Ok(())
    }

    fn clear(&self, kind: &str) {
        let _ = std::fs::remove_file(self.path(kind));
        if let Some(old) = &self.legacy {
            let _ = std::fs::remove_file(old.join(self.name(kind)));
        }
    }

    pub fn status(&self) -> Option<Status> {
        self.read("status")
    }

    pub fn set_status(&self, status: &Status) -> std::io::Result<()> {
        self.write("status", status)
    }

    /// The review waiting for an answer, and when it was logged.
    pub fn pending(&self) -> Option<Pending> {
        self.read("pending")
    }

    pub fn set_pending(&self, pending: &Pending) -> std::io::Result<()> {
        self.write("pending", pending)
    }

    pub fn clear_pending(&self) {
        self.clear("pending");
    }

    /// Records that the `!!!` hook handed a prompt to `/prompt-review`.
    pub fn set_triggered(&self, at: u64) -> std::io::Result<()> {
        self.write("triggered", &Triggered { at })
    }

    /// Whether a `!!!` handed a prompt to `/prompt-review` in this session
    /// within `within` seconds of `now`: the review it asked for is the
    /// next one, and it takes the record.
    pub fn take_triggered(&self, now: u64, within: u64) -> bool {
        let t: Option<Triggered> = self.read("triggered");
        if t.is_some() {
            self.clear("triggered");
        }
        t.is_some_and(|t| now.saturating_sub(t.at) <= within)
    }

    /// Larger than the other files: it holds the refs the session noted
    /// (up to crit-os's `MAX_REFS`), and one cut short would lose the
    /// gate's memory.
    pub fn stop(&self) -> Option<StopState> {
        self.read_up_to("stop", 8 * 1024 * 1024)
    }

    pub fn set_stop(&self, stop: &StopState) -> std::io::Result<()> {
        self.write("stop", stop)
    }

    /// Removes every session file not touched for `max_age`.
    pub fn prune(&self, max_age: Duration, now: SystemTime) {
        prune(&self.dir, max_age, now);
    }
}

fn prune(dir: &Path, max_age: Duration, now: SystemTime) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > max_age);
        if old && e.file_name().to_string_lossy().ends_with(".json") {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// What is being reviewed, for the status line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Subject {
    Prompt,
    Changes,
}

/// A review running or finished, for the status line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Status {
    pub subject: Subject,
    pub running: bool,
    /// Reviewers started so far (running), or that took part (finished).
    pub reviewers: usize,
    pub findings: usize,
    /// Why it could not run, when it failed open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
    /// Unix seconds of the last change.
    pub at: u64,
}

/// A refined prompt waiting for the user's yes, no or edit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    pub review: Awaiting,
    pub at: u64,
}

/// A `!!!` the hook handed to `/prompt-review`, so the review it runs is
/// logged as the `!!!` trigger's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Triggered {
    at: u64,
}

/// The review gate's memory of this session.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StopState {
    /// The fingerprint of the change last reviewed (empty: the last review
    /// could not decide, so the next stop reviews again).
    pub fingerprint: String,
    /// Times the gate blocked since the user last wrote.
    pub rounds: u32,
    pub at: u64,
    /// The reason the gate gave when that change failed its review: the same
    /// change stopping again is sent back with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked: Option<String>,
    /// HEAD when the gate last decided: a later stop reviews what was
    /// committed since too, so committing a change does not walk it past
    /// the gate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// HEAD at the session's first prompt (else at its first stop): the
    /// commit whose project settings the gate reads, so nothing the agent
    /// commits during the session moves its own review.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// The refs and reflog sizes when the gate last passed (or the session
    /// began): what moved since, off HEAD too, is reviewed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refs: Option<NotedRefs>,
    /// The user's settings as the session began: the gate takes no
    /// setting the session wrote (see [`crate::stop::at_start`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<crate::stop::at_start::SettingsAtStart>,
}

/// The refs as the gate noted them (crit-os's [`RefSnapshot`], kept).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotedRefs {
    pub refs: std::collections::BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    pub head_log: u64,
    pub stash_log: u64,
}

impl From<RefSnapshot> for NotedRefs {
    fn from(s: RefSnapshot) -> Self {
        NotedRefs {
            refs: s.refs,
            head: s.head,
            head_log: s.head_log,
            stash_log: s.stash_log,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_become_safe_file_names() {
        assert_eq!(
            session_key("28cc4a1e-9f0b-4d1c-8a51-1234567890ab"),
            "28cc4a1e-9f0b-4d1c-8a51-1234567890ab"
        );
        for hostile in ["../../etc/passwd", "a/b", "", "x y", &"a".repeat(200), "é"] {
            let k = session_key(hostile);
            assert_eq!(k.len(), 32, "{hostile:?}");
            assert!(k.bytes().all(|b| b.is_ascii_hexdigit()), "{k}");
        }
    }

    #[test]
    fn files_round_trip_and_old_ones_are_pruned() {
        let dir = tempfile::tempdir().unwrap();
        let s = SessionState::new(dir.path().join("sessions"), "s1");
        assert!(s.status().is_none());
        let st = Status {
            subject: Subject::Prompt,
            running: true,
            reviewers: 4,
            findings: 0,
            failed: None,
            at: 7,
        };
        s.set_status(&st).unwrap();
        assert_eq!(s.status(), Some(st));
        s.set_stop(&StopState {
            fingerprint: "f".into(),
            rounds: 1,
            at: 7,
            blocked: None,
            head: None,
            start: None,
            refs: None,
            settings: None,
        })
        .unwrap();
        assert_eq!(s.stop().unwrap().rounds, 1);
        // A `!!!` handed on is taken once, and only while it is recent.
        assert!(!s.take_triggered(100, 600));
        s.set_triggered(100).unwrap();
        assert!(s.take_triggered(200, 600));
        assert!(!s.take_triggered(200, 600));
        s.set_triggered(100).unwrap();
        assert!(!s.take_triggered(1000, 600));
        s.prune(Duration::from_secs(3600), SystemTime::now());
        assert!(s.status().is_some());
        s.prune(
            Duration::from_secs(3600),
            SystemTime::now() + Duration::from_secs(7200),
        );
        assert!(s.status().is_none() && s.stop().is_none());
    }
}
