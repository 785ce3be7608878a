//! Creating, finding and reading session directories. Every write goes
//! through crit-os's confined writer: a `.crit`, `.crit/sessions` or file the
//! reviewed change laid out as a symbolic link is refused by name, never
//! followed out of the project.

use std::cmp::Reverse;
use std::hash::{BuildHasher, Hasher};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use crit_os::write::{FsError, Root, WriteOptions};

use crit_core::ReviewResult;
use crit_core::timestamp;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{SessionError, SessionMeta, SessionSummary, redact, redact_credentials};
use crit_project::scope::{CRIT_GITIGNORE, SESSION_FILES, session_dir_name};

// The names a review's files have, which the scope knows as crit's own.
const META: &str = SESSION_FILES[0];
const RESULT: &str = SESSION_FILES[1];
const TRANSCRIPT: &str = SESSION_FILES[2];
/// Reldo's name for the transcript (`crit run`'s sessions).
pub const RELDO_TRANSCRIPT: &str = SESSION_FILES[3];

/// Sessions are local logs; what else is in `.crit/` is meant to be committed.
const GITIGNORE: &str = CRIT_GITIGNORE;

/// One review's directory under `.crit/sessions/`.
#[derive(Debug, Clone)]
pub struct Session {
    dir: PathBuf,
    id: String,
    /// The transcript's file name in `dir`.
    transcript: &'static str,
    /// The directory, opened when crit created it: writes go beneath it.
    root: Option<Arc<Root>>,
    /// The project the review ran in, when the session was made for one:
    /// the audit line names it and where its findings point.
    project: Option<PathBuf>,
}

impl PartialEq for Session {
    fn eq(&self, other: &Session) -> bool {
        (&self.dir, &self.id, self.transcript) == (&other.dir, &other.id, other.transcript)
    }
}

impl Session {
    /// A new session directory named after `now` (UTC) and a random id, holding
    /// `session.json` with `meta` redacted. Creates `.crit/.gitignore` if missing
    /// (an existing one is never touched).
    pub fn create(
        project_root: &Path,
        meta: &SessionMeta,
        now: SystemTime,
    ) -> Result<Session, SessionError> {
        let project = Root::open(project_root).map_err(fs_error("open"))?;
        project
            .create_dir_all(".crit", 0o755)
            .map_err(fs_error("create"))?;
        ensure_gitignore(&project)?;
        let sessions = project
            .subdir(".crit/sessions", Some(0o700))
            .map_err(fs_error("create"))?;
        let mut session = Session::create_under(sessions, meta, now)?;
        session.project = Some(project_root.to_path_buf());
        Ok(session)
    }

    /// A new session under `sessions` (a configured log directory, such as
    /// Reldo's `logging.output_dir`) instead of `.crit/sessions`.
    pub fn create_in(
        sessions: &Path,
        meta: &SessionMeta,
        now: SystemTime,
    ) -> Result<Session, SessionError> {
        let sessions = Root::open_or_create(sessions, 0o700).map_err(fs_error("create"))?;
        Session::create_under(sessions, meta, now)
    }

    fn create_under(
        sessions: Root,
        meta: &SessionMeta,
        now: SystemTime,
    ) -> Result<Session, SessionError> {
        let session = create_unique_dir(&sessions, now)?;
        let mut value = serde_json::to_value(meta).map_err(|source| SessionError::Json {
            what: "session",
            path: session.dir.join(META),
            source,
        })?;
        // Reldo's key: scripts that read session.json find the id by it.
        if let serde_json::Value::Object(map) = &mut value {
            map.insert("session_id".into(), session.id.clone().into());
        }
        redact(&mut value);
        session.write_json(META, &value, "session")?;
        Ok(session)
    }

