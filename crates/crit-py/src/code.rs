//! Code reviewers for pipelines (mala's `CodeReviewer`): crit's own agent
//! reviewer and an external reviewer program, over `crit_review::code`.

use std::path::PathBuf;
use std::time::Duration;

use crit_core::FailOn;
use crit_llm::Backend;
use crit_project::suppress::Suppressions;
use crit_review::code::{AgentReviewer, CodeReviewRequest, CodeReviewer, CommandReviewer};
use crit_review::review::ReviewOptions;
use crit_review::template::Template;
use pyo3::prelude::*;
use tokio_util::sync::CancellationToken;

use crate::bridge;
use crate::errors;
use crate::project::Project;

#[derive(Clone)]
struct Agent {
    backend: Backend,
    template: Template,
    root: PathBuf,
    opts: ReviewOptions,
}

#[derive(Clone)]
enum Kind {
    Agent(Box<Agent>),
    Command {
        argv: Vec<String>,
        root: PathBuf,
        fail_on: FailOn,
    },
}

/// A code reviewer; the Python classes `AgentReviewer` and `CommandReviewer` wrap it.
#[pyclass(module = "crit._crit", name = "CodeReviewer", frozen)]
pub struct NativeCodeReviewer {
    kind: Kind,
}

#[pymethods]
impl NativeCodeReviewer {
    /// crit's agent reviewer: the `code` template (or the project's override
    /// of it) with the configured backend, in process.
    /// `system_prompt` (mala's `review_agent_prompt`) replaces the
    /// template's reviewer instructions; crit's answer contract still follows.
    #[staticmethod]
    #[pyo3(signature = (repo, model=None, log=true, system_prompt=None))]
    fn agent(
        repo: PathBuf,
        model: Option<String>,
        log: bool,
        system_prompt: Option<String>,
    ) -> PyResult<Self> {
        let mut reviewer = agent(&Project::open(&repo, model)?, log)?;
        if let (Kind::Agent(a), Some(prompt)) = (&mut reviewer.kind, system_prompt) {
            a.template.system_prompt = prompt.clone();
            for r in &mut a.template.reviewers {
                r.system_prompt = prompt.clone();
            }
        }
        Ok(reviewer)
    }

    /// An external reviewer program (`argv`: the program and its arguments).
    #[staticmethod]
    fn command(argv: Vec<String>, repo: PathBuf) -> PyResult<Self> {
        let project = Project::open(&repo, None)?;
        Ok(NativeCodeReviewer {
            kind: Kind::Command {
                argv,
                root: project.root(),
                fail_on: project.settings(crit_project::Kind::Code)?.fail_on.value,
            },
        })
    }

    /// The reviewer `.crit/config.yaml` chooses: `reviewer: command` (when
    /// the project's settings are trusted) runs its `command`, else the agent.
    #[staticmethod]
    #[pyo3(signature = (repo, model=None, log=true))]
    fn configured(repo: PathBuf, model: Option<String>, log: bool) -> PyResult<Self> {
        let project = Project::open(&repo, model)?;
        let settings = project.settings(crit_project::Kind::Code)?;
        let crit_project::Reviewer::Command(argv) = settings.reviewer.value.clone() else {
            return agent(&project, log);
        };
        command_allowed(&project)?;
        Ok(NativeCodeReviewer {
            kind: Kind::Command {
                argv,
                root: project.root(),
                fail_on: settings.fail_on.value,
            },
        })
    }

