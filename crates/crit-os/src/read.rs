//! Reading an input crit is handed, with a size cap (a result, a plan, a
//! hook's stdin — `/dev/zero` included). Reads beneath a directory crit does
//! not own, which must not follow symlinks, go through
//! [`crate::write::Root::read`].

use std::fs::File;
use std::io::{self, ErrorKind, Read};
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_capped_and_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.json");
        std::fs::write(&p, vec![b'x'; 100]).unwrap();
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
}
