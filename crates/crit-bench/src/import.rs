//! `crit bench import martian DIR`: the Martian Code Review Bench's golden
//! comments (`golden_comments/*.json`, each a list of per-pull-request
//! objects: `pr_title`, `url`, `comments[{comment, severity}]`) plus the
//! pull requests' repositories the user cloned, turned into a corpus.
//!
//! For a pull request `https://github.com/OWNER/REPO/pull/N` the clone is
//! `REPOS/OWNER/REPO` or `REPOS/REPO`, with the pull request's head fetched
//! as `refs/pull/N/head` (or `refs/remotes/origin/pull/N/head`,
//! `refs/remotes/origin/pr/N`); the base is the pull request's recorded
//! base commit where its entry (or the entry's `metadata`) names one, as the
//! benchmark forked each pull request at it, else where the head leaves the
//! default branch (`origin/HEAD`, else `main` or `master`), and the report
//! says which base each case got. Each case's
//! `repo/` is a repository of its own, checked out at the head, that borrows
//! the clone's objects (git's alternates): nothing is copied, so keep the
//! clones. A pull request whose clone or head is missing is skipped and the
//! report says what to fetch; one already in the corpus is left as it is.

use std::path::{Path, PathBuf};

use crit_os::env::Env;
use crit_os::git::{Git, GitOptions};
use crit_os::write::Root;
use serde_json::Value;

use crate::corpus::{CASES_DIR, CaseSpec, Golden};

/// Where the benchmark keeps its golden comments.
pub const GOLDEN_DIR: &str = "golden_comments";

/// Why an import could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("{}: {reason}", path.display())]
    Input { path: PathBuf, reason: String },
    #[error("writing the corpus at {}: {reason}", path.display())]
    Output { path: PathBuf, reason: String },
}

/// What to import, and where.
#[derive(Debug, Clone)]
pub struct ImportRequest {
    /// A checkout of the benchmark (or its `golden_comments/` directory).
    pub benchmark: PathBuf,
    /// Where the pull requests' repositories are cloned.
    pub repos: PathBuf,
    /// The corpus to write (`cases/` is created in it).
    pub out: PathBuf,
    pub env: Env,
}

/// What an import did.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Imported {
    /// The golden-comments files read.
    pub files: Vec<String>,
    pub cases: Vec<String>,
    /// The base each imported case's review starts from, and why that one.
    pub bases: Vec<BaseUsed>,
    pub skipped: Vec<Skipped>,
}

/// Which base commit a case was given.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BaseUsed {
    pub case: String,
    pub base: String,
    /// `recorded` (the golden file or its metadata names the pull request's
    /// base commit, as the benchmark forked it) or `merge-base` (none is
    /// recorded: where the head leaves the default branch).
    pub from: String,
    /// The same, for people.
    pub detail: String,
}

/// A pull request left out, and why.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Skipped {
    pub url: String,
    pub reason: String,
}

/// Imports every pull request of the benchmark's golden-comments files.
pub fn import_martian(req: &ImportRequest) -> Result<Imported, ImportError> {
    let dir = golden_dir(&req.benchmark);
    let files = json_files(&dir)?;
    let cases_dir = req.out.join(CASES_DIR);
    let out = Root::open_or_create(&cases_dir, 0o755).map_err(|e| ImportError::Output {
        path: cases_dir.clone(),
        reason: e.to_string(),
    })?;
    let mut done = Imported::default();
    for file in files {
        done.files.push(file.display().to_string());
        for pr in pull_requests(&file)? {
            let url = pr
                .get("url")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            match import_one(req, &out, &pr, &url) {
                Ok(used) => {
                    done.cases.push(used.case.clone());
                    done.bases.push(used);
                }
                Err(e) => done.skipped.push(Skipped {
                    url,
                    reason: e.to_string(),
                }),
            }
        }
    }
    Ok(done)
}