    /// `agent` or `command`.
    #[getter]
    fn kind(&self) -> &'static str {
        match self.kind {
            Kind::Agent(_) => "agent",
            Kind::Command { .. } => "command",
        }
    }

    /// Reviews one change; an awaitable of the ReviewResult as JSON.
    #[pyo3(signature = (diff_range=None, commit_shas=Vec::new(), context_file=None, timeout=None, session_id=None))]
    fn review<'py>(
        &self,
        py: Python<'py>,
        diff_range: Option<String>,
        commit_shas: Vec<String>,
        context_file: Option<PathBuf>,
        timeout: Option<f64>,
        session_id: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let req = request(diff_range, commit_shas, context_file, timeout, session_id)?;
        let kind = self.kind.clone();
        bridge::awaitable(py, move |cancel| run(kind, req, cancel))
    }

    /// [`review`], blocking until done.
    #[pyo3(signature = (diff_range=None, commit_shas=Vec::new(), context_file=None, timeout=None, session_id=None))]
    fn review_sync(
        &self,
        py: Python<'_>,
        diff_range: Option<String>,
        commit_shas: Vec<String>,
        context_file: Option<PathBuf>,
        timeout: Option<f64>,
        session_id: Option<String>,
    ) -> PyResult<String> {
        let req = request(diff_range, commit_shas, context_file, timeout, session_id)?;
        let kind = self.kind.clone();
        bridge::blocking(py, move |cancel| run(kind, req, cancel))
    }

    /// Whether it runs where reviews are switched off: neither of crit's
    /// reviewers does (mala's `overrides_disabled_setting`).
    fn overrides_disabled_setting(&self) -> bool {
        false
    }
}

fn agent(project: &Project, log: bool) -> PyResult<NativeCodeReviewer> {
    let template = project.template("code")?;
    let settings = project.settings(crit_project::Kind::Code)?;
    let backend = project.backend(&settings)?;
    let opts = project.options(&settings, log);
    Ok(NativeCodeReviewer {
        kind: Kind::Agent(Box::new(Agent {
            backend,
            template,
            root: project.root(),
            opts,
        })),
    })
}

/// The command reviewer applies the working tree's suppressions itself, so
/// it runs only when those are exactly what the project's rules allow.
fn command_allowed(project: &Project) -> PyResult<()> {
    let allowed = Suppressions::load_with(project.inner().rules()).map_err(errors::config)?;
    let read = Suppressions::load(&project.root()).map_err(errors::config)?;
    if allowed.entries() != read.entries() {
        return Err(errors::config(format!(
            "not running the command reviewer: it applies {} as the working tree has it, and this project's rules do not allow all of its entries; `crit trust` allows them",
            crit_project::suppress::SUPPRESSIONS_FILE
        )));
    }
    Ok(())
}

fn request(
    diff_range: Option<String>,
    commit_shas: Vec<String>,
    context_file: Option<PathBuf>,
    timeout: Option<f64>,
    session_id: Option<String>,
) -> PyResult<CodeReviewRequest> {
    let timeout = match timeout {
        None => None,
        Some(t) if t.is_finite() && t > 0.0 => Some(Duration::from_secs_f64(t)),
        Some(t) => {
            return Err(errors::config(format!(
                "timeout: expected a positive number of seconds, not {t}"
            )));
        }
    };
    Ok(CodeReviewRequest {
        diff_range,
        commit_shas,
        context_file,
        timeout,
        session_id,
    })
}

async fn run(kind: Kind, req: CodeReviewRequest, cancel: CancellationToken) -> bridge::Answer {
    let result = match kind {
        Kind::Agent(agent) => {
            let Agent {
                backend,
                template,
                root,
                mut opts,
            } = *agent;
            opts.cancel = cancel;
            AgentReviewer::new(backend, template, root, opts)
                .review(&req)
                .await
        }
        Kind::Command {
            argv,
            root,
            fail_on,
        } => {
            // Python is a front end: the environment is read here, at its edge.
            let mut result = CommandReviewer::new(argv, root)
                .with_env(crate::project::env())
                .with_noise_controls(None, None, fail_on)
                .with_cancel(cancel)
                .review(&req)
                .await;
            result.apply_gate(fail_on);
            result
        }
    };
    serde_json::to_string(&result).map_err(errors::internal)
}
