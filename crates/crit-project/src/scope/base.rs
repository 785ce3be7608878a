//! What a change is compared with when no one said: a branch with no scope
//! given ([`branch_scope`]: its upstream, else the default branch), and a
//! push whose remote has none of the pushed history yet ([`push_scope`]: the
//! remote's default branch, else the merge base with the local default
//! branch, else everything the pushed commit holds). Never the uncommitted
//! changes of a push, nor silently the whole project.

use std::path::Path;
use std::time::Duration;

use super::git::Git;
use super::spec::{check_rev, short};
use super::{Scope, ScopeError};

const SMALL: usize = 64 * 1024;
const TIMEOUT: Duration = Duration::from_secs(30);

/// A scope crit chose, and why, in words for stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen {
    pub scope: Scope,
    /// "the branch `feature` against its upstream `origin/feature`".
    pub why: String,
}

/// The scope of a code review given none, outside CI: the current branch
/// against its upstream when it has commits the upstream lacks; else against
/// the default branch (from their merge base, with the uncommitted changes
/// of tracked files); on the default branch itself, or with no commits yet,
/// the uncommitted changes.
pub fn branch_scope(root: &Path, env: &crit_os::Env) -> Result<Chosen, ScopeError> {
    let git = Git::new(root, TIMEOUT, env);
    let survey = |why: String| Chosen {
        scope: Scope::Survey,
        why: format!(
            "{why}, so there is no change: reviewing the whole project (--files GLOB picks files)"
        ),
    };
    let out = match git.run(&["rev-parse", "--verify", "-q", "HEAD^{commit}"], SMALL) {
        Ok(out) => out,
        Err(ScopeError::GitUnavailable { reason }) => {
            return Ok(survey(format!("git cannot run here ({reason})")));
        }
        Err(e) => return Err(e),
    };
    if !git.in_repository() {
        return Ok(survey(format!(
            "`{}` is not in a git repository",
            root.display()
        )));
    }
    let head = match out.success().then(|| out.text().trim().to_string()) {
        Some(h) => h,
        None => {
            return Ok(Chosen {
                scope: Scope::Uncommitted,
                why: "this repository has no commits yet: reviewing the uncommitted changes".into(),
            });
        }
    };
    let branch = symbolic(&git, "HEAD").map(|b| b.trim_start_matches("refs/heads/").to_string());
    let shown = branch
        .as_deref()
        .map_or_else(|| format!("HEAD ({})", short(&head)), |b| format!("`{b}`"));
    if let Some(up) = upstream(&git)
        && let Some(up_sha) = rev_parse(&git, &up)?
        && ahead(&git, &up_sha, &head)? > 0
    {
        return Ok(Chosen {
            why: format!("the branch {shown} against its upstream `{up}`"),
            scope: Scope::Diff(up),
        });
    }
    if let Some(default) = default_branch(&git, None)?
        && let Some(default_sha) = rev_parse(&git, &default)?
        && ahead(&git, &default_sha, &head)? > 0
    {
        return Ok(Chosen {
            why: format!("the branch {shown} against the default branch `{default}`"),
            scope: Scope::Diff(default),
        });
    }
    Ok(Chosen {
        scope: Scope::Uncommitted,
        why: format!(
            "{shown} has no commits beyond its upstream or the default branch: reviewing the uncommitted changes"
        ),
    })
}

