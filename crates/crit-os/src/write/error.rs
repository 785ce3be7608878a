//! Why a confined operation was refused or failed. Every message names the
//! path the user would look at: the root joined with the relative path.

use std::io;
use std::path::PathBuf;

use crate::read::human_bytes;

/// What was being done, for messages ("refusing to write …").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Read,
    Write,
    Append,
    CreateDir,
    Remove,
    Lock,
    Open,
}

impl std::fmt::Display for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Append => "append to",
            Op::CreateDir => "create",
            Op::Remove => "remove",
            Op::Lock => "lock",
            Op::Open => "open",
        })
    }
}

/// A confined file operation that did not happen.
#[derive(Debug, thiserror::Error)]
pub enum FsError {
    /// A component under the root (or the final name) is a symbolic link.
    #[error(
        "refusing to {op} {}: {} is a symbolic link (crit does not follow symlinks inside a project)",
        path.display(),
        link.display()
    )]
    Symlink {
        op: Op,
        path: PathBuf,
        link: PathBuf,
    },
    /// The relative path is absolute, empty or climbs out with `..`.
    #[error(
        "refusing to {op} {}: the path must stay beneath {} (no `..`, not absolute)",
        path.display(),
        root.display()
    )]
    Escapes {
        op: Op,
        path: PathBuf,
        root: PathBuf,
    },
    /// A component that must be a directory is not one.
    #[error("cannot {op} {}: {} is not a directory", path.display(), at.display())]
    NotADirectory { op: Op, path: PathBuf, at: PathBuf },
    /// The final name is not a regular file (a FIFO, a device, a directory).
    #[error("refusing to {op} {}: not a regular file", path.display())]
    NotAFile { op: Op, path: PathBuf },
    #[error(
        "{}: larger than the {} limit for an input; crit reads at most that much of any file",
        path.display(),
        human_bytes(*limit)
    )]
    TooLarge { path: PathBuf, limit: u64 },
    #[error("cannot {op} {}: {source}", path.display())]
    Io {
        op: Op,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

impl FsError {
    /// The file (or a directory on the way to it) does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, FsError::Io { source, .. } if source.kind() == io::ErrorKind::NotFound)
    }

    /// The path the operation was about.
    pub fn path(&self) -> &std::path::Path {
        match self {
            FsError::Symlink { path, .. }
            | FsError::Escapes { path, .. }
            | FsError::NotADirectory { path, .. }
            | FsError::NotAFile { path, .. }
            | FsError::TooLarge { path, .. }
            | FsError::Io { path, .. } => path,
        }
    }
}

impl From<FsError> for io::Error {
    /// For callers whose own errors wrap `io::Error`: the kind says what
    /// happened, the message names the path.
    fn from(e: FsError) -> Self {
        let kind = match &e {
            FsError::Io { source, .. } => source.kind(),
            FsError::Symlink { .. } | FsError::Escapes { .. } => io::ErrorKind::PermissionDenied,
            FsError::NotADirectory { .. } => io::ErrorKind::NotADirectory,
            FsError::NotAFile { .. } | FsError::TooLarge { .. } => io::ErrorKind::InvalidData,
        };
        io::Error::new(kind, e)
    }
}
