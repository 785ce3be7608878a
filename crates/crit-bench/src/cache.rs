//! The judge's answers, kept: a pair judged before by the same model with the
//! same prompt is not asked again, so a second configuration, or a second
//! run, pays only for the pairs it has not seen.
//!
//! Entries live in `$XDG_CACHE_HOME/crit/bench-judge/` (else
//! `~/.cache/crit/bench-judge/`), one owner-only file per key, written
//! through the confined writer. The key is a SHA-256 of the judge's model,
//! the prompt's version and the pair's text; the entry is sealed with a key
//! derived from the pair's text, so the files reveal nothing of the comments
//! or the judge's reasoning to anyone who does not already have the pair.
//! An entry that does not open is a miss.

use std::path::{Path, PathBuf};

use crit_os::seal::{Sha256, hex};
use crit_os::write::{Root, WriteOptions};

use crate::judge::Judgement;

const MAGIC: &[u8; 8] = b"CRITJDG1";
/// Entries are a few hundred bytes; anything bigger is not one of them.
const MAX_ENTRY: u64 = 256 * 1024;

/// Where judgements are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JudgeCache {
    pub dir: PathBuf,
}

impl JudgeCache {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        JudgeCache { dir: dir.into() }
    }

    /// The user's cache directory's `bench-judge/`, when there is one.
    pub fn at_default(env: &crit_os::env::Env) -> Option<Self> {
        crit_os::dirs::cache_dir(env).map(|d| JudgeCache::new(d.join("bench-judge")))
    }

    /// The key of one pair judged by `model` with prompt `version`.
    pub fn key(model: &str, version: &str, pair: &str) -> String {
        let mut h = Sha256::new();
        h.update(b"crit bench judge cache v1\0");
        for part in [model, version, pair] {
            h.update(crit_os::seal::sha256(part.as_bytes()));
        }
        hex(&h.finish())
    }

    /// The judgement stored for `key`, when its entry opens with `pair`.
    pub fn load(&self, key: &str, pair: &str) -> Option<Judgement> {
        let name = entry(key)?;
        let root = Root::open(&self.dir).ok()?;
        let bytes = root
            .read(
                &name,
                crit_os::read::InputLimits {
                    max_bytes: MAX_ENTRY,
                },
            )
            .ok()?;
        let plain = crit_os::seal::open_box(MAGIC, &bytes, &seal_key(key, pair))?;
        serde_json::from_slice(&plain).ok()
    }

    /// Stores `judgement` for `key`, atomically and owner-only. A cache that
    /// cannot be written costs the next run a request; it is logged, not an
    /// error.
    pub fn store(&self, key: &str, pair: &str, judgement: &Judgement) {
        let Some(name) = entry(key) else { return };
        let written = serde_json::to_vec(judgement)
            .map_err(|e| e.to_string())
            .and_then(|plain| {
                let sealed = crit_os::seal::seal_box(MAGIC, &plain, &seal_key(key, pair));
                let root = Root::open_or_create(&self.dir, 0o700).map_err(|e| e.to_string())?;
                root.write_atomic_with(Path::new(&name), &sealed, WriteOptions::private())
                    .map_err(|e| e.to_string())
            });
        if let Err(e) = written {
            tracing::warn!("cannot write the judge's cache {}: {e}", self.dir.display());
        }
    }
}

/// `<key>.bin`; `None` for a key that is not a hash (never a path).
fn entry(key: &str) -> Option<String> {
    (key.len() == 64 && key.bytes().all(|b| b.is_ascii_hexdigit())).then(|| format!("{key}.bin"))
}

fn seal_key(key: &str, pair: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"crit bench judge cache seal v1\0");
    h.update(pair.as_bytes());
    h.update([0]);
    h.update(key.as_bytes());
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judgement() -> Judgement {
        Judgement {
            reasoning: "Both name the negative slice MARKER-7".into(),
            matched: true,
            confidence: 0.9,
        }
    }

    #[test]
    fn stores_privately_sealed_and_opens_only_with_its_pair() {
        let dir = tempfile::tempdir().unwrap();
        let cache = JudgeCache::new(dir.path().join("bench-judge"));
        let key = JudgeCache::key("opus", "v1", "the pair");
        cache.store(&key, "the pair", &judgement());
        assert_eq!(cache.load(&key, "the pair"), Some(judgement()));
        assert_eq!(cache.load(&key, "another pair"), None);
        let file = cache.dir.join(format!("{key}.bin"));
        let bytes = std::fs::read(&file).unwrap();
        assert!(!bytes.windows(8).any(|w| w == b"MARKER-7"));
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(cache.load("../x", "the pair"), None);
    }

    #[test]
    fn keys_depend_on_model_version_and_pair() {
        let k = JudgeCache::key("m", "v", "p");
        assert_ne!(k, JudgeCache::key("m2", "v", "p"));
        assert_ne!(k, JudgeCache::key("m", "v2", "p"));
        assert_ne!(k, JudgeCache::key("m", "v", "p2"));
        assert_eq!(k.len(), 64);
    }
}