/// `DIR/golden_comments`, `DIR/*/golden_comments`, else `DIR` itself.
fn golden_dir(dir: &Path) -> PathBuf {
    if dir.join(GOLDEN_DIR).is_dir() {
        return dir.join(GOLDEN_DIR);
    }
    let mut nested: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join(GOLDEN_DIR))
        .filter(|p| p.is_dir())
        .collect();
    nested.sort();
    nested
        .into_iter()
        .next()
        .unwrap_or_else(|| dir.to_path_buf())
}

fn json_files(dir: &Path) -> Result<Vec<PathBuf>, ImportError> {
    let entries = std::fs::read_dir(dir).map_err(|e| ImportError::Input {
        path: dir.to_path_buf(),
        reason: e.to_string(),
    })?;
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(ImportError::Input {
            path: dir.to_path_buf(),
            reason: format!("no golden-comments files (`{GOLDEN_DIR}/*.json`) here"),
        });
    }
    Ok(files)
}

/// The per-pull-request objects of one file (a list, or one object).
fn pull_requests(file: &Path) -> Result<Vec<Value>, ImportError> {
    let bad = |reason: String| ImportError::Input {
        path: file.to_path_buf(),
        reason,
    };
    let bytes =
        crit_core::files::read_capped(file, Default::default()).map_err(|e| bad(e.to_string()))?;
    let v: Value = serde_json::from_slice(&bytes).map_err(|e| bad(format!("not JSON: {e}")))?;
    let prs = match v {
        Value::Array(items) => items,
        obj @ Value::Object(_) => vec![obj],
        _ => return Err(bad("expected a list of pull requests".into())),
    };
    for (i, pr) in prs.iter().enumerate() {
        serde_json::from_value::<Golden>(pr.clone()).map_err(|e| {
            bad(format!(
                "pull request {}: not the golden-comments shape (pr_title, url, comments[{{comment, severity}}]): {e}",
                i + 1
            ))
        })?;
    }
    Ok(prs)
}

