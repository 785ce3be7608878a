//! [`compute`]: from a [`Scope`] to a [`Change`], with git.

use std::path::Path;

use crit_os::git::EarlyRead;

use super::git::{Git, Opening};
use super::parse::{cut_patch, parse_patch};
use super::repo::{DIFF_OPTIONS, LOG_OPTIONS, Repo, SMALL, subjects_in};
use super::spec::{check_rev, short, split_range};
use super::{
    Change, Kind, Scope, ScopeError, ScopeOptions, files, flagged, hidden, own, shard, unshown,
    untracked,
};

/// Computes what `scope` covers in the project at `root`. `Survey` and `Files`
/// work without git; the others need a repository (and, except
/// `Uncommitted`, a commit). crit's own files ([`super::OwnFiles`]) are left
/// out, except those a `--files` glob names.
pub fn compute(root: &Path, scope: &Scope, opts: &ScopeOptions) -> Result<Change, ScopeError> {
    compute_scope(root, scope, opts, &[], None)
}

/// Starts the reads of `scope` that need nothing from the repository but
/// its commits (a range `A..B`'s diff and log, see [`EarlyRead`]), and the
/// rev-parse beside them, and returns at once; `None` when the scope has
/// no such reads.
pub(super) fn start_early(root: &Path, scope: &Scope, opts: &ScopeOptions) -> Option<Opening> {
    let Scope::Range(range) = scope else {
        return None;
    };
    let (a, b, symmetric) = split_range(range).ok()?;
    let early = (!symmetric).then(|| range_reads(&a, &b, opts))?;
    Some(Git::start_reading(
        root,
        opts.timeout,
        &[&b, &a],
        &early,
        &opts.env,
    ))
}

/// A range `A..B`'s reads of commits: its diff, then its log.
fn range_reads<'a>(a: &'a str, b: &'a str, opts: &ScopeOptions) -> [EarlyRead<'a>; 2] {
    [
        EarlyRead::Diff {
            options: &DIFF_OPTIONS,
            from: a,
            to: b,
            paths: &["."],
            text: true,
            cap: opts.max_git_output_bytes,
        },
        EarlyRead::Log {
            options: LOG_OPTIONS,
            from: a,
            to: b,
            cap: SMALL,
        },
    ]
}

/// [`compute`], keeping the own files `named` (the globs of an enclosing
/// `Within`) names.
pub(super) fn compute_naming(
    root: &Path,
    scope: &Scope,
    opts: &ScopeOptions,
    named: &[String],
) -> Result<Change, ScopeError> {
    compute_scope(root, scope, opts, named, None)
}

