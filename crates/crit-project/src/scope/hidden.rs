//! Files git does not show in an uncommitted change: untracked files its
//! ignore rules hide (a `.gitignore` the change added or edited, one that
//! ignores itself, `.git/info/exclude`) and directories that are
//! repositories of their own (a nested repository, a worktree, a gitlink
//! the change adds or moves). The change under review can write every one of
//! those rules, and so can the agent behind it write the user's global
//! excludes file, so a file they hide is judged by the rules crit trusts:
//! the `.gitignore` files of the base revision. A file those do not ignore
//! is listed in [`Change::hidden`]: never reviewed, never passed in silence
//! (the coverage names it, and it holds the gate). Under `.crit/sessions/`
//! only the files a review writes there are crit's own logs.

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
    hidden.extend(gitlinks(top, change));
    let listed = ignored(git, &change.prefix, "", opts)?;
    if !listed.is_empty() {
        let trusted = Trusted::of(git, top, base, opts.max_git_output_bytes)?;
        for path in listed {
            // A directory's files after the directory: it says it all.
            let under_listed = hidden
                .iter()
                .any(|h| h.path.ends_with('/') && path.starts_with(h.path.as_str()));
            if under_listed {
                continue;
            }
            if let Some(dir) = in_sessions(&path) {
                // crit's session logs: only files it wrote there, and only
                // under rules crit wrote or the base holds.
                if crits_gitignore(top, dir) || trusted.ignores(top, &path) {
                    hidden.extend(not_crits(git, top, &change.prefix, dir, &path, opts)?);
                    continue;
                }
            }
            if trusted.ignores(top, &path) {
                continue;
            }
            let what = match path.ends_with('/') {
                true => "a directory",
                false => "a file",
            };
            let reason = match trusted.global_ignores(top, &path) {
                // The user's global excludes sit outside the repository, but
                // the agent under review runs as the user and can write them.
                true => format!(
                    "{what} your global git excludes (core.excludesFile, ~/.config/git/ignore) \
                     hide, which the base revision's rules do not ignore: not reviewed (name it \
                     in your ignore settings to leave it out)"
                ),
                false => format!(
                    "{what} git's ignore rules hide, which the base revision's rules do not \
                     ignore (a .gitignore the change wrote or .git/info/exclude): not reviewed"
                ),
            };
            hidden.push(Hidden { path, reason });
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

/// The untracked files git's ignore rules hide under `under` (from the top,
/// empty for all), from the top; a directory it hides whole ends in `/`.
fn ignored(
    git: &Git,
    prefix: &str,
    under: &str,
    opts: &ScopeOptions,
) -> Result<Vec<String>, ScopeError> {
    let top = super::untracked::to_top(prefix);
    let (spec, whole) = match under.is_empty() {
        true => (top, "--directory"),
        // Each file of the directory, for crit's session logs.
        false => (format!("{top}/{under}"), "--no-empty-directory"),
    };
    let out = git.ok(
        &[
            "ls-files",
            "--others",
            "--ignored",
            "--exclude-standard",
            whole,
            "--full-name",
            "-z",
            "--",
            &spec,
        ],
        opts.max_git_output_bytes,
    )?;
    Ok(out
        .stdout
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect())
}

/// Where the `.crit/` holding `path`'s session logs is (from the top, empty
/// or `/`-terminated), when `path` is under a `.crit/sessions/`.
fn in_sessions(path: &str) -> Option<&str> {
    const SESSIONS: &str = ".crit/sessions/";
    let i = path.find(SESSIONS)?;
    let dir = &path[..i];
    (dir.is_empty() || dir.ends_with('/')).then_some(dir)
}

/// Whether the `.crit/.gitignore` under `dir` (from the top) is crit's text,
/// the rule [`super::OwnFiles`] uses for it.
fn crits_gitignore(top: &Path, dir: &str) -> bool {
    let ignore_file = top.join(dir).join(".crit/.gitignore");
    super::own::read(&ignore_file).is_some_and(|b| b == super::CRIT_GITIGNORE.as_bytes())
}

/// What `path` (a file or a directory under `dir`'s `.crit/sessions/`)
/// holds that is not a session file as a review writes it: a script there
/// is as unreviewed as anywhere else git hides one.
fn not_crits(
    git: &Git,
    top: &Path,
    prefix: &str,
    dir: &str,
    path: &str,
    opts: &ScopeOptions,
) -> Result<Vec<Hidden>, ScopeError> {
    let files = match path.ends_with('/') {
        true => ignored(git, prefix, path, opts)?,
        false => vec![path.to_string()],
    };
    let root = top.join(dir);
    Ok(files
        .into_iter()
        .filter(|f| {
            let rel = f.strip_prefix(dir).unwrap_or(f);
            f.ends_with('/') || !super::session_files::is_crits(&root, rel)
        })
        .map(|path| Hidden {
            path,
            reason: "not a file crit wrote, under crit's session logs (.crit/sessions/), \
                     which git's ignore rules hide: not reviewed"
                .into(),
        })
        .collect())
}

/// The change's gitlinks (`Subproject commit …`) whose repository is in the
/// working tree: the diff shows one line, the commit; none of the code
/// that commit holds reaches a reviewer.
fn gitlinks(top: &Path, change: &Change) -> Vec<Hidden> {
    change
        .files
        .iter()
        .filter(|f| f.status != super::FileStatus::Deleted)
        .filter(|f| {
            let dir = top.join(&f.path);
            std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir())
                && std::fs::symlink_metadata(dir.join(".git")).is_ok()
        })
        .map(|f| Hidden {
            path: format!("{}/", f.path.trim_end_matches('/')),
            reason: "a repository of its own recorded as one commit (a gitlink, `Subproject \
                     commit`): none of its files are in this change, not reviewed"
                .into(),
        })
        .collect()
}

/// The ignore rules the change under review cannot have written: every
/// `.gitignore` of the base revision. (The user's global excludes file is
/// kept only to say why git hides a file: the agent can write it.)
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
        false
    }

    /// Whether the user's global excludes file ignores `path`.
    fn global_ignores(&self, top: &Path, path: &str) -> bool {
        let full = top.join(path.trim_end_matches('/'));
        matches!(
            self.global
                .matched_path_or_any_parents(&full, path.ends_with('/')),
            Match::Ignore(_)
        )
    }
}
