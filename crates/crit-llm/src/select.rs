//! Which backend to use, as data: explicit values from the caller (flags, config
//! files it has read) win, then the environment, then auto-detection. Every choice
//! records where it came from, for `crit config` and `crit doctor`.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

use serde::Serialize;

use crate::anthropic::{self, Anthropic, AnthropicAuth, AnthropicConfig};
use crate::claude_code::{ClaudeAuth, ClaudeCode, ClaudeCodeConfig};
use crate::env::{Env, is_executable};
use crate::error::LlmError;
use crate::model::{Agent, Model};
use crate::openai::{self, OpenAi, OpenAiConfig};
use crate::pricing;
use crate::replay::{Recorder, Replay};
use crate::retry::RetryPolicy;
use crate::secret::Secret;
use crate::transport::Timeouts;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum Provider {
    Anthropic,
    #[serde(rename = "openai")]
    #[cfg_attr(feature = "clap", value(name = "openai"))]
    OpenAi,
    ClaudeCode,
    Replay,
}

impl Provider {
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::OpenAi => "openai",
            Provider::ClaudeCode => "claude-code",
            Provider::Replay => "replay",
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Provider {
    type Err = LlmError;
    fn from_str(s: &str) -> Result<Self, LlmError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "anthropic" => Ok(Provider::Anthropic),
            "openai" | "openai-compatible" => Ok(Provider::OpenAi),
            "claude-code" | "claude" => Ok(Provider::ClaudeCode),
            "replay" => Ok(Provider::Replay),
            other => Err(LlmError::Config {
                message: format!(
                    "unknown provider `{other}`: use anthropic, openai, claude-code or replay"
                ),
            }),
        }
    }
}

pub use crit_core::sourced::{Source, Sourced};

/// What the caller knows (flags, config files); everything else comes from the env.
#[derive(Debug, Clone, Default)]
pub struct BackendConfig {
    pub provider: Option<Sourced<Provider>>,
    pub model: Option<Sourced<String>>,
    pub base_url: Option<Sourced<String>>,
    pub cassettes: Option<Sourced<PathBuf>>,
    /// Record every exchange as cassettes into this directory.
    pub record: Option<Sourced<PathBuf>>,
    pub claude_bin: Option<Sourced<PathBuf>>,
    pub claude_auth: Option<Sourced<ClaudeAuth>>,
    pub retry: RetryPolicy,
    pub timeouts: Timeouts,
}

/// One line of `crit config` / `crit doctor`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SelectionRow {
    pub key: String,
    pub value: String,
    pub source: String,
}

/// The resolved backend choice. Holds the credential but never shows it.
#[derive(Debug, Clone)]
pub struct Selection {
    pub provider: Sourced<Provider>,
    pub model: Option<Sourced<String>>,
    pub base_url: Option<Sourced<String>>,
    /// How we authenticate (`x-api-key`, `bearer`, `placeholder`, `claude login`), not the value.
    pub credential: Option<Sourced<String>>,
    pub cassettes: Option<Sourced<PathBuf>>,
    pub record: Option<Sourced<PathBuf>>,
    pub claude_bin: Option<Sourced<PathBuf>>,
    pub claude_auth: Option<Sourced<ClaudeAuth>>,
    pub retry: RetryPolicy,
    pub timeouts: Timeouts,
    secret: Option<Secret>,
    env: Env,
}

/// A built backend: always usable as a [`Model`]; Claude Code is also an [`Agent`].
#[derive(Clone)]
pub struct Backend {
    pub model: Arc<dyn Model>,
    pub agent: Option<Arc<dyn Agent>>,
}

impl fmt::Debug for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Backend")
            .field("model", &self.model.name())
            .field("agent", &self.agent.as_ref().map(|a| a.name().to_string()))
            .finish()
    }
}

fn from_env(env: &Env, var: &str) -> Option<Sourced<String>> {
    env.non_empty(var)
        .map(|v| Sourced::new(v.to_string(), Source::Env(var.into())))
}

