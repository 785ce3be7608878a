//! `Crit`: the orchestrated review (`crit run`, Reldo's library) over
//! `crit_review::orchestrate::Crit`.

use std::path::PathBuf;
use std::sync::Arc;

use crit_review::orchestrate::{Crit, RunConfig};
use pyo3::prelude::*;

use crate::bridge;
use crate::errors;
use crate::hooks::{self, HookSpec, HookSpecTuple};

/// A configured orchestrator; the Python class `crit.Crit` wraps it.
#[pyclass(module = "crit._crit", name = "Crit", frozen)]
pub struct NativeCrit {
    config: RunConfig,
    hooks: Vec<Arc<HookSpec>>,
    max_budget_usd: Option<f64>,
    verbose: bool,
}

fn cwd() -> PyResult<PathBuf> {
    std::env::current_dir().map_err(|e| errors::config(format!("the current directory: {e}")))
}

#[pymethods]
impl NativeCrit {
    /// Loads a config file (JSON or YAML, Reldo's format), relative to the
    /// current directory.
    #[staticmethod]
    #[pyo3(signature = (path, hooks, max_budget_usd=None, verbose=false))]
    fn from_config(
        path: PathBuf,
        hooks: Vec<HookSpecTuple>,
        max_budget_usd: Option<f64>,
        verbose: bool,
    ) -> PyResult<Self> {
        let config =
            RunConfig::load(&path, &cwd()?, &crate::project::env()).map_err(errors::config)?;
        Self::new(config, hooks, max_budget_usd, verbose)
    }

    /// A config given as JSON text (a Python dict, dumped), with Reldo's keys.
    #[staticmethod]
    #[pyo3(signature = (text, hooks, max_budget_usd=None, verbose=false))]
    fn from_json(
        text: &str,
        hooks: Vec<HookSpecTuple>,
        max_budget_usd: Option<f64>,
        verbose: bool,
    ) -> PyResult<Self> {
        let config = RunConfig::parse(text, "<config dict>", &cwd()?, &crate::project::env())
            .map_err(errors::config)?;
        Self::new(config, hooks, max_budget_usd, verbose)
    }

    /// The working directory the reviewers run in.
    #[getter]
    fn cwd(&self) -> PathBuf {
        self.config.cwd.clone()
    }

    /// Reviews `prompt`; an awaitable of the ReviewResult as JSON.
    fn review<'py>(&self, py: Python<'py>, prompt: String) -> PyResult<Bound<'py, PyAny>> {
        let caller = bridge::CallerLoop::current(py)?;
        let crit = self.crit(Some(Arc::new(caller)))?;
        bridge::awaitable(py, move |cancel| run(crit, prompt, cancel))
    }

    /// Reviews `prompt` and blocks until done; the ReviewResult as JSON.
    fn review_sync(&self, py: Python<'_>, prompt: String) -> PyResult<String> {
        let crit = self.crit(None)?;
        bridge::blocking(py, move |cancel| run(crit, prompt, cancel))
    }
}

impl NativeCrit {
    fn new(
        config: RunConfig,
        hooks: Vec<HookSpecTuple>,
        max_budget_usd: Option<f64>,
        verbose: bool,
    ) -> PyResult<Self> {
        Ok(NativeCrit {
            config,
            hooks: hooks::specs(hooks)?,
            max_budget_usd,
            verbose,
        })
    }

    /// The orchestrator on the backend the project's settings for `crit run`
    /// choose, as the command line's.
    fn crit(&self, caller: Option<Arc<bridge::CallerLoop>>) -> PyResult<Crit> {
        let project = crate::project::Project::open(&self.config.cwd, None)?;
        let settings = project.settings(crit_project::Kind::Run)?;
        let crit = Crit::new(self.config.clone(), project.inner().env().clone())
            .with_settings(&settings)
            .map_err(errors::backend)?
            .with_hooks(hooks::for_review(&self.hooks, caller))
            .with_max_budget_usd(
                self.max_budget_usd
                    .or(settings.max_budget_usd.as_ref().map(|b| b.value)),
            )
            .verbose(self.verbose);
        Ok(crit)
    }
}

async fn run(
    crit: Crit,
    prompt: String,
    cancel: tokio_util::sync::CancellationToken,
) -> bridge::Answer {
    let result = crit
        .with_cancel(cancel)
        .review(&prompt)
        .await
        .map_err(errors::run)?;
    serde_json::to_string(&result).map_err(errors::internal)
}
