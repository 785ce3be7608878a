//! The prompt review audit log: one JSON line per review, with exactly the
//! prompt-review plugin's fields, in date-rotated files
//! `$XDG_STATE_HOME/crit/audit/prompt-review/YYYY-MM-DD.jsonl` (UTC). Hashes,
//! names, counts and costs only: never prompt or critique text.
//!
//! Lines are appended with one `write` on a file opened with `O_APPEND`, under
//! an advisory lock, as crit's other audit lines are.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crit_core::timestamp;
use serde::Serialize;

use super::result::PromptReview;

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
    cost: Cost,
    duration_ms: u64,
}

#[derive(Debug, Serialize)]
struct Cost {
    input_tokens: u64,
    output_tokens: u64,
    usd: f64,
}

/// `$XDG_STATE_HOME/crit/audit/prompt-review`, else `~/.local/state/…`.
pub fn dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    crate::session::audit_dir(env).map(|d| d.join("prompt-review"))
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
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!(
        "{}.jsonl",
        timestamp::date(timestamp::unix_secs(now))
    ));
    let mut bytes = line(review, now).into_bytes();
    bytes.push(b'\n');
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)?;
    if let Err(e) = file.lock() {
        tracing::debug!(
            "prompt review audit log {}: not locked: {e}",
            path.display()
        );
    }
    file.write_all(&bytes)?;
    Ok(path)
}