/// The scope of a pre-push review whose remote has none of the pushed
/// history (a first push to a new remote; pre-commit then names no range):
/// `local` (the pushed ref or commit) against the remote's default branch,
/// else against its merge base with the local default branch, else, when it
/// shares nothing with either, or is the default branch itself, everything
/// it holds (a range from the empty tree).
pub fn push_scope(
    root: &Path,
    remote: &str,
    local: &str,
    env: &crit_os::Env,
) -> Result<Chosen, ScopeError> {
    check_rev(local, "--diff")?;
    let git = Git::new(root, TIMEOUT, env);
    let sha = match rev_parse(&git, local)? {
        Some(sha) => sha,
        None if git.run(&["rev-parse", "--git-dir"], SMALL)?.success() => {
            return Err(ScopeError::UnknownRevision {
                rev: local.to_string(),
            });
        }
        None => {
            return Err(ScopeError::NotARepository {
                root: root.to_path_buf(),
                scope: format!("the push of `{local}`"),
            });
        }
    };
    let shown = local.trim_start_matches("refs/heads/");
    for (default, whose) in [
        (default_branch(&git, Some(remote))?, "the remote's"),
        (local_default(&git)?, "the local"),
    ] {
        let Some(default) = default else { continue };
        let Some(default_sha) = rev_parse(&git, &default)? else {
            continue;
        };
        if let Some(base) = merge_base(&git, &default_sha, &sha)?
            && base != sha
        {
            return Ok(Chosen {
                why: format!(
                    "the pushed commits of `{shown}` against {whose} default branch `{default}`"
                ),
                scope: Scope::Range(format!("{base}..{sha}")),
            });
        }
    }
    let empty = git.empty_tree()?;
    Ok(Chosen {
        why: format!(
            "every commit of `{shown}` is new to `{remote}`: reviewing everything {} holds",
            short(&sha)
        ),
        scope: Scope::Range(format!("{empty}..{sha}")),
    })
}

/// The commit `rev` names, or `None`.
fn rev_parse(git: &Git, rev: &str) -> Result<Option<String>, ScopeError> {
    let spec = format!("{rev}^{{commit}}");
    let out = git.run(
        &["rev-parse", "--verify", "-q", "--end-of-options", &spec],
        SMALL,
    )?;
    Ok(out.success().then(|| out.text().trim().to_string()))
}

/// The full name a symbolic ref points at (`refs/heads/main`).
fn symbolic(git: &Git, name: &str) -> Option<String> {
    let out = git.run(&["symbolic-ref", "-q", name], SMALL).ok()?;
    let text = out.text().trim().to_string();
    (out.success() && check_rev(&text, "--diff").is_ok()).then_some(text)
}

fn upstream(git: &Git) -> Option<String> {
    let out = git
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

/// How many commits `head` has that `base` lacks.
fn ahead(git: &Git, base: &str, head: &str) -> Result<u64, ScopeError> {
    let range = format!("{base}..{head}");
    let out = git.ok(&["rev-list", "--count", &range, "--"], SMALL)?;
    Ok(out.text().trim().parse().unwrap_or(0))
}

fn merge_base(git: &Git, a: &str, b: &str) -> Result<Option<String>, ScopeError> {
    let out = git.run(&["merge-base", a, b], SMALL)?;
    Ok(out.success().then(|| out.text().trim().to_string()))
}

/// The default branch as `remote` (else the upstream's remote, else
/// `origin`) names it (`origin/main`, from `refs/remotes/R/HEAD`); without
/// a remote to ask, the local default branch.
fn default_branch(git: &Git, remote: Option<&str>) -> Result<Option<String>, ScopeError> {
    let remotes: Vec<String> = match remote {
        Some(r) => vec![r.to_string()],
        None => upstream(git)
            .and_then(|u| u.split_once('/').map(|(r, _)| r.to_string()))
            .into_iter()
            .chain(std::iter::once("origin".to_string()))
            .collect(),
    };
    for r in remotes {
        if check_rev(&r, "--diff").is_err() {
            continue;
        }
        if let Some(target) = symbolic(git, &format!("refs/remotes/{r}/HEAD")) {
            return Ok(Some(target.trim_start_matches("refs/remotes/").to_string()));
        }
    }
    match remote {
        Some(_) => Ok(None),
        None => local_default(git),
    }
}

/// The local default branch: `init.defaultBranch`, else `main`, else
/// `master`, whichever exists.
fn local_default(git: &Git) -> Result<Option<String>, ScopeError> {
    let configured = git
        .run(&["config", "--get", "init.defaultBranch"], SMALL)
        .ok()
        .filter(|o| o.success())
        .map(|o| o.text().trim().to_string())
        .filter(|b| !b.is_empty());
    for name in configured
        .into_iter()
        .chain(["main".to_string(), "master".to_string()])
    {
        if check_rev(&name, "--diff").is_err() {
            continue;
        }
        let full = format!("refs/heads/{name}");
        if rev_parse(git, &full)?.is_some() {
            return Ok(Some(name));
        }
    }
    Ok(None)
}
