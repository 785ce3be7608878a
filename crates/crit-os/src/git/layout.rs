//! Where the project's git repository is, found without running git, so that
//! every git crit starts can be given `--git-dir` and `--work-tree` explicitly
//! and no repository setting (`core.worktree`, a `.git` file or symlink that
//! points at another repository, `GIT_DIR` in crit's own environment) decides
//! what git reads.
//!
//! The search walks up from the project root, as git does, to the first `.git`:
//! - a directory that looks like a git directory (`HEAD` and `objects` or
//!   `commondir`): that is the repository, its parent the work tree;
//! - a `.git` file (`gitdir: PATH`) or a symlink: the git directory it names is
//!   accepted only where such a pointer legitimately leads: inside the project
//!   root; inside the `.git` directory of an enclosing repository (a
//!   submodule's `.git/modules/NAME`); or a linked worktree's admin directory
//!   whose `gitdir` file points back at this `.git`. Anything else (a `.git`
//!   planted to read another repository on the machine) is refused.
//!
//! A linked worktree's `commondir` must be the directory its admin directory
//! lives in (`COMMON/worktrees/NAME`), for the same reason.
//!
//! When the `.git` is found above the project root, the project is a directory
//! inside a larger repository (a monorepo package, or a `$HOME` kept in git);
//! [`GitLayout::prefix`] says where, and the Bash tool limits git to it.

use std::fmt;
use std::path::{Component, Path, PathBuf};

use super::is_object_id;

/// A repository as crit will present it to git.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitLayout {
    /// The directory holding `.git` (canonical).
    pub work_tree: PathBuf,
    /// The repository's own git directory (canonical).
    pub git_dir: PathBuf,
    /// Where objects and refs live: the main repository's git directory for a
    /// linked worktree, else `git_dir` (canonical).
    pub common_dir: PathBuf,
    /// The project root relative to `work_tree`; empty when they are the same.
    pub prefix: PathBuf,
}

impl GitLayout {
    /// Whether the repository's work tree is larger than the project.
    pub fn encloses_project(&self) -> bool {
        !self.prefix.as_os_str().is_empty()
    }

    /// `--git-dir=…` and `--work-tree=…`, to put before the subcommand.
    pub fn args(&self) -> [String; 2] {
        [
            format!("--git-dir={}", self.git_dir.display()),
            format!("--work-tree={}", self.work_tree.display()),
        ]
    }

    /// The directory git reads: the common directory, which holds the
    /// repository's own git directory too.
    pub fn readable_dir(&self) -> &Path {
        &self.common_dir
    }

    /// The commit HEAD names, read from the git directory's files without
    /// running git (for a hook that runs on every prompt): `HEAD`, then the
    /// branch it points at as a loose ref or in `packed-refs`. `None` when
    /// it cannot be told this way (an unborn branch, the reftable format,
    /// anything unexpected).
    pub fn head_commit(&self) -> Option<String> {
        let mut text = small_file(&self.git_dir.join("HEAD"))?;
        // A symbolic ref may name another; a few steps at most.
        for _ in 0..5 {
            let line = text.lines().next()?.trim();
            let Some(name) = line.strip_prefix("ref:").map(str::trim) else {
                return is_object_id(line).then(|| line.to_string());
            };
            let safe = name.starts_with("refs/")
                && name
                    .split('/')
                    .all(|c| !c.is_empty() && c != "." && c != "..");
            if !safe {
                return None;
            }
            text = match small_file(&self.common_dir.join(name)) {
                Some(t) => t,
                None => {
                    let packed = small_file(&self.common_dir.join("packed-refs"))?;
                    return packed.lines().find_map(|l| {
                        let (sha, r) = l.split_once(' ')?;
                        (r == name && is_object_id(sha)).then(|| sha.to_string())
                    });
                }
            };
        }
        None
    }
}

/// A regular file's text, up to 1 MiB; `None` for anything else.
fn small_file(path: &Path) -> Option<String> {
    use std::io::Read;
    let meta = path.symlink_metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut text = String::new();
    std::fs::File::open(path)
        .ok()?
        .take(1 << 20)
        .read_to_string(&mut text)
        .ok()?;
    Some(text)
}

/// Why there is no repository git may be pointed at.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GitLayoutError {
    #[error(
        "`{}` is not inside a git repository (no `.git` in it or any parent directory)",
        root.display()
    )]
    NotARepository { root: PathBuf },
    #[error("cannot read `{}`: {reason}", path.display())]
    Unreadable { path: PathBuf, reason: String },
    #[error(
        "refused: `{}` points git at `{}`, which is neither inside the project, a \
         submodule directory of an enclosing repository, nor a worktree of a repository \
         that points back here; git will not run on another repository",
        dotgit.display(), target.display()
    )]
    Elsewhere { dotgit: PathBuf, target: PathBuf },
}

