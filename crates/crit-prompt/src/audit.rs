//! The prompt review audit log: one JSON line per review, with the
//! prompt-review plugin's fields, in date-rotated files
//! `$XDG_STATE_HOME/crit/audit/prompt-review/YYYY-MM-DD.jsonl` (UTC). Hashes,
//! names, counts and costs only: never prompt or critique text.
//!
//! Besides the plugin's fields a line says which reviewers' changes were
//! applied (`reviewers_applied`), the findings per severity, and why a review
//! failed open (`failure`). When the user answers the approval question
//! later, in Claude Code, a second, shorter line records the answer
//! ([`append_decision`]): it carries `decision` instead of `outcome`, and the
//! same `original_prompt_hash`.
//!
//! Lines are appended with one `write` on a file opened with `O_APPEND`, under
//! an advisory lock, as crit's other audit lines are.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crit_core::timestamp;
use serde::Serialize;

use super::critique::Severity;
use super::result::{Outcome, PromptReview};

#[derive(Debug, Serialize)]
struct Line<'a> {
    timestamp: String,
    project: &'a str,
    trigger: &'a str,
    mode: &'a str,
    original_prompt_hash: &'a str,
    reviewers_active: Vec<&'a str>,
    findings_count: usize,
    severity_max: Option<&'static str>,
    conflicts: usize,
    outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    failure: Option<&'static str>,
    reviewers_applied: Vec<&'a str>,
    findings_by_severity: BTreeMap<&'static str, usize>,
    cost: Cost,
    duration_ms: u64,
}

/// The user's answer to a review whose line was written before it came.
#[derive(Debug, Serialize)]
struct DecisionLine<'a> {
    timestamp: String,
    project: &'a str,
    trigger: &'a str,
    mode: &'a str,
    original_prompt_hash: &'a str,
    reviewers_applied: &'a [String],
    decision: &'static str,
}

#[derive(Debug, Serialize)]
struct Cost {
    input_tokens: u64,
    output_tokens: u64,
    usd: f64,
}

/// `$XDG_STATE_HOME/crit/audit/prompt-review`, else `~/.local/state/…`.
pub fn dir(env: &crit_os::Env) -> Option<PathBuf> {
    crit_review::session::audit_dir(env).map(|d| d.join("prompt-review"))
}

/// The line for `review`, as JSON (no newline).
pub fn line(review: &PromptReview, now: SystemTime) -> String {
    let line = Line {
        timestamp: timestamp::rfc3339(timestamp::unix_secs(now)),
        project: &review.project,
        trigger: &review.trigger,
        mode: review.mode.as_str(),
        original_prompt_hash: &review.hashes.prompt,
        reviewers_active: review
            .reviewers
            .iter()
            .filter(|r| r.state != super::result::ReviewerState::NotRun)
            .map(|r| r.name.as_str())
            .collect(),
        findings_count: review.findings_count(),
        severity_max: review.severity_max().map(|s| s.as_str()),
        conflicts: review.conflicts.len() + review.disagreements.len(),
        outcome: review.outcome.as_str(),
        failure: review.failed_because.map(|f| f.as_str()),
        reviewers_applied: review.reviewers_applied(),
        findings_by_severity: Severity::ALL
            .iter()
            .map(|s| {
                let n = review
                    .critiques
                    .iter()
                    .flat_map(|c| &c.critique.findings)
                    .filter(|f| f.severity == *s)
                    .count();
                (s.as_str(), n)
            })
            .collect(),
        cost: Cost {
            input_tokens: review.usage.total_input(),
            output_tokens: review.usage.output_tokens,
            usd: review.cost_usd,
        },
        duration_ms: review.duration_ms,
    };
    serde_json::to_string(&line).unwrap_or_default()
}

/// Appends the line for `review` to today's file under `dir`; returns its path.
pub fn append(dir: &Path, review: &PromptReview, now: SystemTime) -> std::io::Result<PathBuf> {
    append_line(dir, line(review, now), now)
}

/// What a later answer needs to know about the review it answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Awaiting {
    pub project: String,
    pub trigger: String,
    pub mode: String,
    pub original_prompt_hash: String,
    pub reviewers_applied: Vec<String>,
}

impl Awaiting {
    pub fn of(review: &PromptReview) -> Awaiting {
        Awaiting {
            project: review.project.clone(),
            trigger: review.trigger.clone(),
            mode: review.mode.as_str().to_string(),
            original_prompt_hash: review.hashes.prompt.clone(),
            reviewers_applied: review
                .reviewers_applied()
                .into_iter()
                .map(str::to_string)
                .collect(),
        }
    }
}

/// Appends the user's answer (`approved`, `rejected`, `edited`) to a review
/// logged earlier.
pub fn append_decision(
    dir: &Path,
    of: &Awaiting,
    decision: Outcome,
    now: SystemTime,
) -> std::io::Result<PathBuf> {
    let line = DecisionLine {
        timestamp: timestamp::rfc3339(timestamp::unix_secs(now)),
        project: &of.project,
        trigger: &of.trigger,
        mode: &of.mode,
        original_prompt_hash: &of.original_prompt_hash,
        reviewers_applied: &of.reviewers_applied,
        decision: decision.as_str(),
    };
    append_line(dir, serde_json::to_string(&line).unwrap_or_default(), now)
}

fn append_line(dir: &Path, line: String, now: SystemTime) -> std::io::Result<PathBuf> {
    let name = format!("{}.jsonl", timestamp::date(timestamp::unix_secs(now)));
    let mut bytes = line.into_bytes();
    bytes.push(b'\n');
    crit_review::session::append_confined(dir, &name, &bytes)?;
    Ok(dir.join(name))
}
