//! Template reviews (`crit review NAME`) and plan reviews (`crit plan`) as
//! module functions, over `crit_review::review::run_template` and crit-checks.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crit_checks::{AnswerBook, NoPanel, Options, Panel, review_with_panel};
use crit_review::plan::LlmPanel;
use crit_review::review::{ReviewRequest, run_template};
use pyo3::prelude::*;
use tokio_util::sync::CancellationToken;

use crate::bridge;
use crate::errors;
use crate::project::Project;

/// What a template review needs, read while the caller waits.
struct TemplateReview {
    backend: crit_llm::Backend,
    req: ReviewRequest,
    opts: crit_review::review::ReviewOptions,
}

fn template_review(
    name: &str,
    inputs: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    model: Option<String>,
    context_file: Option<PathBuf>,
    log: bool,
) -> PyResult<TemplateReview> {
    let project = Project::open(&cwd.unwrap_or_else(|| PathBuf::from(".")), model)?;
    let template = project.template(name)?;
    let kind = match template.name.as_str() {
        "code" => crit_project::Kind::Code,
        _ => crit_project::Kind::Template,
    };
    let settings = project.settings(kind)?;
    let backend = project.backend(&settings)?;
    let opts = project.options(&settings, log);
    Ok(TemplateReview {
        backend,
        req: ReviewRequest {
            template,
            inputs,
            scope: None,
            context_file,
            root: project.root(),
            cwd: project.cwd(),
        },
        opts,
    })
}

async fn run_review(mut t: TemplateReview, cancel: CancellationToken) -> bridge::Answer {
    t.opts.cancel = cancel;
    let result = run_template(&t.backend, &t.req, &t.opts)
        .await
        .map_err(errors::review)?;
    serde_json::to_string(&result).map_err(errors::internal)
}

/// Runs the review template `name` with `inputs`; an awaitable of the
/// ReviewResult as JSON.
#[pyfunction]
#[pyo3(signature = (name, inputs, cwd=None, model=None, context_file=None, log=true))]
pub fn review_template<'py>(
    py: Python<'py>,
    name: &str,
    inputs: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    model: Option<String>,
    context_file: Option<PathBuf>,
    log: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let t = template_review(name, inputs, cwd, model, context_file, log)?;
    bridge::awaitable(py, move |cancel| run_review(t, cancel))
}

/// [`review_template`], blocking until done.
#[pyfunction]
#[pyo3(signature = (name, inputs, cwd=None, model=None, context_file=None, log=true))]
pub fn review_template_sync(
    py: Python<'_>,
    name: &str,
    inputs: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    model: Option<String>,
    context_file: Option<PathBuf>,
    log: bool,
) -> PyResult<String> {
    let t = template_review(name, inputs, cwd, model, context_file, log)?;
    bridge::blocking(py, move |cancel| run_review(t, cancel))
}

/// What a plan review needs.
struct PlanReview {
    target: String,
    book: AnswerBook,
    panel: bool,
}

fn plan_review(
    path: String,
    answers: BTreeMap<String, String>,
    panel: bool,
) -> PyResult<PlanReview> {
    let specs: Vec<String> = answers.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let book = AnswerBook::parse(&specs).map_err(errors::config)?;
    Ok(PlanReview {
        target: path,
        book,
        panel,
    })
}

/// The plan's checks (no model), then the persona panel when `panel` is on
/// and a backend is configured, as `crit plan` does.
async fn run_plan(p: PlanReview, cancel: CancellationToken) -> bridge::Answer {
    tokio::task::spawn_blocking(move || {
        // Python is a front end: the environment is read here, at its edge.
        let env = crit_os::env::Env::from_process();
        let options = Options::from_env(&env);
        let mut book = p.book;
        let mut panel: Box<dyn Panel> = match p.panel {
            true => llm_panel(options.home.clone(), cancel),
            false => Box::new(NoPanel("switched off by the caller".into())),
        };
        let report = review_with_panel(&p.target, &options, &mut book, panel.as_mut());
        if let Err(e) = &report.result {
            return Err(match e.is_config_error() {
                true => errors::config(e),
                false => errors::PlanError::new_err(e.to_string()),
            });
        }
        let mut result = report.to_review_result();
        for id in book.unused() {
            result.summary.push_str(&format!(
                "\nanswer {id}: no question about this check was asked"
            ));
        }
        serde_json::to_string(&result).map_err(errors::internal)
    })
    .await
    .unwrap_or_else(|e| Err(errors::internal(e)))
}

fn llm_panel(home: Option<PathBuf>, cancel: CancellationToken) -> Box<dyn Panel> {
    let project = std::env::current_dir().and_then(|d| d.canonicalize());
    let selection = project
        .map_err(|e| e.to_string())
        .and_then(|d| Project::open(&d, None).map_err(|e| e.to_string()))
        .and_then(|p| {
            let settings = p
                .settings(crit_project::Kind::Plan)
                .map_err(|e| e.to_string())?;
            let backend = p.backend(&settings).map_err(|e| e.to_string())?;
            Ok((backend, settings.request_model()))
        });
    let (backend, model) = match selection {
        Ok(b) => b,
        Err(why) => return Box::new(NoPanel(format!("no model backend: {why}"))),
    };
    // Called on one of the bindings' runtime's blocking threads: the panel
    // runs its reviewers on that runtime.
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => Box::new(LlmPanel::new(backend, model, home, runtime).with_cancel(cancel)),
        Err(e) => Box::new(NoPanel(format!(
            "no async runtime to run the panel on: {e}"
        ))),
    }
}

/// Reviews the plan at `path` (a session directory, a plan.md, or
/// `session://ID`) with `answers` to its questions; an awaitable of the
/// ReviewResult as JSON.
#[pyfunction]
#[pyo3(signature = (path, answers, panel=true))]
pub fn review_plan<'py>(
    py: Python<'py>,
    path: String,
    answers: BTreeMap<String, String>,
    panel: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let p = plan_review(path, answers, panel)?;
    bridge::awaitable(py, move |cancel| run_plan(p, cancel))
}

/// [`review_plan`], blocking until done.
#[pyfunction]
#[pyo3(signature = (path, answers, panel=true))]
pub fn review_plan_sync(
    py: Python<'_>,
    path: String,
    answers: BTreeMap<String, String>,
    panel: bool,
) -> PyResult<String> {
    let p = plan_review(path, answers, panel)?;
    bridge::blocking(py, move |cancel| run_plan(p, cancel))
}
