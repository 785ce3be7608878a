//! What `crit bench --json` prints (schema: `schemas/bench-report.schema.json`):
//! the judge, then for each configuration its scores overall, per severity
//! and per case, with tokens, cost and time of the reviews and the judge.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crit_core::{Usage, Verdict};

use crate::score::{LevelScore, Score};

/// Version of the report's shape. Bump on a breaking change.
pub const BENCH_SCHEMA_VERSION: u32 = 1;

/// A benchmark run.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct BenchReport {
    pub schema_version: u32,
    /// The corpus directory.
    pub corpus: String,
    /// Cases in the corpus.
    pub cases: usize,
    pub judge: JudgeInfo,
    /// One per `--config`, in the order given (one, `default`, without any).
    pub configurations: Vec<ConfigReport>,
}

/// Who judged.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct JudgeInfo {
    /// The judge's model, as requests name it.
    pub model: String,
    /// Where that choice came from (`--judge-model`, a config file, the
    /// strongest configured model).
    pub source: String,
    /// A short hash of the judge's prompt; answers are cached per version.
    pub prompt_version: String,
    /// `crit` (crit's own judge) or `martian` (the benchmark's, as published).
    pub style: crate::judge::JudgeStyle,
}

/// Which arithmetic a block of scores follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Scoring {
    /// crit's: a finding matches at most one golden comment and a golden
    /// comment at most one finding; a case the judge could not fully decide
    /// is in no score.
    Strict,
    /// The Martian Code Review Bench's leaderboard arithmetic: a golden
    /// comment is found when any candidate is its most confident match, a
    /// false positive is a candidate text that was never any comment's best,
    /// a failed pair is no match, a review with no golden comments is skipped.
    Martian,
}

/// One arithmetic's totals over a configuration's cases.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ScoringBlock {
    pub scoring: Scoring,
    /// What the block is, for people.
    pub label: String,
    /// Counts of the scored cases added up, ratios computed once.
    pub overall: Score,
    /// Cases in this score.
    pub cases_scored: usize,
}

/// The settings one configuration changes; `null` is the review's own.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ConfigSettings {
    /// The reviewers' model, as requests name it.
    pub model: String,
    /// `off`, `blocking` or `all`.
    pub verify: Option<String>,
    pub verify_model: String,
    /// `any`, `majority` or `all`.
    pub consensus: Option<String>,
    /// `added`, `diff_context`, `file` or `nofilter`.
    pub filter: Option<String>,
    pub max_findings: Option<usize>,
    pub template: String,
    pub allow_partial: bool,
}

/// One configuration's results.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ConfigReport {
    pub name: String,
    /// The `--config` file, when there was one.
    pub file: Option<String>,
    pub settings: ConfigSettings,
    /// crit's strict scoring: counts of the complete cases added up, ratios
    /// computed once.
    pub overall: Score,
    /// Every arithmetic asked for (`strict` always; `martian` with
    /// `--scoring martian`), each labelled, from the same judge answers.
    pub scoring: Vec<ScoringBlock>,
    /// The same, per severity (golden comments' scale; a finding's P0–P3
    /// count as critical, high, medium, low).
    pub by_severity: Vec<LevelScore>,
    pub cases_complete: usize,
    /// Cases whose review or judge did not finish: in no score.
    pub cases_incomplete: usize,
    pub review: Spend,
    pub judge: JudgeSpend,
    /// Wall-clock time of this configuration's run.
    pub duration_ms: u64,
    pub cases: Vec<CaseReport>,
}

/// What reviewing cost.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
pub struct Spend {
    pub usage: Usage,
    /// `null` when a model has no known price, or (a case's) when its review
    /// never ran.
    pub cost_usd: Option<f64>,
    /// The reviews' own durations, added up.
    pub duration_ms: u64,
}

/// What judging cost.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
pub struct JudgeSpend {
    pub usage: Usage,
    pub cost_usd: Option<f64>,
    /// Pairs judged (one request each, or a cached answer).
    pub pairs: usize,
    /// Pairs answered from the cache.
    pub cached: usize,
    /// Pairs the judge could not decide.
    pub failed: usize,
}

impl Default for Spend {
    /// Nothing spent yet (a known cost of 0, which an unpriced model turns
    /// into `null`).
    fn default() -> Self {
        Spend {
            usage: Usage::default(),
            cost_usd: Some(0.0),
            duration_ms: 0,
        }
    }
}

impl Default for JudgeSpend {
    fn default() -> Self {
        JudgeSpend {
            usage: Usage::default(),
            cost_usd: Some(0.0),
            pairs: 0,
            cached: 0,
            failed: 0,
        }
    }
}

/// Whether a case counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CaseStatus {
    Complete,
    /// The review did not finish, or the judge could not decide a pair: the
    /// case is in no score, never a match or a miss.
    Incomplete,
}

/// One case under one configuration.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct CaseReport {
    pub name: String,
    pub url: Option<String>,
    pub language: Option<String>,
    pub status: CaseStatus,
    /// Why it is incomplete.
    pub reason: Option<String>,
    /// The review's verdict, when it ran.
    pub verdict: Option<Verdict>,
    /// Golden comments.
    pub golden: usize,
    /// The review's findings that were judged (crit's own notes and `info`
    /// findings are not comments on the change).
    pub findings: usize,
    /// `null` for an incomplete case.
    pub score: Option<Score>,
    pub by_severity: Vec<LevelScore>,
    /// The pairs kept by one-to-one matching.
    pub matches: Vec<Match>,
    /// The case under the benchmark's arithmetic (with `--scoring martian`;
    /// `null` when it was not asked for, the review did not run, or there are
    /// no golden comments).
    pub martian: Option<Score>,
    /// The judged findings as the benchmark's candidates (what `crit bench
    /// export` writes).
    pub candidates: Vec<CaseCandidate>,
    pub review: Spend,
    pub judge: JudgeSpend,
}

/// A golden comment and the finding matched to it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Match {
    /// The golden comment's index in `golden.json`'s `comments`.
    pub golden: usize,
    /// The finding's fingerprint.
    pub finding: String,
    pub confidence: f64,
}

/// A finding as one of the benchmark's candidate issues.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CaseCandidate {
    /// The finding's fingerprint.
    pub finding: String,
    /// The one-sentence issue the benchmark's judge is shown.
    pub text: String,
    pub path: Option<String>,
    pub line: Option<u64>,
    /// The whole comment (title, place, explanation), for the benchmark's
    /// extraction step.
    pub comment: String,
}

/// The report's JSON Schema (draft 2020-12), as published.
pub fn schema() -> serde_json::Value {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<BenchReport>();
    serde_json::to_value(schema).unwrap_or_default()
}
