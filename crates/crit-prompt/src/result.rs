//! The result of one prompt review: the original and refined prompts, what
//! each reviewer said and did, what the editor applied and left out, usage and
//! cost, and the outcome (including the user's decision, once made).

use crit_core::{Finding, Location, Usage};
use serde::{Deserialize, Serialize};

use super::critique::{Critique, Severity};
use super::editor::{Applied, Conflict, Deduplicated, Disagreement, Dropped};
use crit_project::config::prompt_review::{EditorMode, Mode};

/// Version of the prompt review JSON document.
pub const PROMPT_REVIEW_SCHEMA_VERSION: u32 = 1;

/// What the pipeline produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The reviewers proposed changes and the editor applied them.
    Refined,
    /// Nothing to change: the original passes through untouched.
    NoChanges,
    /// The review could not run (no backend, every reviewer failed, a rate
    /// limit, the deadline): the original proceeds, with a warning.
    FailedOpen,
    /// The editor gave up: the raw critiques are shown, the original proceeds.
    EditorFailed,
    /// Prompt review is switched off (`PROMPT_REVIEW_ENABLED=false`).
    Disabled,
}

/// Why a review failed open, in the audit log's words (no content: a category).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailedBecause {
    /// No backend could be built (no CLI, no API key).
    NoBackend,
    /// The deadline (`budget.timeout_ms`) passed.
    Deadline,
    RateLimited,
    /// Every reviewer failed or answered malformed JSON.
    ReviewersUnavailable,
    EditorFailed,
    /// `PROMPT_REVIEW_ENABLED=false`.
    Disabled,
    /// The settings files could not be read.
    Settings,
    /// Anything else (a hook could not start the review).
    Error,
}

impl FailedBecause {
    pub fn as_str(self) -> &'static str {
        match self {
            FailedBecause::NoBackend => "no_backend",
            FailedBecause::Deadline => "deadline",
            FailedBecause::RateLimited => "rate_limited",
            FailedBecause::ReviewersUnavailable => "reviewers_unavailable",
            FailedBecause::EditorFailed => "editor_failed",
            FailedBecause::Disabled => "disabled",
            FailedBecause::Settings => "settings",
            FailedBecause::Error => "error",
        }
    }
}

/// How it ended, in the audit log's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The user (or `--yes`) took the refined prompt.
    Approved,
    /// The user kept the original.
    Rejected,
    /// The user edited the refined prompt.
    Edited,
    NoChanges,
    FailedOpen,
    /// Reviewed, no decision asked for (`--json`, a CI gate).
    Reviewed,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Approved => "approved",
            Outcome::Rejected => "rejected",
            Outcome::Edited => "edited",
            Outcome::NoChanges => "no_changes",
            Outcome::FailedOpen => "failed_open",
            Outcome::Reviewed => "reviewed",
        }
    }
}

/// What the user chose at the approval step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Approve,
    Reject,
    Edit(String),
}

/// How one reviewer took part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewerState {
    /// Answered with findings.
    Ok,
    /// Answered: nothing to change.
    NoIssues,
    /// Its answer was malformed and dropped.
    Skipped,
    Failed,
    TimedOut,
    /// Not asked: disabled, not triggered, or over the reviewer cap.
    NotRun,
}

impl ReviewerState {
    pub fn word(self) -> &'static str {
        match self {
            ReviewerState::Ok | ReviewerState::NoIssues => "ok",
            ReviewerState::Skipped => "skipped",
            ReviewerState::Failed => "failed",
            ReviewerState::TimedOut => "timed out",
            ReviewerState::NotRun => "not run",
        }
    }

    /// It was asked but gave nothing usable.
    pub fn unavailable(self) -> bool {
        matches!(
            self,
            ReviewerState::Skipped | ReviewerState::Failed | ReviewerState::TimedOut
        )
    }
}

