//! The common flags as explicit backend choices; the precedence rules live in
//! `crit_review::backend`, shared with library users.

use std::path::Path;

use anyhow::anyhow;
use crit_llm::{Env, LlmError, Provider as LlmProvider, Selection, Sourced};
use crit_review::backend::{self as review_backend, Explicit};
use crit_review::config::Config;

use crate::cli::{CommonArgs, Provider};
use crate::exit::CliError;

/// The merged config files for the project at `--cwd` (or the current directory).
pub fn load_config(common: &CommonArgs, env: &Env) -> Result<Config, CliError> {
    let root = common
        .cwd
        .clone()
        .unwrap_or_else(|| Path::new(".").to_path_buf());
    let (user, project) = Config::standard_paths(&root, |k| env.get(k).map(str::to_string));
    Config::load(user.as_deref(), Some(&project)).map_err(CliError::usage)
}

/// The backend the flags, environment and config files choose. No backend at all
/// is exit 3 with the message naming every way to fix it.
pub fn select(common: &CommonArgs, env: &Env) -> Result<Selection, CliError> {
    let file = load_config(common, env)?;
    review_backend::select(&explicit(common)?, &file, env).map_err(|e| match e {
        LlmError::NoBackend => CliError::could_not_run(anyhow!("{e}")),
        other => CliError::usage(anyhow!("{other}")),
    })
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
