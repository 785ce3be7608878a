//! The flags only code reviews take, beyond the template's inputs (`--diff`,
//! `--files`): commits, uncommitted changes, the author's notes, the noise
//! controls pipelines need, posting to the pull request, and applying the
//! suggestions.

use std::path::PathBuf;

use anyhow::anyhow;
use clap::{Arg, ArgAction, ArgMatches, Args, FromArgMatches};
use crit_core::shard::Shard;
use crit_project::scope::FilterMode;
use crit_review::template::{Builder, PromptSource, Template};

use crate::cli::PostArgs;
use crate::exit::CliError;

const COMMIT: &str = "commit";
const UNCOMMITTED: &str = "uncommitted";
const ALL: &str = "all";
const CONTEXT: &str = "context";
const FILTER: &str = "filter";
const MAX_FINDINGS: &str = "max-findings";
const SHARD: &str = "shard";
const MAX_CHUNKS: &str = "max-chunks";
const ALLOW_PARTIAL: &str = "allow-partial";
const NO_CACHE: &str = "no-cache";
const DESCRIBE: &str = "describe";
const FIX: &str = "fix";
const FIX_DIRTY: &str = "fix-dirty";

/// Whether `template` reviews code (the built-in `code` builder).
pub fn is_code(template: &Template) -> bool {
    matches!(template.prompt, PromptSource::Builder(Builder::Code))
}

pub fn augment(cmd: clap::Command) -> clap::Command {
    let heading = "Code review";
    super::answers::augment(PostArgs::augment_args(cmd)).arg(
        Arg::new(COMMIT)
            .long(COMMIT)
            .value_name("SHA")
            .action(ArgAction::Append)
            .help("Review this commit's own change (repeatable)")
            .help_heading(heading),
    )
    .arg(
        Arg::new(UNCOMMITTED)
            .long(UNCOMMITTED)
            .action(ArgAction::SetTrue)
            .help("Review staged, unstaged and untracked changes")
            .help_heading(heading),
    )
    .arg(
        Arg::new(ALL)
            .long(ALL)
            .action(ArgAction::SetTrue)
            .conflicts_with_all([COMMIT, UNCOMMITTED])
            .help("Review the whole project rather than a change (outside a git repository a review needs this or --files)")
            .help_heading(heading),
    )
    .arg(
        Arg::new(CONTEXT)
            .long(CONTEXT)
            .value_name("FILE")
            .help("The author's notes on the change (intent, task), given to the reviewer")
            .help_heading(heading),
    )
    .arg(
        Arg::new(FILTER)
            .long(FILTER)
            .value_name("MODE")
            .value_parser(["added", "diff_context", "file", "nofilter"])
            .help("Keep only findings on added lines, in hunks, or in changed files [default: nofilter]")
            .help_heading(heading),
    )
    .arg(
        Arg::new(MAX_FINDINGS)
            .long(MAX_FINDINGS)
            .value_name("N")
            .value_parser(clap::value_parser!(usize))
            .help("Report at most N findings, the most severe first")
            .help_heading(heading),
    )
    .arg(
        Arg::new(SHARD)
            .long(SHARD)
            .value_name("I/N")
            .value_parser(|s: &str| s.parse::<Shard>())
            .help("Review the I-th of N parts of the change's files (balanced by diff size, the same split on every run); `crit report merge` folds the N results")
            .help_heading(heading),
    )
    .arg(
        Arg::new(MAX_CHUNKS)
            .long(MAX_CHUNKS)
            .value_name("N")
            .value_parser(clap::value_parser!(usize))
            .help("A change too big for one request is split into parts reviewed side by side: at most N of them [default: as many as the change needs, until the budget is spent]; what is left over is listed in the coverage and the review is INCOMPLETE")
            .help_heading(heading),
    )
    .arg(
        Arg::new(ALLOW_PARTIAL)
            .long(ALLOW_PARTIAL)
            .action(ArgAction::SetTrue)
            .help("Accept a review that could not see all of the change (a budget or --max-chunks left parts out): the coverage says what, the verdict is not held at INCOMPLETE")
            .help_heading(heading),
    )
    .arg(
        Arg::new(NO_CACHE)
            .long(NO_CACHE)
            .action(ArgAction::SetTrue)
            .help("Review every hunk again, instead of leaving out the hunks an earlier review found nothing in (unchanged since)")
            .help_heading(heading),
    )
    .arg(
        Arg::new(DESCRIBE)
            .long(DESCRIBE)
            .action(ArgAction::SetTrue)
            .conflicts_with("since_last_review")
            .help("Write the change's pull-request description (a title, a summary, a walkthrough per file, the risks) instead of reviewing it; with --post, into the section of the description crit owns, the author's text left alone")
            .help_heading(heading),
    )
    .arg(
        Arg::new(FIX)
            .long(FIX)
            .action(ArgAction::SetTrue)
            .conflicts_with(DESCRIBE)
            .help("Apply the suggestions the review offered to the files in the working tree, and say which files changed; a file with changes not committed is left alone")
            .help_heading(heading),
    )
    .arg(
        Arg::new(FIX_DIRTY)
            .long(FIX_DIRTY)
            .action(ArgAction::SetTrue)
            .requires(FIX)
            .help("With --fix, apply suggestions to files with changes not committed too")
            .help_heading(heading),
    )
}