/// `CRIT_CLAUDE_BIN`, else `claude` on PATH.
fn find_claude(env: &Env) -> Option<Sourced<PathBuf>> {
    if let Some(bin) = env.non_empty("CRIT_CLAUDE_BIN") {
        return Some(Sourced::new(
            PathBuf::from(bin),
            Source::Env("CRIT_CLAUDE_BIN".into()),
        ));
    }
    env.which("claude")
        .map(|p| Sourced::new(p, Source::Auto("found `claude` on PATH".into())))
}

impl Selection {
    /// Resolves the choice. Nothing configured at all gives [`LlmError::NoBackend`].
    pub fn resolve(config: &BackendConfig, env: &Env) -> Result<Selection, LlmError> {
        let provider = match &config.provider {
            Some(p) => p.clone(),
            None => match env.non_empty("CRIT_PROVIDER") {
                Some(p) => Sourced::new(p.parse()?, Source::Env("CRIT_PROVIDER".into())),
                None => auto_provider(env)?,
            },
        };
        let model = config
            .model
            .clone()
            .or_else(|| from_env(env, "CRIT_MODEL"))
            .or_else(|| match provider.value {
                Provider::Anthropic | Provider::Replay => {
                    Some(Sourced::new("opus".to_string(), Source::Default))
                }
                Provider::OpenAi | Provider::ClaudeCode => None,
            });
        let mut sel = Selection {
            provider,
            model,
            base_url: None,
            credential: None,
            cassettes: None,
            record: config.record.clone().or_else(|| {
                from_env(env, "CRIT_RECORD").map(|s| Sourced::new(s.value.into(), s.source))
            }),
            claude_bin: None,
            claude_auth: None,
            retry: config.retry.clone(),
            timeouts: config.timeouts.clone(),
            secret: None,
            env: env.clone(),
        };
        match sel.provider.value {
            Provider::Anthropic => sel.resolve_anthropic(config, env)?,
            Provider::OpenAi => sel.resolve_openai(config, env)?,
            Provider::ClaudeCode => sel.resolve_claude(config, env)?,
            Provider::Replay => {
                sel.cassettes = config.cassettes.clone().or_else(|| {
                    from_env(env, "CRIT_CASSETTES").map(|s| Sourced::new(s.value.into(), s.source))
                });
                if sel.cassettes.is_none() {
                    return Err(LlmError::Config {
                        message: "--provider replay needs --cassettes DIR (or CRIT_CASSETTES)"
                            .into(),
                    });
                }
            }
        }
        Ok(sel)
    }

    fn resolve_anthropic(&mut self, config: &BackendConfig, env: &Env) -> Result<(), LlmError> {
        self.base_url = Some(
            config
                .base_url
                .clone()
                .or_else(|| from_env(env, "ANTHROPIC_BASE_URL"))
                .unwrap_or_else(|| {
                    Sourced::new(anthropic::DEFAULT_BASE_URL.to_string(), Source::Default)
                }),
        );
        let (kind, var) = if env.non_empty("ANTHROPIC_API_KEY").is_some() {
            ("x-api-key", "ANTHROPIC_API_KEY")
        } else if env.non_empty("ANTHROPIC_AUTH_TOKEN").is_some() {
            ("bearer", "ANTHROPIC_AUTH_TOKEN")
        } else {
            return Err(LlmError::Config {
                message: "the anthropic provider needs ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN"
                    .into(),
            });
        };
        self.secret = env.non_empty(var).map(Secret::new);
        self.credential = Some(Sourced::new(kind.into(), Source::Env(var.into())));
        Ok(())
    }

