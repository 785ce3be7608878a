//! Work the agent moved off HEAD during the session: a commit on another
//! branch and a checkout back, a commit on a detached HEAD, a tag on a new
//! commit, a stash. The session's first prompt notes the refs and the
//! reflogs' sizes from the git directory's files ([`NotedRefs`]); at a stop,
//! every ref created or moved since, and every commit HEAD or the stash
//! passed through (their reflogs' new lines), is a tip. A tip reachable
//! from a noted ref or from HEAD holds nothing new. Each other tip is
//! reviewed as what it holds against where it left the session's history
//! (its merge base with HEAD as noted), so a fix committed on top is seen
//! as fixed; a stash is reviewed commit by commit (its work, its index and
//! its untracked files are three commits, the last with no parent). A
//! commit amended or rebased away is not a tip: what replaced it is.
//!
//! What moved but cannot be read (an object that is gone, a rewritten
//! reflog, refs the files no longer tell) is never taken as "nothing": the
//! gate blocks and says why.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use crit_os::Env;
use crit_os::git::layout::GitLayout;
use crit_os::git::refs::{Reflog, ReflogEntry};
use crit_os::git::{Git, GitError, GitOptions, is_object_id};
use crit_project::scope::Scope;

use crate::state::NotedRefs;

/// What moved off HEAD that the gate cannot review, and why.
#[derive(Debug, thiserror::Error)]
pub(super) enum Unreviewable {
    #[error(
        "the repository's refs can no longer be read from its files (a changed ref format, a symlinked or unreadable ref), so crit cannot tell what moved off HEAD"
    )]
    Refs,
    #[error(
        "HEAD's reflog was rewritten during the session (expired or edited), so crit cannot tell which commits HEAD passed through"
    )]
    HeadReflogRewritten,
    #[error("{which} reflog cannot be read: {source}")]
    Reflog {
        which: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "a ref or reflog entry made during the session names an object crit cannot review as a commit ({0})"
    )]
    NotACommit(#[source] Box<Unreviewable>),
    #[error(
        "{0} commits were made off HEAD during the session (branches, tags, stashes), more than the gate reviews at once ({MAX_COMMITS})"
    )]
    TooMany(usize),
    #[error("git cannot read what moved off HEAD: {0}")]
    Open(#[source] GitError),
    #[error("{0}")]
    Run(#[source] GitError),
    #[error("`git {command}`: {stderr}")]
    Git { command: String, stderr: String },
    #[error("HEAD has no root commit")]
    NoRootCommit,
}

/// More commits than this moved off HEAD are not reviewed in one stop.
const MAX_COMMITS: usize = 200;
const CAP: usize = 1 << 20;

/// Where work moved off HEAD is found.
#[derive(Default)]
struct Tips {
    /// Branches, tags, HEAD's reflog.
    refs: BTreeSet<String>,
    /// The stash and its reflog.
    stash: BTreeSet<String>,
}

/// The refs now, and the changes moved off HEAD since `noted` (parts of
/// one review); `Err` says what moved that the gate cannot review. Without
/// a note there is nothing to compare with: no parts, and the refs now
/// become the note.
pub(super) fn since(
    root: &Path,
    noted: Option<&NotedRefs>,
    head_now: Option<&str>,
    env: &Env,
) -> (Result<Vec<Scope>, Unreviewable>, Option<NotedRefs>) {
    let layout = crit_os::git::layout::discover(root).ok();
    let now = layout
        .as_ref()
        .and_then(GitLayout::refs)
        .map(NotedRefs::from);
    let (Some(noted), Some(layout)) = (noted, layout.as_ref()) else {
        return (Ok(Vec::new()), now);
    };
    let Some(current) = &now else {
        return (Err(Unreviewable::Refs), None);
    };
    let parts = tips(layout, noted, current).and_then(|mut tips| {
        let mut exclude: BTreeSet<&str> = noted.refs.values().map(String::as_str).collect();
        exclude.extend(noted.head.as_deref());
        exclude.extend(head_now);
        tips.refs.retain(|t| !exclude.contains(t.as_str()));
        tips.stash.retain(|t| !exclude.contains(t.as_str()));
        if tips.refs.is_empty() && tips.stash.is_empty() {
            return Ok(Vec::new());
        }
        let anchor = noted.head.as_deref().or(head_now);
        review_parts(root, &tips, &exclude, anchor, env)
    });
    (parts, now)
}

/// Refs created or moved since `noted` (remote-tracking ones are other
/// people's: never tips), and the new entries of HEAD's and the stash's
/// reflogs.
fn tips(layout: &GitLayout, noted: &NotedRefs, now: &NotedRefs) -> Result<Tips, Unreviewable> {
    let mut tips = Tips::default();
    for (name, sha) in &now.refs {
        if name.starts_with("refs/remotes/") || noted.refs.get(name) == Some(sha) {
            continue;
        }
        match name.as_str() {
            "refs/stash" => tips.stash.insert(sha.clone()),
            _ => tips.refs.insert(sha.clone()),
        };
    }
    match layout.reflog_since(Reflog::Head, noted.head_log) {
        Ok(Some(e)) => tips.refs.extend(kept(&e)),
        Ok(None) => return Err(Unreviewable::HeadReflogRewritten),
        Err(source) => {
            return Err(Unreviewable::Reflog {
                which: "HEAD's",
                source,
            });
        }
    }
    // A dropped or popped stash rewrites the stash's reflog: then every
    // stash entry left is reviewed.
    let stash = match layout.reflog_since(Reflog::Stash, noted.stash_log) {
        Ok(Some(e)) => Ok(e),
        Ok(None) => layout
            .reflog_since(Reflog::Stash, 0)
            .map(Option::unwrap_or_default),
        Err(e) => Err(e),
    };
    match stash {
        Ok(e) => tips.stash.extend(kept(&e)),
        Err(source) => {
            return Err(Unreviewable::Reflog {
                which: "the stash's",
                source,
            });
        }
    }
    Ok(tips)
}

/// The commits a reflog's entries name, but those the next entry amended
/// or rebased (what replaced them is reviewed) and deletions.
fn kept(entries: &[ReflogEntry]) -> Vec<String> {
    entries
        .iter()
        .enumerate()
        .filter(|(i, e)| {
            let replaced = entries.get(i + 1).is_some_and(|next| {
                next.old == e.new
                    && (next.message.starts_with("commit (amend)")
                        || next.message.starts_with("rebase"))
            });
            !replaced && e.new.bytes().any(|b| b != b'0')
        })
        .map(|(_, e)| e.new.clone())
        .collect()
}

/// The review's parts for `tips`, through crit-os's hardened git.
fn review_parts(
    root: &Path,
    tips: &Tips,
    exclude: &BTreeSet<&str>,
    anchor: Option<&str>,
    env: &Env,
) -> Result<Vec<Scope>, Unreviewable> {
    let git = Runner::open(root, env)?;
    // Each tip as the commit it names (a tag object peeled); every one must
    // be a commit the repository still has.
    let peel = |set: &BTreeSet<String>| -> Result<BTreeSet<String>, Unreviewable> {
        if set.is_empty() {
            return Ok(BTreeSet::new());
        }
        let mut args = vec!["rev-list", "--no-walk=unsorted", "--end-of-options"];
        args.extend(set.iter().map(String::as_str));
        args.push("--");
        let out = git
            .ok(&args)
            .map_err(|why| Unreviewable::NotACommit(Box::new(why)))?;
        Ok(out
            .lines()
            .filter(|c| !exclude.contains(c))
            .map(str::to_string)
            .collect())
    };
    let tips = Tips {
        refs: peel(&tips.refs)?,
        stash: peel(&tips.stash)?,
    };
    let all: Vec<&str> = tips
        .refs
        .iter()
        .chain(&tips.stash)
        .map(String::as_str)
        .collect();
    if all.is_empty() {
        return Ok(Vec::new());
    }
    let fresh = git.new_commits(&all, exclude)?;
    if fresh.len() > MAX_COMMITS {
        return Err(Unreviewable::TooMany(fresh.len()));
    }
    let mut parts = Vec::new();
    // A stash: each of its commits against its first parent (the untracked
    // files' commit has none: all of it).
    let stash: Vec<&str> = tips.stash.iter().map(String::as_str).collect();
    let in_stash: Vec<String> = match stash.is_empty() {
        true => Vec::new(),
        false => git.new_commits(&stash, exclude)?,
    };
    if !in_stash.is_empty() {
        parts.push(Scope::Commits(in_stash.clone()));
    }
    // The rest: each tip holding something new, and not inside another tip,
    // from where it left the session's history.
    let new_tips: Vec<&str> = tips
        .refs
        .iter()
        .map(String::as_str)
        .filter(|t| fresh.iter().any(|c| c == t) && !in_stash.iter().any(|c| c == t))
        .collect();
    if new_tips.is_empty() {
        return Ok(parts);
    }
    let mut args = vec!["merge-base", "--independent"];
    args.extend(&new_tips);
    let independent = git.ok(&args)?;
    for tip in independent.lines().filter(|l| is_object_id(l)) {
        let base = match anchor {
            Some(a) => git.merge_base(tip, a)?,
            None => None,
        };
        let base = match base {
            Some(b) => b,
            None => git
                .inner
                .empty_tree()
                .map_err(Unreviewable::Run)?
                .to_string(),
        };
        parts.push(Scope::Range(format!("{base}..{tip}")));
    }
    Ok(parts)
}

/// What a session that began before the repository's first commit has
/// committed since: every root commit's own change and everything from each
/// root to the working tree.
pub(super) fn from_unborn(root: &Path, env: &Env) -> Result<Vec<Scope>, Unreviewable> {
    let git = Runner::open(root, env)?;
    let roots: Vec<String> = git
        .ok(&["rev-list", "--max-parents=0", "HEAD", "--"])?
        .lines()
        .map(str::to_string)
        .collect();
    if roots.is_empty() {
        return Err(Unreviewable::NoRootCommit);
    }
    let mut parts = vec![Scope::Commits(roots.clone())];
    parts.extend(roots.into_iter().map(Scope::Since));
    Ok(parts)
}

/// crit-os's git for the few commands here, failures as reasons.
struct Runner {
    inner: Git,
}

impl Runner {
    fn open(root: &Path, env: &Env) -> Result<Runner, Unreviewable> {
        let mut child = Env::new();
        for key in ["PATH", "HOME", "XDG_CONFIG_HOME"] {
            if let Some(v) = env.get(key) {
                child.set(key, v);
            }
        }
        let opts = GitOptions {
            timeout: Duration::from_secs(60),
            ..GitOptions::default()
        };
        Git::open(root, &child, opts)
            .map(|inner| Runner { inner })
            .map_err(Unreviewable::Open)
    }

    /// stdout of a command that must succeed.
    fn ok(&self, args: &[&str]) -> Result<String, Unreviewable> {
        let out = self.inner.run(args, CAP).map_err(Unreviewable::Run)?;
        match out.success() && !out.overflowed {
            true => Ok(out.text()),
            false => Err(Unreviewable::Git {
                command: args.join(" "),
                stderr: out.stderr.trim().to_string(),
            }),
        }
    }

    /// The commits reachable from `tips` and from none of `exclude`. A noted
    /// ref's commit may be gone since (a branch deleted and pruned): it then
    /// excludes nothing.
    fn new_commits(
        &self,
        tips: &[&str],
        exclude: &BTreeSet<&str>,
    ) -> Result<Vec<String>, Unreviewable> {
        let not: Vec<String> = exclude.iter().map(|e| format!("^{e}")).collect();
        let mut args = vec!["rev-list", "--ignore-missing", "--end-of-options"];
        args.extend(tips);
        args.extend(not.iter().map(String::as_str));
        args.push("--");
        Ok(self.ok(&args)?.lines().map(str::to_string).collect())
    }

    /// The merge base of two commits, `None` when their histories never meet.
    fn merge_base(&self, a: &str, b: &str) -> Result<Option<String>, Unreviewable> {
        let out = self
            .inner
            .run(&["merge-base", a, b], CAP)
            .map_err(Unreviewable::Run)?;
        match (out.success(), out.status.and_then(|s| s.code())) {
            (true, _) => Ok(Some(out.text().trim().to_string())),
            (false, Some(1)) if out.stderr.trim().is_empty() => Ok(None),
            _ => Err(Unreviewable::Git {
                command: format!("merge-base {a} {b}"),
                stderr: out.stderr.trim().to_string(),
            }),
        }
    }
}