/// [`compute_naming`], with the runs [`start_early`] started for the same
/// `root`, `scope` and `opts`, if any.
pub(super) fn compute_scope(
    root: &Path,
    scope: &Scope,
    opts: &ScopeOptions,
    named: &[String],
    started: Option<Opening>,
) -> Result<Change, ScopeError> {
    if *scope != Scope::Survey
        && let Err(source) = std::fs::read_dir(root)
    {
        // Else a missing root would read as "cannot run git".
        return Err(ScopeError::Io {
            path: root.to_path_buf(),
            source,
        });
    }
    if let (Scope::Survey, Some(s)) = (scope, opts.shard) {
        return Err(ScopeError::ShardWithoutChange {
            shard: s.to_string(),
        });
    }
    match scope {
        Scope::Survey => Ok(Change {
            description: scope.describe(),
            base: None,
            files: Vec::new(),
            patch: String::new(),
            truncated: false,
            notes: Vec::new(),
            shard: None,
            commits: Vec::new(),
            part: None,
            screened: Vec::new(),
            ignored: Vec::new(),
            hidden: Vec::new(),
            kind: Kind::Survey,
            prefix: String::new(),
        }),
        Scope::Files(globs) => {
            files::select(root, globs, opts).map(|c| finish(root, c, opts, globs))
        }
        Scope::Within(inner, globs) => {
            let selector = files::Selector::new(globs)?;
            // The whole change first, then its matching files (a shard is
            // taken of those, and the patch cut to its cap after).
            let whole = ScopeOptions {
                shard: None,
                max_patch_bytes: usize::MAX,
                ..opts.clone()
            };
            let mut change = compute_naming(root, inner, &whole, globs)?;
            let keep: Vec<bool> = change
                .files
                .iter()
                .map(|f| selector.matches(change.path_from_root(&f.path)))
                .collect();
            shard::keep(&mut change, &keep);
            change.ignored.retain(|i| selector.matches(&i.path));
            change
                .hidden
                .retain(|h| selector.matches(h.path.trim_end_matches('/')));
            change.description = format!("{} (only {})", change.description, globs.join(", "));
            Ok(finish(root, change, opts, globs))
        }
        Scope::Diff(rev) => {
            // The enum is public: check here too, not only in `from_options`.
            check_rev(rev, "--diff")?;
            // REF resolved up front for when it has no upstream.
            let repo = Repo::open(root, opts, scope, &[rev])?;
            let head = repo.head_or(|| format!("`--diff {rev}`"))?;
            let (name, sha) = repo.preferred_base(rev)?;
            let base = repo.merge_base(&sha, &head, &name, "HEAD")?;
            let description = format!("changes since merge base {} with {name}", short(&base));
            let (commits, change) = beside(
                || repo.subjects(&base, &head),
                || repo.diff(&[&base], description, Some(base.clone())),
            );
            let mut change = change?;
            change.commits = commits?;
            Ok(finish(root, change, opts, named))
        }
        Scope::Range(range) => {
            let (a, b, symmetric) = split_range(range)?;
            // `A..B` reads commits only: its diff and log start with the
            // repository's opening instead of after it (they name the
            // commits as the rev-parse beside them does, at the same moment),
            // or earlier still, when a front end started them.
            let opening = started.unwrap_or_else(|| {
                let early = match symmetric {
                    true => Vec::new(),
                    false => range_reads(&a, &b, opts).to_vec(),
                };
                Git::start_reading(root, opts.timeout, &[&b, &a], &early, &opts.env)
            });
            let (repo, mut read) = Repo::opened(root, opts, scope, &[&b, &a], opening)?;
            let (early_log, early_diff) = (read.pop().flatten(), read.pop().flatten());
            let b_sha = repo.resolve(&b)?;
            let empty = repo.empty_tree()?;
            // From the empty tree: everything B holds (a push of a new history).
            if !symmetric && a == empty {
                let description = format!("everything {b} ({}) holds", short(&b_sha));
                let (commits, change) = beside(
                    || repo.log_subjects(&b_sha),
                    || repo.diff(&[&empty, &b_sha], description, None),
                );
                let mut change = change?;
                change.commits = commits?;
                return Ok(finish(root, change, opts, named));
            }
            let a_sha = repo.resolve(&a)?;
            let (base, description) = if symmetric {
                let mb = repo.merge_base(&a_sha, &b_sha, &a, &b)?;
                let text = format!(
                    "{range}: changes on {b} since its merge base {} with {a}",
                    short(&mb)
                );
                (mb, text)
            } else {
                let text = format!("{range} ({}..{})", short(&a_sha), short(&b_sha));
                (a_sha, text)
            };
            let (commits, change) = match (&early_log, early_diff) {
                // Both read already: nothing runs git, no thread is needed.
                (Some(log), Some(diff)) => (
                    Ok(subjects_in(log)),
                    repo.change_from(diff, &[&base, &b_sha], description, Some(base.clone())),
                ),
                (_, early_diff) => beside(
                    || match &early_log {
                        Some(out) => Ok(subjects_in(out)),
                        None => repo.subjects(&base, &b_sha),
                    },
                    || match early_diff {
                        Some(out) => {
                            repo.change_from(out, &[&base, &b_sha], description, Some(base.clone()))
                        }
                        None => repo.diff(&[&base, &b_sha], description, Some(base.clone())),
                    },
                ),
            };
            let mut change = change?;
            change.commits = commits?;
            Ok(finish(root, change, opts, named))
        }
        Scope::Union(parts) => {
            let change = super::combined::compute(root, parts, opts, named)?;
            Ok(finish(root, change, opts, named))
        }
        Scope::Commits(revs) => {
            let names: Vec<&str> = revs.iter().map(String::as_str).collect();
            let change = commits(&Repo::open(root, opts, scope, &names)?, revs)?;
            Ok(finish(root, change, opts, named))
        }
        Scope::Since(rev) => {
            check_rev(rev, "--since")?;
            let repo = Repo::open(root, opts, scope, &[rev])?;
            let base = repo.resolve(rev)?;
            let description = format!(
                "committed and uncommitted changes (staged, unstaged and untracked files) since {}",
                short(&base)
            );
            let (commits, change) = beside(
                || match &repo.head {
                    Some(head) => repo.subjects(&base, head),
                    None => Ok(Vec::new()),
                },
                || repo.diff(&[&base], description, Some(base.clone())),
            );
            let mut change = change?;
            change.commits = commits.unwrap_or_default();
            let nested = untracked::add(&repo.git, &repo.top, &repo.prefix, &mut change, opts)?;
            // What a commit or a push would take that the working tree no
            // longer shows: the session's commits, and the index.
            let (staged, committed) = beside(
                || repo.diff_staged(&base),
                || match &repo.head {
                    Some(head) if *head != base => {
                        repo.diff(&[&base, head], String::new(), None).map(Some)
                    }
                    _ => Ok(None),
                },
            );
            let mut layers = vec![(unshown::Layer::Staged, staged?)];
            layers.extend(committed?.map(|c| (unshown::Layer::Committed, c)));
            unshown::add(&mut change, layers);
            hidden::add(&repo.git, &repo.top, &base, &mut change, opts, &nested)?;
            flagged::add(&repo.git, &repo.top, &repo.prefix, &mut change, opts)?;
            Ok(finish(root, change, opts, named))
        }
        Scope::Uncommitted => {
            let repo = Repo::open(root, opts, scope, &[])?;
            let (base, against) = match &repo.head {
                Some(h) => (h.clone(), format!("against HEAD {}", short(h))),
                None => (
                    repo.empty_tree()?,
                    "in a repository with no commits yet".into(),
                ),
            };
            let description =
                format!("uncommitted changes (staged, unstaged and untracked files) {against}");
            let (change, staged) = beside(
                || repo.diff(&[&base], description, repo.head.clone()),
                || repo.diff_staged(&base),
            );
            let mut change = change?;
            let nested = untracked::add(&repo.git, &repo.top, &repo.prefix, &mut change, opts)?;
            // What `git commit` would take that the working tree no longer shows.
            unshown::add(&mut change, vec![(unshown::Layer::Staged, staged?)]);
            hidden::add(&repo.git, &repo.top, &base, &mut change, opts, &nested)?;
            flagged::add(&repo.git, &repo.top, &repo.prefix, &mut change, opts)?;
            Ok(finish(root, change, opts, named))
        }
    }
}