/// One reviewer's part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewerReport {
    pub name: String,
    pub label: String,
    pub state: ReviewerState,
    /// Why it ran or did not (its trigger), or why it failed.
    pub why: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub findings: usize,
    pub usage: Usage,
    /// What was billed: nothing in subscription mode.
    pub cost_usd: f64,
    /// What its tokens would cost at API list prices.
    pub api_price_usd: f64,
    pub duration_ms: u64,
    /// The domain SME's stack notes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub specialists: Vec<String>,
}

/// A valid critique and its reviewer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewerCritique {
    pub reviewer: String,
    pub critique: Critique,
}

/// Hashes of what was reviewed; the audit log and the cache key use them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hashes {
    pub prompt: String,
    pub context: String,
}

/// One prompt review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptReview {
    pub schema_version: u32,
    pub original: String,
    pub refined: String,
    /// The prompt that goes on: set once a decision is made (or there was none to make).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chosen: Option<String>,
    pub status: Status,
    pub outcome: Outcome,
    /// Why it failed open, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_because: Option<FailedBecause>,
    /// For people: what went wrong or was left out.
    pub warnings: Vec<String>,
    /// Unified diff, original → refined (empty when they are equal).
    pub diff: String,
    /// Applied changes, in the order they were applied.
    pub changes: Vec<Applied>,
    pub deduplicated: Vec<Deduplicated>,
    pub dropped: Vec<Dropped>,
    pub conflicts: Vec<Conflict>,
    pub disagreements: Vec<Disagreement>,
    pub critiques: Vec<ReviewerCritique>,
    /// When the editor failed: the critiques as bullet points.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_critiques: Option<String>,
    pub reviewers: Vec<ReviewerReport>,
    /// The findings on crit's one scale, for SARIF, rdjson and gates.
    pub findings: Vec<Finding>,
    pub usage: Usage,
    /// What was billed: nothing in subscription mode.
    pub cost_usd: f64,
    /// What the tokens would cost at API list prices.
    pub api_price_usd: f64,
    pub duration_ms: u64,
    pub mode: Mode,
    pub editor: EditorMode,
    /// Served from the cache: this run cost nothing.
    pub cached: bool,
    pub project: String,
    pub stack: Vec<String>,
    /// `cli`, `!!!`, …
    pub trigger: String,
    /// The prompt file, when the prompt came from one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub hashes: Hashes,
}

impl PromptReview {
    /// The prompt to run when no one is asked: the refined one only when asked
    /// for with `take_refined` (`--yes`).
    pub fn decide(&mut self, decision: Option<Decision>) {
        let (outcome, chosen) = match (self.status, decision) {
            (Status::FailedOpen | Status::EditorFailed | Status::Disabled, _) => {
                (Outcome::FailedOpen, self.original.clone())
            }
            (Status::NoChanges, _) => (Outcome::NoChanges, self.original.clone()),
            (Status::Refined, Some(Decision::Approve)) => (Outcome::Approved, self.refined.clone()),
            (Status::Refined, Some(Decision::Reject)) => (Outcome::Rejected, self.original.clone()),
            (Status::Refined, Some(Decision::Edit(text))) => (Outcome::Edited, text),
            (Status::Refined, None) => (Outcome::Reviewed, self.original.clone()),
        };
        self.outcome = outcome;
        self.chosen = Some(chosen);
    }

    /// A decision is worth asking for: there is a refined prompt.
    pub fn needs_decision(&self) -> bool {
        self.status == Status::Refined
    }

    /// The reviewers asked that gave nothing usable.
    /// When some reviewers could not review the prompt: how many answered
    /// and how many were asked. `None` when every one asked answered.
    pub fn partly_reviewed(&self) -> Option<(usize, usize)> {
        let asked = self
            .reviewers
            .iter()
            .filter(|r| r.state != ReviewerState::NotRun)
            .count();
        let missing = self.unavailable();
        (missing > 0).then(|| (asked.saturating_sub(missing), asked))
    }

