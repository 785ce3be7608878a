//! Hunks already reviewed: re-reviewing a branch after a fix sends only the
//! hunks that changed; an unchanged hunk whose earlier review found nothing
//! in its file is not sent again. The cache holds no findings: a hunk with
//! anything found in its file is sent again, so the cache removes nothing.
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
//! - The directory is 0700 and the file 0600, written through crit-os's
//!   confined writer.
//! - What is stored is decided once the whole review is over, by
//!   [`decide::hunks_to_store`]: only hunks of parts whose reviewers all
//!   said PASS, of files no finding of the review points into.
//!
//! Entries live in one file, `$XDG_CACHE_HOME/crit/hunks-v3/hunks.bin`
//! (else `~/.cache/crit/hunks-v3/`), read once when a review starts
//! ([`HunkCache::open`]) and written once when it ends
//! ([`Hunks::commit`]: merged under a lock with what other reviews wrote
//! meanwhile, replaced atomically with one fsync). An entry expires after
//! 30 days (its time is sealed with it), and the file is kept under 64 MiB
//! by dropping the oldest entries.

pub(crate) mod decide;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crit_os::read::InputLimits;
use crit_os::seal::{SealKey, Sha256, unhex};
use crit_os::write::{Root, WriteOptions};
use serde::{Deserialize, Serialize};

/// Each entry's sealed box.
const MAGIC: &[u8; 8] = b"CRITHNK3";
/// The store file's header.
const FILE_MAGIC: &[u8; 8] = b"CRITHKS3";
/// The store file and its lock, in the cache directory.
const FILE: &str = "hunks.bin";
const LOCK: &str = "hunks.lock";
/// What the entry key is derived for: never the plan seal's purposes.
const PURPOSE: &str = "crit hunk cache entry v3";
/// Entries older than this are misses.
const TTL: Duration = Duration::from_secs(30 * 24 * 3600);
/// The file is pruned to this size, oldest first.
pub(crate) const MAX_BYTES: u64 = 64 * 1024 * 1024;
/// A sealed entry larger than this is not one crit wrote.
const MAX_ENTRY: usize = 16 * 1024 * 1024;
/// Framing of one entry: its key, its time (seconds), its length.
const FRAME: usize = 32 + 8 + 4;

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

/// What an entry seals: when it was written (so its age cannot be forged),
/// and the hunk's share of what its review cost.
#[derive(Serialize, Deserialize)]
struct Sealed {
    written: u64,
    #[serde(default)]
    cost_usd: Option<f64>,
}

/// A hunk found in the cache.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Hit {
    /// The hunk's share of what its review cost (its part's cost split by
    /// the size of the part's hunks); `None` when unknown (a model with no
    /// price).
    pub cost_usd: Option<f64>,
}

/// One sealed entry as the file frames it. `written` here only orders
/// pruning; the sealed copy decides expiry.
#[derive(Debug, Clone)]
struct Entry {
    written: u64,
    sealed: Vec<u8>,
}

/// The cache as one review sees it: the entries read when it started, and
/// those it adds, written once by [`Hunks::commit`].
#[derive(Debug)]
pub(crate) struct Hunks {
    cache: HunkCache,
    now: SystemTime,
    entries: HashMap<[u8; 32], Entry>,
    added: HashMap<[u8; 32], Entry>,
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

    /// The user's cache (`$XDG_CACHE_HOME/crit/hunks-v3`, else
    /// `~/.cache/crit/hunks-v3`) under the user's sealing key (created on
    /// first use); `None`, with a warning, when either cannot be had.
    pub fn at_default(env: &crit_os::Env) -> Option<Self> {
        let dir = crit_os::dirs::cache_dir(env)?.join("hunks-v3");
        let state = crit_os::dirs::state_dir(env)?;
        match SealKey::open_or_create(&state) {
            Ok(k) => Some(HunkCache::new(dir, k)),
            Err(e) => {
                tracing::warn!("the hunk cache is off: {e}");
                None
            }
        }
    }

    /// The cache for one review at `now`: its file read once (a missing or
    /// unreadable file is an empty cache).
    pub(crate) fn open(&self, now: SystemTime) -> Hunks {
        Hunks {
            cache: self.clone(),
            now,
            entries: self.read(),
            added: HashMap::new(),
        }
    }

    fn read(&self) -> HashMap<[u8; 32], Entry> {
        let limit = InputLimits {
            max_bytes: self.max_bytes.saturating_add(MAX_ENTRY as u64),
        };
        Root::open(&self.dir)
            .and_then(|root| root.read(FILE, limit))
            .map(|bytes| parse(&bytes))
            .unwrap_or_default()
    }

    /// The key an entry is sealed under: the user's sealing key over the
    /// entry's own key, so neither alone opens or forges it.
    fn entry_key(&self, key: &str) -> Option<[u8; 32]> {
        let tag = unhex(&self.seal.seal(PURPOSE, &[key.as_bytes()]))?;
        tag.try_into().ok()
    }
}

