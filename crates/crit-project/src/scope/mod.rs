//! What a code review looks at: the diff (or files) under review, computed with a hardened git subprocess.
//!
//! [`Scope`] is what the user asked for (`--diff`, `--commit`, `--uncommitted`,
//! `--files`, or nothing); [`compute`] turns it into a [`Change`]: the changed
//! files with their hunks and a capped patch for the prompt. [`Change::filter`]
//! and [`Change::mark`] then judge findings against the change with reviewdog's
//! filter modes, and [`Change::is_empty`] lets a caller pass an empty diff
//! without asking a model (mala's reviewer R1).

mod base;
pub mod binary;
pub mod chunk;
mod combined;
mod compute;
mod files;
mod filter;
mod flagged;
mod git;
mod hidden;
mod ignore;
pub mod installed;
mod own;
pub mod own_agents;
mod parse;
mod reading;
mod repo;
pub(crate) mod revision;
mod session_files;
mod shard;
mod spec;
pub mod units;
mod unshown;
mod untracked;

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

pub use base::{Chosen, branch_scope, push_scope};
pub use compute::compute;
pub use filter::FilterMode;
pub use ignore::check_globs as check_ignore_globs;
pub use own::{CRIT_GITIGNORE, INSTALL_LEDGER, OwnFiles, SESSION_FILES};
pub use parse::parse_hunk_header;
pub use parse::{PatchSection, parse_patch};
pub use reading::{Reading, Taken};
pub use revision::Revision;
pub use session_files::session_dir_name;
pub use spec::Scope;

/// The change under review, as the prompt and the finding filters see it.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    /// What is under review, for the prompt, with the resolved base
    /// ("changes since merge base 1a2b3c4 with origin/main").
    pub description: String,
    /// The resolved base commit, when there is one.
    pub base: Option<String>,
    /// Every changed (or selected) file, also those the patch leaves out.
    pub files: Vec<ChangedFile>,
    /// Unified diff text for the prompt, at most `max_patch_bytes`.
    pub patch: String,
    /// The patch was cut at the cap; `files` stays complete.
    pub truncated: bool,
    /// What was left out and why (binary or huge untracked files).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// `I/N` when this is one shard of the change (`--shard`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// `hash subject` of the commits a range or a branch holds, newest
    /// first (at most 50): what the author meant to do.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub commits: Vec<String>,
    /// `I/N` when this is one part of a change too big for one request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
    /// Where screening found hidden text or text addressed to reviewers.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub screened: Vec<String>,
    /// Files the user's `ignore` globs left out of the change, each listed
    /// in the review's coverage: never reviewed, never silently passed.
    #[serde(skip)]
    pub ignored: Vec<Ignored>,
    /// Files git hides from an uncommitted change that the base revision's
    /// ignore rules do not ignore, and repositories of their own: no
    /// reviewer reads them, so the coverage lists each and the gate holds.
    #[serde(skip)]
    pub hidden: Vec<Hidden>,
    #[serde(skip)]
    kind: Kind,
    /// Where the project root sits in the repository (`sub/` or empty): git
    /// names files from the top, findings name them from the root.
    #[serde(skip)]
    prefix: String,
}

#[derive(Debug, Clone)]
enum Kind {
    Survey,
    Diff,
    Files(files::Selector),
}

/// One file of the change.
#[derive(Debug, Clone, Serialize)]
pub struct ChangedFile {
    /// Path from the repository's top (from the project root for `--files`),
    /// `/`-separated; the new path of a rename.
    pub path: String,
    /// The old path of a rename or the source of a copy.
    pub old_path: Option<String>,
    pub status: FileStatus,
    pub additions: u32,
    pub deletions: u32,
    pub binary: bool,
    #[serde(skip)]
    pub hunks: Vec<Hunk>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    Added,
    Modified,
    Deleted,
    Renamed,
    Copied,
    TypeChanged,
    /// Not tracked by git yet (`--uncommitted`): a whole-file addition.
    Untracked,
    /// Picked by `--files`: no change, the reviewer reads the file.
    Selected,
}

/// One hunk of a file's diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    pub old_start: u32,
    pub old_lines: u32,
    pub new_start: u32,
    pub new_lines: u32,
    /// New-file line numbers of the added lines.
    pub added: Vec<u32>,
}

/// A file of the change an `ignore` glob left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ignored {
    /// From the project root, `/`-separated.
    pub path: String,
    pub hunks: u32,
    /// Lines the change adds to it.
    pub additions: u32,
    /// The first glob that matched it.
    pub glob: String,
}

/// A file (or a directory, ending in `/`) git does not show in the change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hidden {
    /// From the project root, `/`-separated.
    pub path: String,
    /// Why no reviewer saw it, for people.
    pub reason: String,
}