/// Finds the repository that contains `root` (see the module docs).
pub fn discover(root: &Path) -> Result<GitLayout, GitLayoutError> {
    let root = canonical(root)?;
    for dir in root.ancestors() {
        let dotgit = dir.join(".git");
        let Ok(meta) = dotgit.symlink_metadata() else {
            continue;
        };
        let git_dir = if meta.is_dir() {
            if !looks_like_git_dir(&dotgit) {
                continue;
            }
            dotgit.clone()
        } else {
            let target = if meta.file_type().is_symlink() {
                canonical(&dotgit)?
            } else {
                canonical(&read_gitfile(&dotgit, dir)?)?
            };
            if !looks_like_git_dir(&target) {
                return Err(GitLayoutError::Unreadable {
                    path: dotgit,
                    reason: format!("`{}` is not a git directory", target.display()),
                });
            }
            if !pointer_allowed(&root, dir, &dotgit, &target) {
                return Err(GitLayoutError::Elsewhere { dotgit, target });
            }
            target
        };
        let common_dir = common_dir(&git_dir)?;
        let prefix = root
            .strip_prefix(dir)
            .unwrap_or(Path::new(""))
            .to_path_buf();
        return Ok(GitLayout {
            work_tree: dir.to_path_buf(),
            git_dir,
            common_dir,
            prefix,
        });
    }
    Err(GitLayoutError::NotARepository { root })
}

fn canonical(p: &Path) -> Result<PathBuf, GitLayoutError> {
    p.canonicalize().map_err(|e| GitLayoutError::Unreadable {
        path: p.to_path_buf(),
        reason: e.to_string(),
    })
}

/// Looser than git's own test on purpose: a directory git would reject is
/// then handed to git explicitly and git says why, rather than crit walking
/// on to a repository further up.
fn looks_like_git_dir(d: &Path) -> bool {
    d.join("HEAD").symlink_metadata().is_ok()
        && (d.join("objects").is_dir() || d.join("commondir").is_file())
}

/// `gitdir: PATH` (relative to the directory holding the file).
fn read_gitfile(file: &Path, dir: &Path) -> Result<PathBuf, GitLayoutError> {
    let text = std::fs::read_to_string(file).map_err(|e| GitLayoutError::Unreadable {
        path: file.to_path_buf(),
        reason: e.to_string(),
    })?;
    let target = text
        .strip_prefix("gitdir:")
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| GitLayoutError::Unreadable {
            path: file.to_path_buf(),
            reason: "not a `gitdir: PATH` file".into(),
        })?;
    Ok(dir.join(target))
}

/// A `.git` file or symlink at `dir` may lead into the project root, into an
/// enclosing repository's `.git` directory (submodules), or to a worktree admin
/// directory that names this `.git` as its own.
fn pointer_allowed(root: &Path, dir: &Path, dotgit: &Path, target: &Path) -> bool {
    if target.starts_with(root) {
        return true;
    }
    let in_superproject = dir.ancestors().skip(1).any(|a| {
        let g = a.join(".git");
        g.symlink_metadata().is_ok_and(|m| m.is_dir()) && target.starts_with(&g)
    });
    if in_superproject {
        return true;
    }
    std::fs::read_to_string(target.join("gitdir"))
        .ok()
        .map(|back| PathBuf::from(back.trim()))
        .and_then(|back| back.canonicalize().ok())
        .is_some_and(|back| dotgit.canonicalize().is_ok_and(|me| me == back))
}

/// `commondir` (relative to the git directory), which must contain it.
fn common_dir(git_dir: &Path) -> Result<PathBuf, GitLayoutError> {
    let file = git_dir.join("commondir");
    let Ok(text) = std::fs::read_to_string(&file) else {
        return Ok(git_dir.to_path_buf());
    };
    let common = canonical(&git_dir.join(text.trim()))?;
    if git_dir.starts_with(&common) && git_dir != common {
        Ok(common)
    } else {
        Err(GitLayoutError::Elsewhere {
            dotgit: file,
            target: common,
        })
    }
}

/// A path inside a tree, from the repository top, with `.` and `..` applied;
/// `None` when `..` would climb above the top. `relative_to` is where a path
/// starting with `./` or `../` (or exactly `.` or `..`) starts, as git reads
/// `REV:./path`.
pub fn tree_path(path: &str, relative_to: &Path) -> Option<PathBuf> {
    let relative = path == "." || path == ".." || path.starts_with("./") || path.starts_with("../");
    let mut out: Vec<String> = Vec::new();
    if relative {
        for c in relative_to.components() {
            if let Component::Normal(n) = c {
                out.push(n.to_string_lossy().into_owned());
            }
        }
    }
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            p => out.push(p.to_string()),
        }
    }
    Some(out.iter().collect())
}

impl fmt::Display for GitLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "work tree `{}`, git directory `{}`",
            self.work_tree.display(),
            self.git_dir.display()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_paths_apply_dots_and_stay_below_the_top() {
        let p = Path::new("proj/sub");
        assert_eq!(tree_path("a.txt", p), Some(PathBuf::from("a.txt")));
        assert_eq!(
            tree_path("./a.txt", p),
            Some(PathBuf::from("proj/sub/a.txt"))
        );
        assert_eq!(tree_path("../x", p), Some(PathBuf::from("proj/x")));
        assert_eq!(tree_path("..", p), Some(PathBuf::from("proj")));
        assert_eq!(tree_path("./../../../x", p), None);
        assert_eq!(tree_path("proj/../../x", p), None);
        assert_eq!(tree_path("", p), Some(PathBuf::new()));
        assert_eq!(tree_path("/proj//a", p), Some(PathBuf::from("proj/a")));
    }
}
