//! The project a review runs in, set up as the `crit` command does: whose
//! rules apply (the trust store; in CI the base revision), the config files,
//! the model backend, the options. Wiring only: every decision is
//! crit-review's.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crit_core::FailOn;
use crit_llm::{Backend, Env, Sourced};
use crit_project::backend::{self, Explicit};
use crit_project::config::Config;
use crit_project::trust::ProjectRules;
use crit_review::review::ReviewOptions;
use crit_review::template::{Limits, Registry, Template, TemplateDirs};
use pyo3::prelude::*;

use crate::errors;

pub fn env(k: &str) -> Option<String> {
    std::env::var(k).ok()
}

pub struct Project {
    /// The directory asked for, resolved.
    pub cwd: PathBuf,
    pub root: PathBuf,
    pub rules: Arc<ProjectRules>,
    pub config: Config,
}

impl Project {
    /// The project `dir` belongs to.
    pub fn open(dir: &Path) -> PyResult<Project> {
        let cwd = dir
            .canonicalize()
            .map_err(|e| errors::config(format!("{}: {e}", dir.display())))?;
        let root = crit_project::paths::project_root(&cwd);
        let rules = ProjectRules::discover(&root, &env, None).map_err(errors::config)?;
        let (user, _) = Config::standard_paths(rules.root(), env);
        let config = Config::load_project(user.as_deref(), &rules).map_err(errors::config)?;
        Ok(Project {
            cwd,
            root,
            rules: Arc::new(rules),
            config,
        })
    }

    /// The backend the config files and `CRIT_*`/provider variables choose;
    /// `model` (the caller's) over them. Also what `session.json` records.
    pub fn backend(&self, model: Option<String>) -> PyResult<(Backend, String, serde_json::Value)> {
        let explicit = Explicit {
            model: model.map(|m| Sourced::explicit(m, "model=")),
            ..Explicit::default()
        };
        let selection = backend::select(&explicit, &self.config, &Env::from_process())
            .map_err(errors::backend)?;
        let built = selection.build().map_err(errors::backend)?;
        let rows = serde_json::to_value(selection.rows()).unwrap_or_default();
        Ok((built, selection.request_model(), rows))
    }

    /// A template by name: built-in, the user's, or the project's as its rules allow.
    pub fn template(&self, name: &str) -> PyResult<Template> {
        let dirs = TemplateDirs::standard(&self.root, env);
        let registry = Registry::load_with(&dirs, &self.rules).map_err(errors::config)?;
        registry.get(name).cloned().map_err(errors::config)
    }

    pub fn fail_on(&self) -> PyResult<FailOn> {
        match &self.config.fail_on {
            Some(s) => FailOn::parse(&s.value).ok_or_else(|| {
                errors::config(format!(
                    "{}: fail_on `{}`: expected p0, p1, p2, p3, concerns or never",
                    s.source, s.value
                ))
            }),
            None => Ok(FailOn::default()),
        }
    }

    /// The limits the config files set (the template's own apply under them).
    pub fn limits(&self) -> Limits {
        Limits {
            max_turns: self.config.max_turns.as_ref().map(|s| s.value),
            timeout_secs: self.config.timeout.as_ref().map(|s| s.value),
            max_budget_usd: self.config.max_budget_usd.as_ref().map(|s| s.value),
            max_tokens: None,
        }
    }

    /// Template-review options as the command line sets them, without a
    /// progress display.
    pub fn options(
        &self,
        default_model: String,
        model: Option<String>,
        snapshot: serde_json::Value,
        log: bool,
    ) -> PyResult<ReviewOptions> {
        let mut opts = ReviewOptions::new(default_model);
        opts.fail_on = self.fail_on()?;
        opts.model_override = model;
        opts.limits = self.limits();
        opts.log = log;
        opts.rules = Some(Arc::clone(&self.rules));
        opts.config_snapshot = snapshot;
        Ok(opts)
    }
}
