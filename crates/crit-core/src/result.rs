//! The one result every review kind returns.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{FailOn, Finding, Usage, Verdict};

/// Version of the `ReviewResult` JSON document. Bump on a breaking change.
pub const RESULT_SCHEMA_VERSION: u32 = 1;

/// How one reviewer of a panel ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReviewerStatus {
    /// Ran and returned a parseable answer.
    Completed,
    /// Stopped at a limit (turns, time, tokens, budget); partial output kept.
    Incomplete,
    /// Its answer could not be parsed.
    ParseError,
    /// It could not run (backend error, crash).
    Failed,
    /// Not run: its trigger rules did not match.
    Skipped,
}

/// One reviewer's part in a review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewerOutcome {
    pub name: String,
    pub status: ReviewerStatus,
    pub verdict: Verdict,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Number of findings it reported.
    #[serde(default)]
    pub findings: usize,
    #[serde(default)]
    pub usage: Usage,
    /// What it cost; `null` when its model has no known price.
    #[serde(default)]
    pub cost_usd: Option<f64>,
    #[serde(default)]
    pub duration_ms: u64,
    /// Why it did not complete, when it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A finding a reviewer reported that does not count towards the result:
/// suppressed by the team, outside the change under review, over the cap,
/// refuted by the verification pass with code that disproves it, quoting
/// code or a convention that is not there, or without the agreement a
/// consensus panel asks for. Kept so that nothing a reviewer said is lost,
/// each with the proof it was removed on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Dismissed {
    pub finding: Finding,
    /// `suppressed`, `learning`, `outside_change`, `over_cap`, `not_confirmed`,
    /// `evidence_not_found`, `no_consensus`, `dispute`, or
    /// `lowered` (still in `findings` at its lower severity; here as reported).
    pub cause: String,
    /// Why, for a person: the suppression's reason and author, the filter mode.
    pub reason: String,
    /// What crit checked that shows it: the file read and the quote not in
    /// it, the code the verifier quoted and where crit found it, the
    /// suppression rule, the filter and the location, the cap, the votes.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub proof: String,
}

/// The merged outcome of a review, for a person, a gate or a program.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewResult {
    /// Version of this document's shape.
    pub schema_version: u32,
    /// What ran: a template name (`code`, `arch`), `run`, `plan`, `prompt`.
    pub review: String,
    pub verdict: Verdict,
    /// Whether the result passes its gate. Never true for UNKNOWN, ERROR or
    /// INCOMPLETE, nor when `parse_error` is set or `fatal_error` is true.
    pub passed: bool,
    #[serde(default)]
    pub summary: String,
    #[serde(default)]
    pub findings: Vec<Finding>,
    /// Findings reported but not counted (suppressed, outside the change, over
    /// the cap). The gate never looks at these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dismissed: Vec<Dismissed>,
    #[serde(default)]
    pub reviewers: Vec<ReviewerOutcome>,
    #[serde(default)]
    pub usage: Usage,
    /// What the review cost in USD at list prices; `null` when a model it
    /// used has no known price (a made-up 0 would hide the spend).
    #[serde(default)]
    pub cost_usd: Option<f64>,
    #[serde(default)]
    pub duration_ms: u64,
    /// The reviewers' answers as received, for audit and debugging.
    #[serde(default)]
    pub raw_output: String,
    /// Why the answer could not be understood (`timeout`, `invalid json: …`).
    #[serde(default)]
    pub parse_error: Option<String>,
    /// True when the review could not run at all (no backend, bad configuration).
    #[serde(default)]
    pub fatal_error: bool,
    /// The session directory holding this review's logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_log_path: Option<String>,
    /// What was reviewed: input names to values (paths, ranges).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub inputs: BTreeMap<String, String>,
    /// UTC start time, RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// A JSON answer in a caller-supplied schema (`crit run` with `output_schema`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<serde_json::Value>,
    /// What went less well than asked without stopping the review: a setting
    /// crit does not use, an MCP server that did not start, a model with no
    /// known price. Never affects the verdict.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// What a code review's reviewers were shown and what was left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<crate::Coverage>,
    /// The verdict was derived by crit from the findings (every reviewer
    /// answered with structured findings; each one's own word stays in
    /// `reviewers[].verdict`). The gate then judges the findings, so
    /// `--fail-on p0` passes a FAIL that rests on P1 findings.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub verdict_from_findings: bool,
    /// The worst verdict a reviewer gave in its own words that its findings
    /// do not account for (a `FAIL` with no blocking finding, a `CONCERNS`
    /// with none at all): the verdict is never better, whatever happens to
    /// the findings, and the gate judges it as a reviewer's word.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict_floor: Option<Verdict>,
}

