//! Findings of hunks already reviewed: re-reviewing a branch after a fix
//! sends only the hunks that changed, and the findings of the unchanged ones
//! come back marked `cached`; a fixed hunk has a new text, so its old
//! findings are gone.
//!
//! The cache cannot launder a review:
//! - The key ([`key`]) is a hash of what the request for that hunk would
//!   hold — the base ([`base`]: the system prompts, tools and contract of
//!   every reviewer, the models, the provider and its address, the project's
//!   conventions, the author's notes (`--context`), the inputs, the checks,
//!   crit's version) — plus the project's identity, the file's path and the
//!   raw, unredacted hunk (its `@@` numbers aside: a hunk moved by an edit
//!   above it is the same hunk). Two hunks that redact to the same text, or
//!   the same hunk in another project or under another `--context`, miss.
//! - Entries are authenticated (and encrypted) under a key derived from the
//!   user's sealing key (`plan-seal.key` in crit's state directory, 0600) and
//!   the entry's own key: whoever can write the cache directory but not read
//!   that key cannot mint an entry, and one that does not open is a miss.
//! - The directory is 0700 and each entry 0600, written through crit-os's
//!   confined writer.
//! - What is stored is the caller's to judge (a part with screening hits,
//!   redactions, dismissals or a verdict other than PASS is never stored);
//!   each finding is stored against the hunk of its own file it points into.
//!
//! Entries live in `$XDG_CACHE_HOME/crit/hunks-v2/` (else
//! `~/.cache/crit/hunks-v2/`), expire after 30 days, and the directory is
//! kept under 64 MiB by dropping the oldest entries. The entry format is
//! independent of where entries are kept, so they can move into one file.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crit_core::Finding;
use crit_os::read::InputLimits;
use crit_os::seal::{SealKey, Sha256, unhex};
use crit_os::write::{Root, WriteOptions};
use serde::{Deserialize, Serialize};

const MAGIC: &[u8; 8] = b"CRITHNK2";
/// What the entry key is derived for: never the plan seal's purposes.
const PURPOSE: &str = "crit hunk cache entry v2";
/// Entries older than this are misses.
const TTL: Duration = Duration::from_secs(30 * 24 * 3600);
/// The directory is pruned to this size, oldest first.
pub(crate) const MAX_BYTES: u64 = 64 * 1024 * 1024;
/// An entry larger than this is not one crit wrote.
const MAX_ENTRY: u64 = 16 * 1024 * 1024;

/// Where the cache lives, how big it may grow, and the key its entries are
/// sealed with.
#[derive(Clone)]
pub struct HunkCache {
    pub dir: PathBuf,
    pub max_bytes: u64,
    seal: Arc<SealKey>,
}

impl std::fmt::Debug for HunkCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HunkCache")
            .field("dir", &self.dir)
            .field("max_bytes", &self.max_bytes)
            .finish_non_exhaustive()
    }
}

/// A finding of a hunk: its own file, and its lines relative to the hunk's
/// first new line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Stored {
    pub finding: Finding,
    /// The file the finding points into (the hunk's own).
    pub path: String,
    pub start: Option<i64>,
    pub end: Option<i64>,
}

impl HunkCache {
    /// A cache in `dir` whose entries are sealed under `seal`.
    pub fn new(dir: impl Into<PathBuf>, seal: SealKey) -> Self {
        HunkCache {
            dir: dir.into(),
            max_bytes: MAX_BYTES,
            seal: Arc::new(seal),
        }
    }

    /// The user's cache (`$XDG_CACHE_HOME/crit/hunks-v2`, else
    /// `~/.cache/crit/hunks-v2`) under the user's sealing key (created on
    /// first use); `None`, with a warning, when either cannot be had.
    pub fn at_default(env: &dyn Fn(&str) -> Option<String>) -> Option<Self> {
        let dir = crit_project::paths::user_cache_dir(env)?.join("hunks-v2");
        let state = crit_project::paths::user_state_dir(env)?;
        match SealKey::open_or_create(&state) {
            Ok(k) => Some(HunkCache::new(dir, k)),
            Err(e) => {
                tracing::warn!("the hunk cache is off: {e}");
                None
            }
        }
    }

    /// The findings stored for `key`, when a fresh entry opens under the
    /// user's key.
    pub(crate) fn load(&self, key: &str, now: SystemTime) -> Option<Vec<Stored>> {
        let name = entry_name(key)?;
        let meta = std::fs::symlink_metadata(self.dir.join(&name)).ok()?;
        let age = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .unwrap_or_default();
        if !meta.is_file() || age > TTL {
            return None;
        }
        let root = Root::open(&self.dir).ok()?;
        let bytes = root
            .read(
                &name,
                InputLimits {
                    max_bytes: MAX_ENTRY,
                },
            )
            .ok()?;
        let plain = crit_os::seal::open_box(MAGIC, &bytes, &self.entry_key(key)?)?;
        serde_json::from_slice(&plain).ok()
    }

    /// Stores `findings` for `key`, atomically, owner-only. Errors are
    /// logged, not returned: a cache that cannot be written only costs the
    /// next review.
    pub(crate) fn store(&self, key: &str, findings: &[Stored]) {
        let (Some(name), Some(k)) = (entry_name(key), self.entry_key(key)) else {
            return;
        };
        let written = serde_json::to_vec(findings)
            .map_err(|e| e.to_string())
            .and_then(|plain| {
                let root = Root::open_or_create(&self.dir, 0o700).map_err(|e| e.to_string())?;
                let sealed = crit_os::seal::seal_box(MAGIC, &plain, &k);
                root.write_atomic_with(&name, &sealed, WriteOptions::private())
                    .map_err(|e| e.to_string())
            });
        if let Err(e) = written {
            tracing::warn!("cannot write the hunk cache {}: {e}", self.dir.display());
        }
    }

