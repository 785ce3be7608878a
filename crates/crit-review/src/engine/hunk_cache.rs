//! Findings of hunks already reviewed: re-reviewing a branch after a fix
//! sends only the hunks that changed, and the findings of the unchanged ones
//! come back marked `cached`; a fixed hunk has a new text, so its old
//! findings are gone.
//!
//! One entry per hunk, keyed by a SHA-256 of the hunk's text (its context
//! lines included, its `@@` numbers not: a hunk moved by an edit above it is
//! the same hunk), its file, and everything that decides what reviewers are
//! asked (the template, each reviewer's model, tools and prompts, the project
//! conventions, crit's version, the verification setting). Entries live in
//! `$XDG_CACHE_HOME/crit/hunks/` (else `~/.cache/crit/hunks/`), are sealed
//! with the hunk's own text (the files reveal no code to whoever reads the
//! directory), expire after 30 days, and the directory is kept under 64 MiB
//! by dropping the oldest entries.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use crit_core::Finding;
use crit_os::seal::Sha256;
use serde::{Deserialize, Serialize};

use crit_project::scope::units::HunkText;

const MAGIC: &[u8; 8] = b"CRITHNK1";
/// Entries older than this are misses.
const TTL: Duration = Duration::from_secs(30 * 24 * 3600);
/// The directory is pruned to this size, oldest first.
pub(crate) const MAX_BYTES: u64 = 64 * 1024 * 1024;

/// Where the cache lives, and how big it may grow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkCache {
    pub dir: PathBuf,
    pub max_bytes: u64,
}

/// A finding of a hunk, its lines relative to the hunk's first new line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Stored {
    pub finding: Finding,
    pub start: Option<i64>,
    pub end: Option<i64>,
}

impl HunkCache {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        HunkCache {
            dir: dir.into(),
            max_bytes: MAX_BYTES,
        }
    }

    /// The user's cache: `$XDG_CACHE_HOME/crit/hunks`, else `~/.cache/crit/hunks`.
    pub fn at_default(env: &dyn Fn(&str) -> Option<String>) -> Option<Self> {
        crit_project::paths::user_cache_dir(env).map(|d| HunkCache::new(d.join("hunks")))
    }

    /// The findings stored for `key`, when a fresh entry opens with `text`.
    pub(crate) fn load(&self, key: &str, text: &str, now: SystemTime) -> Option<Vec<Stored>> {
        let path = self.entry(key)?;
        let meta = std::fs::metadata(&path).ok()?;
        let age = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .unwrap_or_default();
        if age > TTL {
            return None;
        }
        let bytes = crit_core::files::read_capped(&path, Default::default()).ok()?;
        let plain = crit_os::seal::open_box(MAGIC, &bytes, &seal_key(key, text))?;
        serde_json::from_slice(&plain).ok()
    }

    /// Stores `findings` for `key`, atomically. Errors are logged, not
    /// returned: a cache that cannot be written only costs the next review.
    pub(crate) fn store(&self, key: &str, text: &str, findings: &[Stored]) {
        let Some(path) = self.entry(key) else { return };
        let written = serde_json::to_vec(findings)
            .map_err(std::io::Error::other)
            .and_then(|plain| {
                std::fs::create_dir_all(&self.dir)?;
                let sealed = crit_os::seal::seal_box(MAGIC, &plain, &seal_key(key, text));
                crit_core::files::write_atomic(&path, &sealed).map_err(std::io::Error::other)
            });
        if let Err(e) = written {
            tracing::warn!("cannot write the hunk cache {}: {e}", self.dir.display());
        }
    }

    /// Keeps the directory under `max_bytes` and drops expired entries.
    pub(crate) fn prune(&self, now: SystemTime) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let mut files: Vec<(SystemTime, u64, PathBuf)> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".bin"))
            .filter_map(|e| {
                let m = e.metadata().ok()?;
                Some((m.modified().ok()?, m.len(), e.path()))
            })
            .collect();
        files.sort();
        let mut total: u64 = files.iter().map(|f| f.1).sum();
        for (modified, len, path) in files {
            let expired = now.duration_since(modified).unwrap_or_default() > TTL;
            if (expired || total > self.max_bytes) && std::fs::remove_file(&path).is_ok() {
                total = total.saturating_sub(len);
            }
        }
    }

    /// `DIR/<key>.bin`; `None` for a key that is not a hash (never a path).
    fn entry(&self, key: &str) -> Option<PathBuf> {
        (key.len() == 64 && key.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| self.dir.join(format!("{key}.bin")))
    }
}

