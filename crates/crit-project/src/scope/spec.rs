//! What the user asked to review ([`Scope`]), from command-line options, with
//! every revision checked before git sees it.

use super::ScopeError;

/// What a code review looks at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// No scope: the reviewer surveys the project; there is no change.
    Survey,
    /// `--diff REF`: the working tree (tracked files) against the merge base
    /// of HEAD and REF, or of HEAD and REF's upstream when that is ahead.
    Diff(String),
    /// `--diff A..B` or `--diff A...B`, as given (`A...B` = merge-base(A,B)..B).
    Range(String),
    /// `--commit SHA`...: each commit's own change, like `git show SHA`.
    Commits(Vec<String>),
    /// `--uncommitted`: staged, unstaged and untracked files against HEAD.
    Uncommitted,
    /// Staged, unstaged and untracked files against a commit HEAD may have
    /// moved on from: what was committed since it and what is not committed
    /// yet, together (the Stop gate after the agent committed).
    Since(String),
    /// `--files GLOB`...: tracked files matching; no patch, the reviewer reads them.
    Files(Vec<String>),
    /// A change (`--diff`, `--commit`, `--uncommitted`) with `--files`: only
    /// its files that match the globs (the review templates' `--diff` and
    /// `--files` together).
    Within(Box<Scope>, Vec<String>),
    /// Several changes reviewed as one: every part's files and hunks
    /// together (a path in several parts listed once, with each part's
    /// hunks). The Stop gate's view of a session: what HEAD and the working
    /// tree hold, with the commits the agent moved off HEAD (another branch,
    /// a tag, a stash). Never from the command line.
    Union(Vec<Scope>),
}

impl Scope {
    /// From CLI-ish options. Two of `--diff`, `--commit`, `--uncommitted`
    /// together are a [`ScopeError::Conflict`] naming both; `--files` with
    /// one of them limits that change to the matching files. `diff`
    /// containing `..` is a range.
    pub fn from_options(
        diff: Option<&str>,
        commits: &[String],
        uncommitted: bool,
        files: &[String],
    ) -> Result<Scope, ScopeError> {
        let given: Vec<&'static str> = [
            (diff.is_some(), "--diff"),
            (!commits.is_empty(), "--commit"),
            (uncommitted, "--uncommitted"),
        ]
        .into_iter()
        .filter_map(|(on, flag)| on.then_some(flag))
        .collect();
        if let [first, second, ..] = given[..] {
            return Err(ScopeError::Conflict { first, second });
        }
        for f in files {
            if f.trim().is_empty() {
                return Err(ScopeError::BadGlob {
                    glob: f.clone(),
                    reason: "it is empty".to_string(),
                });
            }
        }
        if !given.is_empty() && !files.is_empty() {
            let change = Scope::from_options(diff, commits, uncommitted, &[])?;
            return Ok(Scope::Within(Box::new(change), files.to_vec()));
        }
        if let Some(d) = diff {
            return if d.contains("..") {
                split_range(d)?;
                Ok(Scope::Range(d.to_string()))
            } else {
                check_rev(d, "--diff")?;
                Ok(Scope::Diff(d.to_string()))
            };
        }
        if !commits.is_empty() {
            for c in commits {
                check_rev(c, "--commit")?;
            }
            return Ok(Scope::Commits(commits.to_vec()));
        }
        if uncommitted {
            return Ok(Scope::Uncommitted);
        }
        if !files.is_empty() {
            return Ok(Scope::Files(files.to_vec()));
        }
        Ok(Scope::Survey)
    }

    /// A few words for people: "main..HEAD", "uncommitted changes",
    /// "commits abc1234, def5678", "files src/**/*.rs", "the whole project".
    pub fn describe(&self) -> String {
        match self {
            Scope::Survey => "the whole project".to_string(),
            Scope::Diff(r) => format!("changes against {r}"),
            Scope::Range(r) => r.clone(),
            Scope::Commits(c) => {
                let word = if c.len() == 1 { "commit" } else { "commits" };
                let shas: Vec<&str> = c.iter().map(|s| short(s)).collect();
                format!("{word} {}", shas.join(", "))
            }
            Scope::Uncommitted => "uncommitted changes".to_string(),
            Scope::Since(r) => format!("changes since {}", short(r)),
            Scope::Files(f) => format!("files {}", f.join(", ")),
            Scope::Within(change, f) => format!("{} in {}", change.describe(), f.join(", ")),
            Scope::Union(parts) => parts
                .iter()
                .map(Scope::describe)
                .collect::<Vec<_>>()
                .join("; "),
        }
    }
}

/// A full hexadecimal object name shortened to 7 characters; anything else as is.
pub(super) fn short(rev: &str) -> &str {
    if rev.len() > 7 && rev.bytes().all(|b| b.is_ascii_hexdigit()) {
        &rev[..7]
    } else {
        rev
    }
}

/// A revision the user gave: never empty, never starting with `-` (so it can
/// never become an option such as `--output=FILE`), no control characters.
pub(super) fn check_rev(rev: &str, flag: &'static str) -> Result<(), ScopeError> {
    let why = if rev.trim().is_empty() {
        Some("it is empty")
    } else if rev.starts_with('-') {
        Some("a revision cannot start with `-` (it would be read as an option)")
    } else if rev.chars().any(char::is_control) {
        Some("it contains a control character")
    } else {
        None
    };
    match why {
        Some(why) => Err(ScopeError::BadRevision {
            flag,
            rev: rev.to_string(),
            why: why.to_string(),
        }),
        None => Ok(()),
    }
}

/// The two sides of a range and whether it is symmetric (`...`). An empty side
/// means HEAD, as in git.
pub(super) fn split_range(range: &str) -> Result<(String, String, bool), ScopeError> {
    let (a, b, sym) = match range.split_once("...") {
        Some((a, b)) => (a, b, true),
        None => match range.split_once("..") {
            Some((a, b)) => (a, b, false),
            None => (range, "", false),
        },
    };
    let bad = |why: &str| ScopeError::BadRevision {
        flag: "--diff",
        rev: range.to_string(),
        why: why.to_string(),
    };
    if b.contains("..") || a.contains("..") {
        return Err(bad(
            "a range has one `..` or `...` between two revisions, e.g. `main..HEAD`",
        ));
    }
    if a.is_empty() && b.is_empty() {
        return Err(bad(
            "give a revision on at least one side, e.g. `main..HEAD`",
        ));
    }
    let side = |s: &str| if s.is_empty() { "HEAD" } else { s }.to_string();
    let (a, b) = (side(a), side(b));
    check_rev(&a, "--diff")?;
    check_rev(&b, "--diff")?;
    Ok((a, b, sym))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_split_with_head_for_empty_sides() {
        assert_eq!(
            split_range("main..").unwrap(),
            ("main".into(), "HEAD".into(), false)
        );
        assert_eq!(
            split_range("a...b").unwrap(),
            ("a".into(), "b".into(), true)
        );
        assert!(split_range("a..b..c").is_err());
        assert!(split_range("..").is_err());
        assert!(split_range("main..--output=/tmp/x").is_err());
    }

    #[test]
    fn short_shortens_only_full_hex_names() {
        assert_eq!(short("0123456789abcdef"), "0123456");
        assert_eq!(short("main"), "main");
        assert_eq!(short("deadbeefcafe~1"), "deadbeefcafe~1");
    }
}
