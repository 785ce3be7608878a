//! Template reviews (`crit review NAME`) and plan reviews (`crit plan`) as
//! module functions, over `crit_review::review::run_template` and crit-checks.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crit_checks::{AnswerBook, Options};
use crit_core::FailOn;
use crit_llm::Sourced;
use crit_project::Explicit;
use crit_review::plan::{self as plan_kind, PanelChoice, PlanReview};
use crit_review::review::{ReviewRequest, run_template};
use crit_review::template::{Origin, PromptSource, Template, parse_template};
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

/// Where a template review's template comes from: crit's registry by name,
/// or a template's YAML the caller holds (the review templates' Python
/// registry), which is the caller's own and so trusted as a user's.
struct Call {
    name: String,
    text: Option<String>,
    inputs: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    model: Option<String>,
    context_file: Option<PathBuf>,
    log: bool,
}

fn template_review(call: Call) -> PyResult<TemplateReview> {
    let Call {
        name,
        text,
        inputs,
        cwd,
        model,
        context_file,
        log,
    } = call;
    let project = Project::open(&cwd.unwrap_or_else(|| PathBuf::from(".")), model)?;
    let template = match text {
        None => project.template(&name)?,
        Some(text) => parse_template(&text, &format!("<{name}>"), Origin::User, None)
            .map_err(errors::config)?,
    };
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
            change: None,
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
#[pyo3(signature = (name, inputs, cwd=None, model=None, context_file=None, log=true, template_text=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn review_template<'py>(
    py: Python<'py>,
    name: &str,
    inputs: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    model: Option<String>,
    context_file: Option<PathBuf>,
    log: bool,
    template_text: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let t = template_review(Call {
        name: name.to_string(),
        text: template_text,
        inputs,
        cwd,
        model,
        context_file,
        log,
    })?;
    bridge::awaitable(py, move |cancel| run_review(t, cancel))
}

/// [`review_template`], blocking until done.
#[pyfunction]
#[pyo3(signature = (name, inputs, cwd=None, model=None, context_file=None, log=true, template_text=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn review_template_sync(
    py: Python<'_>,
    name: &str,
    inputs: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    model: Option<String>,
    context_file: Option<PathBuf>,
    log: bool,
    template_text: Option<String>,
) -> PyResult<String> {
    let t = template_review(Call {
        name: name.to_string(),
        text: template_text,
        inputs,
        cwd,
        model,
        context_file,
        log,
    })?;
    bridge::blocking(py, move |cancel| run_review(t, cancel))
}

/// What a plan review needs, read while the caller waits.
struct PlanCall {
    target: String,
    book: AnswerBook,
    panel: bool,
    cwd: PathBuf,
    log: bool,
    /// `fail_on=`: the gate, as `crit plan --fail-on` sets it.
    fail_on: Option<FailOn>,
}

fn plan_call(
    path: String,
    answers: BTreeMap<String, String>,
    panel: bool,
    cwd: Option<PathBuf>,
    log: bool,
    fail_on: Option<String>,
) -> PyResult<PlanCall> {
    let fail_on = fail_on
        .map(|f| {
            FailOn::parse(&f).ok_or_else(|| {
                errors::config(format!(
                    "fail_on={f:?}: expected p0, p1, p2, p3, concerns or never"
                ))
            })
        })
        .transpose()?;
    let specs: Vec<String> = answers.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let book = AnswerBook::parse(&specs).map_err(errors::config)?;
    Ok(PlanCall {
        target: path,
        book,
        panel,
        cwd: cwd.unwrap_or_else(|| PathBuf::from(".")),
        log,
        fail_on,
    })
}

/// The plan review `crit plan` runs (crit-review's plan kind), wired for
/// Python: answers given up front, the project at `cwd`.
async fn run_plan(p: PlanCall, cancel: CancellationToken) -> bridge::Answer {
    tokio::task::spawn_blocking(move || {
        // Python is a front end: the environment is read here, at its edge.
        let env = crate::project::env();
        let options = Options::from_env(&env);
        // The panel runs on the bindings' runtime, from this blocking thread.
        let runtime = tokio::runtime::Handle::try_current().map_err(errors::internal)?;
        let explicit = Explicit {
            fail_on: p.fail_on.map(|f| Sourced::explicit(f, "fail_on=")),
            ..Explicit::default()
        };
        let project = Project::open_with(&p.cwd, explicit);
        let settings = project
            .as_ref()
            .map_err(ToString::to_string)
            .and_then(|pr| {
                pr.settings(crit_project::Kind::Plan)
                    .map_err(|e| e.to_string())
            });
        let why = match (&settings, p.panel) {
            (_, false) => "switched off by the caller".to_string(),
            (Err(e), true) => format!("the backend is misconfigured: {e}"),
            (Ok(_), true) => String::new(),
        };
        let panel = match (&settings, p.panel) {
            (Ok(s), true) => PanelChoice::Settings(s),
            _ => PanelChoice::Off(&why),
        };
        let target = match p.target.starts_with("session://")
            || std::path::Path::new(&p.target).is_absolute()
        {
            true => p.target.clone(),
            false => p.cwd.join(&p.target).display().to_string(),
        };
        let req = PlanReview {
            target: &target,
            panel,
            options: &options,
            runtime,
            cancel,
            progress: None,
            log: p.log,
            env: &env,
        };
        let mut book = p.book;
        let outcome = plan_kind::review_plan(req, &mut book);
        if let Err(e) = &outcome.report.result {
            return Err(match e.is_config_error() {
                true => errors::config(e),
                false => errors::PlanError::new_err(e.to_string()),
            });
        }
        serde_json::to_string(&outcome.result).map_err(errors::internal)
    })
    .await
    .unwrap_or_else(|e| Err(errors::internal(e)))
}

