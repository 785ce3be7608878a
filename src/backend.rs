//! The common flags as explicit backend choices; the precedence rules live in
//! `crit_project::backend`, shared with library users. Also whose rules apply
//! to the project (`crit_project::trust`), decided once per command.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::anyhow;
use crit_llm::{Env, LlmError, Provider as LlmProvider, Selection, Sourced};
use crit_project::backend::{self as review_backend, Explicit};
use crit_project::config::Config;
use crit_project::trust::ProjectRules;

use crate::cli::{CommonArgs, Provider};
use crate::exit::CliError;

/// The rules for the project at `--cwd` (or the current directory).
pub fn rules(common: &CommonArgs, env: &Env) -> Result<Arc<ProjectRules>, CliError> {
    let dir = common.cwd.clone().unwrap_or_else(|| PathBuf::from("."));
    rules_at(&dir, common.rules_from.as_deref(), env)
}

/// The rules for the project `dir` belongs to: `--rules-from REF`, else in
/// CI the base revision, else the working tree as the user trusted it.
pub fn rules_at(
    dir: &Path,
    rules_from: Option<&str>,
    env: &Env,
) -> Result<Arc<ProjectRules>, CliError> {
    let root = crit_project::paths::project_root(dir);
    // Labels stay short (`./.crit/config.yaml:3`) when crit runs in the root.
    let here = std::env::current_dir()
        .ok()
        .and_then(|d| d.canonicalize().ok());
    let shown = match here {
        Some(h) if h == root => PathBuf::from("."),
        _ => root,
    };
    let lookup = |k: &str| env.get(k).map(str::to_string);
    ProjectRules::discover(&shown, &lookup, rules_from)
        .map(Arc::new)
        .map_err(CliError::usage)
}

/// The merged config files, the project's read as `rules` allow.
pub fn load_config(env: &Env, rules: &ProjectRules) -> Result<Config, CliError> {
    let (user, _) = Config::standard_paths(rules.root(), |k| env.get(k).map(str::to_string));
    Config::load_project(user.as_deref(), rules).map_err(CliError::usage)
}

/// The backend the flags, environment and config files choose. No backend at all
/// is exit 2 (the user must configure one), with the message naming every way to fix it.
pub fn select(common: &CommonArgs, env: &Env) -> Result<Selection, CliError> {
    let rules = rules(common, env)?;
    select_with(common, env, &load_config(env, &rules)?)
}

/// [`select`] with the config files already loaded.
pub fn select_with(common: &CommonArgs, env: &Env, file: &Config) -> Result<Selection, CliError> {
    select_if_any(common, env, file)?
        .ok_or_else(|| CliError::usage(anyhow!("{}", LlmError::NoBackend)))
}

/// [`select_with`] for commands that also work without a model: no backend
/// configured is `None`, any other problem still an error.
pub fn select_if_any(
    common: &CommonArgs,
    env: &Env,
    file: &Config,
) -> Result<Option<Selection>, CliError> {
    match review_backend::select(&explicit(common)?, file, env) {
        Ok(s) => Ok(Some(s)),
        Err(LlmError::NoBackend) => Ok(None),
        Err(e) => Err(CliError::usage(anyhow!("{e}"))),
    }
}

/// The backend flags as explicit choices.
pub fn explicit(common: &CommonArgs) -> Result<Explicit, CliError> {
    let provider = match common.provider {
        None => None,
        Some(Provider::Anthropic) => Some(LlmProvider::Anthropic),
        Some(Provider::Openai) => Some(LlmProvider::OpenAi),
        Some(Provider::ClaudeCode) => Some(LlmProvider::ClaudeCode),
        Some(Provider::Replay) => Some(LlmProvider::Replay),
        Some(Provider::Command) => {
            return Err(CliError::usage(anyhow!(
                "--provider command runs an external reviewer program, which has no model to talk to here"
            )));
        }
    };
    Ok(Explicit {
        provider: provider.map(|p| Sourced::explicit(p, "--provider")),
        model: common
            .model
            .clone()
            .map(|m| Sourced::explicit(m, "--model")),
        cassettes: common
            .cassettes
            .clone()
            .map(|d| Sourced::explicit(d, "--cassettes")),
        record: common
            .record
            .clone()
            .map(|d| Sourced::explicit(d, "--record")),
    })
}