    /// "No changes", said honestly: a review most of whose reviewers failed
    /// is not a clean one.
    pub fn no_changes_sentence(&self) -> String {
        let clean = self.critiques.iter().all(|c| c.critique.no_issues);
        match (self.partly_reviewed(), clean) {
            (Some((answered, asked)), true) => format!(
                "Only {answered} of {asked} reviewers answered, and they found no issues; the others could not review the prompt, so it was not fully reviewed: the prompt is unchanged."
            ),
            (Some((answered, asked)), false) => format!(
                "Only {answered} of {asked} reviewers answered, and nothing they proposed could be applied: the prompt is unchanged."
            ),
            (None, true) => "The reviewers found no issues: the prompt is unchanged.".into(),
            (None, false) => {
                "Nothing the reviewers proposed could be applied: the prompt is unchanged.".into()
            }
        }
    }

    pub fn unavailable(&self) -> usize {
        self.reviewers
            .iter()
            .filter(|r| r.state.unavailable())
            .count()
    }

    /// The most severe finding, in the plugin's words.
    pub fn severity_max(&self) -> Option<Severity> {
        self.critiques
            .iter()
            .filter_map(|c| c.critique.worst())
            .min()
    }

    /// The reviewers whose proposals the editor applied, each once, in order.
    pub fn reviewers_applied(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for c in &self.changes {
            if !names.contains(&c.proposal.reviewer.as_str()) {
                names.push(&c.proposal.reviewer);
            }
        }
        names
    }

    pub fn findings_count(&self) -> usize {
        self.critiques
            .iter()
            .map(|c| c.critique.findings.len())
            .sum()
    }
}

/// The critiques as crit findings: blocker → P0 … nit → P3, each pointing at
/// the line of the prompt its evidence quotes (when it quotes one).
pub fn findings(
    critiques: &[ReviewerCritique],
    prompt: &str,
    source: Option<&str>,
) -> Vec<Finding> {
    let path = source.unwrap_or("<prompt>");
    let mut out = Vec::new();
    for c in critiques {
        for f in &c.critique.findings {
            let mut body = String::new();
            if !f.evidence.is_empty() {
                body.push_str(&format!("Evidence: \"{}\"\n", f.evidence));
            }
            for op in &f.suggested_ops {
                body.push_str(&format!(
                    "Suggested {} ({}): {}\n",
                    op.op,
                    op.target.as_str(),
                    op.value
                ));
            }
            let location = Location::Document {
                path: path.to_string(),
                heading: None,
                line: line_of(prompt, &f.evidence),
            };
            out.push(
                Finding::new(f.issue.clone(), f.severity.to_crit(), c.reviewer.clone())
                    .with_body(body.trim_end())
                    .with_location(location)
                    .with_confidence(f.confidence),
            );
        }
    }
    out
}

/// The 1-based line where `evidence` starts in `prompt`, when it occurs.
pub fn line_of(prompt: &str, evidence: &str) -> Option<u32> {
    let (start, _) = super::editor::text::find_quoted(prompt, evidence)?;
    u32::try_from(prompt[..start].matches('\n').count() + 1).ok()
}

/// Unified diff of `a` → `b`, three lines of context; empty when equal.
pub fn unified_diff(a: &str, b: &str) -> String {
    if a == b {
        return String::new();
    }
    // Both ending in a newline: no "\ No newline at end of file" noise.
    let a = if a.ends_with('\n') {
        a.to_string()
    } else {
        format!("{a}\n")
    };
    let b = if b.ends_with('\n') {
        b.to_string()
    } else {
        format!("{b}\n")
    };
    similar::TextDiff::from_lines(&a, &b)
        .unified_diff()
        .context_radius(3)
        .header("original", "refined")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_lines() {
        assert_eq!(line_of("a\nb c\nd", "b c"), Some(2));
        assert_eq!(line_of("a\nb\nc", "b\n c"), Some(2));
        assert_eq!(line_of("a", "zzz"), None);
        assert_eq!(line_of("a", ""), None);
    }

    #[test]
    fn diffs() {
        assert_eq!(unified_diff("x\n", "x\n"), "");
        let d = unified_diff("a\nb\n", "a\nc\n");
        assert!(d.starts_with("--- original\n+++ refined\n"), "{d}");
        assert!(d.contains("-b\n+c\n"), "{d}");
    }
}
