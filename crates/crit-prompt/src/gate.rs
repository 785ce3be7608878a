//! Prompt files as a CI gate: `--file 'prompts/**/*.md'` finds the files, each
//! is reviewed (several at once), and the findings, on crit's one scale and
//! pointing at the file and line of their evidence, become one `ReviewResult`
//! for the gate, SARIF and rdjson.
//!
//! A gate does not fail open: a prompt whose review could not run makes the
//! result an ERROR (exit 3), never a pass.

use std::path::Path;

use crit_core::{FailOn, ReviewResult, ReviewerOutcome, ReviewerStatus, Verdict};
use futures_util::StreamExt;
use globset::GlobBuilder;

use super::result::{PromptReview, ReviewerReport, ReviewerState, Status};
use super::run::{PromptOptions, PromptRequest, review};

/// One prompt file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptFile {
    /// As given or matched, relative to the working directory, `/`-separated.
    pub path: String,
    pub text: String,
}

/// A `--file` pattern that names no prompt file to review.
#[derive(Debug, thiserror::Error)]
pub enum ExpandError {
    #[error("--file {pattern}: {source}")]
    Glob {
        pattern: String,
        source: globset::Error,
    },
    #[error("--file {pattern}: no file matches")]
    NoMatch { pattern: String },
    #[error("--file {path}: cannot read: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
}

fn is_glob(p: &str) -> bool {
    p.contains(['*', '?', '[', '{'])
}

/// The files `patterns` name under `cwd`: a glob (`prompts/**/*.md`, where
/// `*` stays within a directory and `**` crosses them; .gitignore respected,
/// `.git` skipped) or a plain path. Sorted, each once. A glob that matches
/// nothing, or a file that cannot be read, is an error.
pub fn expand(cwd: &Path, patterns: &[String]) -> Result<Vec<PromptFile>, ExpandError> {
    let mut paths: Vec<String> = Vec::new();
    for p in patterns {
        if !is_glob(p) {
            paths.push(p.clone());
            continue;
        }
        let glob = GlobBuilder::new(p.trim_start_matches("./"))
            .literal_separator(true)
            .build()
            .map_err(|source| ExpandError::Glob {
                pattern: p.clone(),
                source,
            })?
            .compile_matcher();
        let mut found: Vec<String> = ignore::WalkBuilder::new(cwd)
            .hidden(false)
            .require_git(false)
            .filter_entry(|e| e.file_name() != ".git")
            .build()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
            .filter_map(|e| {
                let rel = e
                    .path()
                    .strip_prefix(cwd)
                    .ok()?
                    .to_string_lossy()
                    .replace('\\', "/");
                glob.is_match(&rel).then_some(rel)
            })
            .collect();
        if found.is_empty() {
            return Err(ExpandError::NoMatch { pattern: p.clone() });
        }
        paths.append(&mut found);
    }
    paths.sort();
    paths.dedup();
    paths
        .into_iter()
        .map(|path| {
            let full = cwd.join(&path);
            let text = match std::fs::read_to_string(&full) {
                Ok(t) => t,
                Err(source) => return Err(ExpandError::Read { path, source }),
            };
            Ok(PromptFile { path, text })
        })
        .collect()
}

/// Reviews every request, `concurrency` at a time; results in request order.
pub async fn review_many(
    requests: &[PromptRequest],
    opts: &PromptOptions,
    concurrency: usize,
) -> Vec<PromptReview> {
    futures_util::stream::iter(requests)
        .map(|r| review(r, opts))
        .buffered(concurrency.max(1))
        .collect()
        .await
}

/// The reviews as one result under `gate`. Verdict: ERROR when a review could
/// not run, CONCERNS when there are findings, else PASS.
pub fn to_result(reviews: &[PromptReview], gate: FailOn) -> ReviewResult {
    let could_not_run: Vec<String> = reviews
        .iter()
        .filter(|r| r.status == Status::FailedOpen)
        .map(|r| {
            format!(
                "{}: {}",
                r.source.as_deref().unwrap_or("<prompt>"),
                r.warnings.last().map_or("could not run", String::as_str)
            )
        })
        .collect();
    let findings: Vec<_> = reviews
        .iter()
        .flat_map(|r| r.findings.iter().cloned())
        .collect();
    let verdict = if !could_not_run.is_empty() {
        Verdict::Error
    } else if findings.is_empty() {
        Verdict::Pass
    } else {
        Verdict::Concerns
    };
    let mut result = ReviewResult::new("prompt", verdict);
    result.findings = findings;
    if !could_not_run.is_empty() {
        result.parse_error = Some(could_not_run.join("; "));
    }
    for r in reviews {
        let file = r.source.as_deref().unwrap_or("<prompt>");
        for rep in r
            .reviewers
            .iter()
            .filter(|x| x.state != ReviewerState::NotRun)
        {
            let name = if reviews.len() > 1 {
                format!("{}:{file}", rep.name)
            } else {
                rep.name.clone()
            };
            result.reviewers.push(outcome(rep, name));
        }
        result.usage += r.usage;
        result.cost_usd = crit_core::usage::add_cost(result.cost_usd, Some(r.cost_usd));
        result.duration_ms = result.duration_ms.max(r.duration_ms);
        result.inputs.insert(
            format!("prompt:{file}"),
            format!("{} ({})", file, r.hashes.prompt),
        );
    }
    result.summary = format!(
        "{} prompt{} reviewed, {} finding{}",
        reviews.len(),
        if reviews.len() == 1 { "" } else { "s" },
        result.findings.len(),
        if result.findings.len() == 1 { "" } else { "s" },
    );
    result.structured_output = serde_json::to_value(reviews).ok();
    result.apply_gate(gate);
    result
}

/// One reviewer's report as a review result's reviewer outcome.
fn outcome(rep: &ReviewerReport, name: String) -> ReviewerOutcome {
    ReviewerOutcome {
        name,
        status: match rep.state {
            ReviewerState::Ok | ReviewerState::NoIssues => ReviewerStatus::Completed,
            ReviewerState::Skipped => ReviewerStatus::ParseError,
            ReviewerState::TimedOut => ReviewerStatus::Incomplete,
            ReviewerState::Failed | ReviewerState::NotRun => ReviewerStatus::Failed,
        },
        verdict: match rep.state {
            ReviewerState::Ok => Verdict::Concerns,
            ReviewerState::NoIssues => Verdict::Pass,
            ReviewerState::TimedOut => Verdict::Incomplete,
            ReviewerState::Skipped => Verdict::Unknown,
            _ => Verdict::Error,
        },
        model: rep.model.clone(),
        findings: rep.findings,
        usage: rep.usage,
        cost_usd: Some(rep.cost_usd),
        duration_ms: rep.duration_ms,
        error: rep.state.unavailable().then(|| rep.why.clone()),
    }
}