/// Limits of [`compute`].
#[derive(Debug, Clone, PartialEq)]
pub struct ScopeOptions {
    /// Cap of [`Change::patch`]; default 200,000 bytes. A review splits a
    /// bigger change into parts instead, and computes it uncut.
    pub max_patch_bytes: usize,
    /// Per git call; git is killed past it. Default 30 s.
    pub timeout: Duration,
    /// Untracked files larger than this are listed but not shown. Default 1 MiB.
    pub max_untracked_bytes: u64,
    /// Bytes of one git call's output read at most (hunks past it are not
    /// known, the change is marked truncated). Default 64 MiB.
    pub max_git_output_bytes: usize,
    /// Review only this part of the change's files (`--shard I/N`), chosen
    /// before the patch is cut to its cap. Default: the whole change.
    pub shard: Option<crit_core::shard::Shard>,
    /// Globs (from the project root, as `--files` takes them) of files left
    /// out of the change and listed in [`Change::ignored`]: only ever the
    /// user's own decision, from trusted settings or `--ignore`.
    pub ignore: Vec<String>,
    /// The environment the front end read: git sees its PATH, HOME and
    /// XDG_CONFIG_HOME (the user's own git config), nothing else. Default:
    /// none (git from the standard PATH, no user config).
    pub env: crit_os::Env,
}

impl Default for ScopeOptions {
    fn default() -> Self {
        ScopeOptions {
            max_patch_bytes: 200_000,
            timeout: Duration::from_secs(30),
            max_untracked_bytes: 1024 * 1024,
            max_git_output_bytes: 64 * 1024 * 1024,
            shard: None,
            ignore: Vec::new(),
            env: crit_os::Env::new(),
        }
    }
}

impl Change {
    /// Nothing to review: a diff with no changed file (`HEAD..HEAD`, empty
    /// commits). A survey is never empty.
    pub fn is_empty(&self) -> bool {
        !matches!(self.kind, Kind::Survey) && self.files.is_empty()
    }

    pub fn paths(&self) -> Vec<&str> {
        self.files.iter().map(|f| f.path.as_str()).collect()
    }

    /// A path as git names it (from the repository's top) as the project root
    /// names it, the way findings do.
    pub fn path_from_root<'a>(&self, from_top: &'a str) -> &'a str {
        from_top
            .strip_prefix(self.prefix.as_str())
            .unwrap_or(from_top)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ScopeError {
    #[error(
        "`{first}` and `{second}` cannot be used together: a review has one scope; pick one of \
         --diff, --commit, --uncommitted, --files (or none to survey the whole project)"
    )]
    Conflict {
        first: &'static str,
        second: &'static str,
    },
    #[error("`{flag} {rev}` is not a usable revision: {why}")]
    BadRevision {
        flag: &'static str,
        rev: String,
        why: String,
    },
    #[error(
        "unknown revision `{rev}`: no branch, tag or commit has this name here; list branches \
         with `git branch -a` (a remote branch may need `git fetch` first)"
    )]
    UnknownRevision { rev: String },
    #[error(
        "this repository has no commits yet, so {what} has nothing to compare with; \
         `--uncommitted` reviews the files you have added and changed"
    )]
    NoCommits { what: String },
    #[error(
        "`{a}` and `{b}` have no common ancestor, so there is no merge base to diff from; \
         give an explicit range such as `{a}..{b}`"
    )]
    NoMergeBase { a: String, b: String },
    #[error(
        "`{}` is not inside a git repository, so {scope} cannot be computed; `--files GLOB` \
         or no scope at all (survey the project) work without git",
        root.display()
    )]
    NotARepository { root: PathBuf, scope: String },
    #[error(
        "refused: this repository's work tree is `{}`, which does not contain the project root \
         `{}` (a `core.worktree` setting?)",
        top.display(), root.display()
    )]
    WorkTreeOutside { top: PathBuf, root: PathBuf },
    #[error("`--files {glob}` is not a usable pattern: {reason}")]
    BadGlob { glob: String, reason: String },
    #[error(
        "no file matches {globs}: check the pattern (`*` stays inside one directory, `**` \
         crosses them; `git ls-files` lists tracked files)"
    )]
    NoFilesMatch { globs: String },
    #[error(
        "cannot run `git`: {reason}; install git or put it on PATH (`--files` and surveying \
         the project work without it)"
    )]
    GitUnavailable { reason: String },
    #[error("`{command}` took longer than {secs} s and was killed; raise the timeout")]
    GitTimeout { command: String, secs: f64 },
    #[error("`{command}` failed: {message}")]
    Git { command: String, message: String },
    #[error("`{command}` printed output crit could not read: {reason}")]
    GitOutput { command: String, reason: String },
    #[error("cannot read `{}`: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "`--shard {shard}` splits a change's files, and a review of the whole project has none; \
         give --diff, --commit, --uncommitted or --files (or drop --shard)"
    )]
    ShardWithoutChange { shard: String },
    #[error("unknown filter mode `{given}`: use added, diff_context, file or nofilter")]
    FilterMode { given: String },
}
