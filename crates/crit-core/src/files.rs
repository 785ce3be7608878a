//! The two ways crit touches files on disk: reading an input with a size cap
//! (a result, a plan, a hook's stdin — `/dev/zero` included), and writing a
//! file atomically (temp file in the same directory, fsync, rename), so a full
//! disk is an error and never a half-written file or a stray temp file.

use std::fs::{self, File, OpenOptions};
use std::hash::BuildHasher;
use std::io::{self, ErrorKind, Read, Write};
use std::path::{Path, PathBuf};

/// Caps on what crit reads from a file or stream it is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputLimits {
    /// Bytes read from one input; more is an error naming the file.
    pub max_bytes: u64,
}

impl Default for InputLimits {
    fn default() -> Self {
        // Plans, results and hook events are kilobytes; this leaves room for
        // generous ones while a device that never ends is cut off.
        InputLimits {
            max_bytes: 32 * 1024 * 1024,
        }
    }
}

/// Why an input could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{}: cannot read: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error(
        "{}: larger than the {} limit for an input; crit reads at most that much of any file",
        path.display(),
        human_bytes(*limit)
    )]
    TooLarge { path: PathBuf, limit: u64 },
}

impl ReadError {
    /// The file does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, ReadError::Io { source, .. } if source.kind() == ErrorKind::NotFound)
    }
}

/// All of `path`, or an error when it holds more than `limits` allow.
pub fn read_capped(path: &Path, limits: InputLimits) -> Result<Vec<u8>, ReadError> {
    let file = File::open(path).map_err(|source| ReadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    read_capped_from(file, path, limits)
}

/// All of `reader` (stdin, a pipe), named `name` in errors.
pub fn read_capped_from(
    reader: impl Read,
    name: &Path,
    limits: InputLimits,
) -> Result<Vec<u8>, ReadError> {
    let mut out = Vec::new();
    reader
        .take(limits.max_bytes.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|source| ReadError::Io {
            path: name.to_path_buf(),
            source,
        })?;
    if out.len() as u64 > limits.max_bytes {
        return Err(ReadError::TooLarge {
            path: name.to_path_buf(),
            limit: limits.max_bytes,
        });
    }
    Ok(out)
}

/// `std::fs::read_to_string` with the default input cap: for configuration
/// and convention files, which a hostile checkout can point at `/dev/zero`.
/// Too large or not UTF-8 is an `InvalidData` error saying so, so callers
/// keep their own error types.
pub fn read_to_string(path: impl AsRef<Path>) -> io::Result<String> {
    let path = path.as_ref();
    let bytes = read_capped(path, InputLimits::default()).map_err(|e| match e {
        ReadError::Io { source, .. } => source,
        // The caller's error names the file; these say what is wrong with it.
        ReadError::TooLarge { limit, .. } => io::Error::new(
            ErrorKind::InvalidData,
            format!(
                "larger than the {} limit for an input; crit reads at most that much of any file",
                human_bytes(limit)
            ),
        ),
    })?;
    String::from_utf8(bytes).map_err(|_| io::Error::new(ErrorKind::InvalidData, "not UTF-8 text"))
}

/// `1 MiB`, `512 KiB`, `100 bytes`.
pub fn human_bytes(n: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * KIB;
    if n >= MIB && n.is_multiple_of(MIB) {
        format!("{} MiB", n / MIB)
    } else if n >= KIB && n.is_multiple_of(KIB) {
        format!("{} KiB", n / KIB)
    } else {
        format!("{n} bytes")
    }
}

/// Replaces `path` with `contents` so that readers see the old file or the
/// new one, never part of one: a temp file in the same directory, written,
/// fsynced, renamed over. On any error (a full disk, a file-size limit) the
/// temp file is removed and the old file is left as it was. A symlink is
/// followed (its target is replaced); an existing file keeps its permissions,
/// a new one gets 0644 (less the umask).
pub fn write_atomic(path: &Path, contents: &[u8]) -> io::Result<()> {
    let existing = fs::metadata(path).ok();
    let target = match existing {
        Some(_) => fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
        None => path.to_path_buf(),
    };
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    let (tmp, mut file) = create_temp(&dir, &name)?;
    let written = (|| {
        if let Some(m) = &existing {
            file.set_permissions(m.permissions())?;
        }
        file.write_all(contents)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, &target)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

/// `.{name}.crit-tmp-{random}` in `dir`, created exclusively.
fn create_temp(dir: &Path, name: &str) -> io::Result<(PathBuf, File)> {
    let mut last = None;
    for attempt in 0u32..16 {
        let salt = std::collections::hash_map::RandomState::new().hash_one((
            std::process::id(),
            attempt,
            name,
        ));
        let tmp = dir.join(format!(".{name}.crit-tmp-{:08x}", salt as u32));
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o644);
        }
        match options.open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| ErrorKind::AlreadyExists.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn reads_are_capped_and_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.json");
        fs::write(&p, vec![b'x'; 100]).unwrap();
        let small = InputLimits { max_bytes: 99 };
        let e = read_capped(&p, small).unwrap_err();
        assert!(matches!(e, ReadError::TooLarge { limit: 99, .. }));
        assert!(
            e.to_string()
                .contains("r.json: larger than the 99 bytes limit"),
            "{e}"
        );
        assert_eq!(
            read_capped(&p, InputLimits { max_bytes: 100 })
                .unwrap()
                .len(),
            100
        );
        assert!(
            read_capped(&dir.path().join("nope"), small)
                .unwrap_err()
                .is_not_found()
        );
        // An endless stream stops at the cap.
        let e = read_capped_from(io::repeat(0), Path::new("<stdin>"), small).unwrap_err();
        assert!(e.to_string().starts_with("<stdin>: larger than"), "{e}");
        assert_eq!(human_bytes(32 * 1024 * 1024), "32 MiB");
        assert_eq!(human_bytes(2048), "2 KiB");
    }

    #[test]
    fn atomic_writes_replace_keep_permissions_and_leave_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("state.yaml");
        write_atomic(&p, b"one\n").unwrap();
        write_atomic(&p, b"two\n").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "two\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&p, fs::Permissions::from_mode(0o600)).unwrap();
            write_atomic(&p, b"three\n").unwrap();
            assert_eq!(
                fs::metadata(&p).unwrap().permissions().mode() & 0o777,
                0o600
            );
        }
        assert_eq!(names(dir.path()), vec!["state.yaml"]);
        // A directory where the file should go: an error, no temp file.
        let sub = dir.path().join("sub");
        fs::create_dir(&sub).unwrap();
        assert!(write_atomic(&sub, b"x").is_err());
        assert_eq!(names(dir.path()), vec!["state.yaml", "sub"]);
        assert!(names(&sub).is_empty());
        // A missing directory: an error.
        assert!(write_atomic(&dir.path().join("no/such/file"), b"x").is_err());
    }
}