/// What the code flags asked for.
#[derive(Debug, Default)]
pub struct CodeFlags {
    pub commits: Vec<String>,
    pub uncommitted: bool,
    /// `--all`: the whole project, not a change.
    pub all: bool,
    pub context: Option<PathBuf>,
    pub filter: Option<FilterMode>,
    pub max_findings: Option<usize>,
    pub shard: Option<Shard>,
    pub max_chunks: Option<usize>,
    pub allow_partial: bool,
    pub no_cache: bool,
    /// `--describe`: a description instead of a review.
    pub describe: bool,
    /// `--fix`: apply the offered suggestions to the working tree.
    pub fix: bool,
    /// `--fix-dirty`: also to files with changes not committed.
    pub fix_dirty: bool,
    pub post: PostArgs,
    /// How to answer in crit's threads before a `--post` review (flags).
    pub respond: crit_project::config::respond::RespondConfig,
}

impl CodeFlags {
    pub fn from_matches(template: &Template, m: &ArgMatches) -> Result<CodeFlags, CliError> {
        if !is_code(template) {
            return Ok(CodeFlags::default());
        }
        let filter = match m.get_one::<String>(FILTER) {
            Some(f) => Some(
                f.parse::<FilterMode>()
                    .map_err(|e| CliError::usage(anyhow!("--filter {f}: {e}")))?,
            ),
            None => None,
        };
        Ok(CodeFlags {
            commits: m
                .get_many::<String>(COMMIT)
                .map(|v| v.cloned().collect())
                .unwrap_or_default(),
            uncommitted: m.get_flag(UNCOMMITTED),
            all: m.get_flag(ALL),
            context: m.get_one::<String>(CONTEXT).map(PathBuf::from),
            filter,
            max_findings: m.get_one::<usize>(MAX_FINDINGS).copied(),
            shard: m.get_one::<Shard>(SHARD).copied(),
            max_chunks: m.get_one::<usize>(MAX_CHUNKS).copied(),
            allow_partial: m.get_flag(ALLOW_PARTIAL),
            no_cache: m.get_flag(NO_CACHE),
            describe: m.get_flag(DESCRIBE),
            fix: m.get_flag(FIX),
            fix_dirty: m.get_flag(FIX_DIRTY),
            post: PostArgs::from_arg_matches(m).map_err(|e| CliError::usage(anyhow!("{e}")))?,
            respond: super::answers::flags(m),
        })
    }
}
