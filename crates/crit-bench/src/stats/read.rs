//! Reading the audit logs: crit's review lines (`audit/*.jsonl`), prompt
//! review lines and answers (`audit/prompt-review/*.jsonl`, and the
//! prompt-review plugin's own `logs/*.jsonl` when it was used). Files are
//! picked by the date in their name; a line that is not one of these shapes
//! is counted and skipped, never an error.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::days::{self, Period};

/// A code, template, run or plan review.
#[derive(Debug, Clone, Deserialize)]
pub struct ReviewLine {
    pub ts: String,
    pub review: String,
    pub verdict: String,
    pub passed: bool,
    #[serde(default)]
    pub findings: BTreeMap<String, usize>,
    #[serde(default)]
    pub tokens: Tokens,
    #[serde(default)]
    pub cost_usd: f64,
    #[serde(default)]
    pub duration_ms: u64,
    #[serde(default)]
    pub rules: BTreeMap<String, usize>,
    #[serde(default)]
    pub fingerprints: Vec<String>,
    /// A hash of the project root the review ran in (lines written since
    /// crit recorded it).
    #[serde(default)]
    pub repo: Option<String>,
    /// Where its findings pointed.
    #[serde(default)]
    pub flagged: Vec<crit_review::session::Flagged>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Tokens {
    #[serde(default)]
    pub input: u64,
    #[serde(default)]
    pub output: u64,
    #[serde(default)]
    pub cache_read: u64,
    #[serde(default)]
    pub cache_write: u64,
}

/// One prompt review.
#[derive(Debug, Clone, Deserialize)]
pub struct PromptLine {
    pub timestamp: String,
    #[serde(default)]
    pub original_prompt_hash: String,
    #[serde(default)]
    pub reviewers_active: Vec<String>,
    /// Absent in the plugin's own logs: then the active reviewers count.
    #[serde(default)]
    pub reviewers_applied: Option<Vec<String>>,
    #[serde(default)]
    pub findings_count: usize,
    #[serde(default)]
    pub findings_by_severity: BTreeMap<String, usize>,
    pub outcome: String,
    #[serde(default)]
    pub failure: Option<String>,
    #[serde(default)]
    pub cost: PromptCost,
    #[serde(default)]
    pub duration_ms: u64,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct PromptCost {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    #[serde(default)]
    pub usd: f64,
}

/// The user's later answer to a prompt review.
#[derive(Debug, Clone, Deserialize)]
pub struct DecisionLine {
    pub timestamp: String,
    pub original_prompt_hash: String,
    pub decision: String,
}

/// One line, as read.
#[derive(Debug, Clone)]
pub enum Line {
    Review(ReviewLine),
    Prompt(PromptLine),
    Decision(DecisionLine),
}

impl Line {
    pub fn timestamp(&self) -> &str {
        match self {
            Line::Review(l) => &l.ts,
            Line::Prompt(l) => &l.timestamp,
            Line::Decision(l) => &l.timestamp,
        }
    }
}

/// Every line of the period, oldest first, and how many were skipped.
#[derive(Debug, Default)]
pub struct Reading {
    pub lines: Vec<Line>,
    pub skipped: usize,
    pub files: Vec<PathBuf>,
}

/// Where the logs are: crit's audit directory, and the plugin's logs.
#[derive(Debug, Clone)]
pub struct Sources {
    pub audit: Option<PathBuf>,
    pub plugin_logs: Option<PathBuf>,
}

impl Sources {
    /// The standard places, from `HOME` and `XDG_STATE_HOME`.
    pub fn standard(env: &crit_os::Env) -> Sources {
        Sources {
            audit: crit_review::session::audit_dir(env),
            plugin_logs: env
                .non_empty("HOME")
                .map(|h| PathBuf::from(h).join(".claude/plugins/prompt-review/logs")),
        }
    }
}

/// Reads the lines of `period` from `sources`.
pub fn read(sources: &Sources, period: &Period) -> Reading {
    let mut reading = Reading::default();
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(a) = &sources.audit {
        dirs.push(a.clone());
        dirs.push(a.join("prompt-review"));
    }
    if let Some(p) = &sources.plugin_logs {
        dirs.push(p.clone());
    }
    for dir in dirs {
        for file in dated_files(&dir, period) {
            read_file(&file, period, &mut reading);
            reading.files.push(file);
        }
    }
    reading
        .lines
        .sort_by(|a, b| a.timestamp().cmp(b.timestamp()));
    reading
}

/// `YYYY-MM-DD.jsonl` files in `dir` whose date is in `period`, by name.
fn dated_files(dir: &Path, period: &Period) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".jsonl"))
                .and_then(days::parse_date)
                .is_some_and(|d| period.contains(d))
                && p.is_file()
        })
        .collect();
    files.sort();
    files
}

fn read_file(path: &Path, period: &Period, reading: &mut Reading) {
    let Ok(bytes) = crit_core::files::read_capped(path, Default::default()) else {
        reading.skipped += 1;
        return;
    };
    for raw in String::from_utf8_lossy(&bytes).lines() {
        if raw.trim().is_empty() {
            continue;
        }
        match parse_line(raw) {
            Some(line) if in_period(line.timestamp(), period) => reading.lines.push(line),
            Some(_) => {}
            None => reading.skipped += 1,
        }
    }
}

fn in_period(ts: &str, period: &Period) -> bool {
    ts.get(..10)
        .and_then(days::parse_date)
        .is_some_and(|d| period.contains(d))
}

/// One line in any of the three shapes.
pub fn parse_line(raw: &str) -> Option<Line> {
    let v: serde_json::Value = serde_json::from_str(raw).ok()?;
    let has = |k: &str| v.get(k).is_some();
    if has("gate") {
        // A gate's decision with no review behind it: not a review to count.
        None
    } else if has("decision") {
        serde_json::from_value(v).ok().map(Line::Decision)
    } else if has("original_prompt_hash") || has("reviewers_active") {
        serde_json::from_value(v).ok().map(Line::Prompt)
    } else if has("review") && has("verdict") {
        serde_json::from_value(v).ok().map(Line::Review)
    } else {
        None
    }
}