/// Each commit's own change against its first parent (the empty tree for a
/// root commit), concatenated; a path changed by several commits is listed
/// once with their hunks together (each hunk numbered in its own commit).
fn commits(repo: &Repo, revs: &[String]) -> Result<Change, ScopeError> {
    let mut parts: Vec<String> = Vec::new();
    let mut all: Option<Change> = None;
    for rev in revs {
        check_rev(rev, "--commit")?;
        let sha = repo.resolve(rev)?;
        let out = repo
            .git
            .ok(&["log", "-1", "--format=%P%x00%s", &sha, "--"], SMALL)?;
        let text = out.text();
        let (parents, subject) = text.trim_end().split_once('\0').unwrap_or((&text, ""));
        let parent = match parents.split_whitespace().next() {
            Some(p) => p.to_string(),
            None => repo.empty_tree()?,
        };
        parts.push(format!("{} “{}”", short(&sha), subject.trim()));
        let c = repo.diff(&[&parent, &sha], String::new(), Some(parent.clone()))?;
        all = Some(match all {
            None => c,
            Some(mut acc) => {
                merge_into(&mut acc, c);
                acc.base = None;
                acc
            }
        });
    }
    let word = if parts.len() == 1 {
        "commit"
    } else {
        "commits"
    };
    let mut change = all.ok_or_else(|| ScopeError::BadRevision {
        flag: "--commit",
        rev: String::new(),
        why: "give at least one commit".into(),
    })?;
    change.description = format!("{word} {}", parts.join(", "));
    Ok(change)
}

pub(super) fn merge_into(acc: &mut Change, next: Change) {
    for f in next.files {
        match acc.files.iter_mut().find(|a| a.path == f.path) {
            Some(a) => {
                a.additions = a.additions.saturating_add(f.additions);
                a.deletions = a.deletions.saturating_add(f.deletions);
                a.binary |= f.binary;
                a.hunks.extend(f.hunks);
            }
            None => acc.files.push(f),
        }
    }
    acc.patch.push_str(&next.patch);
    acc.truncated |= next.truncated;
}

/// Leaves crit's own files out (but those `named` names), keeps the shard
/// asked for, then cuts the patch to the cap, at a file boundary when it can.
fn finish(root: &Path, mut change: Change, opts: &ScopeOptions, named: &[String]) -> Change {
    own::leave_out(root, &mut change, named, &opts.env);
    super::ignore::leave_out(&mut change, &opts.ignore);
    if let Some(s) = opts.shard {
        shard::apply(&mut change, s);
    }
    if change.patch.len() > opts.max_patch_bytes {
        let sections = parse_patch(&change.patch);
        change.patch = cut_patch(&change.patch, &sections, opts.max_patch_bytes);
        change.truncated = true;
    }
    change
}

/// `a` on a thread of its own while `b` runs here: two independent git
/// commands at once instead of one after the other.
fn beside<A: Send, B>(
    a: impl FnOnce() -> Result<A, ScopeError> + Send,
    b: impl FnOnce() -> B,
) -> (Result<A, ScopeError>, B) {
    std::thread::scope(|s| {
        let a = s.spawn(a);
        let b = b();
        let a = a.join().unwrap_or_else(|_| {
            Err(ScopeError::GitUnavailable {
                reason: "the thread running git stopped".into(),
            })
        });
        (a, b)
    })
}
