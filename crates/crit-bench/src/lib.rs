//! What crit's reviews are worth, measured. `stats` is `crit stats`: the
//! history of every review kind, read from the audit logs. The rest is
//! review quality (`crit bench`), the way the Martian Code Review Bench
//! measures review tools: a labeled corpus of pull requests with golden
//! comments, crit's code review of each, and an LLM judge deciding for
//! each (golden comment, finding) pair whether they identify the same
//! underlying issue; then precision, recall and F1 overall, per severity and
//! per case, for several configurations side by side. `martian` reproduces
//! the benchmark's own leaderboard arithmetic and judge, replays its
//! recorded data, and exports crit's findings in its `candidates.json`
//! shape. `import` turns the public benchmark's files into a corpus; `mine`
//! measures, with no model, how often findings in the user's own history
//! were acted on.
//!
//! A case whose review did not finish, or whose judge could not decide a
//! pair, is INCOMPLETE: it is in no score, never counted as matched or
//! missed.
//!
//! Built over `crit_review`'s public API: each case is reviewed with
//! `crit_review::review::run_template`, the judge runs on its panel, and
//! `mine` reads the audit lines its sessions write.

// A library never writes to the terminal: what it has to say goes to its caller.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![warn(unreachable_pub)]

mod cache;
mod case;
mod config;
mod corpus;
pub mod import;
mod judge;
pub mod learn;
pub mod martian;
mod matching;
pub mod mine;
mod render;
mod report;
mod run;
mod score;
pub mod stats;

use std::path::PathBuf;

pub use cache::JudgeCache;
pub use config::{BenchConfig, distinct_names};
pub use corpus::{CASES_DIR, Case, CaseSpec, Corpus, Golden, GoldenComment};
pub use judge::{Asked, JUDGE, Judge, JudgeStyle, Judgement, Undecided, strongest};
pub use matching::{Candidate, one_to_one};
pub use render::terminal;
pub use report::{
    BENCH_SCHEMA_VERSION, BenchReport, CaseCandidate, CaseReport, CaseStatus, ConfigReport,
    ConfigSettings, JudgeInfo, JudgeSpend, Match, Scoring, ScoringBlock, Spend, schema,
};
pub use run::{BenchOptions, BenchProgress, Configured, run_bench};
pub use score::{Level, LevelScore, Score};

/// Why a benchmark could not start (anything that goes wrong in a case
/// makes that case INCOMPLETE instead).
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("the corpus {}: {reason}", dir.display())]
    Corpus { dir: PathBuf, reason: String },
    #[error("{}: {reason}", path.display())]
    CaseFile { path: PathBuf, reason: String },
    #[error(transparent)]
    Config(#[from] crit_project::FileError),
    #[error(transparent)]
    Template(#[from] crit_review::template::TemplateError),
    #[error("the judge's prompt: {0}")]
    Judge(#[from] crit_review::PromptError),
}
