//! The judge's answers, kept: a pair judged before by the same model with the
//! same prompt is not asked again, so a second configuration, or a second
//! run, pays only for the pairs it has not seen.
//!
//! Entries live in `$XDG_CACHE_HOME/crit/bench-judge/` (else
//! `~/.cache/crit/bench-judge/`), one owner-only file per key, written
//! through the confined writer. The key is a SHA-256 of the judge's model,
//! the prompt's version and the pair's text. Each entry is authenticated and
//! encrypted under a key derived from the user's sealing key
//! (`plan-seal.key` in crit's state directory, 0600), the entry's key and
//! the pair's text, as the hunk cache's are: the model, the prompt and a
//! public corpus's pairs are known to anyone, so a key built from them alone
//! would let whoever can write the cache directory mint judgements. An
//! entry that does not open is a miss, and the judge is asked.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crit_os::seal::{SealKey, Sha256, hex, unhex};
use crit_os::write::{Root, WriteOptions};

use crate::judge::Judgement;

const MAGIC: &[u8; 8] = b"CRITJDG2";
/// What the entry key is derived for: never another use of the sealing key.
const PURPOSE: &str = "crit bench judge cache entry v2";
/// Entries are a few hundred bytes; anything bigger is not one of them.
const MAX_ENTRY: u64 = 256 * 1024;

/// Where judgements are kept, and the key they are sealed under.
#[derive(Clone)]
pub struct JudgeCache {
    pub dir: PathBuf,
    seal: Arc<SealKey>,
}

impl std::fmt::Debug for JudgeCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JudgeCache")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

impl JudgeCache {
    /// A cache in `dir` whose entries are sealed under `seal`.
    pub fn new(dir: impl Into<PathBuf>, seal: SealKey) -> Self {
        JudgeCache {
            dir: dir.into(),
            seal: Arc::new(seal),
        }
    }

    /// The user's cache directory's `bench-judge/` under the user's sealing
    /// key (created on first use); `None`, with a warning, when either
    /// cannot be had.
    pub fn at_default(env: &crit_os::env::Env) -> Option<Self> {
        let dir = crit_os::dirs::cache_dir(env)?.join("bench-judge");
        let state = crit_os::dirs::state_dir(env)?;
        match SealKey::open_or_create(&state) {
            Ok(k) => Some(JudgeCache::new(dir, k)),
            Err(e) => {
                tracing::warn!("the judge's cache is off: {e}");
                None
            }
        }
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
        let plain = crit_os::seal::open_box(MAGIC, &bytes, &self.entry_key(key, pair)?)?;
        serde_json::from_slice(&plain).ok()
    }

    /// Stores `judgement` for `key`, atomically and owner-only. A cache that
    /// cannot be written costs the next run a request; it is logged, not an
    /// error.
    pub fn store(&self, key: &str, pair: &str, judgement: &Judgement) {
        let (Some(name), Some(k)) = (entry(key), self.entry_key(key, pair)) else {
            return;
        };
        let written = serde_json::to_vec(judgement)
            .map_err(|e| e.to_string())
            .and_then(|plain| {
                let sealed = crit_os::seal::seal_box(MAGIC, &plain, &k);
                let root = Root::open_or_create(&self.dir, 0o700).map_err(|e| e.to_string())?;
                root.write_atomic_with(Path::new(&name), &sealed, WriteOptions::private())
                    .map_err(|e| e.to_string())
            });
        if let Err(e) = written {
            tracing::warn!("cannot write the judge's cache {}: {e}", self.dir.display());
        }
    }

    /// The key an entry is sealed under: the user's sealing key over the
    /// entry's key and its pair, so none of them alone opens or forges it.
    fn entry_key(&self, key: &str, pair: &str) -> Option<[u8; 32]> {
        let tag = unhex(&self.seal.seal(PURPOSE, &[key.as_bytes(), pair.as_bytes()]))?;
        tag.try_into().ok()
    }
}

/// `<key>.bin`; `None` for a key that is not a hash (never a path).
fn entry(key: &str) -> Option<String> {
    (key.len() == 64 && key.bytes().all(|b| b.is_ascii_hexdigit())).then(|| format!("{key}.bin"))
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

    fn cache(dir: &Path) -> JudgeCache {
        let key = SealKey::open_or_create(&dir.join("state")).unwrap();
        JudgeCache::new(dir.join("bench-judge"), key)
    }

    #[test]
    fn stores_privately_sealed_and_opens_only_with_its_pair() {
        let dir = tempfile::tempdir().unwrap();
        let cache = cache(dir.path());
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

    /// What the cache's key once was: derived from the pair and its key
    /// alone, which anyone with the corpus can compute.
    fn public_key(key: &str, pair: &str) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(b"crit bench judge cache seal v1\0");
        h.update(pair.as_bytes());
        h.update([0]);
        h.update(key.as_bytes());
        h.finish()
    }

    #[test]
    fn an_entry_not_sealed_under_the_users_key_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let cache = cache(dir.path());
        let key = JudgeCache::key("opus", "v1", "the pair");
        let file = cache.dir.join(format!("{key}.bin"));
        let forged = serde_json::to_vec(&judgement()).unwrap();
        std::fs::create_dir_all(&cache.dir).unwrap();
        for magic in [b"CRITJDG1", MAGIC] {
            let sealed = crit_os::seal::seal_box(magic, &forged, &public_key(&key, "the pair"));
            std::fs::write(&file, sealed).unwrap();
            assert_eq!(cache.load(&key, "the pair"), None);
        }
        // Another user's key.
        let other = JudgeCache::new(
            &cache.dir,
            SealKey::open_or_create(&dir.path().join("other")).unwrap(),
        );
        other.store(&key, "the pair", &judgement());
        assert_eq!(other.load(&key, "the pair"), Some(judgement()));
        assert_eq!(cache.load(&key, "the pair"), None);
        // Edited bytes.
        cache.store(&key, "the pair", &judgement());
        let mut bytes = std::fs::read(&file).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&file, bytes).unwrap();
        assert_eq!(cache.load(&key, "the pair"), None);
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
