//! Reading a project at a commit rather than in its working tree: the files
//! that set a project's rules (`git cat-file`, `git ls-tree`), and the base a
//! CI job's change is reviewed against. Through the same hardened git runner
//! as the diff.

use std::path::Path;
use std::time::Duration;

use super::ScopeError;
use super::git::Git;
use super::spec::check_rev;

/// Bytes kept of a small git answer (a sha, a listing).
const SMALL: usize = 64 * 1024;
/// The largest rules file read from a commit.
const FILE_CAP: usize = 4 * 1024 * 1024;
const TIMEOUT: Duration = Duration::from_secs(30);

/// A commit of the repository at `root`.
#[derive(Debug, Clone)]
pub struct Revision {
    git: Git,
    /// The full object name.
    pub sha: String,
}

impl Revision {
    /// The commit `rev` names; `Ok(None)` when the repository has no such
    /// commit (an unknown branch, or one a shallow clone left out).
    pub fn resolve(
        root: &Path,
        rev: &str,
        env: &crit_os::Env,
    ) -> Result<Option<Revision>, ScopeError> {
        check_rev(rev, "--rules-from")?;
        let git = Git::new(root, TIMEOUT, env);
        let spec = format!("{rev}^{{commit}}");
        let out = git.run(
            &["rev-parse", "--verify", "-q", "--end-of-options", &spec],
            SMALL,
        )?;
        if !git.in_repository() {
            return Err(ScopeError::NotARepository {
                root: root.to_path_buf(),
                scope: format!("the rules at `{rev}`"),
            });
        }
        Ok(out.success().then(|| Revision {
            git,
            sha: out.text().trim().to_string(),
        }))
    }

    /// The empty tree of the repository at `root`: a "commit" holding no
    /// file, for a repository with no commit yet.
    pub fn empty(root: &Path, env: &crit_os::Env) -> Result<Revision, ScopeError> {
        let git = Git::new(root, TIMEOUT, env);
        let sha = git.empty_tree()?;
        Ok(Revision { git, sha })
    }

    /// The first seven hex digits, for people.
    pub fn short(&self) -> &str {
        super::spec::short(&self.sha)
    }

    /// A regular file's text at this commit, by its path from the project
    /// root; `None` when there is no such file (or it is a link or a
    /// directory: only what a commit holds as a file counts).
    pub fn read(&self, rel: &str) -> Result<Option<String>, ScopeError> {
        let Some((mode, _)) = self.entry(rel)? else {
            return Ok(None);
        };
        if !mode.starts_with("100") {
            return Ok(None);
        }
        let spec = format!("{}:./{rel}", self.sha);
        let out = self.git.ok(&["cat-file", "blob", &spec], FILE_CAP)?;
        if out.overflowed {
            return Err(ScopeError::GitOutput {
                command: format!("git cat-file blob {spec}"),
                reason: format!("the file is larger than {FILE_CAP} bytes"),
            });
        }
        Ok(Some(out.text()))
    }

    /// The regular files anywhere under directory `rel` at this commit, as
    /// paths from the root, sorted; empty when there is no such directory.
    pub fn files_under(&self, rel: &str) -> Result<Vec<String>, ScopeError> {
        let dir = format!("./{}/", rel.trim_end_matches('/'));
        let out = self
            .git
            .run(&["ls-tree", "-r", "-z", &self.sha, "--", &dir], SMALL)?;
        if !out.success() {
            return Ok(Vec::new());
        }
        let mut paths: Vec<String> = out
            .text()
            .split('\0')
            .filter_map(|e| {
                let (meta, path) = e.split_once('\t')?;
                meta.starts_with("100").then(|| path.to_string())
            })
            .collect();
        paths.sort();
        Ok(paths)
    }

    /// The names of the regular files directly in directory `rel` at this
    /// commit, sorted; empty when there is no such directory.
    pub fn list(&self, rel: &str) -> Result<Vec<String>, ScopeError> {
        let dir = format!("./{}/", rel.trim_end_matches('/'));
        let out = self
            .git
            .run(&["ls-tree", "-z", &self.sha, "--", &dir], SMALL)?;
        if !out.success() {
            return Ok(Vec::new());
        }
        let mut names: Vec<String> = out
            .text()
            .split('\0')
            .filter_map(|e| {
                let (meta, path) = e.split_once('\t')?;
                meta.starts_with("100")
                    .then(|| path.rsplit('/').next().unwrap_or(path).to_string())
            })
            .collect();
        names.sort();
        Ok(names)
    }

    /// `(mode, object)` of the tree entry at `rel`, or `None`.
    fn entry(&self, rel: &str) -> Result<Option<(String, String)>, ScopeError> {
        let path = format!("./{rel}");
        let out = self
            .git
            .run(&["ls-tree", "-z", &self.sha, "--", &path], SMALL)?;
        if !out.success() {
            return Ok(None);
        }
        let text = out.text();
        let first = text.split('\0').next().unwrap_or_default();
        let Some((meta, _)) = first.split_once('\t') else {
            return Ok(None);
        };
        let mut parts = meta.split_whitespace();
        match (parts.next(), parts.next(), parts.next()) {
            (Some(mode), Some(_kind), Some(object)) => {
                Ok(Some((mode.to_string(), object.to_string())))
            }
            _ => Ok(None),
        }
    }

    /// Whether this commit is in `other`'s history (`other` itself
    /// included), as this clone knows it.
    pub fn is_ancestor_of(&self, other: &Revision) -> Result<bool, ScopeError> {
        let out = self.git.run(
            &["merge-base", "--is-ancestor", &self.sha, &other.sha],
            SMALL,
        )?;
        Ok(out.success())
    }

    /// Whether this commit and HEAD share history in this clone.
    pub fn meets_head(&self) -> Result<bool, ScopeError> {
        let out = self.git.run(&["merge-base", &self.sha, "HEAD"], SMALL)?;
        Ok(out.success())
    }
}

/// Whether the repository at `root` is a shallow clone.
pub(crate) fn is_shallow(root: &Path, env: &crit_os::Env) -> bool {
    Git::new(root, TIMEOUT, env)
        .run(&["rev-parse", "--is-shallow-repository"], SMALL)
        .is_ok_and(|o| o.success() && o.text().trim() == "true")
}

/// The current branch's upstream (`origin/feature`), when it has one.
pub(crate) fn upstream(root: &Path, env: &crit_os::Env) -> Option<String> {
    let out = Git::new(root, TIMEOUT, env)
        .run(
            &[
                "rev-parse",
                "--abbrev-ref",
                "--symbolic-full-name",
                "@{upstream}",
            ],
            SMALL,
        )
        .ok()?;
    let name = out.text().trim().to_string();
    (out.success() && check_rev(&name, "--diff").is_ok()).then_some(name)
}

/// The commit HEAD points at, when there is one.
pub(crate) fn head(root: &Path, env: &crit_os::Env) -> Option<String> {
    Revision::resolve(root, "HEAD", env)
        .ok()
        .flatten()
        .map(|r| r.sha)
}
