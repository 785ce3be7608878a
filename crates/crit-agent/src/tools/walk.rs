//! The directory walker Glob and Grep share: gitignore-aware, hidden files and `.git`
//! skipped, symlinks never followed, and entries admitted only when they (or, for a
//! symlink, its target) lie inside the allowed roots.

use std::path::Path;

use ignore::{DirEntry, WalkBuilder};

use crate::confine::Roots;

/// A walker over `dir` (already confined). Callers add types or overrides.
pub(super) fn builder(dir: &Path) -> WalkBuilder {
    let mut b = WalkBuilder::new(dir);
    b.hidden(true)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(true)
        .ignore(true)
        .parents(true)
        // Respect .gitignore also in a directory that is not (yet) a git repository.
        .require_git(false)
        .follow_links(false)
        .filter_entry(|e| e.file_name() != ".git");
    b
}

/// Whether a walked entry is a file the tools may report and open.
pub(super) fn admit_file(entry: &DirEntry, roots: &Roots) -> bool {
    if entry.path_is_symlink() {
        // The walker does not follow links, so a link is reported as itself; it is
        // admitted only if its target is an in-root regular file.
        return roots.admits_entry(entry.path()) && entry.path().is_file();
    }
    entry.file_type().is_some_and(|t| t.is_file())
}

/// How a found path is shown to the model: relative to the project root when under
/// it (shorter; Read accepts it), absolute otherwise (an extra root).
pub(super) fn display_path(roots: &Roots, path: &Path) -> String {
    match path.strip_prefix(roots.root()) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => path.display().to_string(),
    }
}
