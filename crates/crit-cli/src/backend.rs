//! From flags, environment and config files to a backend selection, with where
//! each value came from. Precedence (DESIGN.md §4): flags, then `CRIT_*`
//! environment variables, then `.crit/config.yaml`, then the user's config, then
//! auto-detection. crit-llm's resolver reads the environment itself, so a config
//! value is passed on only when its `CRIT_*` variable is unset.

use anyhow::anyhow;
use std::path::Path;

use crit_llm::{BackendConfig, Env, Provider as LlmProvider, Selection, Sourced};
use crit_review::config::Config;

use crate::cli::{CommonArgs, Provider};
use crate::exit::CliError;

/// The backend the common flags and the environment choose. No backend at all is
/// exit 3 with the message naming every way to fix it.
/// The merged config files for the project at `--cwd` (or the current directory).
pub fn load_config(common: &CommonArgs, env: &Env) -> Result<Config, CliError> {
    let root = common
        .cwd
        .clone()
        .unwrap_or_else(|| Path::new(".").to_path_buf());
    let (user, project) = Config::standard_paths(&root, |k| env.get(k).map(str::to_string));
    Config::load(user.as_deref(), Some(&project)).map_err(CliError::usage)
}

pub fn select(common: &CommonArgs, env: &Env) -> Result<Selection, CliError> {
    let file = load_config(common, env)?;
    let unset = |var: &str| env.non_empty(var).is_none();
    let provider = match common.provider {
        None if unset("CRIT_PROVIDER") => match &file.provider {
            Some(p) if p.value == "command" => None,
            Some(p) => Some(Sourced::explicit(
                p.value
                    .parse()
                    .map_err(|e| CliError::usage(anyhow!("{}: {e}", p.source)))?,
                p.source.clone(),
            )),
            None => None,
        },
        None => None,
        Some(Provider::Anthropic) => Some(Sourced::explicit(LlmProvider::Anthropic, "--provider")),
        Some(Provider::Openai) => Some(Sourced::explicit(LlmProvider::OpenAi, "--provider")),
        Some(Provider::ClaudeCode) => {
            Some(Sourced::explicit(LlmProvider::ClaudeCode, "--provider"))
        }
        Some(Provider::Replay) => Some(Sourced::explicit(LlmProvider::Replay, "--provider")),
        Some(Provider::Command) => {
            return Err(CliError::usage(anyhow!(
                "--provider command runs an external reviewer program, which has no model to talk to here"
            )));
        }
    };
    let config = BackendConfig {
        provider,
        model: common
            .model
            .clone()
            .map(|m| Sourced::explicit(m, "--model"))
            .or_else(|| {
                file.model
                    .clone()
                    .filter(|_| unset("CRIT_MODEL"))
                    .map(|m| Sourced::explicit(m.value, m.source))
            }),
        base_url: file
            .base_url
            .clone()
            .map(|b| Sourced::explicit(b.value, b.source)),
        cassettes: common
            .cassettes
            .clone()
            .map(|d| Sourced::explicit(d, "--cassettes"))
            .or_else(|| {
                file.cassettes
                    .clone()
                    .filter(|_| unset("CRIT_CASSETTES"))
                    .map(|c| Sourced::explicit(c.value, c.source))
            }),
        record: common
            .record
            .clone()
            .map(|d| Sourced::explicit(d, "--record")),
        ..BackendConfig::default()
    };
    Selection::resolve(&config, env).map_err(|e| match e {
        crit_llm::LlmError::NoBackend => CliError::could_not_run(anyhow!("{e}")),
        other => CliError::usage(anyhow!("{other}")),
    })
}