/// Reviews the plan at `path` (a session directory, a plan.md, or
/// `session://ID`) with `answers` to its questions; an awaitable of the
/// ReviewResult as JSON.
#[pyfunction]
#[pyo3(signature = (path, answers, panel=true, cwd=None, log=true, fail_on=None))]
pub(crate) fn review_plan<'py>(
    py: Python<'py>,
    path: String,
    answers: BTreeMap<String, String>,
    panel: bool,
    cwd: Option<PathBuf>,
    log: bool,
    fail_on: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let p = plan_call(path, answers, panel, cwd, log, fail_on)?;
    bridge::awaitable(py, move |cancel| run_plan(p, cancel))
}

/// [`review_plan`], blocking until done.
#[pyfunction]
#[pyo3(signature = (path, answers, panel=true, cwd=None, log=true, fail_on=None))]
pub(crate) fn review_plan_sync(
    py: Python<'_>,
    path: String,
    answers: BTreeMap<String, String>,
    panel: bool,
    cwd: Option<PathBuf>,
    log: bool,
    fail_on: Option<String>,
) -> PyResult<String> {
    let p = plan_call(path, answers, panel, cwd, log, fail_on)?;
    bridge::blocking(py, move |cancel| run_plan(p, cancel))
}

/// Every template that loads in the project at `cwd` (built-in, the user's,
/// the project's as its rules allow), as JSON with the review templates'
/// field names.
#[pyfunction]
#[pyo3(signature = (cwd=None))]
pub(crate) fn templates(cwd: Option<PathBuf>) -> PyResult<String> {
    let project = Project::open(&cwd.unwrap_or_else(|| PathBuf::from(".")), None)?;
    let registry = project.registry()?;
    let all: Vec<serde_json::Value> = registry.list().map(template_json).collect();
    serde_json::to_string(&all).map_err(errors::internal)
}

fn template_json(t: &Template) -> serde_json::Value {
    let inputs = |required: bool| -> Vec<serde_json::Value> {
        t.inputs
            .iter()
            .filter(|i| i.required == required)
            .map(|i| serde_json::json!({"name": i.name, "description": i.description, "default": i.default}))
            .collect()
    };
    let (prompt_template, prompt_builder) = match &t.prompt {
        PromptSource::Template(text) => (Some(text.clone()), None),
        PromptSource::Builder(_) => (None, Some(serde_json::json!("code"))),
        PromptSource::Command(argv) => (None, Some(serde_json::json!({"command": argv}))),
    };
    serde_json::json!({
        "name": t.name,
        "description": t.description,
        "system_prompt": t.system_prompt,
        "allowed_tools": t.allowed_tools,
        "permission_mode": t.permission_mode,
        "setting_sources": t.setting_sources,
        "required_inputs": inputs(true),
        "optional_inputs": inputs(false),
        "hooks": t.hooks,
        "prompt_template": prompt_template,
        "prompt_builder": prompt_builder,
        "origin": t.origin.as_str(),
        "path": t.path,
    })
}

/// crit's result (JSON) in the review templates' `ReviewResult.to_dict()`
/// shape, exactly as `--compat squadron` prints it.
#[pyfunction]
pub(crate) fn squadron_dict(result: &str) -> PyResult<String> {
    let result: crit_core::ReviewResult = serde_json::from_str(result).map_err(errors::internal)?;
    Ok(crit_core::render::compat::render(
        &result,
        crit_core::render::compat::Compat::Squadron,
    ))
}

/// A YAML document (a review template file) as JSON, for the review
/// templates' loader in Python, which has no YAML parser of its own.
#[pyfunction]
pub(crate) fn yaml_to_json(text: &str) -> PyResult<String> {
    let value: serde_json::Value = serde_saphyr::from_str(text).map_err(errors::config)?;
    serde_json::to_string(&value).map_err(errors::internal)
}
