//! Confinement: the one function every file tool uses to turn a path from the model
//! into a path it may touch. A path is resolved against the project root, `..` is
//! normalized, symlinks are resolved (also when the tail does not exist yet), and the
//! result must lie inside the project root or one of the extra (`--add-dir`) roots.

use std::fmt;
use std::io;
use std::path::{Component, Path, PathBuf};

/// The directories tools may read: the project root first, then extra roots.
/// All are canonical (absolute, symlinks resolved), so `starts_with` is a real test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roots {
    root: PathBuf,
    extra: Vec<PathBuf>,
}

/// Why a path was refused or could not be resolved. `Display` is the message the
/// model reads.
#[derive(Debug, thiserror::Error)]
pub enum ConfineError {
    #[error("cannot use `{path}` as a root: {source}")]
    BadRoot { path: PathBuf, source: io::Error },
    #[error("path is empty; give a file or directory inside the project")]
    Empty,
    #[error(
        "path `{given}` resolves to `{resolved}`, which is outside the project root `{root}`; \
         allowed roots: {allowed}. Use a path inside one of them"
    )]
    Outside {
        given: String,
        resolved: PathBuf,
        root: PathBuf,
        allowed: String,
    },
    #[error(
        "path `{given}` goes through `{at}`, which exists but cannot be resolved \
         (a broken symlink or no permission)"
    )]
    Unresolvable { given: String, at: PathBuf },
}

impl Roots {
    /// Canonicalizes the project root and extra roots; they must exist.
    pub fn new(root: impl AsRef<Path>, extra: &[PathBuf]) -> Result<Self, ConfineError> {
        let canon = |p: &Path| {
            p.canonicalize().map_err(|source| ConfineError::BadRoot {
                path: p.to_path_buf(),
                source,
            })
        };
        let root = canon(root.as_ref())?;
        let extra = extra
            .iter()
            .map(|p| canon(p))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { root, extra })
    }

    /// The project root (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The extra roots (canonical).
    pub fn extra(&self) -> &[PathBuf] {
        &self.extra
    }

    /// Every allowed root, project root first.
    pub fn all(&self) -> impl Iterator<Item = &Path> {
        std::iter::once(self.root.as_path()).chain(self.extra.iter().map(PathBuf::as_path))
    }

    /// Whether a canonical path lies inside an allowed root.
    pub fn contains(&self, canonical: &Path) -> bool {
        self.all().any(|r| canonical.starts_with(r))
    }

    /// Resolves `given` (absolute, or relative to the project root) and checks that
    /// it stays inside the roots. Returns the canonical path tools must then use.
    pub fn resolve(&self, given: &str) -> Result<PathBuf, ConfineError> {
        if given.trim().is_empty() {
            return Err(ConfineError::Empty);
        }
        let joined = self.root.join(given);
        let resolved = canonicalize_lenient(&normalize(&joined), given)?;
        if self.contains(&resolved) {
            Ok(resolved)
        } else {
            Err(ConfineError::Outside {
                given: given.to_string(),
                resolved,
                root: self.root.clone(),
                allowed: self.allowed_list(),
            })
        }
    }

    /// Whether a path found by a walker is safe to report or open: a symlink is
    /// followed to its target, which must be inside the roots.
    pub fn admits_entry(&self, path: &Path) -> bool {
        match path.canonicalize() {
            Ok(c) => self.contains(&c),
            Err(_) => false,
        }
    }

    fn allowed_list(&self) -> String {
        self.all()
            .map(|p| format!("`{}`", p.display()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Display for Roots {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.allowed_list())
    }
}

/// Lexical normalization of an absolute path: drops `.`, applies `..` (never above
/// `/`). Done before symlink resolution, as Claude Code's `path.resolve` does.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::Prefix(p) => out.push(p.as_os_str()),
            Component::RootDir => out.push(Component::RootDir.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
        }
    }
    out
}

/// Canonicalizes the longest existing prefix and appends the rest. A component that
/// exists but cannot be canonicalized (a dangling symlink) is refused: opening it
/// later could follow the link anywhere.
fn canonicalize_lenient(path: &Path, given: &str) -> Result<PathBuf, ConfineError> {
    let mut existing = path.to_path_buf();
    let mut tail: Vec<std::ffi::OsString> = Vec::new();
    loop {
        match existing.canonicalize() {
            Ok(mut c) => {
                for part in tail.iter().rev() {
                    c.push(part);
                }
                return Ok(c);
            }
            Err(_) => {
                if existing.symlink_metadata().is_ok() {
                    return Err(ConfineError::Unresolvable {
                        given: given.to_string(),
                        at: existing,
                    });
                }
                match (
                    existing.file_name().map(|n| n.to_os_string()),
                    existing.parent(),
                ) {
                    (Some(name), Some(parent)) => {
                        tail.push(name);
                        existing = parent.to_path_buf();
                    }
                    // Nothing of the path exists, not even `/`: keep it lexical.
                    _ => return Ok(path.to_path_buf()),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_applies_parent_dirs_lexically() {
        assert_eq!(
            normalize(Path::new("/a/b/../c/./d")),
            PathBuf::from("/a/c/d")
        );
        assert_eq!(normalize(Path::new("/../../x")), PathBuf::from("/x"));
    }
}
