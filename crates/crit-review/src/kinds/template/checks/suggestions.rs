//! Which reviewers' suggestions are offered: each is checked against its
//! file as the change left it (the lines exist, the text differs, keeps the
//! indentation, is small; see [`crit_core::suggestion`]). One that fails,
//! or whose file cannot be read, is removed and the finding says why in
//! `suggestion_refused`; the finding itself stays.

use std::collections::HashMap;
use std::path::Path;

use crit_core::Finding;
use crit_core::files::InputLimits;
use crit_core::suggestion::{self, SuggestionError};
use crit_os::write::Root;
use crit_project::scope::{Revision, Scope};

/// The largest file read for the check (a suggestion is for a source file).
const FILE_CAP: u64 = 4 * 1024 * 1024;

/// Where the change's new files are.
#[derive(Debug, Clone, PartialEq, Eq)]
enum NewSide {
    /// The working tree: `--diff REF`, `--uncommitted`, `--files`, no scope.
    WorkTree,
    /// A commit: the right side of `A..B`, one `--commit`.
    Commit(String),
    /// Several commits (or changes), each with its own new side.
    Unknown,
}

fn new_side(scope: Option<&Scope>) -> NewSide {
    let Some(scope) = scope else {
        return NewSide::WorkTree;
    };
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
        Scope::Within(inner, _) => new_side(Some(inner)),
        // Several changes together (the Stop gate's moved work): no one side.
        Scope::Union(_) => NewSide::Unknown,
    }
}

/// Settles every suggestion in `findings` against its file after the change
/// `scope` names (`None`: the working tree) in the project at `root`; `env`
/// is what git sees.
pub(crate) fn check(
    findings: &mut [Finding],
    root: &Path,
    scope: Option<&Scope>,
    env: &crit_os::Env,
) {
    if findings.iter().all(|f| f.suggestion.is_none()) {
        return;
    }
    let reader = Reader {
        root,
        side: new_side(scope),
        env,
    };
    let mut texts: HashMap<String, Result<String, SuggestionError>> = HashMap::new();
    for f in findings.iter_mut().filter(|f| f.suggestion.is_some()) {
        let text = match f.path() {
            // No file, no lines: the check says so.
            None => Ok(String::new()),
            Some(path) => texts
                .entry(path.to_string())
                .or_insert_with(|| reader.read(path))
                .clone(),
        };
        suggestion::settle(f, text.as_deref().map_err(Clone::clone));
        if let Some(why) = &f.suggestion_refused {
            tracing::info!("a suggestion is not offered: {why}");
        }
    }
}

struct Reader<'a> {
    root: &'a Path,
    side: NewSide,
    env: &'a crit_os::Env,
}

impl Reader<'_> {
    /// The file's text after the change, or why it cannot be read.
    fn read(&self, path: &str) -> Result<String, SuggestionError> {
        use SuggestionError::Unreadable;
        let path = path.trim_start_matches("./");
        if path.is_empty() || path.starts_with('/') {
            return Err(Unreadable("the path is not inside the project".into()));
        }
        match &self.side {
            // Beneath the root, no symlink followed: the checkout is hostile.
            NewSide::WorkTree => Root::open(self.root)
                .and_then(|root| {
                    root.read_to_string(
                        path,
                        InputLimits {
                            max_bytes: FILE_CAP,
                        },
                    )
                })
                .map_err(|e| Unreadable(e.to_string())),
            NewSide::Commit(rev) => match Revision::resolve(self.root, rev, self.env) {
                Ok(Some(commit)) => match commit.read(path) {
                    Ok(Some(text)) => Ok(text),
                    Ok(None) => Err(Unreadable(format!(
                        "`{path}` is not a regular file at {}",
                        commit.short()
                    ))),
                    Err(e) => Err(Unreadable(e.to_string())),
                },
                Ok(None) => Err(Unreadable(format!("the repository has no commit `{rev}`"))),
                Err(e) => Err(Unreadable(e.to_string())),
            },
            NewSide::Unknown => Err(Unreadable(
                "the change spans several commits, each with its own version of the file".into(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_new_side_of_each_scope() {
        let range = |r: &str| new_side(Some(&Scope::Range(r.into())));
        assert_eq!(range("main..feature"), NewSide::Commit("feature".into()));
        assert_eq!(range("main...feature"), NewSide::Commit("feature".into()));
        assert_eq!(range("abc123..."), NewSide::Commit("HEAD".into()));
        assert_eq!(range("abc123.."), NewSide::Commit("HEAD".into()));
        assert_eq!(
            new_side(Some(&Scope::Commits(vec!["abc".into()]))),
            NewSide::Commit("abc".into())
        );
        assert_eq!(
            new_side(Some(&Scope::Commits(vec!["a".into(), "b".into()]))),
            NewSide::Unknown
        );
        for s in [
            Scope::Survey,
            Scope::Uncommitted,
            Scope::Diff("main".into()),
            Scope::Files(vec!["*.rs".into()]),
        ] {
            assert_eq!(new_side(Some(&s)), NewSide::WorkTree, "{s:?}");
        }
        assert_eq!(new_side(None), NewSide::WorkTree);
        let within = Scope::Within(Box::new(Scope::Range("a..b".into())), vec!["*.rs".into()]);
        assert_eq!(new_side(Some(&within)), NewSide::Commit("b".into()));
    }
}