impl Hunks {
    /// The entry for `key`, when a fresh one opens under the user's key.
    pub(crate) fn load(&self, key: &str) -> Option<Hit> {
        let id = entry_id(key)?;
        let entry = self.added.get(&id).or_else(|| self.entries.get(&id))?;
        let plain = crit_os::seal::open_box(MAGIC, &entry.sealed, &self.cache.entry_key(key)?)?;
        let sealed: Sealed = serde_json::from_slice(&plain).ok()?;
        let age = secs(self.now).saturating_sub(sealed.written);
        (age <= TTL.as_secs()).then_some(Hit {
            cost_usd: sealed.cost_usd,
        })
    }

    /// Adds `key` as reviewed clean, with the hunk's share of what reviewing
    /// it cost, written by [`Hunks::commit`].
    pub(crate) fn store(&mut self, key: &str, cost_usd: Option<f64>) {
        let (Some(id), Some(k)) = (entry_id(key), self.cache.entry_key(key)) else {
            return;
        };
        let written = secs(self.now);
        let plain = match serde_json::to_vec(&Sealed { written, cost_usd }) {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!("cannot store a hunk in the cache: {e}");
                return;
            }
        };
        let sealed = crit_os::seal::seal_box(MAGIC, &plain, &k);
        if sealed.len() <= MAX_ENTRY {
            self.added.insert(id, Entry { written, sealed });
        }
    }

    /// Writes what this review added, merged with the file as it is now
    /// (another review may have written since this one read it), expired
    /// entries dropped and the oldest over `max_bytes`: one atomic write,
    /// owner-only. Nothing is written when nothing was added and nothing
    /// expired. Errors are logged, not returned: a cache that cannot be
    /// written only costs the next review.
    pub(crate) fn commit(self) {
        let oldest = secs(self.now).saturating_sub(TTL.as_secs());
        if self.added.is_empty() && self.entries.values().all(|e| e.written >= oldest) {
            return;
        }
        let dir = self.cache.dir.clone();
        if let Err(e) = self.write(oldest) {
            tracing::warn!("cannot write the hunk cache {}: {e}", dir.display());
        }
    }

    fn write(self, oldest: u64) -> Result<(), crit_os::write::FsError> {
        let root = Root::open_or_create(&self.cache.dir, 0o700)?;
        let _lock = root.lock(LOCK)?;
        let mut all = self.cache.read();
        all.extend(self.added);
        let mut kept: Vec<([u8; 32], Entry)> = all
            .into_iter()
            .filter(|(_, e)| e.written >= oldest)
            .collect();
        // Newest first, so what is over the size is the oldest.
        kept.sort_by(|a, b| b.1.written.cmp(&a.1.written).then(a.0.cmp(&b.0)));
        let mut out = Vec::from(FILE_MAGIC.as_slice());
        for (id, e) in kept {
            if (out.len() + FRAME + e.sealed.len()) as u64 > self.cache.max_bytes {
                break;
            }
            out.extend_from_slice(&id);
            out.extend_from_slice(&e.written.to_le_bytes());
            out.extend_from_slice(&(e.sealed.len() as u32).to_le_bytes());
            out.extend_from_slice(&e.sealed);
        }
        root.write_atomic_with(FILE, &out, WriteOptions::private())
    }
}

/// The entries of a store file; framing that does not parse ends it (what
/// came before is kept: each entry is authenticated on its own).
fn parse(bytes: &[u8]) -> HashMap<[u8; 32], Entry> {
    let mut out = HashMap::new();
    let Some(mut rest) = bytes.strip_prefix(FILE_MAGIC.as_slice()) else {
        return out;
    };
    while rest.len() >= FRAME {
        let (frame, body) = rest.split_at(FRAME);
        let (id, frame) = frame.split_at(32);
        let (written, len) = frame.split_at(8);
        let (Ok(id), Ok(written), Ok(len)) = (
            <[u8; 32]>::try_from(id),
            <[u8; 8]>::try_from(written),
            <[u8; 4]>::try_from(len),
        ) else {
            break;
        };
        let len = u32::from_le_bytes(len) as usize;
        if len > body.len() || len > MAX_ENTRY {
            break;
        }
        let (sealed, next) = body.split_at(len);
        out.insert(
            id,
            Entry {
                written: u64::from_le_bytes(written),
                sealed: sealed.to_vec(),
            },
        );
        rest = next;
    }
    out
}

