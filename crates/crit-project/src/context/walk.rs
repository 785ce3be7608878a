//! Finding and reading convention files, confined to the project root: nothing
//! above it is read, and a symlink that resolves outside it is skipped.

use std::collections::HashSet;
use std::fs;
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

use super::{OmitCause, Omitted};

/// The memory files of one directory, in the order Claude Code reads them.
const MEMORY_FILES: [&str; 4] = [
    "CLAUDE.md",
    ".claude/CLAUDE.md",
    "CLAUDE.local.md",
    "AGENTS.md",
];
pub(super) const RULES_DIR: &str = ".claude/rules";
/// Convention files are prose for a prompt; anything bigger is not one.
const MAX_FILE_BYTES: u64 = 1 << 20;
/// Deep enough for any real rules tree; bounds a pathological one.
const MAX_DEPTH: usize = 16;

/// What reading one candidate file gave.
#[derive(Debug)]
pub enum Read {
    /// No such file: nothing to say.
    Missing,
    /// Its text and its resolved location (to notice one file under two names).
    Text { real: PathBuf, text: String },
    /// It exists but is left out, for a reason worth telling the user.
    Skipped(Omitted),
}

/// The memory files to look for, root first, then each directory down to `cwd`
/// (`cwd_rel` is cwd relative to the root). Root-relative, `/`-separated.
pub(super) fn memory_paths(cwd_rel: &Path) -> Vec<String> {
    let mut dirs = vec![String::new()];
    for component in cwd_rel.components() {
        if let Component::Normal(name) = component {
            let parent = dirs.last().map(String::as_str).unwrap_or_default();
            dirs.push(join(parent, &name.to_string_lossy()));
        }
    }
    dirs.iter()
        .flat_map(|d| MEMORY_FILES.iter().map(move |f| join(d, f)))
        .collect()
}

/// Every `*.md` under `<root>/.claude/rules`, sorted. Directories that resolve
/// outside the root are skipped (and reported); each real directory is walked once,
/// so symlink cycles end.
pub(super) fn rule_paths(root: &Path, omitted: &mut Vec<Omitted>) -> Vec<String> {
    let mut out = Vec::new();
    let mut visited = HashSet::new();
    walk(root, RULES_DIR, 0, &mut visited, &mut out, omitted);
    out.sort();
    out
}

fn walk(
    root: &Path,
    dir: &str,
    depth: usize,
    visited: &mut HashSet<PathBuf>,
    out: &mut Vec<String>,
    omitted: &mut Vec<Omitted>,
) {
    let Ok(real) = fs::canonicalize(root.join(dir)) else {
        return;
    };
    if !real.starts_with(root) {
        omitted.push(outside_root(dir));
        return;
    }
    if depth > MAX_DEPTH || !visited.insert(real.clone()) {
        return;
    }
    let entries = match fs::read_dir(&real) {
        Ok(entries) => entries,
        Err(e) => {
            omitted.push(Omitted {
                path: dir.to_string(),
                reason: format!("cannot read the directory: {e}"),
                cause: OmitCause::Unreadable,
            });
            return;
        }
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in names {
        let rel = join(dir, &name);
        // Follows symlinks: a broken one is not a file and is passed over.
        let Ok(meta) = fs::metadata(root.join(&rel)) else {
            continue;
        };
        if meta.is_dir() {
            walk(root, &rel, depth + 1, visited, out, omitted);
        } else if meta.is_file() && name.ends_with(".md") {
            out.push(rel);
        }
    }
}

/// Read `rel` under the canonical `root`, if it is a UTF-8 file inside the root.
pub fn read_confined(root: &Path, rel: &str) -> Read {
    let path = root.join(rel);
    match fs::symlink_metadata(&path) {
        Ok(_) => {}
        Err(e) if e.kind() == ErrorKind::NotFound => return Read::Missing,
        Err(e) => return Read::Skipped(unreadable(rel, &e)),
    }
    let real = match fs::canonicalize(&path) {
        Ok(real) => real,
        // A symlink to nothing, or a parent that vanished: nothing to read.
        Err(e) if e.kind() == ErrorKind::NotFound => return Read::Missing,
        Err(e) => return Read::Skipped(unreadable(rel, &e)),
    };
    if !real.starts_with(root) {
        return Read::Skipped(outside_root(rel));
    }
    let meta = match fs::metadata(&real) {
        Ok(meta) => meta,
        Err(e) => return Read::Skipped(unreadable(rel, &e)),
    };
    if !meta.is_file() {
        return Read::Missing;
    }
    if meta.len() > MAX_FILE_BYTES {
        return Read::Skipped(Omitted {
            path: rel.to_string(),
            reason: format!(
                "{} bytes; crit reads convention files up to 1 MiB",
                super::thousands(usize::try_from(meta.len()).unwrap_or(usize::MAX))
            ),
            cause: OmitCause::Unreadable,
        });
    }
    // Capped again while reading: the file may grow after the check above.
    let limits = crit_core::files::InputLimits {
        max_bytes: MAX_FILE_BYTES,
    };
    let bytes = match crit_core::files::read_capped(&real, limits) {
        Ok(bytes) => bytes,
        Err(e) => {
            return Read::Skipped(Omitted {
                path: rel.to_string(),
                reason: e.to_string(),
                cause: OmitCause::Unreadable,
            });
        }
    };
    match String::from_utf8(bytes) {
        Ok(text) => Read::Text { real, text },
        Err(e) => Read::Skipped(Omitted {
            path: rel.to_string(),
            reason: format!(
                "not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
            cause: OmitCause::Unreadable,
        }),
    }
}

fn unreadable(rel: &str, e: &std::io::Error) -> Omitted {
    Omitted {
        path: rel.to_string(),
        reason: format!("cannot read: {e}"),
        cause: OmitCause::Unreadable,
    }
}

fn outside_root(rel: &str) -> Omitted {
    Omitted {
        path: rel.to_string(),
        reason: "a symlink to outside the project root; crit reads only files inside it"
            .to_string(),
        cause: OmitCause::OutsideRoot,
    }
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_paths_go_root_first() {
        assert_eq!(
            memory_paths(Path::new("a/b")),
            [
                "CLAUDE.md",
                ".claude/CLAUDE.md",
                "CLAUDE.local.md",
                "AGENTS.md",
                "a/CLAUDE.md",
                "a/.claude/CLAUDE.md",
                "a/CLAUDE.local.md",
                "a/AGENTS.md",
                "a/b/CLAUDE.md",
                "a/b/.claude/CLAUDE.md",
                "a/b/CLAUDE.local.md",
                "a/b/AGENTS.md",
            ]
        );
        assert_eq!(memory_paths(Path::new("")).len(), 4);
    }
}
