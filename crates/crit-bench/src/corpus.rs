//! A labeled corpus on disk: `CORPUS/cases/NAME/` holding `repo/` (a git
//! repository with both commits, its working tree at the head), `case.json`
//! (`{"base": REF, "head": REF}`, optionally `language` and `url`) and
//! `golden.json` (the Martian Code Review Bench's per-pull-request object as
//! published: `pr_title`, `url`, `comments[{comment, severity}]`).
//!
//! A corpus is someone's download, so the bench reads nothing through a
//! symbolic link beneath `cases/`: a case directory, `repo/`, `case.json` or
//! `golden.json` that is one is refused, never followed out of the corpus
//! (to a file the judge would then be sent).

use std::path::{Path, PathBuf};

use crit_os::write::{FsError, Root};

use serde::{Deserialize, Serialize};

use crate::BenchError;

/// The directory of cases inside a corpus.
pub const CASES_DIR: &str = "cases";

/// A corpus, its cases sorted by name.
#[derive(Debug, Clone)]
pub struct Corpus {
    pub dir: PathBuf,
    pub cases: Vec<Case>,
}

/// One pull request with its golden comments.
#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    /// `cases/NAME/repo`.
    pub repo: PathBuf,
    pub spec: CaseSpec,
    pub golden: Golden,
}

/// `case.json`: the change under review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseSpec {
    pub base: String,
    pub head: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// `golden.json`: a pull request's human-verified comments, in the
/// benchmark's published shape (other keys are kept as they are).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Golden {
    #[serde(default)]
    pub pr_title: String,
    #[serde(default)]
    pub url: String,
    pub comments: Vec<GoldenComment>,
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// One golden comment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GoldenComment {
    pub comment: String,
    /// `Critical`, `High`, `Medium` or `Low` in the published files.
    #[serde(default)]
    pub severity: String,
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

impl Corpus {
    /// Every case under `dir/cases/`, each checked: a case that cannot be
    /// read is an error naming its file, not a case quietly left out (the
    /// scores would then be of another corpus).
    pub fn load(dir: &Path) -> Result<Corpus, BenchError> {
        let cases_dir = dir.join(CASES_DIR);
        let entries = std::fs::read_dir(&cases_dir).map_err(|e| BenchError::Corpus {
            dir: dir.to_path_buf(),
            reason: format!("cannot read {}: {e}", cases_dir.display()),
        })?;
        let mut names = Vec::new();
        for entry in entries.flatten() {
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            let kind = entry.file_type();
            if name.starts_with('.') || kind.as_ref().is_ok_and(|t| !t.is_dir() && !t.is_symlink())
            {
                continue;
            }
            if kind.is_ok_and(|t| t.is_symlink()) {
                return Err(link(cases_dir.join(&name)));
            }
            names.push(name);
        }
        names.sort();
        let root = Root::open(&cases_dir).map_err(|e| BenchError::Corpus {
            dir: dir.to_path_buf(),
            reason: e.to_string(),
        })?;
        let cases = names
            .iter()
            .map(|n| Case::load(&root, &cases_dir.join(n), n))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Corpus {
            dir: dir.to_path_buf(),
            cases,
        })
    }
}

impl Case {
    /// The case `name` of the corpus's `cases` directory (`cases`), at `dir`.
    fn load(cases: &Root, dir: &Path, name: &str) -> Result<Case, BenchError> {
        let rel = Path::new(name);
        let spec: CaseSpec = read_json(cases, &rel.join("case.json"), &dir.join("case.json"))?;
        for (key, rev) in [("base", &spec.base), ("head", &spec.head)] {
            if !is_revision(rev) {
                return Err(BenchError::CaseFile {
                    path: dir.join("case.json"),
                    reason: format!(
                        "`{key}` must name a commit (a SHA, a branch or a tag), not {rev:?}"
                    ),
                });
            }
        }
        let golden = read_json(cases, &rel.join("golden.json"), &dir.join("golden.json"))?;
        let repo = dir.join("repo");
        if std::fs::symlink_metadata(&repo).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(link(repo));
        }
        if !repo.join(".git").exists() {
            return Err(BenchError::CaseFile {
                path: repo,
                reason:
                    "not a git repository (a case's `repo/` holds the pull request's repository)"
                        .into(),
            });
        }
        Ok(Case {
            name: name.to_string(),
            repo,
            spec,
            golden,
        })
    }

    /// `base..head`, the change the code review looks at.
    pub fn range(&self) -> String {
        format!("{}..{}", self.spec.base, self.spec.head)
    }
}

/// A revision as a case may name it: no option, no range, no whitespace.
fn is_revision(rev: &str) -> bool {
    !rev.is_empty()
        && rev.len() <= 256
        && !rev.starts_with('-')
        && !rev.contains("..")
        && !rev.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// A JSON file of a case (`rel` beneath `cases`, `path` to name it), read
/// with the input cap and through no symbolic link.
fn read_json<T: serde::de::DeserializeOwned>(
    cases: &Root,
    rel: &Path,
    path: &Path,
) -> Result<T, BenchError> {
    let bytes = cases.read(rel, Default::default()).map_err(|e| match e {
        FsError::Symlink { .. } => link(path.to_path_buf()),
        e => BenchError::CaseFile {
            path: path.to_path_buf(),
            reason: e.to_string(),
        },
    })?;
    serde_json::from_slice(&bytes).map_err(|e| BenchError::CaseFile {
        path: path.to_path_buf(),
        reason: format!("not the expected JSON: {e}"),
    })
}

/// Why a case's `path` is refused: it, or a directory on its way, is a link.
fn link(path: PathBuf) -> BenchError {
    BenchError::CaseFile {
        path,
        reason: "a symbolic link (or beneath one): the bench reads a case only from files inside its case directory, never through a link that could lead out of the corpus; copy the file in".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revisions_are_commits_not_options_or_ranges() {
        for ok in ["main", "3f2a9c1", "refs/pull/12/head", "v1.2^"] {
            assert!(is_revision(ok), "{ok}");
        }
        for bad in ["", "-x", "a..b", "a b", "a\nb"] {
            assert!(!is_revision(bad), "{bad:?}");
        }
    }

    #[test]
    fn the_published_golden_shape_reads_and_keeps_what_it_does_not_know() {
        let g: Golden = serde_json::from_str(
            r#"{"pr_title": "T", "url": "u", "comments": [{"comment": "c", "severity": "High", "line": 3}], "extra": 1}"#,
        )
        .unwrap();
        assert_eq!(g.comments[0].severity, "High");
        assert_eq!(g.other["extra"], 1);
        assert_eq!(g.comments[0].other["line"], 3);
    }
}
