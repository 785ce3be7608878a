//! The common flags as explicit choices, and the project the command runs in:
//! every setting is resolved by `crit_project::Project::settings`, shared
//! with the hooks, the Python package and library users.

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use crit_llm::{Env, Selection, Sourced};
use crit_project::{Explicit, Kind, Project, Settings};

use crate::cli::CommonArgs;
use crate::exit::CliError;

/// The project at `--cwd` (or the current directory), read once with the
/// flags as explicit choices.
pub fn project(common: &CommonArgs, env: &Env) -> Result<Project, CliError> {
    let dir = common.cwd.clone().unwrap_or_else(|| PathBuf::from("."));
    project_at(&dir, common, env)
}

/// The project `dir` belongs to: `--rules-from REF`, else in CI the base
/// revision, else the working tree as the user trusted it.
pub fn project_at(dir: &Path, common: &CommonArgs, env: &Env) -> Result<Project, CliError> {
    Project::open(dir, explicit(common)?, env.clone()).map_err(CliError::usage)
}

/// The settings of one review kind.
pub fn settings(project: &Project, kind: Kind) -> Result<Settings, CliError> {
    project.settings(kind).map_err(CliError::usage)
}

/// The backend the settings chose. No backend at all is exit 2 (the user
/// must configure one), with the message naming every way to fix it.
pub fn selection(settings: &Settings) -> Result<Selection, CliError> {
    settings
        .backend
        .clone()
        .map_err(|e| CliError::usage(anyhow!("{e}")))
}

/// The common flags as explicit choices, labelled by flag.
pub fn explicit(common: &CommonArgs) -> Result<Explicit, CliError> {
    let provider = common.provider;
    let flag = |name: &str| name.to_string();
    crit_project::scope::check_ignore_globs(&common.ignore)
        .map_err(|e| CliError::usage(anyhow!("--ignore: {e}")))?;
    Ok(Explicit {
        provider: provider.map(|p| Sourced::explicit(p, flag("--provider"))),
        model: common
            .model
            .clone()
            .map(|m| Sourced::explicit(m, flag("--model"))),
        cassettes: common
            .cassettes
            .clone()
            .map(|d| Sourced::explicit(d, flag("--cassettes"))),
        record: common
            .record
            .clone()
            .map(|d| Sourced::explicit(d, flag("--record"))),
        timeout: common
            .timeout
            .map(|t| Sourced::explicit(t, flag("--timeout"))),
        max_turns: common
            .max_turns
            .map(|n| Sourced::explicit(n, flag("--max-turns"))),
        max_budget_usd: common
            .max_budget_usd
            .map(|b| Sourced::explicit(b, flag("--max-budget-usd"))),
        // `crit review`'s own flag, set by that command.
        max_cost_usd: None,
        fail_on: common
            .fail_on
            .map(|f| Sourced::explicit(f, flag("--fail-on"))),
        exit_code: common.exit_code,
        rules_from: common.rules_from.clone(),
        ignore: common
            .ignore
            .iter()
            .map(|g| Sourced::explicit(g.clone(), flag("--ignore")))
            .collect(),
        // `crit respond`'s and `crit review code --post`'s own flags.
        respond: Default::default(),
    })
}
