//! The repository a scope is read from: opened with its revisions resolved,
//! and the git commands that read a change from it.

use std::path::{Path, PathBuf};

use crit_os::git::is_object_id;

use super::git::{Git, GitOutput, Opening};
use super::parse::{PatchSection, parse_counts, parse_listing, parse_patch};
use super::spec::check_rev;
use super::{Change, ChangedFile, Kind, Scope, ScopeError, ScopeOptions, binary};

/// Bytes kept of a small git answer (a sha, a ref name, a config listing).
pub(super) const SMALL: usize = 64 * 1024;

/// A diff's options: one run for both the NUL-separated listing (exact
/// names, statuses), an empty field, then the patch. The line counts come
/// from the patch's hunks: `--numstat` would diff every file a second time,
/// a quarter of git's time on the path of every review ([`COUNT_OPTIONS`]
/// asks for them only where the patch cannot say).
pub(super) const DIFF_OPTIONS: [&str; 7] = [
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
pub(super) const LOG_OPTIONS: &[&str] = &["--no-color", "-n", "50", "--format=%h %s"];

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
        let opening = Git::start_reading(root, opts.timeout, revs, &[], &opts.env);
        Repo::opened(root, opts, scope, revs, opening).map(|(repo, _)| repo)
    }

    /// [`Repo::open`], from the runs [`Git::start_reading`] started for the
    /// same `revs`: with the answers of its early reads of commits, `None`
    /// for each to run again (see [`Opening::finish`]).
    pub(super) fn opened(
        root: &Path,
        opts: &ScopeOptions,
        scope: &Scope,
        revs: &[&str],
        opening: Opening,
    ) -> Result<(Repo, Vec<Option<GitOutput>>), ScopeError> {
        // One rev-parse, beside the config read or the early reads: where
        // the repository is, HEAD and `revs`; a failure (an unborn HEAD, an
        // unknown rev) still prints what came before it.
        let (git, out, read) = opening.finish();
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

    pub(super) fn head_or(&self, what: impl FnOnce() -> String) -> Result<String, ScopeError> {
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
    pub(super) fn preferred_base(&self, rev: &str) -> Result<(String, String), ScopeError> {
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

    pub(super) fn merge_base(
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
    pub(super) fn log_subjects(&self, revs: &str) -> Result<Vec<String>, ScopeError> {
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

    pub(super) fn diff_with(
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
    pub(super) fn change_from(
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
    pub(super) fn count_lines(
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

/// `short-hash subject` lines of a log, screened.
pub(super) fn subjects_in(out: &GitOutput) -> Vec<String> {
    out.text()
        .lines()
        .map(|l| crit_core::screen::neutralize(l.trim()).0)
        .filter(|l| !l.is_empty())
        .collect()
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
