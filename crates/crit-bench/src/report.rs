//! What `crit bench --json` prints (schema: `schemas/bench-report.schema.json`):
//! the judge, then for each configuration its scores overall, per severity
//! and per case, with tokens, cost and time of the reviews and the judge.

use schemars::JsonSchema;
use serde::Serialize;

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
    /// Counts of the complete cases added up, ratios computed once.
    pub overall: Score,
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
    /// `null` when a model has no known price.
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

/// The report's JSON Schema (draft 2020-12), as published.
pub fn schema() -> serde_json::Value {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<BenchReport>();
    serde_json::to_value(schema).unwrap_or_default()
}