impl ReviewResult {
    /// What the hunks taken from the cache cost when they were reviewed,
    /// when known and more than nothing.
    pub fn cache_saved_usd(&self) -> Option<f64> {
        self.coverage
            .as_ref()
            .and_then(|c| c.cached_cost_usd)
            .filter(|c| *c > 0.0)
    }

    /// An empty result for `review` with the given verdict; `passed` follows the
    /// default gate.
    pub fn new(review: impl Into<String>, verdict: Verdict) -> Self {
        let mut r = ReviewResult {
            schema_version: RESULT_SCHEMA_VERSION,
            review: review.into(),
            verdict,
            passed: false,
            summary: String::new(),
            findings: Vec::new(),
            dismissed: Vec::new(),
            reviewers: Vec::new(),
            usage: Usage::default(),
            cost_usd: Some(0.0),
            duration_ms: 0,
            raw_output: String::new(),
            parse_error: None,
            fatal_error: false,
            session_log_path: None,
            inputs: BTreeMap::new(),
            started_at: None,
            structured_output: None,
            warnings: Vec::new(),
            coverage: None,
            verdict_from_findings: false,
            verdict_floor: None,
        };
        r.apply_gate(FailOn::default());
        r
    }

    /// A result that could not be understood: `UNKNOWN`, never passing.
    pub fn parse_failure(
        review: impl Into<String>,
        error: impl Into<String>,
        raw: impl Into<String>,
    ) -> Self {
        let mut r = ReviewResult::new(review, Verdict::Unknown);
        r.parse_error = Some(error.into());
        r.raw_output = raw.into();
        r.passed = false;
        r
    }

    /// A review that could not run at all: `ERROR`, `fatal_error`.
    pub fn fatal(review: impl Into<String>, error: impl Into<String>) -> Self {
        let mut r = ReviewResult::new(review, Verdict::Error);
        r.parse_error = Some(error.into());
        r.fatal_error = true;
        r.passed = false;
        r
    }

    /// Set `passed` from the gate. Fails closed: see [`FailOn::passes`].
    pub fn apply_gate(&mut self, gate: FailOn) {
        self.passed = gate.passes(self);
    }

    /// Decide a saved result's gate again, once: a level named explicitly
    /// decides; otherwise `gate` is added to what the review that saved it
    /// decided, and a result that review failed never passes.
    pub fn regate_saved(&mut self, gate: FailOn, explicit: bool) {
        self.passed = gate.passes(self) && (explicit || self.passed);
    }

    /// Give every finding without an id its fingerprint (results written by hand
    /// or by other tools may leave it empty).
    pub fn fill_missing_ids(&mut self) {
        for f in self.findings.iter_mut().filter(|f| f.id.is_empty()) {
            f.refresh_id();
        }
    }

    /// Findings sorted for display: by severity, then path, then line.
    pub fn sorted_findings(&self) -> Vec<&Finding> {
        let mut v: Vec<&Finding> = self.findings.iter().collect();
        v.sort_by(|a, b| {
            a.severity
                .cmp(&b.severity)
                .then_with(|| a.path().unwrap_or("").cmp(b.path().unwrap_or("")))
                .then_with(|| {
                    let la = a.location.as_ref().and_then(|l| l.start_line());
                    let lb = b.location.as_ref().and_then(|l| l.start_line());
                    la.cmp(&lb)
                })
        });
        v
    }

    /// Count of findings per severity, most severe first, omitting zeros.
    pub fn severity_counts(&self) -> Vec<(crate::Severity, usize)> {
        crate::Severity::ALL
            .iter()
            .map(|s| {
                (
                    *s,
                    self.findings.iter().filter(|f| f.severity == *s).count(),
                )
            })
            .filter(|(_, n)| *n > 0)
            .collect()
    }
}
