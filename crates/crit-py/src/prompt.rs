//! Prompt review (`crit prompt`, the prompt-review plugin) as a module
//! function, over `crit_review::prompt`. Like the command it fails open: a
//! review that cannot run returns the original prompt and says why.

use std::path::PathBuf;
use std::time::SystemTime;

use crit_core::FailOn;
use crit_project::config::prompt_review::{self as prompt_config, ConfigPaths};
use crit_review::prompt::{PromptOptions, PromptRequest, audit, backend, gate, run};
use pyo3::prelude::*;
use tokio_util::sync::CancellationToken;

use crate::bridge;
use crate::errors;
use crate::project::Project;

struct PromptReview {
    req: PromptRequest,
    /// `None`: prompt review is switched off (`PROMPT_REVIEW_ENABLED=false`).
    opts: Option<PromptOptions>,
    /// Where the audit line goes (`None`: not written).
    audit: Option<PathBuf>,
}

fn prompt_review(
    text: String,
    cwd: Option<PathBuf>,
    model: Option<String>,
    cache: bool,
    log: bool,
) -> PyResult<PromptReview> {
    if text.trim().is_empty() {
        return Err(errors::config(
            "the prompt is empty: there is nothing to review",
        ));
    }
    let project = Project::open(&cwd.unwrap_or_else(|| PathBuf::from(".")), model)?;
    let env = project.inner().env();
    let loaded = prompt_config::load(&ConfigPaths::standard(env), project.inner().rules(), env)
        .map_err(errors::config)?;
    let req = PromptRequest {
        prompt: text,
        root: project.root(),
        cwd: project.cwd(),
        trigger: "python".into(),
        source: None,
    };
    let opts = loaded.enabled.then(|| {
        backend::options(
            project.inner().explicit(),
            project.inner().config(),
            &loaded,
            project.inner().env(),
            cache,
        )
    });
    Ok(PromptReview {
        req,
        opts,
        audit: (log && loaded.config.budget.log_costs)
            .then(|| audit::dir(&|k: &str| env.get(k).map(str::to_string)))
            .flatten(),
    })
}

/// `{"result": ReviewResult, "review": the prompt review}` as JSON.
async fn run_prompt(p: PromptReview, cancel: CancellationToken) -> bridge::Answer {
    let review = match p.opts {
        Some(mut opts) => {
            opts.cancel = cancel;
            run::review(&p.req, &opts).await
        }
        None => run::disabled(&p.req, "prompt review is off (PROMPT_REVIEW_ENABLED=false)"),
    };
    if let Some(dir) = &p.audit
        && let Err(e) = audit::append(dir, &review, SystemTime::now())
    {
        tracing::warn!("the prompt review's audit line was not written: {e}");
    }
    let result = gate::to_result(std::slice::from_ref(&review), FailOn::default());
    serde_json::to_string(&serde_json::json!({"result": result, "review": review}))
        .map_err(errors::internal)
}

/// Reviews a prompt before an agent runs it; an awaitable of
/// `{"result", "review"}` as JSON.
#[pyfunction]
#[pyo3(signature = (text, cwd=None, model=None, cache=true, log=true))]
pub(crate) fn review_prompt<'py>(
    py: Python<'py>,
    text: String,
    cwd: Option<PathBuf>,
    model: Option<String>,
    cache: bool,
    log: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let p = prompt_review(text, cwd, model, cache, log)?;
    bridge::awaitable(py, move |cancel| run_prompt(p, cancel))
}

/// [`review_prompt`], blocking until done.
#[pyfunction]
#[pyo3(signature = (text, cwd=None, model=None, cache=true, log=true))]
pub(crate) fn review_prompt_sync(
    py: Python<'_>,
    text: String,
    cwd: Option<PathBuf>,
    model: Option<String>,
    cache: bool,
    log: bool,
) -> PyResult<String> {
    let p = prompt_review(text, cwd, model, cache, log)?;
    bridge::blocking(py, move |cancel| run_prompt(p, cancel))
}
