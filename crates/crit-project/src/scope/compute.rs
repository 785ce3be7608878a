//! [`compute`]: from a [`Scope`] to a [`Change`], with git.

use std::path::{Path, PathBuf};

use crit_os::git::is_object_id;

use crit_os::git::EarlyRead;

use super::git::{Git, GitOutput};
use super::parse::{PatchSection, cut_patch, parse_counts, parse_listing, parse_patch};
use super::spec::{check_rev, short, split_range};
use super::{
    Change, ChangedFile, Kind, Scope, ScopeError, ScopeOptions, binary, files, flagged, hidden,
    own, shard, unshown, untracked,
};

/// Bytes kept of a small git answer (a sha, a ref name, a config listing).
const SMALL: usize = 64 * 1024;

/// A diff's options: one run for both the NUL-separated listing (exact
/// names, statuses), an empty field, then the patch. The line counts come
/// from the patch's hunks: `--numstat` would diff every file a second time,
/// a quarter of git's time on the path of every review ([`COUNT_OPTIONS`]
/// asks for them only where the patch cannot say).
const DIFF_OPTIONS: [&str; 7] = [
    "--no-color",
    "--ignore-submodules=dirty",
    "-M",
    "--raw",
    "-z",
    "-p",
    "-U3",
];

/// The line counts alone, of the same diff as [`DIFF_OPTIONS`]: for files
/// whose hunks the patch does not hold (binary content withheld, output past
/// its cap).
const COUNT_OPTIONS: [&str; 5] = [
    "--no-color",
    "--ignore-submodules=dirty",
    "-M",
    "--numstat",
    "-z",
];

/// The commits' subjects: newest first, at most 50.
const LOG_OPTIONS: &[&str] = &["--no-color", "-n", "50", "--format=%h %s"];

/// Computes what `scope` covers in the project at `root`. `Survey` and `Files`
/// work without git; the others need a repository (and, except
/// `Uncommitted`, a commit). crit's own files ([`super::OwnFiles`]) are left
/// out, except those a `--files` glob names.
pub fn compute(root: &Path, scope: &Scope, opts: &ScopeOptions) -> Result<Change, ScopeError> {
    compute_naming(root, scope, opts, &[])
}

