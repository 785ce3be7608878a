//! Where crit's file I/O lives now: [`crit_os`]. Re-exported here so the
//! callers that read inputs through `crit_core::files` keep their paths.
//! Writes beneath a directory crit does not own (a project, a plan's
//! directory, `.claude/`) go through [`crit_os::write::Root`], which never
//! follows a symlink planted there.

use std::io;
use std::path::Path;

pub use crit_os::read::{
    InputLimits, ReadError, human_bytes, read_capped, read_capped_from, read_to_string,
};

/// Replaces the file at `path`, a path the user typed (`--out`, a user-level
/// settings file), atomically; symlinks the user chose are followed (see
/// [`crit_os::write::write_atomic_user_path`]). Not for paths inside a
/// project or any directory crit does not own.
pub fn write_atomic(path: &Path, contents: &[u8]) -> io::Result<()> {
    crit_os::write::write_atomic_user_path(path, contents).map_err(io::Error::from)
}