    fn resolve_openai(&mut self, config: &BackendConfig, env: &Env) -> Result<(), LlmError> {
        self.base_url = Some(
            config
                .base_url
                .clone()
                .or_else(|| from_env(env, "OPENAI_BASE_URL"))
                .unwrap_or_else(|| {
                    Sourced::new(openai::DEFAULT_BASE_URL.to_string(), Source::Default)
                }),
        );
        if self.model.is_none() {
            return Err(LlmError::Config {
                message: "the openai provider needs a model name: pass --model or set CRIT_MODEL (e.g. qwen3:8b for Ollama)".into(),
            });
        }
        self.credential = Some(match env.non_empty("OPENAI_API_KEY") {
            Some(k) => {
                self.secret = Some(Secret::new(k));
                Sourced::new("bearer".into(), Source::Env("OPENAI_API_KEY".into()))
            }
            None => Sourced::new("placeholder (local server)".into(), Source::Default),
        });
        Ok(())
    }

    fn resolve_claude(&mut self, config: &BackendConfig, env: &Env) -> Result<(), LlmError> {
        let bin = config
            .claude_bin
            .clone()
            .or_else(|| find_claude(env))
            .ok_or_else(|| LlmError::Config {
                message: "the claude-code provider needs the `claude` CLI: install it (npm i -g @anthropic-ai/claude-code) or set CRIT_CLAUDE_BIN".into(),
            })?;
        if !is_executable(&bin.value) {
            return Err(LlmError::Config {
                message: format!(
                    "{} ({}) is not an executable file",
                    bin.value.display(),
                    bin.source
                ),
            });
        }
        self.claude_bin = Some(bin);
        let auth =
            config
                .claude_auth
                .clone()
                .unwrap_or_else(|| match env.non_empty("CRIT_CLAUDE_AUTH") {
                    Some("env") | Some("api-key") => Sourced::new(
                        ClaudeAuth::Environment,
                        Source::Env("CRIT_CLAUDE_AUTH".into()),
                    ),
                    _ => Sourced::new(ClaudeAuth::Subscription, Source::Default),
                });
        self.credential = Some(Sourced::new(
            match auth.value {
                ClaudeAuth::Subscription => "claude login (API keys removed from its env)".into(),
                ClaudeAuth::Environment => "the environment's credentials".into(),
            },
            auth.source.clone(),
        ));
        self.claude_auth = Some(auth);
        Ok(())
    }

    /// The model name to put in requests (empty: the backend's own default).
    pub fn request_model(&self) -> String {
        self.model
            .as_ref()
            .map(|m| m.value.clone())
            .unwrap_or_default()
    }

    /// Rows for `crit config` / `crit doctor`. Never holds a secret.
    pub fn rows(&self) -> Vec<SelectionRow> {
        let row = |key: &str, value: String, source: &Source| SelectionRow {
            key: key.into(),
            value,
            source: source.to_string(),
        };
        let mut rows = vec![row(
            "provider",
            self.provider.value.to_string(),
            &self.provider.source,
        )];
        if let Some(m) = &self.model {
            let id = pricing::resolve_alias(&m.value);
            let value = if id == m.value {
                id
            } else {
                format!("{} → {id}", m.value)
            };
            rows.push(row("model", value, &m.source));
        }
        if let Some(b) = &self.base_url {
            rows.push(row("base_url", b.value.clone(), &b.source));
        }
        if let Some(c) = &self.credential {
            rows.push(row("credential", c.value.clone(), &c.source));
        }
        if let Some(b) = &self.claude_bin {
            rows.push(row("claude_bin", b.value.display().to_string(), &b.source));
        }
        if let Some(c) = &self.cassettes {
            rows.push(row("cassettes", c.value.display().to_string(), &c.source));
        }
        if let Some(r) = &self.record {
            rows.push(row("record", r.value.display().to_string(), &r.source));
        }
        rows
    }