/// [`compute`], keeping the own files `named` (the globs of an enclosing
/// `Within`) names.
pub(super) fn compute_naming(
    root: &Path,
    scope: &Scope,
    opts: &ScopeOptions,
    named: &[String],
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
            // commits as the rev-parse beside them does, at the same moment).
            let paths = ["."];
            let early = match symmetric {
                true => Vec::new(),
                false => vec![
                    EarlyRead::Diff {
                        options: &DIFF_OPTIONS,
                        from: &a,
                        to: &b,
                        paths: &paths,
                        text: true,
                        cap: opts.max_git_output_bytes,
                    },
                    EarlyRead::Log {
                        options: LOG_OPTIONS,
                        from: &a,
                        to: &b,
                        cap: SMALL,
                    },
                ],
            };
            let (repo, mut read) = Repo::open_reading(root, opts, scope, &[&b, &a], &early)?;
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

/// A git repository containing the project root.
pub(super) struct Repo {
    pub git: Git,
    pub top: PathBuf,
    pub prefix: String,
    pub head: Option<String>,
    /// Revisions resolved when the repository was opened, and their commits.
    resolved: Vec<(String, String)>,
    pub opts: ScopeOptions,
}

impl Repo {
    /// Opens the repository at `root` (its filter drivers and attribute
    /// files neutralised, see [`Git::new`]), resolving `revs` (checked not
    /// to look like options) in the same git run, for [`Repo::resolve`].
    pub(super) fn open(
        root: &Path,
        opts: &ScopeOptions,
        scope: &Scope,
        revs: &[&str],
    ) -> Result<Repo, ScopeError> {
        Repo::open_reading(root, opts, scope, revs, &[]).map(|(repo, _)| repo)
    }

    /// [`Repo::open`], with `early` reads of commits run beside it: their
    /// answers, `None` for each to run again (see [`Git::new_reading`]).
    fn open_reading(
        root: &Path,
        opts: &ScopeOptions,
        scope: &Scope,
        revs: &[&str],
        early: &[EarlyRead<'_>],
    ) -> Result<(Repo, Vec<Option<GitOutput>>), ScopeError> {
        // One run, beside the config read: where the repository is, HEAD and
        // `revs`; a failure (an unborn HEAD, an unknown rev) still prints
        // what came before it.
        let (git, out, read) = Git::new_reading(root, opts.timeout, revs, early, &opts.env);
        let out = out?;
        let text = out.text();
        let lines: Vec<&str> = text.lines().collect();
        let (top, prefix, head) = match lines.as_slice() {
            [top, prefix, rest @ ..] if Path::new(top).is_absolute() => {
                let head = rest.first().filter(|h| is_object_id(h));
                (*top, *prefix, head.map(|h| h.to_string()))
            }
            _ if !git.in_repository() => {
                return Err(ScopeError::NotARepository {
                    root: root.to_path_buf(),
                    scope: scope.describe(),
                });
            }
            _ => {
                return Err(ScopeError::Git {
                    command: "git rev-parse --show-toplevel".into(),
                    message: out.stderr.trim().to_string(),
                });
            }
        };
        // Each rev's commit follows HEAD and `--end-of-options`; anything
        // else (a failed run) leaves them to `resolve`, which says why.
        // git stops at the first rev it cannot resolve: those before it
        // are still known.
        let resolved = match lines.get(3..) {
            Some([marker, shas @ ..]) if *marker == "--end-of-options" && head.is_some() => revs
                .iter()
                .zip(shas.iter().take_while(|s| is_object_id(s)))
                .map(|(r, s)| (r.to_string(), s.to_string()))
                .collect(),
            _ => Vec::new(),
        };
        let (top, prefix) = (PathBuf::from(top), prefix.to_string());
        let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
        if !canon(root).starts_with(canon(&top)) {
            return Err(ScopeError::WorkTreeOutside {
                top,
                root: root.to_path_buf(),
            });
        }
        let repo = Repo {
            git,
            top,
            prefix,
            head,
            resolved,
            opts: opts.clone(),
        };
        Ok((repo, read))
    }

    fn head_or(&self, what: impl FnOnce() -> String) -> Result<String, ScopeError> {
        self.head
            .clone()
            .ok_or_else(|| ScopeError::NoCommits { what: what() })
    }

    /// The commit `rev` names; `rev` was checked not to look like an option.
    pub(super) fn resolve(&self, rev: &str) -> Result<String, ScopeError> {
        if let Some((_, sha)) = self.resolved.iter().find(|(r, _)| r == rev) {
            return Ok(sha.clone());
        }
        let spec = format!("{rev}^{{commit}}");
        let out = self.git.run(
            &["rev-parse", "--verify", "-q", "--end-of-options", &spec],
            SMALL,
        )?;
        if out.success() {
            return Ok(out.text().trim().to_string());
        }
        if self.head.is_none() {
            return Err(ScopeError::NoCommits {
                what: format!("`{rev}`"),
            });
        }
        Err(ScopeError::UnknownRevision {
            rev: rev.to_string(),
        })
    }

    /// `rev`, or its upstream when the upstream has commits `rev` lacks (a
    /// local `main` behind `origin/main`), like Codex's review against a base
    /// branch. Returns the name used and its commit.
    fn preferred_base(&self, rev: &str) -> Result<(String, String), ScopeError> {
        // One run for REF, its upstream and the upstream's name (rev-parse
        // applies options to the arguments after them); it fails when REF has
        // no upstream. `rev` was checked not to start with `-`.
        let (commit, up) = (format!("{rev}^{{commit}}"), format!("{rev}@{{upstream}}"));
        let up_commit = format!("{up}^{{commit}}");
        let out = self.git.run(
            &[
                "rev-parse",
                &commit,
                &up_commit,
                "--abbrev-ref",
                "--symbolic-full-name",
                &up,
                "--",
            ],
            SMALL,
        )?;
        let text = out.text();
        let (sha, up_sha, name) = match text.lines().collect::<Vec<_>>()[..] {
            [sha, up_sha, name, ..] if out.success() && check_rev(name, "--diff").is_ok() => {
                (sha.to_string(), up_sha.to_string(), name.to_string())
            }
            _ => return Ok((rev.to_string(), self.resolve(rev)?)),
        };
        let range = format!("{sha}...{up_sha}");
        let counts = self.git.ok(
            &["rev-list", "--left-right", "--count", &range, "--"],
            SMALL,
        )?;
        let ahead = counts
            .text()
            .split_whitespace()
            .nth(1)
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or(0);
        if ahead > 0 {
            tracing::debug!(rev, upstream = %name, ahead, "diff base: upstream is ahead");
            Ok((name, up_sha))
        } else {
            Ok((rev.to_string(), sha))
        }
    }

    fn merge_base(
        &self,
        a: &str,
        b: &str,
        a_name: &str,
        b_name: &str,
    ) -> Result<String, ScopeError> {
        let out = self.git.run(&["merge-base", a, b], SMALL)?;
        match (out.success(), out.status.and_then(|s| s.code())) {
            (true, _) => Ok(out.text().trim().to_string()),
            (false, Some(1)) if out.stderr.trim().is_empty() => Err(ScopeError::NoMergeBase {
                a: a_name.to_string(),
                b: b_name.to_string(),
            }),
            _ => Err(ScopeError::Git {
                command: format!("git merge-base {a} {b}"),
                message: out.stderr.trim().to_string(),
            }),
        }
    }

    /// `short-hash subject` of the commits from `base` (excluded) to `head`,
    /// newest first, at most 50: what the author meant, for the reviewers.
    pub(super) fn subjects(&self, base: &str, head: &str) -> Result<Vec<String>, ScopeError> {
        self.log_subjects(&format!("{base}..{head}"))
    }

    /// The same for `revs` as `git log` takes them (`A..B`, or a commit and
    /// its ancestors).
    fn log_subjects(&self, revs: &str) -> Result<Vec<String>, ScopeError> {
        let mut args = vec!["log"];
        args.extend(LOG_OPTIONS);
        args.extend([revs, "--"]);
        Ok(subjects_in(&self.git.ok(&args, SMALL)?))
    }

    /// The empty tree's id in this repository's hash (the base of a root commit).
    pub(super) fn empty_tree(&self) -> Result<String, ScopeError> {
        self.git.empty_tree()
    }

    /// `git diff REVS --`: one tree-ish compares with the working tree, two
    /// with each other. Files from the NUL listing, hunks from the patch; the
    /// patch is not cut yet ([`finish`] does).
    pub(super) fn diff(
        &self,
        revs: &[&str],
        description: String,
        base: Option<String>,
    ) -> Result<Change, ScopeError> {
        self.diff_with(&[], revs, description, base)
    }

    /// What `git commit` would take: `base` against the index.
    pub(super) fn diff_staged(&self, base: &str) -> Result<Change, ScopeError> {
        self.diff_with(&["--cached"], &[base], String::new(), None)
    }

    fn diff_with(
        &self,
        options: &[&str],
        revs: &[&str],
        description: String,
        base: Option<String>,
    ) -> Result<Change, ScopeError> {
        // Every file as text (`--text`, in `Git::diff`): crit, not an
        // attribute or git's NUL test, decides what is binary.
        let args: Vec<&str> = DIFF_OPTIONS
            .iter()
            .chain(options)
            .chain(revs)
            // Only the project: when its root is below the repository's top
            // (a home kept in git), the rest of the repository is not shown.
            .chain(&["--", "."])
            .copied()
            .collect();
        let out = self.git.diff(&args, self.opts.max_git_output_bytes)?;
        let diffed: Vec<&str> = options.iter().chain(revs).copied().collect();
        self.change_from(out, &diffed, description, base)
    }

    /// The change a `git diff DIFF_OPTIONS DIFFED -- .` answered.
    fn change_from(
        &self,
        out: GitOutput,
        diffed: &[&str],
        description: String,
        base: Option<String>,
    ) -> Result<Change, ScopeError> {
        let cap = self.opts.max_git_output_bytes;
        let split = out.stdout.windows(2).position(|w| w == [0, 0]);
        let (listing, patch) = match split {
            Some(i) => (&out.stdout[..i + 1], &out.stdout[i + 2..]),
            None => (&out.stdout[..], &[][..]),
        };
        let bad = |reason: String| ScopeError::GitOutput {
            command: format!("git diff {}", DIFF_OPTIONS.join(" ")),
            reason,
        };
        if split.is_none() && out.overflowed {
            return Err(bad(format!(
                "the list of changed files is larger than {cap} bytes"
            )));
        }
        let mut files = parse_listing(listing).map_err(|e| bad(e.to_string()))?;
        let text = binary::patch_text(patch);
        let sections = parse_patch(&text);
        let counted = attach_hunks(&mut files, &text, &sections);
        // Cut output: the last section may be cut in a hunk, so git counts
        // them all.
        if out.overflowed || counted.contains(&false) {
            let recount: Vec<bool> = counted.iter().map(|c| out.overflowed || !c).collect();
            self.count_lines(&mut files, &recount, diffed)?;
        }
        Ok(Change {
            description,
            base,
            files,
            truncated: out.overflowed,
            patch: text,
            notes: Vec::new(),
            shard: None,
            commits: Vec::new(),
            part: None,
            screened: Vec::new(),
            ignored: Vec::new(),
            hidden: Vec::new(),
            kind: Kind::Diff,
            prefix: self.prefix.clone(),
        })
    }
}

impl Repo {
    /// Each file's line counts from `git diff --numstat` of the same diff
    /// (`diffed`): for the files the patch holds no hunks of, and for every
    /// file when the output was cut.
    fn count_lines(
        &self,
        files: &mut [ChangedFile],
        recount: &[bool],
        diffed: &[&str],
    ) -> Result<(), ScopeError> {
        let args: Vec<&str> = COUNT_OPTIONS
            .iter()
            .chain(diffed)
            .chain(&["--", "."])
            .copied()
            .collect();
        let out = self.git.diff(&args, self.opts.max_git_output_bytes)?;
        let counts = parse_counts(&out.stdout).map_err(|e| ScopeError::GitOutput {
            command: format!("git diff {}", COUNT_OPTIONS.join(" ")),
            reason: e.to_string(),
        })?;
        for (f, _) in files.iter_mut().zip(recount).filter(|(_, r)| **r) {
            if let Some((add, del)) = counts.get(f.path.as_str()) {
                f.additions = *add;
                f.deletions = *del;
            }
        }
        Ok(())
    }
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

/// `short-hash subject` lines of a log, screened.
fn subjects_in(out: &GitOutput) -> Vec<String> {
    out.text()
        .lines()
        .map(|l| crit_core::screen::neutralize(l.trim()).0)
        .filter(|l| !l.is_empty())
        .collect()
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

/// The n-th patch section is the n-th listed file (same diff, same order).
/// Returns, file by file, whether its line counts are known from its hunks.
/// That is checked against each section's `diff --git a/OLD b/NEW` line where
/// it is plain (git quotes paths with quotes, backslashes or control
/// characters); on any disagreement, sections go to files by that line alone.
fn attach_hunks(files: &mut [ChangedFile], text: &str, sections: &[PatchSection]) -> Vec<bool> {
    let header = |s: &PatchSection| {
        text.get(s.range.clone())
            .and_then(|t| t.lines().next())
            .unwrap_or_default()
            .to_string()
    };
    let expected = |f: &ChangedFile| {
        let old = f.old_path.as_deref().unwrap_or(&f.path);
        format!("diff --git a/{old} b/{}", f.path)
    };
    let aligned = sections.len() <= files.len()
        && files.iter().zip(sections).all(|(f, s)| {
            let h = header(s);
            h.contains('"') || h == expected(f)
        });
    let binary = |s: &PatchSection| {
        text.get(s.range.clone())
            .is_some_and(binary::is_binary_section)
    };
    let mut counted = vec![false; files.len()];
    if aligned {
        for ((f, s), c) in files.iter_mut().zip(sections).zip(&mut counted) {
            *c = take_section(f, s, binary(s));
        }
        return counted;
    }
    tracing::warn!("git's patch and file list disagree; matching sections by their headers");
    for s in sections {
        let h = header(s);
        if let Some(i) = files.iter().position(|f| expected(f) == h) {
            counted[i] = take_section(&mut files[i], s, binary(s));
        }
    }
    counted
}

/// A file's section: its hunks, and whether crit reads it as binary (never
/// git's say: an attribute crit cannot switch off, `-diff` in
/// `.git/info/attributes`, would make git call text binary). A text
/// section's line counts are its hunks'; `false` when they are not known
/// (binary content, withheld).
fn take_section(f: &mut ChangedFile, s: &PatchSection, section_binary: bool) -> bool {
    f.hunks = s.hunks.clone();
    f.binary = section_binary;
    if section_binary {
        return false;
    }
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    f.additions = f.hunks.iter().map(|h| count(h.added.len())).sum();
    f.deletions = f
        .hunks
        .iter()
        .map(|h| {
            let context = h.new_lines.saturating_sub(count(h.added.len()));
            h.old_lines.saturating_sub(context)
        })
        .sum();
    true
}