fn secs(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// The entry's id in the file; `None` for a key that is not a hash.
fn entry_id(key: &str) -> Option<[u8; 32]> {
    if key.len() != 64 {
        return None;
    }
    unhex(key)?.try_into().ok()
}

/// What every key of one review shares: the hash of everything its requests
/// hold but the change's own hunks, given by the caller as labelled parts.
pub(crate) fn base(parts: &[(&str, &str)]) -> String {
    let mut h = Sha256::new();
    // v3: entries hold no findings, and only hunks of files the whole review
    // found nothing in; entries an earlier crit wrote are misses.
    h.update(b"crit hunk cache v3\0");
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
        let now = SystemTime::now();
        let mut first = cache.open(now);
        assert!(first.load(&k).is_none());
        first.store(&k, Some(0.25));
        first.commit();
        assert_eq!(
            cache.open(now).load(&k),
            Some(Hit {
                cost_usd: Some(0.25)
            })
        );
        let file = cache.dir.join(FILE);
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
        assert!(entry_id("../../etc/passwd").is_none());
        // Expired entries are misses, whatever the file's framing says.
        let later = now + TTL + Duration::from_secs(60);
        assert!(cache.open(later).load(&k).is_none());
        // Another user's key opens nothing this one wrote.
        let other = tempfile::tempdir().unwrap();
        let foreign = HunkCache::new(
            cache.dir.clone(),
            SealKey::open_or_create(other.path()).unwrap(),
        );
        assert!(foreign.open(now).load(&k).is_none());
    }

    #[test]
    fn a_review_writes_one_file_once_and_keeps_what_others_wrote_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let cache = cache(dir.path());
        let b = base(&[]);
        let now = SystemTime::now();
        let keys: Vec<String> = (0..500)
            .map(|i| key(&b, "a", &format!("+line {i}\n")))
            .collect();
        // Two reviews started from the same (empty) cache.
        let mut one_review = cache.open(now);
        let mut other = cache.open(now);
        for k in &keys[..300] {
            one_review.store(k, Some(1.0));
        }
        for k in &keys[300..] {
            other.store(k, Some(2.0));
        }
        // Nothing is written before the review ends.
        assert!(!cache.dir.join(FILE).exists());
        one_review.commit();
        other.commit();
        let names: Vec<String> = std::fs::read_dir(&cache.dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n != LOCK)
            .collect();
        assert_eq!(names, vec![FILE.to_string()]);
        let seen = cache.open(now);
        assert!(keys.iter().all(|k| seen.load(k).is_some()));
        assert_eq!(seen.load(&keys[0]).unwrap().cost_usd, Some(1.0));
        assert_eq!(seen.load(&keys[499]).unwrap().cost_usd, Some(2.0));
        // A review that adds nothing writes nothing.
        let before = std::fs::metadata(cache.dir.join(FILE))
            .unwrap()
            .modified()
            .unwrap();
        cache.open(now).commit();
        let after = std::fs::metadata(cache.dir.join(FILE))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(before, after);
    }

    #[test]
    fn an_entry_moved_to_another_key_or_altered_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let cache = cache(dir.path());
        let b = base(&[]);
        let (ka, kb) = (key(&b, "a", "+a\n"), key(&b, "b", "+b\n"));
        let now = SystemTime::now();
        let mut h = cache.open(now);
        h.store(&ka, None);
        h.commit();
        // The entry of `a` framed under the id of `b`: it does not open.
        let mut bytes = std::fs::read(cache.dir.join(FILE)).unwrap();
        let id_b = entry_id(&kb).unwrap();
        let at = FILE_MAGIC.len();
        bytes[at..at + 32].copy_from_slice(&id_b);
        std::fs::write(cache.dir.join(FILE), &bytes).unwrap();
        let h = cache.open(now);
        assert!(h.load(&kb).is_none() && h.load(&ka).is_none());
        // A flipped byte in the body, and a truncated file, are misses too.
        std::fs::remove_file(cache.dir.join(FILE)).unwrap();
        let mut h = cache.open(now);
        h.store(&ka, None);
        h.commit();
        let mut bytes = std::fs::read(cache.dir.join(FILE)).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(cache.dir.join(FILE), &bytes).unwrap();
        assert!(cache.open(now).load(&ka).is_none());
        std::fs::write(cache.dir.join(FILE), &bytes[..bytes.len() - 5]).unwrap();
        assert!(cache.open(now).load(&ka).is_none());
    }

    #[test]
    fn pruning_keeps_the_directory_under_its_size() {
        let dir = tempfile::tempdir().unwrap();
        let mut cache = cache(dir.path());
        cache.max_bytes = 2_000;
        let b = base(&[]);
        let start = SystemTime::now();
        for i in 0..40u64 {
            let mut h = cache.open(start + Duration::from_secs(i));
            h.store(&key(&b, "a", &format!("+line {i}\n")), Some(i as f64));
            h.commit();
        }
        let total: u64 = std::fs::read_dir(&cache.dir)
            .unwrap()
            .map(|e| e.unwrap().metadata().unwrap().len())
            .sum();
        assert!(total <= 2_000, "{total}");
        // The newest stays, the oldest went.
        let h = cache.open(start + Duration::from_secs(40));
        assert!(h.load(&key(&b, "a", "+line 39\n")).is_some());
        assert!(h.load(&key(&b, "a", "+line 0\n")).is_none());
    }
}
