//! What of a `crit run` config in the project is honoured: each MCP server
//! (a program crit starts), each `${env:NAME}` (a value from the user's
//! environment, such as a token, written into settings the project chose),
//! and each path that leaves the project (`cwd`, which also bounds the
//! reviewers' file tools; `logging.output_dir`; a prompt file) only as the
//! project's rules allow ([`crate::trust`]). A config outside the project
//! (`--config ~/reldo.json`) is the user's own and fully honoured.

use std::path::{Component, Path, PathBuf};

use crate::trust::{Gated, ProjectRules, Source, TrustError};

/// The questions one config file asks of its project's rules.
pub(super) struct Gate<'a> {
    /// `None`: a file the caller vouches for; everything is honoured.
    pub rules: Option<&'a ProjectRules>,
    /// The file's path from the project root.
    pub file: String,
}

impl Gate<'_> {
    pub(super) fn trusting() -> Gate<'static> {
        Gate {
            rules: None,
            file: String::new(),
        }
    }

    pub(super) fn allow(&self, key: &str, value: &str) -> bool {
        match self.rules {
            None => true,
            Some(r) => r.allow_as(Gated::new(self.file.clone(), 0, key, value), &self.trust()),
        }
    }

    /// The command that trusts this file's settings: plain `crit trust` for
    /// a file `crit run` finds itself, with `--config` for one only that
    /// flag loads.
    fn trust(&self) -> String {
        match super::STANDARD_PATHS.contains(&self.file.as_str()) {
            true => "crit trust".into(),
            false => format!("crit trust --config {}", self.file),
        }
    }

    /// May `${env:NAME}` be expanded?
    pub(super) fn env(&self, name: &str) -> bool {
        self.allow(&format!("${{env:{name}}}"), name)
    }

    /// `path` (resolved) is outside the project and the rules do not allow
    /// the setting `key` (written `value`) to take it there.
    pub(super) fn refuses_outside(&self, path: &Path, key: &str, value: &str) -> bool {
        match self.rules {
            None => false,
            Some(r) => !inside(r.canonical_root(), path) && !self.allow(key, value),
        }
    }

    /// A prompt file's text from where the rules read the project (at a
    /// commit, the commit's file). `None`: read it from disk.
    pub(super) fn read_prompt(&self, path: &Path) -> Option<Result<Option<String>, TrustError>> {
        let rules = self.rules?;
        let Source::Revision(_) = rules.source() else {
            return None;
        };
        let rel = normal(path)
            .strip_prefix(rules.canonical_root())
            .ok()?
            .to_string_lossy()
            .replace('\\', "/");
        Some(rules.read(&rel).map(|f| f.map(|f| f.text)))
    }
}

/// Whether `path` is under `root` (canonical) as the OS resolves it: its
/// longest existing ancestor canonicalized (symlinks and `..` as the kernel
/// follows them), then the rest of it.
pub(super) fn inside(root: &Path, path: &Path) -> bool {
    let mut tail = Vec::new();
    let mut cur = path;
    let resolved = loop {
        if let Ok(real) = cur.canonicalize() {
            break tail.iter().rev().fold(real, |p: PathBuf, t| p.join(t));
        }
        match (cur.parent(), cur.file_name()) {
            (Some(parent), Some(name)) => {
                tail.push(name.to_os_string());
                cur = parent;
            }
            _ => break normal(path),
        }
    };
    normal(&resolved).starts_with(root)
}

/// `a/./b/../c` → `a/c`, without touching the file system.
pub(super) fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_resolves_dot_dot_and_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("p");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        assert!(inside(&root, &root.join("sub/../x.md")));
        assert!(!inside(&root, &root.join("../p2/x.md")));
        assert!(!inside(&root, &root.join("sub/../../x.md")));
        assert!(inside(&root, &root.join("new/dir/x.md")));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc", root.join("etc")).unwrap();
            assert!(!inside(&root, &root.join("etc/hostname")));
            assert!(!inside(&root, &root.join("etc/not-there/x")));
            // `..` after a link leaves from the link's target, as the kernel does.
            assert!(!inside(&root, &root.join("etc/../x")));
        }
    }
}