    /// The session `query` names: its id, its directory name, a unique prefix of
    /// either, or `latest`.
    pub fn open(project_root: &Path, query: &str) -> Result<Session, SessionError> {
        let dir = sessions_dir(project_root);
        let mut entries = entries(&dir)?;
        for s in &mut entries {
            s.project = Some(project_root.to_path_buf());
        }
        let not_found = || SessionError::NotFound {
            query: query.to_string(),
            dir: dir.clone(),
        };
        let query = query.trim();
        if query.is_empty() {
            return Err(not_found());
        }
        if query == "latest" {
            return entries.into_iter().next().ok_or_else(not_found);
        }
        if let Some(exact) = entries.iter().find(|s| s.id == query || s.name() == query) {
            return Ok(exact.clone());
        }
        let mut matches: Vec<Session> = entries
            .into_iter()
            .filter(|s| s.id.starts_with(query) || s.name().starts_with(query))
            .collect();
        match matches.len() {
            0 => Err(not_found()),
            1 => Ok(matches.remove(0)),
            _ => Err(SessionError::Ambiguous {
                query: query.to_string(),
                matches: matches.iter().map(|s| s.name().to_string()).collect(),
            }),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The project root it was created for ([`Session::create`]).
    pub fn project_root(&self) -> Option<&Path> {
        self.project.as_deref()
    }

    /// The random part of the directory name.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Where crit-agent's JSONL sink writes the transcript.
    pub fn transcript_path(&self) -> PathBuf {
        self.dir.join(self.transcript)
    }

    /// The transcript under another name (Reldo's `transcript.log`).
    pub fn with_transcript_name(mut self, name: &'static str) -> Self {
        self.transcript = name;
        self
    }

    /// Save the result (atomically: temp file and rename). Strings shaped like
    /// credentials are redacted, in case a reviewer quoted one.
    pub fn write_result(&self, result: &ReviewResult) -> Result<(), SessionError> {
        self.write_result_with(result, serde_json::Map::new())
    }

    /// Save the result with `extra` keys beside its own (Reldo's `text`,
    /// `input_tokens`, … in `crit run`'s sessions): still a `ReviewResult`
    /// to crit, and what a script written for the original tool reads.
    pub fn write_result_with(
        &self,
        result: &ReviewResult,
        extra: serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), SessionError> {
        let path = self.dir.join(RESULT);
        let mut value = serde_json::to_value(result).map_err(|source| SessionError::Json {
            what: "result",
            path: path.clone(),
            source,
        })?;
        if let serde_json::Value::Object(map) = &mut value {
            for (k, v) in extra {
                map.entry(k).or_insert(v);
            }
        }
        redact_credentials(&mut value);
        self.write_json(RESULT, &value, "result")
    }

    /// Pretty JSON written atomically beneath the session's own directory
    /// (temp file, fsync, rename): a reader never sees half a file, and a
    /// full disk leaves no temp file and the previous file as it was.
    fn write_json(
        &self,
        name: &str,
        value: &impl Serialize,
        what: &'static str,
    ) -> Result<(), SessionError> {
        let path = self.dir.join(name);
        let mut bytes = serde_json::to_vec_pretty(value).map_err(|source| SessionError::Json {
            what,
            path: path.clone(),
            source,
        })?;
        bytes.push(b'\n');
        let root = match &self.root {
            Some(r) => Arc::clone(r),
            // A session found on disk: opened now, its parents as they are.
            None => Arc::new(Root::open(&self.dir).map_err(fs_error("open"))?),
        };
        root.write_atomic_with(name, &bytes, WriteOptions::private())
            .map_err(fs_error("write"))
    }

    /// Creates (or truncates) a file of the session for writing, beneath its
    /// own directory (the transcript).
    pub fn create_file(&self, name: &str) -> Result<std::fs::File, SessionError> {
        let root = match &self.root {
            Some(r) => Arc::clone(r),
            None => Arc::new(Root::open(&self.dir).map_err(fs_error("open"))?),
        };
        root.create_truncate(name, 0o600)
            .map_err(fs_error("create"))
    }

    pub fn meta(&self) -> Result<SessionMeta, SessionError> {
        read_json(&self.dir.join(META), "session")?.ok_or_else(|| SessionError::Io {
            action: "read",
            path: self.dir.join(META),
            source: ErrorKind::NotFound.into(),
        })
    }

    /// The saved result; `None` when the review never finished.
    pub fn result(&self) -> Result<Option<ReviewResult>, SessionError> {
        read_json(&self.dir.join(RESULT), "result")
    }

    fn name(&self) -> &str {
        self.dir.file_name().and_then(|n| n.to_str()).unwrap_or("")
    }
}

/// Every session of the project, newest first. Directories that are not
/// sessions, or whose `session.json` is unreadable, are skipped with a warning.
pub fn list(project_root: &Path) -> Result<Vec<SessionSummary>, SessionError> {
    let mut out = Vec::new();
    for session in entries(&sessions_dir(project_root))? {
        let meta = match session.meta() {
            Ok(m) => m,
            Err(e) => {
                tracing::warn!("skipping session {}: {e}", session.dir.display());
                continue;
            }
        };
        let result = session.result().unwrap_or_else(|e| {
            tracing::warn!("session {}: {e}", session.dir.display());
            None
        });
        out.push(SessionSummary {
            id: session.id.clone(),
            dir: session.dir.clone(),
            review: meta.review,
            started_at: meta.started_at,
            verdict: result.as_ref().map(|r| r.verdict),
            passed: result.as_ref().map(|r| r.passed),
            findings: result.as_ref().map(|r| r.findings.len()),
        });
    }
    Ok(out)
}

fn sessions_dir(project_root: &Path) -> PathBuf {
    project_root.join(".crit").join("sessions")
}

/// Session directories, newest first: by the UTC second in the name, then (for
/// sessions started in the same second) by when `session.json` was written.
fn entries(dir: &Path) -> Result<Vec<Session>, SessionError> {
    let read = match std::fs::read_dir(dir) {
        Ok(r) => r,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(SessionError::io("list", dir)(e)),
    };
    let mut found = Vec::new();
    for entry in read.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some((stamp, id)) = session_dir_name(&name) else {
            continue;
        };
        let written = std::fs::metadata(entry.path().join(META))
            .and_then(|m| m.modified())
            .unwrap_or(UNIX_EPOCH);
        let session = Session {
            dir: entry.path(),
            id: id.to_string(),
            transcript: TRANSCRIPT,
            root: None,
            project: None,
        };
        found.push(((stamp.to_string(), written, name), session));
    }
    found.sort_by_key(|(key, _)| Reverse(key.clone()));
    Ok(found.into_iter().map(|(_, s)| s).collect())
}

fn create_unique_dir(sessions: &Root, now: SystemTime) -> Result<Session, SessionError> {
    let since_epoch = now.duration_since(UNIX_EPOCH).unwrap_or_default();
    let stamp = timestamp::compact(since_epoch.as_secs());
    // A collision needs the same second and the same 32 random bits; a name
    // that exists is never reused.
    for attempt in 0..8u32 {
        let id = random_id(since_epoch.as_nanos(), attempt);
        let name = format!("{stamp}-{id}");
        if sessions.exists(&name).map_err(fs_error("create"))? {
            continue;
        }
        let root = sessions
            .subdir(&name, Some(0o700))
            .map_err(fs_error("create"))?;
        return Ok(Session {
            dir: sessions.join(&name),
            id,
            transcript: TRANSCRIPT,
            root: Some(Arc::new(root)),
            project: None,
        });
    }
    Err(SessionError::io("create", sessions.path())(
        ErrorKind::AlreadyExists.into(),
    ))
}

/// 8 lower-case hex digits. std's `RandomState` is seeded from the OS per
/// thread and varies per instance, which is all the randomness a directory name
/// needs; no extra crate.
fn random_id(nanos: u128, attempt: u32) -> String {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(nanos);
    h.write_u32(std::process::id());
    h.write_u32(attempt);
    format!("{:08x}", h.finish() as u32)
}

/// `.crit/.gitignore`, written once: an existing one is never touched.
fn ensure_gitignore(project: &Root) -> Result<(), SessionError> {
    project
        .create_new(".crit/.gitignore", GITIGNORE.as_bytes(), 0o644)
        .map(|_| ())
        .map_err(fs_error("create"))
}

/// A confined write's error, as the session's.
fn fs_error(action: &'static str) -> impl Fn(FsError) -> SessionError {
    move |e| SessionError::Fs { action, source: e }
}

fn read_json<T: DeserializeOwned>(
    path: &Path,
    what: &'static str,
) -> Result<Option<T>, SessionError> {
    let bytes = match crit_core::files::read_capped(path, Default::default()) {
        Ok(b) => b,
        Err(e) if e.is_not_found() => return Ok(None),
        Err(crit_core::files::ReadError::Io { source, .. }) => {
            return Err(SessionError::io("read", path)(source));
        }
        Err(e) => return Err(SessionError::io("read", path)(std::io::Error::other(e))),
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|source| SessionError::Json {
            what,
            path: path.to_path_buf(),
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_differ() {
        let a = random_id(1, 0);
        assert_eq!(a.len(), 8);
        assert!(a.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(a, random_id(1, 0));
    }
}
