//! `crit bench`'s flags: the benchmark run, its export, import and mining.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub action: Option<BenchAction>,
    /// The corpus: a directory holding `cases/NAME/{repo/, case.json, golden.json}`.
    #[arg(value_name = "CORPUS")]
    pub corpus: Option<PathBuf>,
    /// A configuration to compare (YAML: name, model, verify, verify_model, consensus, filter, max_findings, template, allow_partial); repeat it to compare several side by side [default: the review's own settings].
    #[arg(long = "config", value_name = "FILE")]
    pub configs: Vec<PathBuf>,
    /// The judge's model [default: `models.judge` in the config, env CRIT_JUDGE_MODEL, else the strongest model compared: the highest list price per output token in crit's model table].
    #[arg(long, value_name = "MODEL")]
    pub judge_model: Option<String>,
    /// Cases reviewed at once.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub jobs: usize,
    /// Judge requests at once, across every case.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub judge_jobs: usize,
    /// Ask the judge again rather than reuse its cached answers.
    #[arg(long)]
    pub no_cache: bool,
    /// The arithmetic: `strict` (crit's one-to-one matching) or `martian` (the benchmark leaderboard's arithmetic, reported beside the strict one, from the same judge answers).
    #[arg(long, value_enum, value_name = "SCORING", default_value_t = BenchScoring::Strict)]
    pub scoring: BenchScoring,
    /// The judge: `crit` (crit's prompt, which also shows the pull request's title and the finding's place and severity) or `martian` (the benchmark's own prompt, shown only the golden comment and the candidate, at temperature 0; name the leaderboard's judge with --judge-model).
    #[arg(long, value_enum, value_name = "JUDGE", default_value_t = BenchJudge::Crit)]
    pub judge: BenchJudge,
    /// Let reviews reuse what earlier runs left: the code review's cache of unchanged hunks, and a replay provider's recorded answers. Without it every run reviews every case afresh, so cost and quality compare fairly.
    #[arg(long)]
    pub reuse: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BenchScoring {
    /// crit's one-to-one matching
    Strict,
    /// The benchmark leaderboard's arithmetic, beside the strict one
    Martian,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BenchJudge {
    /// crit's judge
    Crit,
    /// The benchmark's judge as published
    Martian,
}

#[derive(Debug, Subcommand)]
pub enum BenchAction {
    /// Make a corpus of the Martian Code Review Bench: its golden comments and your clones of its pull requests.
    ///
    /// DIR is a checkout of the benchmark (its `golden_comments/*.json`). For a pull
    /// request https://github.com/OWNER/REPO/pull/N the clone is `REPOS/OWNER/REPO` or
    /// `REPOS/REPO`, with the pull request's head fetched as `refs/pull/N/head`
    /// (`git fetch origin '+refs/pull/*/head:refs/pull/*/head'`). Each case's `repo/`
    /// borrows the clone's objects, so keep the clones. A pull request whose clone or
    /// head is missing is skipped, saying what to fetch.
    Import(BenchImportArgs),
    /// Precision from this project's history, with no model: findings whose flagged lines changed since (likely acted on) against those left as they were or suppressed, per reviewer, rule and severity.
    Mine(BenchMineArgs),
    /// Write crit's findings from a saved `crit bench --json` report in the benchmark's own format (`--format martian-candidates`), for the benchmark's judge step to score.
    ///
    /// `--format martian-candidates` writes the benchmark's `candidates.json`:
    /// `{PR URL: {TOOL: [{text, path, line, source}]}}`, one candidate per finding, or,
    /// with `--extract`, the benchmark's extraction step over all of crit's comments on
    /// each pull request. Put it at `results/JUDGE_MODEL/candidates.json` in a checkout
    /// of the benchmark and run its judge step for the tool.
    Export(BenchExportArgs),
}

#[derive(Debug, Args)]
pub struct BenchExportArgs {
    /// The corpus the report was made from.
    #[arg(value_name = "CORPUS")]
    pub corpus: PathBuf,
    /// The report: `crit bench CORPUS --json --out FILE`.
    #[arg(value_name = "RESULTS")]
    pub results: PathBuf,
    /// The tool's name in the file (`NAME-CONFIGURATION` for each of several configurations).
    #[arg(long, value_name = "NAME", default_value = "crit")]
    pub tool: String,
    /// Make the candidates with the benchmark's extraction prompt (one model request per pull request, on --model, else the judge's model: `models.judge` in the config, env CRIT_JUDGE_MODEL) rather than one per finding.
    #[arg(long)]
    pub extract: bool,
}

#[derive(Debug, Args)]
pub struct BenchImportArgs {
    /// The benchmark whose files these are.
    #[arg(value_enum, value_name = "BENCHMARK")]
    pub benchmark: BenchFormat,
    /// A checkout of the benchmark, or its `golden_comments` directory.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Where the pull requests' repositories are cloned.
    #[arg(long, value_name = "DIR")]
    pub repos: PathBuf,
    /// The corpus to write (created if missing).
    #[arg(long, value_name = "DIR", default_value = "corpus")]
    pub corpus: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BenchFormat {
    /// The Martian Code Review Bench (golden_comments/*.json)
    Martian,
}

#[derive(Debug, Args)]
pub struct BenchMineArgs {
    /// The period: days (`90d`), weeks (`12w`), hours (`24h`), or a date (`2026-02-01`).
    #[arg(long, value_name = "PERIOD", default_value = "90d")]
    pub since: String,
    /// The last day of the period (`2026-02-24`) [default: today, UTC].
    #[arg(long, value_name = "DATE")]
    pub until: Option<String>,
}
