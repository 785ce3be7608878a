//! `--files GLOB`: the tracked files matching, or, outside a git repository,
//! the files a walk finds (honouring `.gitignore` and skipping hidden ones).

use std::path::Path;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use super::git::Git;
use super::{Change, ChangedFile, FileStatus, Kind, ScopeError, ScopeOptions};

/// Which paths `--files` picked: globs where `*` stays in one directory and
/// `**` crosses them; a plain path (or one ending in `/`) also takes
/// everything under it.
#[derive(Debug, Clone)]
pub(super) struct Selector {
    set: GlobSet,
    dirs: Vec<String>,
}

impl Selector {
    pub(super) fn new(globs: &[String]) -> Result<Selector, ScopeError> {
        let mut set = GlobSetBuilder::new();
        let mut dirs = Vec::new();
        for g in globs {
            let norm = normalize(g);
            let glob = GlobBuilder::new(norm.trim_end_matches('/'))
                .literal_separator(true)
                .build()
                .map_err(|e| ScopeError::BadGlob {
                    glob: g.clone(),
                    reason: e.kind().to_string(),
                })?;
            set.add(glob);
            if !norm.contains(['*', '?', '[', '{']) {
                dirs.push(format!("{}/", norm.trim_end_matches('/')));
            }
        }
        let set = set.build().map_err(|e| ScopeError::BadGlob {
            glob: globs.join(", "),
            reason: e.to_string(),
        })?;
        Ok(Selector { set, dirs })
    }

    pub(super) fn matches(&self, path: &str) -> bool {
        let path = normalize(path);
        self.set.is_match(path) || self.dirs.iter().any(|d| path.starts_with(d.as_str()))
    }
}

/// `./a/b` and `a//b` name `a/b`.
pub(super) fn normalize(path: &str) -> &str {
    let mut p = path;
    while let Some(rest) = p.strip_prefix("./") {
        p = rest.trim_start_matches('/');
    }
    p
}

pub(super) fn select(
    root: &Path,
    globs: &[String],
    opts: &ScopeOptions,
) -> Result<Change, ScopeError> {
    let selector = Selector::new(globs)?;
    let (candidates, source) = match tracked(root, opts) {
        Some(list) => (list, "tracked "),
        None => (walk(root), ""),
    };
    let mut paths: Vec<String> = candidates
        .into_iter()
        .filter(|p| selector.matches(p))
        // A tracked file deleted from the work tree has nothing to read.
        .filter(|p| root.join(p).symlink_metadata().is_ok())
        .collect();
    paths.sort();
    paths.dedup();
    let quoted: Vec<String> = globs.iter().map(|g| format!("`{g}`")).collect();
    if paths.is_empty() {
        return Err(ScopeError::NoFilesMatch {
            globs: quoted.join(", "),
        });
    }
    let n = paths.len();
    let noun = if n == 1 { "file" } else { "files" };
    Ok(Change {
        description: format!("{n} {source}{noun} matching {}", quoted.join(", ")),
        base: None,
        files: paths
            .into_iter()
            .map(|path| ChangedFile {
                path,
                old_path: None,
                status: FileStatus::Selected,
                additions: 0,
                deletions: 0,
                binary: false,
                hunks: Vec::new(),
            })
            .collect(),
        patch: String::new(),
        truncated: false,
        notes: Vec::new(),
        shard: None,
        commits: Vec::new(),
        part: None,
        screened: Vec::new(),
        ignored: Vec::new(),
        hidden: Vec::new(),
        kind: Kind::Files(selector),
        prefix: String::new(),
    })
}

/// Tracked files under `root`, relative to it; `None` when git cannot say
/// (no git, not a repository).
fn tracked(root: &Path, opts: &ScopeOptions) -> Option<Vec<String>> {
    let git = Git::new(root, opts.timeout, &opts.env);
    match git.run(&["ls-files", "--cached", "-z"], opts.max_git_output_bytes) {
        Ok(out) if out.success() && !out.overflowed => Some(
            out.stdout
                .split(|b| *b == 0)
                .filter(|p| !p.is_empty())
                .map(|p| String::from_utf8_lossy(p).into_owned())
                .collect(),
        ),
        Ok(out) => {
            tracing::debug!(stderr = %out.stderr.trim(), "git ls-files failed; walking the directory");
            None
        }
        Err(e) => {
            tracing::debug!(error = %e, "git unavailable; walking the directory");
            None
        }
    }
}

fn walk(root: &Path) -> Vec<String> {
    ignore::WalkBuilder::new(root)
        .require_git(false)
        .build()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_some_and(|t| t.is_file() || t.is_symlink()))
        .filter_map(|e| {
            let rel = e.path().strip_prefix(root).ok()?;
            let parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            Some(parts.join("/"))
        })
        .collect()
}