    /// Builds the backend (no I/O beyond reading cassettes, and asking an
    /// auto-detected Claude Code CLI whether it is logged in).
    pub fn build(&self) -> Result<Backend, LlmError> {
        let base = |d: &str| {
            self.base_url
                .as_ref()
                .map_or(d.to_string(), |b| b.value.clone())
        };
        let (model, agent): (Arc<dyn Model>, Option<Arc<dyn Agent>>) = match self.provider.value {
            Provider::Anthropic => {
                let secret = self.secret.clone().ok_or(LlmError::NoBackend)?;
                let auth = match self.credential.as_ref().map(|c| c.value.as_str()) {
                    Some("bearer") => AnthropicAuth::Bearer(secret),
                    _ => AnthropicAuth::ApiKey(secret),
                };
                let mut c = AnthropicConfig::new(base(anthropic::DEFAULT_BASE_URL), auth);
                c.retry = self.retry.clone();
                c.timeouts = self.timeouts.clone();
                (Arc::new(Anthropic::new(c)?), None)
            }
            Provider::OpenAi => {
                let mut c = OpenAiConfig::new(base(openai::DEFAULT_BASE_URL), self.secret.clone());
                c.retry = self.retry.clone();
                c.timeouts = self.timeouts.clone();
                (Arc::new(OpenAi::new(c)?), None)
            }
            Provider::ClaudeCode => {
                let bin = self.claude_bin.as_ref().ok_or(LlmError::NoBackend)?;
                let mut c = ClaudeCodeConfig::new(bin.value.clone(), self.env.clone());
                if let Some(a) = &self.claude_auth {
                    c.auth = a.value;
                }
                if let Some(d) = self.timeouts.deadline {
                    c.timeout = d;
                }
                let cc = Arc::new(ClaudeCode::new(c));
                // Found on PATH but logged out, every review would fail with
                // a bare 401: said before it starts, with the other choices.
                // Asked here, once a review runs, not when settings are shown.
                if matches!(self.provider.source, Source::Auto(_)) && cc.logged_in() == Some(false)
                {
                    return Err(not_logged_in(&bin.value));
                }
                (cc.clone(), Some(cc))
            }
            Provider::Replay => {
                let dir = self.cassettes.as_ref().ok_or(LlmError::NoBackend)?;
                (Arc::new(Replay::open(dir.value.clone())?), None)
            }
        };
        let model: Arc<dyn Model> = match &self.record {
            Some(dir) => Arc::new(Recorder::new(model, dir.value.clone())?),
            None => model,
        };
        Ok(Backend { model, agent })
    }
}

/// An auto-detected Claude Code CLI that is not logged in, and every other
/// way to review.
fn not_logged_in(bin: &std::path::Path) -> LlmError {
    LlmError::Config {
        message: format!(
            "Claude Code ({}) is installed but not logged in, and no other model backend is \
             configured. Fix it with one of:\n  \
             - log in: run `claude`, then /login (or set CLAUDE_CODE_OAUTH_TOKEN from `claude setup-token`)\n  \
             - set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) for the Anthropic API\n  \
             - set OPENAI_BASE_URL (and OPENAI_API_KEY if the server needs one) for an OpenAI-compatible server, e.g. Ollama at http://localhost:11434/v1\n  \
             - replay recorded answers with --provider replay --cassettes DIR",
            bin.display()
        ),
    }
}

fn auto_provider(env: &Env) -> Result<Sourced<Provider>, LlmError> {
    for var in ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"] {
        if env.non_empty(var).is_some() {
            return Ok(Sourced::new(
                Provider::Anthropic,
                Source::Auto(format!("{var} is set")),
            ));
        }
    }
    if env.non_empty("OPENAI_BASE_URL").is_some() {
        return Ok(Sourced::new(
            Provider::OpenAi,
            Source::Auto("OPENAI_BASE_URL is set".into()),
        ));
    }
    if let Some(bin) = find_claude(env) {
        return Ok(Sourced::new(
            Provider::ClaudeCode,
            Source::Auto(format!("found Claude Code at {}", bin.value.display())),
        ));
    }
    Err(LlmError::NoBackend)
}
