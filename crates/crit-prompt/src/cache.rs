//! Reviews already done: the same prompt, with the same project context,
//! settings, reviewers and backend, returns the stored review at no cost.
//!
//! Entries live in `$XDG_CACHE_HOME/crit/prompt-review/` (else
//! `~/.cache/crit/prompt-review/`), one file per key, and expire after 30 days.
//! The key is a hash; the entry is sealed with a key derived from the prompt
//! itself (SHA-256 in counter mode, HMAC-SHA-256 over the result), so the files
//! hold no prompt text and reveal nothing to anyone who does not already have
//! the prompt. An entry that does not open is a miss.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crit_os::seal::Sha256;

use super::result::PromptReview;
use crit_os::seal::{hex as to_hex, sha256};

const MAGIC: &[u8; 8] = b"CRITPRC1";
/// Entries older than this are misses (and deleted when seen).
pub const TTL: Duration = Duration::from_secs(30 * 24 * 3600);

/// `$XDG_CACHE_HOME/crit/prompt-review`, else `~/.cache/crit/prompt-review`.
pub fn default_dir(env: &crit_os::Env) -> Option<PathBuf> {
    crit_os::dirs::cache_dir(env).map(|d| d.join("prompt-review"))
}

/// The cache key of a review: the prompt, the context block and everything
/// that decides what reviewers are asked (`setup`: settings, backend, each
/// reviewer's model and system prompt).
pub fn key(prompt: &str, context: &str, setup: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"crit prompt review cache v1\0");
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    for part in [prompt, context, setup] {
        h.update(sha256(part.as_bytes()));
    }
    to_hex(&h.finish())
}

fn entry(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("{key}.bin"))
}

/// The stored review for `key`, if there is a fresh one that opens with `prompt`.
pub fn load(dir: &Path, key: &str, prompt: &str, now: SystemTime) -> Option<PromptReview> {
    let path = entry(dir, key);
    let meta = std::fs::metadata(&path).ok()?;
    let age = meta
        .modified()
        .ok()
        .and_then(|m| now.duration_since(m).ok())
        .unwrap_or_default();
    if age > TTL {
        let _ = std::fs::remove_file(&path);
        return None;
    }
    let bytes = std::fs::read(&path).ok()?;
    let plain = crit_os::seal::open_box(MAGIC, &bytes, &seal_key(prompt, key))?;
    serde_json::from_slice(&plain).ok()
}

/// Stores `review` under `key`, atomically (temp file + rename); drops
/// expired entries on the way.
pub fn store(
    dir: &Path,
    key: &str,
    prompt: &str,
    review: &PromptReview,
    now: SystemTime,
) -> std::io::Result<()> {
    let root = crit_os::write::Root::open_or_create(dir, 0o700)?;
    prune(dir, now);
    let plain = serde_json::to_vec(review).map_err(std::io::Error::other)?;
    let sealed = crit_os::seal::seal_box(MAGIC, &plain, &seal_key(prompt, key));
    let name = entry(dir, key);
    let name = name.file_name().unwrap_or_default();
    root.write_atomic_with(name, &sealed, crit_os::write::WriteOptions::private())?;
    Ok(())
}

fn prune(dir: &Path, now: SystemTime) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.filter_map(Result::ok) {
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age > TTL);
        if old && e.file_name().to_string_lossy().ends_with(".bin") {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

fn seal_key(prompt: &str, key: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"crit prompt review cache seal v1\0");
    h.update(prompt.as_bytes());
    h.update([0]);
    h.update(key.as_bytes());
    let mut out = [0u8; 32];
    out.copy_from_slice(&h.finish());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealing_round_trips_and_hides_the_text() {
        let k = seal_key("the prompt", "key");
        let plain = b"{\"original\":\"the prompt MARKER-123\"}".repeat(5);
        let (seal, open) = (crit_os::seal::seal_box, crit_os::seal::open_box);
        let sealed = seal(MAGIC, &plain, &k);
        assert!(!sealed.windows(10).any(|w| w == b"MARKER-123"));
        assert_eq!(open(MAGIC, &sealed, &k).unwrap(), plain);
        assert!(open(MAGIC, &sealed, &seal_key("another prompt", "key")).is_none());
        let mut bad = sealed.clone();
        let last = bad.len() - 1;
        bad[last] ^= 1;
        assert!(open(MAGIC, &bad, &k).is_none());
        assert!(open(MAGIC, b"CRITPRC1", &k).is_none());
    }

    #[test]
    fn keys_depend_on_every_part() {
        let a = key("p", "c", "s");
        assert_eq!(a, key("p", "c", "s"));
        assert_ne!(a, key("p2", "c", "s"));
        assert_ne!(a, key("p", "c2", "s"));
        assert_ne!(a, key("p", "c", "s2"));
        assert_eq!(a.len(), 64);
    }
}