    /// Keeps the directory under `max_bytes` and drops expired entries.
    pub(crate) fn prune(&self, now: SystemTime) {
        let (Ok(entries), Ok(root)) = (std::fs::read_dir(&self.dir), Root::open(&self.dir)) else {
            return;
        };
        let mut files: Vec<(SystemTime, u64, String)> = entries
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let m = e.metadata().ok()?;
                (name.ends_with(".bin") && m.is_file()).then_some((
                    m.modified().ok()?,
                    m.len(),
                    name,
                ))
            })
            .collect();
        files.sort();
        let mut total: u64 = files.iter().map(|f| f.1).sum();
        for (modified, len, name) in files {
            let expired = now.duration_since(modified).unwrap_or_default() > TTL;
            if (expired || total > self.max_bytes) && root.remove(&name).is_ok() {
                total = total.saturating_sub(len);
            }
        }
    }

    /// The key an entry is sealed under: the user's sealing key over the
    /// entry's own key, so neither alone opens or forges it.
    fn entry_key(&self, key: &str) -> Option<[u8; 32]> {
        let tag = unhex(&self.seal.seal(PURPOSE, &[key.as_bytes()]))?;
        tag.try_into().ok()
    }
}

/// `<key>.bin`; `None` for a key that is not a hash (never a path).
fn entry_name(key: &str) -> Option<String> {
    (key.len() == 64 && key.bytes().all(|b| b.is_ascii_hexdigit())).then(|| format!("{key}.bin"))
}

/// What every key of one review shares: the hash of everything its requests
/// hold but the change's own hunks, given by the caller as labelled parts.
pub(crate) fn base(parts: &[(&str, &str)]) -> String {
    let mut h = Sha256::new();
    h.update(b"crit hunk cache v2\0");
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    for (label, text) in parts {
        h.update([0]);
        h.update(label.as_bytes());
        h.update([0]);
        h.update(crit_os::seal::sha256(text.as_bytes()));
    }
    crit_os::seal::hex(&h.finish())
}

/// The key of the raw (unredacted) hunk `raw` of the file at `path`, under
/// `base`; `raw` without its `@@` numbers.
pub(crate) fn key(base: &str, path: &str, raw: &str) -> String {
    let mut h = Sha256::new();
    h.update(base.as_bytes());
    h.update([0]);
    h.update(crit_os::seal::sha256(path.as_bytes()));
    h.update([0]);
    h.update(raw.as_bytes());
    crit_os::seal::hex(&h.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crit_core::Severity;
    use std::os::unix::fs::PermissionsExt;

    fn cache(dir: &std::path::Path) -> HunkCache {
        HunkCache::new(
            dir.join("hunks"),
            SealKey::open_or_create(&dir.join("state")).unwrap(),
        )
    }

    #[test]
    fn entries_round_trip_sealed_owner_only_and_keys_hold_every_part() {
        let dir = tempfile::tempdir().unwrap();
        let cache = cache(dir.path());
        let b = base(&[("template", "code"), ("model", "opus")]);
        let raw = " fn f()\n-a\n+SECRET_MARKER\n";
        let k = key(&b, "src/a.rs", raw);
        let stored = vec![Stored {
            finding: Finding::new("Bad", Severity::P1, "code"),
            path: "src/a.rs".into(),
            start: Some(0),
            end: Some(0),
        }];
        let now = SystemTime::now();
        assert!(cache.load(&k, now).is_none());
        cache.store(&k, &stored);
        assert_eq!(cache.load(&k, now), Some(stored));
        let file = cache.dir.join(format!("{k}.bin"));
        let raw_bytes = std::fs::read(&file).unwrap();
        assert!(!raw_bytes.windows(13).any(|w| w == b"SECRET_MARKER"));
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&file), 0o600);
        assert_eq!(mode(&cache.dir), 0o700);
        assert_ne!(k, key(&b, "src/b.rs", raw));
        assert_ne!(
            k,
            key(
                &base(&[("template", "code"), ("model", "sonnet")]),
                "src/a.rs",
                raw
            )
        );
        assert!(entry_name("../../etc/passwd").is_none());
        // Expired entries are misses.
        let later = now + TTL + Duration::from_secs(60);
        assert!(cache.load(&k, later).is_none());
        // Another user's key opens nothing this one wrote.
        let other = tempfile::tempdir().unwrap();
        let foreign = HunkCache::new(
            cache.dir.clone(),
            SealKey::open_or_create(other.path()).unwrap(),
        );
        assert!(foreign.load(&k, now).is_none());
    }

    #[test]
    fn pruning_keeps_the_directory_under_its_size() {
        let dir = tempfile::tempdir().unwrap();
        let mut cache = cache(dir.path());
        cache.max_bytes = 2_000;
        let b = base(&[]);
        for i in 0..40 {
            let stored = vec![Stored {
                finding: Finding::new(format!("line {i} {}", "x".repeat(100)), Severity::P2, "c"),
                path: "a".into(),
                start: None,
                end: None,
            }];
            cache.store(&key(&b, "a", &format!("+line {i}\n")), &stored);
        }
        cache.prune(SystemTime::now());
        let total: u64 = std::fs::read_dir(&cache.dir)
            .unwrap()
            .map(|e| e.unwrap().metadata().unwrap().len())
            .sum();
        assert!(total <= 2_000, "{total}");
    }
}
