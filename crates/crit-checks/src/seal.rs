//! The user's sealing key. What `crit plan` writes and later trusts (the
//! approval marker, `state.yaml`) carries an HMAC-SHA256 under a key that
//! lives outside every plan directory (`$XDG_STATE_HOME/crit/plan-seal.key`,
//! mode 0600). A `touch`ed or copied marker, or a hand-edited state, does not
//! carry a valid seal, and a plan or check edit changes what the seal covers.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use ring::hmac;
use ring::rand::{SecureRandom, SystemRandom};

use crate::error::CheckError;

const KEY_FILE: &str = "plan-seal.key";

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
    pub fn open(state_dir: &Path) -> Result<Option<SealKey>, CheckError> {
        let path = Self::path(state_dir);
        match fs::read_to_string(&path) {
            Ok(text) => Self::parse(&path, &text).map(Some),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(CheckError::io(&path, e)),
        }
    }

    /// The key, created on first use. Two runs racing to create it agree on
    /// one: the file is linked into place only if it does not exist yet.
    pub fn open_or_create(state_dir: &Path) -> Result<SealKey, CheckError> {
        if let Some(k) = Self::open(state_dir)? {
            return Ok(k);
        }
        fs::create_dir_all(state_dir).map_err(|e| CheckError::io(state_dir, e))?;
        let mut bytes = [0u8; 32];
        SystemRandom::new()
            .fill(&mut bytes)
            .map_err(|_| CheckError::io(state_dir, std::io::Error::other("no OS randomness")))?;
        let path = Self::path(state_dir);
        let mut builder = tempfile::Builder::new();
        builder.prefix(".plan-seal-");
        owner_only(&mut builder);
        let tmp = builder
            .tempfile_in(state_dir)
            .map_err(|e| CheckError::io(state_dir, e))?;
        fs::write(tmp.path(), hex(&bytes)).map_err(|e| CheckError::io(tmp.path(), e))?;
        match fs::hard_link(tmp.path(), &path) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
            Err(e) => return Err(CheckError::io(&path, e)),
        }
        drop(tmp);
        Self::open(state_dir)?.ok_or_else(|| CheckError::io(&path, ErrorKind::NotFound.into()))
    }

    fn parse(path: &Path, text: &str) -> Result<SealKey, CheckError> {
        let bytes = unhex(text.trim()).filter(|b| b.len() >= 32).ok_or_else(|| {
            CheckError::io(
                path,
                std::io::Error::other(
                    "not a crit sealing key; delete it (earlier approvals then need a new `crit plan` run)",
                ),
            )
        })?;
        Ok(SealKey(hmac::Key::new(hmac::HMAC_SHA256, &bytes)))
    }

    /// The seal of `parts` for `purpose`, as hex. Each part is length-prefixed,
    /// so no two different lists of parts share a seal.
    pub fn seal(&self, purpose: &str, parts: &[&[u8]]) -> String {
        hex(self.tag(purpose, parts).as_ref())
    }

    /// Whether `seal` (hex) is the seal of `parts` for `purpose` (in constant time).
    pub fn verify(&self, purpose: &str, parts: &[&[u8]], seal: &str) -> bool {
        let Some(tag) = unhex(seal.trim()) else {
            return false;
        };
        hmac::verify(&self.0, &message(purpose, parts), &tag).is_ok()
    }

    fn tag(&self, purpose: &str, parts: &[&[u8]]) -> hmac::Tag {
        hmac::sign(&self.0, &message(purpose, parts))
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

/// SHA-256 of `bytes`, as hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(ring::digest::digest(&ring::digest::SHA256, bytes).as_ref())
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) || !s.is_ascii() {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok())
        .collect()
}

#[cfg(unix)]
fn owner_only(builder: &mut tempfile::Builder<'_, '_>) {
    use std::os::unix::fs::PermissionsExt;
    builder.permissions(fs::Permissions::from_mode(0o600));
}

#[cfg(not(unix))]
fn owner_only(_: &mut tempfile::Builder<'_, '_>) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_key_per_state_dir_sealing_tells_parts_apart() {
        let dir = tempfile::tempdir().unwrap();
        assert!(SealKey::open(dir.path()).unwrap().is_none());
        let k = SealKey::open_or_create(dir.path()).unwrap();
        let again = SealKey::open_or_create(dir.path()).unwrap();
        let s = k.seal("p", &[b"ab", b"c"]);
        assert_eq!(s.len(), 64);
        assert!(again.verify("p", &[b"ab", b"c"], &s));
        assert!(!k.verify("p", &[b"a", b"bc"], &s));
        assert!(!k.verify("q", &[b"ab", b"c"], &s));
        assert!(!k.verify("p", &[b"ab", b"c"], "zz"));
        assert!(!k.verify("p", &[b"ab", b"c"], ""));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(SealKey::path(dir.path()))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let other = tempfile::tempdir().unwrap();
        let k2 = SealKey::open_or_create(other.path()).unwrap();
        assert!(!k2.verify("p", &[b"ab", b"c"], &s));
        // Only the key is left in the directory.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        fs::write(SealKey::path(dir.path()), "not hex").unwrap();
        assert!(SealKey::open(dir.path()).is_err());
        assert_eq!(sha256_hex(b"").len(), 64);
    }
}