/// What every key of one review shares: the hash of everything that decides
/// what reviewers are asked, given by the caller as labelled parts.
pub(crate) fn base(parts: &[(&str, &str)]) -> String {
    let mut h = Sha256::new();
    h.update(b"crit hunk cache v1\0");
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    for (label, text) in parts {
        h.update(label.as_bytes());
        h.update([0]);
        h.update(crit_os::seal::sha256(text.as_bytes()));
    }
    crit_os::seal::hex(&h.finish())
}

/// The key of `hunk` of the file at `path`, under `base`.
pub(crate) fn key(base: &str, path: &str, hunk: &HunkText) -> String {
    let mut h = Sha256::new();
    h.update(base.as_bytes());
    h.update([0]);
    h.update(path.as_bytes());
    h.update([0]);
    h.update(hunk.without_numbers().as_bytes());
    crit_os::seal::hex(&h.finish())
}

fn seal_key(key: &str, text: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"crit hunk cache seal v1\0");
    h.update(text.as_bytes());
    h.update([0]);
    h.update(key.as_bytes());
    let mut out = [0u8; 32];
    out.copy_from_slice(&h.finish());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crit_core::Severity;

    fn hunk(text: &str) -> HunkText {
        HunkText {
            hunk: crit_project::scope::Hunk {
                old_start: 1,
                old_lines: 1,
                new_start: 1,
                new_lines: 1,
                added: vec![1],
            },
            text: text.into(),
        }
    }

    #[test]
    fn entries_round_trip_sealed_and_keys_hold_every_part() {
        let dir = tempfile::tempdir().unwrap();
        let cache = HunkCache::new(dir.path());
        let b = base(&[("template", "code"), ("model", "opus")]);
        let h = hunk("@@ -1 +1 @@\n-a\n+SECRET_MARKER\n");
        let k = key(&b, "src/a.rs", &h);
        let stored = vec![Stored {
            finding: Finding::new("Bad", Severity::P1, "code"),
            start: Some(0),
            end: Some(0),
        }];
        let now = SystemTime::now();
        assert!(cache.load(&k, &h.text, now).is_none());
        cache.store(&k, &h.text, &stored);
        assert_eq!(cache.load(&k, &h.text, now), Some(stored));
        // Another text under the same key does not open it; the file holds no code.
        assert!(cache.load(&k, "@@ -1 +1 @@\n-a\n+b\n", now).is_none());
        let raw = std::fs::read(dir.path().join(format!("{k}.bin"))).unwrap();
        assert!(!raw.windows(13).any(|w| w == b"SECRET_MARKER"));
        assert_ne!(k, key(&b, "src/b.rs", &h));
        assert_ne!(
            k,
            key(
                &base(&[("template", "code"), ("model", "sonnet")]),
                "src/a.rs",
                &h
            )
        );
        assert!(cache.entry("../../etc/passwd").is_none());
        // Expired entries are misses.
        let later = now + TTL + Duration::from_secs(60);
        assert!(cache.load(&k, &h.text, later).is_none());
    }

    #[test]
    fn pruning_keeps_the_directory_under_its_size() {
        let dir = tempfile::tempdir().unwrap();
        let mut cache = HunkCache::new(dir.path());
        cache.max_bytes = 2_000;
        let b = base(&[]);
        for i in 0..40 {
            let h = hunk(&format!("@@ -1 +1 @@\n+line {i} {}\n", "x".repeat(100)));
            cache.store(&key(&b, "a", &h), &h.text, &[]);
        }
        cache.prune(SystemTime::now());
        let total: u64 = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().metadata().unwrap().len())
            .sum();
        assert!(total <= 2_000, "{total}");
    }
}
