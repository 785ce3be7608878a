//! The project a review runs in, opened as every front end opens it: through
//! `crit_project::Project`, with the process environment read here, at the
//! edge, and a caller's `model=` as the one explicit choice. Wiring only:
//! every setting is crit-project's.

use std::path::{Path, PathBuf};

use crit_llm::{Backend, Env, Sourced};
use crit_project::{Explicit, Kind, Settings};
use crit_review::review::ReviewOptions;
use crit_review::template::{Registry, Template};
use pyo3::prelude::*;

use crate::errors;

/// The process environment: Python is a front end, so each of the module's
/// entries reads it once, here, at its edge, and hands it on as data.
pub(crate) fn env() -> Env {
    Env::from_process()
}

pub(crate) struct Project {
    inner: crit_project::Project,
}

impl Project {
    /// The project `dir` belongs to; `model` (the caller's) over the settings.
    pub(crate) fn open(dir: &Path, model: Option<String>) -> PyResult<Project> {
        let explicit = Explicit {
            model: model.map(|m| Sourced::explicit(m, "model=")),
            ..Explicit::default()
        };
        Project::open_with(dir, explicit)
    }

    /// The project `dir` belongs to, with the caller's own choices over the
    /// settings (as the command line's flags are).
    pub(crate) fn open_with(dir: &Path, explicit: Explicit) -> PyResult<Project> {
        let inner = crit_project::Project::open(dir, explicit, env()).map_err(errors::config)?;
        Ok(Project { inner })
    }

    pub(crate) fn root(&self) -> PathBuf {
        self.inner.root().to_path_buf()
    }

    pub(crate) fn cwd(&self) -> PathBuf {
        self.inner.cwd().to_path_buf()
    }

    pub(crate) fn inner(&self) -> &crit_project::Project {
        &self.inner
    }

    pub(crate) fn settings(&self, kind: Kind) -> PyResult<Settings> {
        self.inner.settings(kind).map_err(errors::config)
    }

    /// The backend the settings choose.
    pub(crate) fn backend(&self, settings: &Settings) -> PyResult<Backend> {
        settings.build_backend().map_err(errors::backend)
    }

    /// A template by name: built-in, the user's, or the project's as its rules allow.
    pub(crate) fn template(&self, name: &str) -> PyResult<Template> {
        self.registry()?.get(name).cloned().map_err(errors::config)
    }

    /// Every template, as `template` finds them.
    pub(crate) fn registry(&self) -> PyResult<Registry> {
        Registry::load_with(&self.inner.template_dirs(), self.inner.rules()).map_err(errors::config)
    }

    /// Template-review options as the command line sets them, without a
    /// progress display.
    pub(crate) fn options(&self, settings: &Settings, log: bool) -> ReviewOptions {
        let mut opts = ReviewOptions::from_settings(&self.inner, settings);
        opts.log = log;
        opts
    }
}
