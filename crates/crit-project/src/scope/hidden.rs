//! Files git does not show in an uncommitted change: untracked files its
//! ignore rules hide (a `.gitignore` the change added or edited, one that
//! ignores itself, `.git/info/exclude`) and directories that are
//! repositories of their own (a nested repository, a worktree). The change
//! under review can write every one of those rules, so a file they hide is
//! judged by the rules crit trusts: the `.gitignore` files of the base
//! revision and the user's own global excludes file. A file those do not
//! ignore is listed in [`Change::hidden`]: never reviewed, never passed in
//! silence (the coverage names it, and it holds the gate).

use std::path::Path;

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::git::Git;
use super::{Change, Hidden, ScopeError, ScopeOptions};

/// `.gitignore` files read from the base revision, at most.
const MAX_RULE_FILES: usize = 200;
/// Bytes kept of one `.gitignore` read from the base revision.
const RULES_CAP: usize = 1024 * 1024;

/// Lists what git hides in the working tree of the repository at `top`
/// (the part under the project root, `prefix`), against the rules of
/// `base` (a commit, or the empty tree), into `change.hidden`. `nested`:
/// the untracked listing's directories (`dir/`), each a repository of its own.
pub(super) fn add(
    git: &Git,
    top: &Path,
    base: &str,
    change: &mut Change,
    opts: &ScopeOptions,
    nested: &[String],
) -> Result<(), ScopeError> {
    let mut hidden: Vec<Hidden> = nested
        .iter()
        .map(|dir| Hidden {
            path: dir.clone(),
            reason: "a repository of its own (a nested repository or a worktree): git shows \
                     none of its files in this change"
                .into(),
        })
        .collect();
    let out = git.ok(
        &[
            "ls-files",
            "--others",
            "--ignored",
            "--exclude-standard",
            "--directory",
            "--full-name",
            "-z",
            "--",
            &super::untracked::to_top(&change.prefix),
        ],
        opts.max_git_output_bytes,
    )?;
    let listed: Vec<String> = out
        .stdout
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .filter(|p| !crits_own(top, p))
        .collect();
    if !listed.is_empty() {
        let trusted = Trusted::of(git, top, base, opts.max_git_output_bytes)?;
        for path in listed {
            // A directory's files after the directory: it says it all.
            let under_listed = hidden
                .iter()
                .any(|h| h.path.ends_with('/') && path.starts_with(h.path.as_str()));
            if under_listed || trusted.ignores(top, &path) {
                continue;
            }
            let what = match path.ends_with('/') {
                true => "a directory",
                false => "a file",
            };
            hidden.push(Hidden {
                path,
                reason: format!(
                    "{what} git's ignore rules hide, which the base revision's rules do not \
                     ignore (a .gitignore the change wrote or .git/info/exclude): not reviewed"
                ),
            });
        }
    }
    for h in hidden {
        // Paths from the top; the coverage names them from the project root.
        if let Some(rel) = h.path.strip_prefix(change.prefix.as_str()) {
            let path = rel.to_string();
            change.hidden.push(Hidden { path, ..h });
        }
    }
    Ok(())
}

/// crit's own session logs, which its own `.crit/.gitignore` keeps out of
/// git: not the change's.
fn crits_own(top: &Path, path: &str) -> bool {
    let Some(dir) = path.strip_suffix(".crit/sessions/") else {
        return false;
    };
    let ignore_file = top.join(dir).join(".crit/.gitignore");
    std::fs::read(ignore_file).is_ok_and(|b| b == super::CRIT_GITIGNORE.as_bytes())
}

/// The ignore rules the change under review cannot have written: every
/// `.gitignore` of the base revision, and the user's global excludes file.
struct Trusted {
    /// Each base `.gitignore`'s directory (from the top, `/`-terminated or
    /// empty) and its rules, deepest first.
    files: Vec<(String, Gitignore)>,
    global: Gitignore,
}

impl Trusted {
    /// (A listing over `cap` bytes keeps the rules it got: fewer trusted
    /// rules list more files, the safe side.)
    fn of(git: &Git, top: &Path, base: &str, cap: usize) -> Result<Trusted, ScopeError> {
        let mut files = Vec::new();
        let out = git.ok(&["ls-tree", "-r", "-z", "--full-tree", base], cap)?;
        let text = out.text();
        let entries = text.split('\0').filter_map(|e| {
            let (meta, path) = e.split_once('\t')?;
            let mut m = meta.split_whitespace();
            let (mode, object) = (m.next()?, m.nth(1)?);
            let name = path.rsplit('/').next().unwrap_or(path);
            (mode.starts_with("100") && name == ".gitignore").then_some((path, object))
        });
        for (path, object) in entries.take(MAX_RULE_FILES) {
            let blob = git.ok(&["cat-file", "blob", object], RULES_CAP)?;
            let dir = path.strip_suffix(".gitignore").unwrap_or_default();
            let mut b = GitignoreBuilder::new(top.join(dir));
            for line in blob.text().lines() {
                // A line the matcher cannot read ignores nothing: the file
                // is then listed, the safe side.
                let _ = b.add_line(None, line);
            }
            if let Ok(g) = b.build() {
                files.push((dir.to_string(), g));
            }
        }
        files.sort_by_key(|(dir, _)| std::cmp::Reverse(dir.len()));
        let (global, _) = GitignoreBuilder::new(top).build_global();
        Ok(Trusted { files, global })
    }

    /// Whether the trusted rules ignore `path` (from the top; a directory
    /// ends in `/`): the deepest `.gitignore` with a say decides, as in git.
    fn ignores(&self, top: &Path, path: &str) -> bool {
        let is_dir = path.ends_with('/');
        let full = top.join(path.trim_end_matches('/'));
        for (dir, rules) in &self.files {
            if !path.starts_with(dir.as_str()) {
                continue;
            }
            match rules.matched_path_or_any_parents(&full, is_dir) {
                Match::Ignore(_) => return true,
                Match::Whitelist(_) => return false,
                Match::None => {}
            }
        }
        matches!(
            self.global.matched_path_or_any_parents(&full, is_dir),
            Match::Ignore(_)
        )
    }
}
