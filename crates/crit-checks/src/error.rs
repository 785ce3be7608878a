//! Errors of the plan checker. Each one is a line a person can act on.

use std::path::PathBuf;

/// Why a plan review could not run to a verdict.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// `plan.md` is missing (expert-review's wording: `plan.md not found at {path}`).
    #[error("plan.md not found at {}", .0.display())]
    PlanNotFound(PathBuf),
    /// `plan.md` is empty (expert-review's wording).
    #[error("empty plan")]
    EmptyPlan,
    /// No check came from any source (expert-review's wording).
    #[error(
        "No checks found (no checks.yaml, no CLAUDE.md Anti-Patterns Table, no context.yaml checks)"
    )]
    NoChecks,
    /// A YAML file the user wrote does not parse or has the wrong shape.
    #[error("{}:{line}:{column}: {message}", .path.display())]
    Malformed {
        path: PathBuf,
        line: u64,
        column: u64,
        message: String,
    },
    /// A check is present but unusable (bad regex, empty pattern, `replace` without `with`).
    #[error("{}: check `{id}`: {message}", .path.display())]
    InvalidCheck {
        path: PathBuf,
        id: String,
        message: String,
    },
    /// Another run holds the session lock.
    #[error("another `crit plan` run is reviewing {} (lock {} is held)", .dir.display(), .lock.display())]
    Locked { dir: PathBuf, lock: PathBuf },
    /// A file could not be read or written.
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// `session://` with no home directory to resolve it against.
    #[error("cannot resolve {0}: HOME is not set")]
    NoHome(String),
    /// An input file is larger than crit reads.
    #[error(transparent)]
    TooLarge(crit_core::files::ReadError),
    /// A file of the plan's directory was refused (a symlink there) or failed.
    #[error(transparent)]
    Fs(#[from] crit_os::write::FsError),
    /// The sealing key could not be read or created.
    #[error(transparent)]
    Seal(#[from] crit_os::seal::SealError),
    /// state.yaml does not carry the seal crit wrote it with.
    #[error(
        "{}: changed outside `crit plan` (it does not match the seal crit wrote it with), so its approvals and counts cannot be trusted; delete it to start this review over",
        .path.display()
    )]
    StateEdited { path: PathBuf },
    /// Nowhere to keep the key that seals approvals.
    #[error(
        "cannot tell where to keep crit's sealing key for plan approvals: set XDG_STATE_HOME or HOME"
    )]
    NoStateDir,
}

impl CheckError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        CheckError::Io {
            path: path.into(),
            source,
        }
    }

    /// True when the input or configuration is at fault (exit code 2 in the
    /// CLI: a wrong path, an empty plan, no or malformed checks), as opposed to
    /// a review that could not run (a held lock, an I/O failure).
    pub fn is_config_error(&self) -> bool {
        // A refused file of the plan's directory (a symlink, a FIFO) is the
        // input's fault; an I/O failure beneath it is not.
        !matches!(
            self,
            CheckError::Locked { .. }
                | CheckError::Io { .. }
                | CheckError::NoStateDir
                | CheckError::Fs(crit_os::write::FsError::Io { .. })
                | CheckError::Seal(_)
        )
    }

    /// Another run may finish and free the lock; everything else needs a change first.
    pub fn is_retryable(&self) -> bool {
        matches!(self, CheckError::Locked { .. })
    }
}
