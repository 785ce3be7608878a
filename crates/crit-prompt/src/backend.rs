//! Which backend runs the reviewers. `--provider` decides when given; then an
//! explicit `mode` (a settings file or `PROMPT_REVIEW_MODE`); then crit's own
//! provider setting (`CRIT_PROVIDER`, `.crit/config.yaml`); then the default
//! mode, `subscription`.
//!
//! - `subscription` is the Claude Code CLI on the user's login. Without the
//!   CLI and with `api_fallback`, a model API is used instead.
//! - `api` is a model API: crit's configured one when it names one, else
//!   Anthropic. Without an API key, the Claude Code CLI is used instead (the
//!   plugin's "API key not set → subscription mode").
//!
//! Reviewers run on `models.reviewer` (`--model` overrides it); on an
//! OpenAI-compatible server whose settings name no prompt-review model, on
//! crit's configured model.

use crit_llm::{Env, LlmError, Provider, Selection, Sourced};

use crit_project::Explicit;
use crit_project::config::Config;
use crit_project::config::prompt_review::{LoadedConfig, Mode};
use crit_project::settings::select_backend;

/// The backend chosen, its mode, and the models.
#[derive(Debug, Clone)]
pub struct Choice {
    pub selection: Selection,
    pub mode: Mode,
    pub reviewer_model: String,
    pub editor_model: String,
    /// For people: fallbacks taken.
    pub notes: Vec<String>,
}

fn mode_of(p: Provider) -> Mode {
    match p {
        Provider::ClaudeCode => Mode::Subscription,
        _ => Mode::Api,
    }
}

/// Choose the backend. `explicit` holds the flags; `crit` crit's config files.
pub fn choose(
    explicit: &Explicit,
    crit: &Config,
    loaded: &LoadedConfig,
    env: &Env,
) -> Result<Choice, LlmError> {
    let mut notes = Vec::new();
    let crit_provider = explicit.provider.is_some()
        || env.non_empty("CRIT_PROVIDER").is_some()
        || crit.provider.is_some();
    let selection =
        if explicit.provider.is_some() || (loaded.source("mode").is_none() && crit_provider) {
            select_backend(explicit, crit, env)?
        } else {
            by_mode(explicit, crit, loaded, env, &mut notes)?
        };
    let mode = mode_of(selection.provider.value);
    let crit_model = selection.request_model();
    let pick = |key: &str, configured: &str| -> String {
        let from_settings = loaded.source(key).is_some();
        match selection.provider.value {
            Provider::OpenAi | Provider::Replay if !from_settings && !crit_model.is_empty() => {
                crit_model.clone()
            }
            _ => configured.to_string(),
        }
    };
    let reviewer_model = match &explicit.model {
        Some(m) => m.value.clone(),
        None => pick("models.reviewer", &loaded.config.models.reviewer),
    };
    let editor_model = pick("models.editor", &loaded.config.models.editor);
    Ok(Choice {
        selection,
        mode,
        reviewer_model,
        editor_model,
        notes,
    })
}

/// The backend the prompt-review settings' `mode` asks for, with its
/// fallback (the other mode) when it is unavailable; a fallback the user
/// should hear of is added to `notes`.
fn by_mode(
    explicit: &Explicit,
    crit: &Config,
    loaded: &LoadedConfig,
    env: &Env,
    notes: &mut Vec<String>,
) -> Result<Selection, LlmError> {
    let with = |provider: Provider, label: &str| {
        let mut e = explicit.clone();
        e.provider = Some(Sourced::explicit(provider, label));
        select_backend(&e, crit, env)
    };
    let label = format!(
        "prompt review mode `{}` ({})",
        loaded.config.mode.as_str(),
        loaded.source("mode").unwrap_or("default")
    );
    Ok(match loaded.config.mode {
        Mode::Subscription => match with(Provider::ClaudeCode, &label) {
            Ok(s) => s,
            Err(_) if loaded.config.api_fallback => match api(explicit, crit, env) {
                Ok(s) => {
                    // One short line, and only when the user chose
                    // subscription mode: by default an API user
                    // without Claude Code is simply on the API.
                    if let Some(from) = loaded.source("mode") {
                        notes.push(format!(
                                "the Claude Code CLI is not available for subscription mode ({from}); using {} (api_fallback)",
                                s.provider.value
                            ));
                    }
                    s
                }
                // Neither: the error that names every way to configure one.
                Err(_) => return Err(LlmError::NoBackend),
            },
            Err(e) => return Err(e),
        },
        Mode::Api => match api(explicit, crit, env) {
            Ok(s) => s,
            Err(e) => match with(Provider::ClaudeCode, &label) {
                Ok(s) => {
                    notes.push(format!(
                        "api mode is unavailable ({e}); using subscription mode (Claude Code)"
                    ));
                    s
                }
                // Neither: the error that names every way to configure one.
                Err(_) => return Err(LlmError::NoBackend),
            },
        },
    })
}

/// A model API: crit's configured one when it is an API, else Anthropic, else
/// an OpenAI-compatible server named by `OPENAI_BASE_URL`.
fn api(explicit: &Explicit, crit: &Config, env: &Env) -> Result<Selection, LlmError> {
    let configured = env
        .non_empty("CRIT_PROVIDER")
        .and_then(|p| p.parse::<Provider>().ok())
        .or_else(|| crit.provider.as_ref().map(|p| p.value))
        .filter(|p| *p != Provider::ClaudeCode);
    if configured.is_some() {
        return select_backend(explicit, crit, env);
    }
    let mut e = explicit.clone();
    e.provider = Some(Sourced::explicit(
        Provider::Anthropic,
        "prompt review mode `api`",
    ));
    match select_backend(&e, crit, env) {
        Ok(s) => Ok(s),
        Err(first) if env.non_empty("OPENAI_BASE_URL").is_some() => {
            e.provider = Some(Sourced::explicit(
                Provider::OpenAi,
                "prompt review mode `api`",
            ));
            select_backend(&e, crit, env).map_err(|_| first)
        }
        Err(first) => Err(first),
    }
}
