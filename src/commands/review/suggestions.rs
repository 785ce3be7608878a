//! Which reviewers' suggestions stand: each is checked against its file as
//! the change left it (the lines exist, the text differs, it is small), and
//! one that fails is dropped (the finding stays). A file that cannot be read
//! keeps its suggestions: the poster checks each against the pull request's
//! diff anyway.
//!
//! This belongs in crit-review's finish step, beside the evidence check;
//! it is here until that step takes it.

use std::collections::HashMap;
use std::path::Path;

use crit_core::ReviewResult;
use crit_core::files::InputLimits;
use crit_llm::Env;
use crit_os::git::{Git, GitOptions};
use crit_os::write::Root;
use crit_project::scope::Scope;

use crate::output::printable;

/// The largest file read for the check (a suggestion is for a source file).
const FILE_CAP: usize = 4 * 1024 * 1024;

/// Where the change's new files are.
#[derive(Debug, Clone, PartialEq, Eq)]
enum NewSide {
    /// The working tree: `--diff REF`, `--uncommitted`, `--files`, no scope.
    WorkTree,
    /// A commit: the right side of `A..B`, one `--commit`.
    Commit(String),
    /// Several commits, each with its own new side.
    Unknown,
}

fn new_side(scope: &Scope) -> NewSide {
    match scope {
        Scope::Survey | Scope::Files(_) | Scope::Diff(_) | Scope::Uncommitted | Scope::Since(_) => {
            NewSide::WorkTree
        }
        Scope::Range(r) => {
            let right = r
                .split_once("...")
                .or_else(|| r.split_once(".."))
                .map_or("", |(_, b)| b);
            NewSide::Commit(match right.trim() {
                "" => "HEAD".to_string(),
                b => b.to_string(),
            })
        }
        Scope::Commits(c) => match c.as_slice() {
            [one] => NewSide::Commit(one.clone()),
            _ => NewSide::Unknown,
        },
        Scope::Within(inner, _) => new_side(inner),
        Scope::Union(_) => NewSide::Unknown,
    }
}

/// Drops every suggestion in `result` that does not apply to its file after
/// the change `scope` names in the project at `root`.
pub fn check(result: &mut ReviewResult, root: &Path, scope: &Scope, env: &Env) {
    if result.findings.iter().all(|f| f.suggestion.is_none()) {
        return;
    }
    let reader = Reader::new(root, new_side(scope), env);
    let mut texts: HashMap<String, Option<String>> = HashMap::new();
    for f in result
        .findings
        .iter_mut()
        .filter(|f| f.suggestion.is_some())
    {
        let text = match f.path() {
            // No file, no lines: the check says so.
            None => Some(String::new()),
            Some(path) => texts
                .entry(path.to_string())
                .or_insert_with(|| reader.read(path))
                .clone(),
        };
        let Some(text) = text else { continue };
        if let Err(why) = f.check_suggestion(&text) {
            tracing::info!(
                "the suggestion of “{}” is not offered: {why}",
                printable(&f.title)
            );
            f.suggestion = None;
        }
    }
}

struct Reader<'a> {
    root: &'a Path,
    side: NewSide,
    env: &'a Env,
}

impl<'a> Reader<'a> {
    fn new(root: &'a Path, side: NewSide, env: &'a Env) -> Self {
        Reader { root, side, env }
    }

    /// The file's text after the change; `None` when it cannot be read.
    fn read(&self, path: &str) -> Option<String> {
        let path = path.trim_start_matches("./");
        if path.is_empty() || path.starts_with('/') {
            return None;
        }
        match &self.side {
            // Beneath the root, no symlink followed: the checkout is hostile.
            NewSide::WorkTree => Root::open(self.root)
                .ok()?
                .read_to_string(
                    path,
                    InputLimits {
                        max_bytes: FILE_CAP as u64,
                    },
                )
                .ok(),
            NewSide::Commit(rev) => {
                let git = Git::open(self.root, self.env, GitOptions::default()).ok()?;
                let spec = format!("{rev}:./{path}");
                let out = git.run(&["cat-file", "blob", &spec], FILE_CAP).ok()?;
                (out.success() && !out.overflowed)
                    .then(|| String::from_utf8(out.stdout).ok())
                    .flatten()
            }
            NewSide::Unknown => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_new_side_of_each_scope() {
        let range = |r: &str| new_side(&Scope::Range(r.into()));
        assert_eq!(range("main..feature"), NewSide::Commit("feature".into()));
        assert_eq!(range("main...feature"), NewSide::Commit("feature".into()));
        assert_eq!(range("abc123..."), NewSide::Commit("HEAD".into()));
        assert_eq!(range("abc123.."), NewSide::Commit("HEAD".into()));
        assert_eq!(
            new_side(&Scope::Commits(vec!["abc".into()])),
            NewSide::Commit("abc".into())
        );
        assert_eq!(
            new_side(&Scope::Commits(vec!["a".into(), "b".into()])),
            NewSide::Unknown
        );
        for s in [
            Scope::Survey,
            Scope::Uncommitted,
            Scope::Diff("main".into()),
            Scope::Files(vec!["*.rs".into()]),
        ] {
            assert_eq!(new_side(&s), NewSide::WorkTree, "{s:?}");
        }
        let within = Scope::Within(Box::new(Scope::Range("a..b".into())), vec!["*.rs".into()]);
        assert_eq!(new_side(&within), NewSide::Commit("b".into()));
    }
}
