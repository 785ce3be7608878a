//! Posting a result to the pull or merge request a CI job runs for, as
//! `crit review code --post` does: where to post (the forge's CI
//! environment, its token, the account) is crit-post's decision
//! ([`crit_post::Destination::from_env`]); this only wires it.

use crit_core::ReviewResult;
use crit_post::{Choice, Destination, ForgeKind, PostReport};
use pyo3::prelude::*;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::bridge;
use crate::errors;

/// The destination `forge` (`github` or `gitlab`) names in this process's
/// environment, and the result to post, read while the caller waits.
fn prepare(result: &str, forge: &str, choice: Choice) -> PyResult<(Destination, ReviewResult)> {
    let kind = match forge.to_ascii_lowercase().as_str() {
        "github" => ForgeKind::Github,
        "gitlab" => ForgeKind::Gitlab,
        other => {
            return Err(errors::config(format!(
                "forge must be \"github\" or \"gitlab\", not {other:?}"
            )));
        }
    };
    // Python is a front end: the environment is read here, at its edge.
    let env = crate::project::env();
    let dest = Destination::from_env(&env, kind, &choice).map_err(errors::config)?;
    let mut parsed: ReviewResult = serde_json::from_str(result)
        .map_err(|e| errors::config(format!("the result is not a ReviewResult: {e}")))?;
    parsed.fill_missing_ids();
    Ok((dest, parsed))
}

/// What one post did, as JSON for the Python layer.
fn report_json(r: &PostReport) -> String {
    json!({
        "forge": r.forge.to_string(),
        "inline_posted": r.inline_posted,
        "inline_kept": r.inline_kept,
        "resolved": r.resolved,
        "threads_resolved": r.threads_resolved,
        "in_summary": r.in_summary.iter()
            .map(|(id, why)| json!({"id": id, "why": why.reason()}))
            .collect::<Vec<_>>(),
        "summary_url": r.summary_url,
        "summary_created": r.summary_created,
        "notes": r.notes,
        "failed": r.failed,
        "complete": r.complete(),
    })
    .to_string()
}

async fn send(
    dest: Destination,
    result: ReviewResult,
    cancel: CancellationToken,
) -> bridge::Answer {
    match cancel.run_until_cancelled(dest.post(&result)).await {
        Some(Ok(report)) => Ok(report_json(&report)),
        Some(Err(e)) => Err(errors::post(e)),
        None => Err(bridge::stopped()),
    }
}

/// Posts `result` (a ReviewResult as JSON) to the pull (GitHub Actions) or
/// merge (GitLab CI) request this process's environment names; an
/// awaitable of what was done, as JSON.
#[pyfunction]
#[pyo3(signature = (result, forge, token_env=None, pull_request=None, github_login=None, max_comments=None))]
pub(crate) fn post<'py>(
    py: Python<'py>,
    result: &str,
    forge: &str,
    token_env: Option<String>,
    pull_request: Option<u64>,
    github_login: Option<String>,
    max_comments: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let choice = Choice {
        token_var: token_env,
        pull_request,
        github_login,
        max_comments,
    };
    let (dest, result) = prepare(result, forge, choice)?;
    bridge::awaitable(py, move |cancel| send(dest, result, cancel))
}

/// [`post`], blocking until done.
#[pyfunction]
#[pyo3(signature = (result, forge, token_env=None, pull_request=None, github_login=None, max_comments=None))]
pub(crate) fn post_sync(
    py: Python<'_>,
    result: &str,
    forge: &str,
    token_env: Option<String>,
    pull_request: Option<u64>,
    github_login: Option<String>,
    max_comments: Option<usize>,
) -> PyResult<String> {
    let choice = Choice {
        token_var: token_env,
        pull_request,
        github_login,
        max_comments,
    };
    let (dest, result) = prepare(result, forge, choice)?;
    bridge::blocking(py, move |cancel| send(dest, result, cancel))
}
