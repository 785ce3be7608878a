//! The user's sealing key. What crit writes and later trusts (a plan's
//! approval marker, its `state.yaml`) carries an HMAC-SHA256 under a key that
//! lives outside every project (`plan-seal.key` in crit's state directory,
//! mode 0600). A `touch`ed or copied marker, or a hand-edited state, does not
//! carry a valid seal, and an edit changes what the seal covers.

use std::path::{Path, PathBuf};

use ring::hmac;
use ring::rand::{SecureRandom, SystemRandom};

use super::hash::{hex, unhex};
use crate::read::InputLimits;
use crate::write::{FsError, Root};

const KEY_FILE: &str = "plan-seal.key";

/// Why the key could not be had.
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    #[error(transparent)]
    Fs(#[from] FsError),
    #[error(
        "{}: not a crit sealing key; delete it (earlier approvals then need a new `crit plan` run)",
        path.display()
    )]
    NotAKey { path: PathBuf },
    #[error("{}: the operating system gave no randomness for a new sealing key", path.display())]
    NoRandomness { path: PathBuf },
}

impl SealError {
    /// The key file (or the directory) the error is about.
    pub fn path(&self) -> &Path {
        match self {
            SealError::Fs(e) => e.path(),
            SealError::NotAKey { path } | SealError::NoRandomness { path } => path,
        }
    }
}

/// An HMAC key; its bytes never leave this module.
pub struct SealKey(hmac::Key);

impl std::fmt::Debug for SealKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SealKey(..)")
    }
}

impl SealKey {
    /// Where the key lives under crit's state directory.
    pub fn path(state_dir: &Path) -> PathBuf {
        state_dir.join(KEY_FILE)
    }

    /// The existing key, or `None` (nothing was ever sealed, so nothing verifies).
    pub fn open(state_dir: &Path) -> Result<Option<SealKey>, SealError> {
        let root = match Root::open(state_dir) {
            Err(e) if e.is_not_found() => return Ok(None),
            other => other?,
        };
        Self::read(&root)
    }

    /// The key, created on first use (the directory 0700, the file 0600,
    /// never overwritten). Two runs racing to create it agree on one.
    pub fn open_or_create(state_dir: &Path) -> Result<SealKey, SealError> {
        let root = Root::open_or_create(state_dir, 0o700)?;
        if let Some(k) = Self::read(&root)? {
            return Ok(k);
        }
        let mut bytes = [0u8; 32];
        SystemRandom::new()
            .fill(&mut bytes)
            .map_err(|_| SealError::NoRandomness {
                path: Self::path(state_dir),
            })?;
        // Losing a race is fine: the winner's key is read below.
        root.create_new(KEY_FILE, hex(&bytes).as_bytes(), 0o600)?;
        Self::read(&root)?.ok_or_else(|| SealError::NotAKey {
            path: Self::path(state_dir),
        })
    }

    fn read(root: &Root) -> Result<Option<SealKey>, SealError> {
        let text = match root.read_to_string(KEY_FILE, InputLimits { max_bytes: 4096 }) {
            Ok(t) => t,
            Err(e) if e.is_not_found() => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let bytes = unhex(text.trim())
            .filter(|b| b.len() >= 32)
            .ok_or_else(|| SealError::NotAKey {
                path: root.join(KEY_FILE),
            })?;
        Ok(Some(SealKey(hmac::Key::new(hmac::HMAC_SHA256, &bytes))))
    }

    /// The seal of `parts` for `purpose`, as hex. Each part is length-prefixed,
    /// so no two different lists of parts share a seal.
    pub fn seal(&self, purpose: &str, parts: &[&[u8]]) -> String {
        hex(hmac::sign(&self.0, &message(purpose, parts)).as_ref())
    }

    /// Whether `seal` (hex) is the seal of `parts` for `purpose` (in constant time).
    pub fn verify(&self, purpose: &str, parts: &[&[u8]], seal: &str) -> bool {
        let Some(tag) = unhex(seal.trim()) else {
            return false;
        };
        hmac::verify(&self.0, &message(purpose, parts), &tag).is_ok()
    }
}

fn message(purpose: &str, parts: &[&[u8]]) -> Vec<u8> {
    let mut m = Vec::new();
    for p in std::iter::once(purpose.as_bytes()).chain(parts.iter().copied()) {
        m.extend_from_slice(&(p.len() as u64).to_le_bytes());
        m.extend_from_slice(p);
    }
    m
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn one_key_per_state_dir_sealing_tells_parts_apart() {
        let dir = tempfile::tempdir().unwrap();
        assert!(SealKey::open(dir.path()).unwrap().is_none());
        assert!(SealKey::open(&dir.path().join("absent")).unwrap().is_none());
        let k = SealKey::open_or_create(dir.path()).unwrap();
        let again = SealKey::open_or_create(dir.path()).unwrap();
        let s = k.seal("p", &[b"ab", b"c"]);
        assert_eq!(s.len(), 64);
        assert!(again.verify("p", &[b"ab", b"c"], &s));
        assert!(!k.verify("p", &[b"a", b"bc"], &s));
        assert!(!k.verify("q", &[b"ab", b"c"], &s));
        assert!(!k.verify("p", &[b"ab", b"c"], "zz"));
        assert!(!k.verify("p", &[b"ab", b"c"], ""));
        let mode = fs::metadata(SealKey::path(dir.path()))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let other = tempfile::tempdir().unwrap();
        let k2 = SealKey::open_or_create(other.path()).unwrap();
        assert!(!k2.verify("p", &[b"ab", b"c"], &s));
        // Only the key is left in the directory.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        fs::write(SealKey::path(dir.path()), "not hex").unwrap();
        let e = SealKey::open(dir.path()).unwrap_err();
        assert!(e.to_string().contains("not a crit sealing key"), "{e}");
        // A corrupt key is never overwritten by open_or_create.
        assert!(SealKey::open_or_create(dir.path()).is_err());
        assert_eq!(
            fs::read_to_string(SealKey::path(dir.path())).unwrap(),
            "not hex"
        );
    }

    #[test]
    fn a_new_state_dir_is_owner_only() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state/crit");
        SealKey::open_or_create(&state).unwrap();
        let mode = fs::metadata(&state).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
    }
}