/// Why one pull request was not imported (it is listed as skipped).
#[derive(Debug, thiserror::Error)]
enum NotImported {
    #[error("`{0}` is not a pull request address (…/OWNER/REPO/pull/N)")]
    Address(String),
    #[error("cases/{0} is already in the corpus; left as it is")]
    Exists(String),
    #[error("no clone of {owner}/{repo} in {} (clone it as {owner}/{repo} or {repo})", repos.display())]
    NoClone {
        owner: String,
        repo: String,
        repos: PathBuf,
    },
    #[error(
        "{} has no head of pull request {number}: fetch it with `git -C {} fetch origin pull/{number}/head:refs/pull/{number}/head`",
        clone.display(),
        clone.display()
    )]
    NoHead { clone: PathBuf, number: String },
    #[error(
        "{}: no default branch (origin/HEAD, main or master) to find the base from",
        clone.display()
    )]
    NoDefaultBranch { clone: PathBuf },
    #[error("pull request {number}'s head is already in {branch}: its base cannot be told")]
    HeadInBase { number: String, branch: String },
    #[error(
        "{} lacks the pull request's recorded base commit {sha}: fetch it with `git -C {} fetch origin {sha}`",
        clone.display(),
        clone.display()
    )]
    NoRecordedBase { clone: PathBuf, sha: String },
    #[error("{} is not a git repository", clone.display())]
    NotARepository { clone: PathBuf },
    #[error(transparent)]
    Fs(#[from] crit_os::write::FsError),
    #[error(transparent)]
    Git(#[from] crit_os::git::GitError),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// One pull request into `cases/NAME`, or why not.
fn import_one(
    req: &ImportRequest,
    out: &Root,
    pr: &Value,
    url: &str,
) -> Result<BaseUsed, NotImported> {
    let (owner, repo, number) =
        parse_url(url).ok_or_else(|| NotImported::Address(url.to_string()))?;
    let name = case_name(&format!("{repo}-{number}"));
    if out.exists(&name)? {
        return Err(NotImported::Exists(name));
    }
    let clone = [req.repos.join(&owner).join(&repo), req.repos.join(&repo)]
        .into_iter()
        .find(|p| p.join(".git").exists())
        .ok_or_else(|| NotImported::NoClone {
            owner: owner.clone(),
            repo: repo.clone(),
            repos: req.repos.clone(),
        })?;
    let src = Git::open(&clone, &req.env, GitOptions::default())?;
    let head = [
        format!("refs/pull/{number}/head"),
        format!("refs/remotes/origin/pull/{number}/head"),
        format!("refs/remotes/origin/pr/{number}"),
    ]
    .iter()
    .find_map(|r| commit(&src, r))
    .ok_or_else(|| NotImported::NoHead {
        clone: clone.clone(),
        number: number.to_string(),
    })?;
    let (base, from, detail, branch) = match recorded_base(pr) {
        Some(sha) => {
            let base = commit(&src, &sha).ok_or_else(|| NotImported::NoRecordedBase {
                clone: clone.clone(),
                sha: sha.clone(),
            })?;
            let detail = "the pull request's recorded base commit".to_string();
            (base, "recorded", detail, "the recorded base".to_string())
        }
        None => {
            let (branch, base) =
                base_of(&src, &head).ok_or_else(|| NotImported::NoDefaultBranch {
                    clone: clone.clone(),
                })?;
            let detail = format!(
                "where the head leaves {branch}: the benchmark's file records no base commit"
            );
            (base, "merge-base", detail, branch)
        }
    };
    if base == head {
        return Err(NotImported::HeadInBase {
            number: number.to_string(),
            branch,
        });
    }
    let objects = src
        .layout()
        .map(|l| l.common_dir.join("objects"))
        .ok_or_else(|| NotImported::NotARepository {
            clone: clone.clone(),
        })?;
    let case = out.subdir(&name, Some(0o755))?;
    let used = BaseUsed {
        case: name.clone(),
        base: base.clone(),
        from: from.into(),
        detail,
    };
    let made = make_repo(&case, &objects, &base, &head, &req.env).and_then(|()| {
        let spec = CaseSpec {
            base,
            head,
            language: pr
                .get("language")
                .and_then(Value::as_str)
                .map(str::to_string),
            url: Some(url.to_string()),
        };
        write_json(
            &case,
            "case.json",
            &serde_json::to_value(spec).unwrap_or_default(),
        )?;
        write_json(&case, "golden.json", pr)
    });
    if let Err(e) = made {
        // A half-made case would fail every later run: take it away.
        let _ = std::fs::remove_dir_all(case.path());
        return Err(e);
    }
    Ok(used)
}

/// The base commit the pull request's entry, or its `metadata`, records
/// (`base_sha`, `base_commit`, `base` as a commit id, or GitHub's
/// `base: {sha}`), as the benchmark forked each pull request at it.
fn recorded_base(pr: &Value) -> Option<String> {
    let hex = |v: &Value| {
        v.as_str()
            .map(str::trim)
            .filter(|s| (7..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit()))
            .map(str::to_string)
    };
    let from = |o: &Value| {
        ["base_sha", "base_commit", "base"]
            .iter()
            .find_map(|k| o.get(*k).and_then(hex))
            .or_else(|| o.get("base").and_then(|b| b.get("sha")).and_then(hex))
    };
    from(pr).or_else(|| pr.get("metadata").and_then(from))
}

/// `repo/` at `head`, borrowing the clone's objects.
fn make_repo(
    case: &Root,
    objects: &Path,
    base: &str,
    head: &str,
    env: &Env,
) -> Result<(), NotImported> {
    // A git directory git's discovery accepts as this repository's own
    // (never an enclosing one), then `git init` fills in the rest.
    case.write_atomic(Path::new("repo/.git/HEAD"), b"ref: refs/heads/main\n")?;
    let alternates = format!("{}\n", objects.display());
    case.write_atomic(
        Path::new("repo/.git/objects/info/alternates"),
        alternates.as_bytes(),
    )?;
    let git = Git::open(&case.join("repo"), env, GitOptions::default())?;
    let run = |args: &[&str]| git.ok(args, 64 * 1024).map(drop);
    run(&["init", "--quiet"])?;
    // Both commits stay reachable here whatever happens to the clone's refs.
    run(&["update-ref", "refs/heads/bench-base", base])?;
    run(&["update-ref", "refs/heads/bench-head", head])?;
    Ok(run(&["checkout", "--quiet", "--detach", head])?)
}

fn write_json(case: &Root, name: &str, v: &Value) -> Result<(), NotImported> {
    let mut text = serde_json::to_string_pretty(v)?;
    text.push('\n');
    Ok(case.write_atomic(Path::new(name), text.as_bytes())?)
}

/// The full id of `rev` as a commit, if it is one.
fn commit(git: &Git, rev: &str) -> Option<String> {
    let out = git
        .run(
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                &format!("{rev}^{{commit}}"),
            ],
            4096,
        )
        .ok()?;
    let sha = out.text().trim().to_string();
    (out.success() && sha.len() >= 40 && sha.bytes().all(|b| b.is_ascii_hexdigit())).then_some(sha)
}

/// The default branch and where `head` leaves it.
fn base_of(git: &Git, head: &str) -> Option<(String, String)> {
    let branch = [
        "refs/remotes/origin/HEAD",
        "refs/remotes/origin/main",
        "refs/remotes/origin/master",
        "refs/heads/main",
        "refs/heads/master",
    ]
    .into_iter()
    .find(|r| commit(git, r).is_some())?;
    let out = git.run(&["merge-base", branch, head], 4096).ok()?;
    let sha = out.text().trim().to_string();
    (out.success() && !sha.is_empty()).then(|| (branch.to_string(), sha))
}

/// `(owner, repo, number)` of `…/OWNER/REPO/pull/N` (also `pulls/N` and
/// GitLab's `-/merge_requests/N`).
fn parse_url(url: &str) -> Option<(String, String, u64)> {
    let path = url.split("://").nth(1).unwrap_or(url);
    let parts: Vec<&str> = path
        .split(['?', '#'])
        .next()?
        .split('/')
        .filter(|p| !p.is_empty() && *p != "-")
        .collect();
    let at = parts
        .iter()
        .position(|p| matches!(*p, "pull" | "pulls" | "merge_requests"))?;
    let number = parts.get(at + 1)?.parse().ok()?;
    let (owner, repo) = (parts.get(at.checked_sub(2)?)?, parts.get(at - 1)?);
    let safe = |s: &str| !s.is_empty() && s != "." && s != ".." && !s.contains('\\');
    (safe(owner) && safe(repo)).then(|| (owner.to_string(), repo.to_string(), number))
}

/// A directory name: letters, digits, `.`, `_` and `-`, nothing else.
fn case_name(raw: &str) -> String {
    let s: String = raw
        .chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                true => c,
                false => '_',
            },
        )
        .collect();
    match s.trim_start_matches('.') {
        "" => "case".into(),
        t => t.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pull_request_addresses() {
        assert_eq!(
            parse_url("https://github.com/ai-code-review-evaluation/sentry-greptile/pull/5"),
            Some((
                "ai-code-review-evaluation".into(),
                "sentry-greptile".into(),
                5
            ))
        );
        assert_eq!(
            parse_url("https://gitlab.com/g/p/-/merge_requests/7?x=1"),
            Some(("g".into(), "p".into(), 7))
        );
        for bad in [
            "",
            "https://github.com/a/b",
            "https://github.com/pull/3",
            "https://x/../../pull/1",
        ] {
            assert_eq!(parse_url(bad), None, "{bad}");
        }
    }

    #[test]
    fn case_names_are_plain() {
        assert_eq!(case_name("sentry-greptile-5"), "sentry-greptile-5");
        assert_eq!(case_name("../a b"), "_a_b");
        assert_eq!(case_name(".."), "case");
    }
}
