//! A project opened once: where it is, whose rules judge it, and the config
//! files read with those rules. [`Project::settings`] answers for each kind.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crit_llm::Env;

use crate::config::Config;
use crate::config::mala::MalaConfig;
use crate::error::FileError;
use crate::settings::{self, Explicit, Kind, Settings, TemplateDirs};
use crate::trust::{ProjectRules, TrustError};

/// Why a project could not be opened, or its settings read.
#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    #[error("{}: {source}", dir.display())]
    Dir {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Rules(#[from] TrustError),
    #[error(transparent)]
    File(#[from] FileError),
}

/// A project, its rules and its config files.
#[derive(Debug)]
pub struct Project {
    cwd: PathBuf,
    root: PathBuf,
    rules: Arc<ProjectRules>,
    explicit: Explicit,
    config: Config,
    env: Env,
}

impl Project {
    /// The project `dir` belongs to (the nearest repository below the home
    /// directory, else `dir` itself), its rules (`explicit.rules_from`; in CI
    /// the change's base revision; else the working tree as the user trusted
    /// it) and its config files. `env` is the environment, read once by the
    /// caller.
    pub fn open(dir: &Path, explicit: Explicit, env: Env) -> Result<Project, ProjectError> {
        let cwd = dir.canonicalize().map_err(|source| ProjectError::Dir {
            dir: dir.to_path_buf(),
            source,
        })?;
        let root = crate::paths::project_root_in(&cwd, env.get("HOME").map(Path::new));
        // Labels stay short (`./.crit/config.yaml:3`) when crit runs in the root.
        let here = std::env::current_dir()
            .ok()
            .and_then(|d| d.canonicalize().ok());
        let shown = match here {
            Some(h) if h == root => PathBuf::from("."),
            _ => root.clone(),
        };
        let rules = ProjectRules::discover(&shown, &env, explicit.rules_from.as_deref())?;
        Project::with_rules(cwd, root, Arc::new(rules), explicit, env)
    }

    /// The project with rules the caller decided (the Stop gate reads the
    /// project's files at HEAD, as the user trusted them).
    pub fn with_rules(
        cwd: PathBuf,
        root: PathBuf,
        rules: Arc<ProjectRules>,
        explicit: Explicit,
        env: Env,
    ) -> Result<Project, ProjectError> {
        let (user, _) = Config::standard_paths(&root, &env);
        let config = Config::load_project(user.as_deref(), &rules)?;
        Ok(Project {
            cwd,
            root,
            rules,
            explicit,
            config,
            env,
        })
    }

    /// The settings of one review kind, each with its provenance.
    pub fn settings(&self, kind: Kind) -> Result<Settings, ProjectError> {
        let mala = match kind {
            Kind::Code => MalaConfig::load(&self.rules)?,
            _ => None,
        };
        Ok(settings::resolve(
            kind,
            &self.explicit,
            &self.config,
            mala.as_ref(),
            self.template_dirs(),
            self.rules.describe(),
            &self.env,
        ))
    }

    /// Where review templates are found: the user's directory and
    /// `templates_dir`, the project's `.crit/templates` and `templates_dir`.
    pub fn template_dirs(&self) -> TemplateDirs {
        let mut dirs = TemplateDirs::standard(&self.root, &self.env);
        if let Some(d) = &self.config.templates_dir {
            dirs.extra.push(home_relative(&d.value, &self.env));
        }
        if let Some(d) = &self.config.project_templates_dir {
            dirs.project_extra.push(d.value.clone());
        }
        dirs
    }

    /// The directory asked for, canonical.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The project root, canonical.
    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn rules(&self) -> &Arc<ProjectRules> {
        &self.rules
    }

    /// The config files as read (user, then project as its rules allow).
    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn explicit(&self) -> &Explicit {
        &self.explicit
    }

    /// Replace the explicit choices (a command whose flags are known only
    /// once the project's templates are: `crit review NAME`).
    pub fn set_explicit(&mut self, explicit: Explicit) {
        self.explicit = explicit;
    }

    pub fn env(&self) -> &Env {
        &self.env
    }
}

/// `~/x` in the user's own config is under `HOME`.
fn home_relative(p: &Path, env: &Env) -> PathBuf {
    match (p.strip_prefix("~"), env.get("HOME")) {
        (Ok(rest), Some(home)) => Path::new(home).join(rest),
        _ => p.to_path_buf(),
    }
}
