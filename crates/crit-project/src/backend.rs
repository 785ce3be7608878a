//! Which model backend a review uses: explicit choices (flags, or a library
//! caller's values) over `CRIT_*` environment variables over the config files
//! over auto-detection, each value labelled with where it came
//! from. crit-llm's resolver reads the environment itself, so a config-file value
//! is passed on only when its `CRIT_*` variable is unset.

use std::path::PathBuf;

use crit_llm::{BackendConfig, Env, LlmError, Provider, Selection, Sourced};

use crate::config::Config;

/// Choices made explicitly, each with its label (`--provider`, a config key a
/// library caller set, …).
#[derive(Debug, Clone, Default)]
pub struct Explicit {
    pub provider: Option<Sourced<Provider>>,
    pub model: Option<Sourced<String>>,
    pub cassettes: Option<Sourced<PathBuf>>,
    pub record: Option<Sourced<PathBuf>>,
}

/// Resolve the backend. No backend at all is [`LlmError::NoBackend`], whose
/// message names every way to configure one.
pub fn select(explicit: &Explicit, file: &Config, env: &Env) -> Result<Selection, LlmError> {
    let unset = |var: &str| env.non_empty(var).is_none();
    let from_file =
        |s: &crate::config::Setting<String>| Sourced::explicit(s.value.clone(), s.source.clone());
    let provider = match (&explicit.provider, &file.provider) {
        (Some(p), _) => Some(p.clone()),
        // `command` is a reviewer kind, not a model backend.
        (None, Some(p)) if unset("CRIT_PROVIDER") && p.value != "command" => {
            let value = p.value.parse().map_err(|_| LlmError::Config {
                message: format!("{}: unknown provider `{}`", p.source, p.value),
            })?;
            Some(Sourced::explicit(value, p.source.clone()))
        }
        _ => None,
    };
    let config = BackendConfig {
        provider,
        model: explicit.model.clone().or_else(|| {
            file.model
                .as_ref()
                .filter(|_| unset("CRIT_MODEL"))
                .map(from_file)
        }),
        base_url: file.base_url.as_ref().map(from_file),
        cassettes: explicit.cassettes.clone().or_else(|| {
            file.cassettes
                .as_ref()
                .filter(|_| unset("CRIT_CASSETTES"))
                .map(|c| Sourced::explicit(c.value.clone(), c.source.clone()))
        }),
        record: explicit.record.clone(),
        ..BackendConfig::default()
    };
    Selection::resolve(&config, env)
}
