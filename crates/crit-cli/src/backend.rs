//! From flags to a backend selection (with provenance). Config files join here
//! when they arrive; the environment is read by crit-llm's resolver.

use anyhow::anyhow;
use crit_llm::{BackendConfig, Env, Provider as LlmProvider, Selection, Sourced};

use crate::cli::{CommonArgs, Provider};
use crate::exit::CliError;

/// The backend the common flags and the environment choose. No backend at all is
/// exit 3 with the message naming every way to fix it.
pub fn select(common: &CommonArgs, env: &Env) -> Result<Selection, CliError> {
    let provider = match common.provider {
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
            .map(|m| Sourced::explicit(m, "--model")),
        cassettes: common
            .cassettes
            .clone()
            .map(|d| Sourced::explicit(d, "--cassettes")),
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
