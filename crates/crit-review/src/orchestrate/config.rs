//! The configuration of `crit run`: Reldo's format (`.claude/reldo.json`,
//! `.reldo/settings.json`) loads unchanged, in JSON or YAML. `${cwd}` and
//! `${env:NAME}` expand in every string value; prompts given as file paths are
//! read relative to `cwd`. A config inside the project is honoured as the
//! project's rules allow ([`RunConfig::load_with`], `gate`).

mod expand;
mod gate;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crit_agent::{McpServerConfig, SubAgentDef};
use serde::Deserialize;
use serde_json::Value;

use crate::trust::{ProjectRules, TrustError};
pub use expand::expand;
use expand::{Lookup, expand_all, expand_with};
use gate::Gate;

/// Reldo's default review timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(180);
/// The tools an orchestrator gets when the config names none.
pub const DEFAULT_TOOLS: [&str; 5] = ["Read", "Glob", "Grep", "Bash", "Task"];
/// Where `crit run` looks for a config, in order, when `--config` is not given.
pub const STANDARD_PATHS: [&str; 3] = [
    ".crit/run.yaml",
    ".claude/reldo.json",
    ".reldo/settings.json",
];

const ORCHESTRATOR: &str = include_str!("../../prompts/orchestrator.md");

/// A loaded, resolved `crit run` configuration.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// The orchestrator's system prompt (file contents, or inline text).
    pub prompt: String,
    pub allowed_tools: Vec<String>,
    pub mcp_servers: Vec<McpServerConfig>,
    pub agents: Vec<SubAgentDef>,
    /// The orchestrator must answer JSON valid against it.
    pub output_schema: Option<Value>,
    pub cwd: PathBuf,
    pub timeout: Duration,
    pub max_turns: Option<u32>,
    pub model: Option<String>,
    pub logging: Logging,
    /// The file it came from (`None`: the built-in default).
    pub source: Option<PathBuf>,
}

/// FR7's logging block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Logging {
    pub enabled: bool,
    /// `None`: `.crit/sessions` under the project.
    pub output_dir: Option<PathBuf>,
    pub verbose: bool,
}

impl Default for Logging {
    fn default() -> Self {
        Logging {
            enabled: true,
            output_dir: None,
            verbose: false,
        }
    }
}

/// Why a config cannot be used. Each names the file, and the key or line.
#[derive(Debug, thiserror::Error)]
pub enum RunConfigError {
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{file}:{line}:{column}: {message}")]
    Syntax {
        file: String,
        line: u64,
        column: u64,
        message: String,
    },
    #[error("{file}: {key}: {message}")]
    Invalid {
        file: String,
        key: String,
        message: String,
    },
    #[error(transparent)]
    Rules(#[from] TrustError),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAgent {
    description: String,
    prompt: String,
    #[serde(default)]
    tools: Option<Vec<String>>,
    #[serde(default)]
    model: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMcp {
    command: String,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// Claude Code writes `"type": "stdio"`; only stdio servers are supported.
    #[serde(default, rename = "type")]
    kind: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLogging {
    enabled: Option<bool>,
    output_dir: Option<String>,
    verbose: Option<bool>,
}

const KEYS: [&str; 11] = [
    "prompt",
    "allowed_tools",
    "mcp_servers",
    "agents",
    "output_schema",
    "cwd",
    "timeout_seconds",
    "max_turns",
    "model",
    "logging",
    "$schema",
];

impl RunConfig {
    /// The built-in orchestrator, for `crit run` with no config file: it
    /// reviews with the reviewers defined in `.claude/agents` (added by the caller).
    pub fn builtin(cwd: &Path) -> RunConfig {
        RunConfig {
            prompt: ORCHESTRATOR.to_string(),
            allowed_tools: DEFAULT_TOOLS.iter().map(|s| s.to_string()).collect(),
            mcp_servers: Vec::new(),
            agents: Vec::new(),
            output_schema: None,
            cwd: cwd.to_path_buf(),
            timeout: DEFAULT_TIMEOUT,
            max_turns: None,
            model: None,
            logging: Logging::default(),
            source: None,
        }
    }

    /// The first of [`STANDARD_PATHS`] under `cwd` that exists.
    pub fn find(cwd: &Path) -> Option<PathBuf> {
        STANDARD_PATHS
            .iter()
            .map(|p| cwd.join(p))
            .find(|p| p.is_file())
    }

    /// The first of [`STANDARD_PATHS`] that exists where `rules` read the
    /// project (at the base revision in CI), as a path from the project root.
    pub fn find_with(rules: &ProjectRules) -> Result<Option<String>, TrustError> {
        for p in STANDARD_PATHS {
            if rules.read(p)?.is_some() {
                return Ok(Some(p.to_string()));
            }
        }
        Ok(None)
    }

    /// Loads `path` as the project's rules allow: a file inside the project
    /// is read where `rules` read the project, and its MCP servers,
    /// `${env:…}` and paths leading out of the project are honoured only as
    /// `rules` allow; a file outside the project is the user's own.
    pub fn load_with(
        path: &Path,
        cwd: &Path,
        env: &dyn Fn(&str) -> Option<String>,
        rules: &ProjectRules,
    ) -> Result<RunConfig, RunConfigError> {
        // A project file by its path as given or as it resolves: a link out
        // of the project does not make a file the user's own.
        let full = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let rel = [rules.root(), rules.canonical_root()]
            .into_iter()
            .find_map(|root| {
                gate::normal(&full)
                    .strip_prefix(root)
                    .ok()
                    .map(Path::to_path_buf)
            })
            .or_else(|| {
                let real = full.canonicalize().ok()?;
                real.strip_prefix(rules.canonical_root())
                    .ok()
                    .map(Path::to_path_buf)
            });
        let Some(rel) = rel else {
            return RunConfig::load(path, cwd, env);
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        let file = rules.read(&rel)?.ok_or_else(|| RunConfigError::Io {
            path: path.to_path_buf(),
            source: std::io::ErrorKind::NotFound.into(),
        })?;
        let gate = Gate {
            rules: Some(rules),
            file: rel,
        };
        let mut config = RunConfig::parse_with(&file.text, &file.label, cwd, env, &gate)?;
        config.source = Some(PathBuf::from(file.label));
        Ok(config)
    }

    /// Loads `path`, every setting honoured (the caller vouches for the
    /// file). `cwd` is the working directory when the config sets none
    /// (`--cwd`, or the process's); `env` looks up `${env:NAME}`.
    pub fn load(
        path: &Path,
        cwd: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<RunConfig, RunConfigError> {
        let text = crit_core::files::read_to_string(path).map_err(|source| RunConfigError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let mut config = RunConfig::parse(&text, &path.display().to_string(), cwd, env)?;
        config.source = Some(path.to_path_buf());
        Ok(config)
    }

    /// Parses `text` (JSON or YAML), every setting honoured; `file` names
    /// it in errors.
    pub fn parse(
        text: &str,
        file: &str,
        cwd: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<RunConfig, RunConfigError> {
        RunConfig::parse_with(text, file, cwd, env, &Gate::trusting())
    }

    fn parse_with(
        text: &str,
        file: &str,
        cwd: &Path,
        env: &dyn Fn(&str) -> Option<String>,
        gate: &Gate<'_>,
    ) -> Result<RunConfig, RunConfigError> {
        let mut doc = parse_document(text, file)?;
        let invalid = |key: &str, message: String| RunConfigError::Invalid {
            file: file.to_string(),
            key: key.to_string(),
            message,
        };
        let Value::Object(map) = &doc else {
            return Err(invalid(
                "(top level)",
                "expected a mapping of settings".into(),
            ));
        };
        if let Some(k) = map.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(invalid(
                k,
                format!("unknown setting; expected one of {}", KEYS[..10].join(", ")),
            ));
        }
        // An MCP server is a program to start: asked about as written.
        if let Some(Value::Object(servers)) = doc.get_mut("mcp_servers") {
            servers.retain(|name, v| gate.allow(&format!("mcp_servers.{name}"), &v.to_string()));
        }
        let written = doc.clone();
        let env = |name: &str| match gate.env(name) {
            true => Lookup::Value(env(name)),
            false => Lookup::Keep,
        };
        // `${cwd}` means the configured working directory, so it is settled first.
        let cwd = match map_str(&written, "cwd") {
            Some(Ok(raw)) => {
                let c = cwd.join(expand_with(raw, cwd, &env).map_err(|m| invalid("cwd", m))?);
                match gate.refuses_outside(&c, "cwd", raw) {
                    true => cwd.to_path_buf(),
                    false => c,
                }
            }
            Some(Err(())) => return Err(invalid("cwd", "expected a path".into())),
            None => cwd.to_path_buf(),
        };
        expand_all(&mut doc, "", &cwd, &env).map_err(|(k, m)| invalid(&k, m))?;
        let prompt_file = |key: &str, raw: &str, expanded: &str| {
            resolve_prompt(expanded, &cwd, |path| {
                if gate.refuses_outside(path, key, raw) {
                    return Err(None);
                }
                match gate.read_prompt(path) {
                    Some(Ok(text)) => Ok(text),
                    Some(Err(e)) => Err(Some(e)),
                    None => Ok(crit_core::files::read_to_string(path).ok()),
                }
            })
        };
        let get = |k: &str| doc.get(k).cloned();
        let field = |k: &str| -> Result<Option<Value>, RunConfigError> {
            Ok(get(k).filter(|v| !v.is_null()))
        };

        let mut config = RunConfig::builtin(&cwd);
        if let Some(p) = field("prompt")? {
            let p: String = Typed {
                file,
                key: "prompt",
                value: p,
            }
            .get()?;
            let raw = map_str(&written, "prompt")
                .and_then(Result::ok)
                .unwrap_or(&p);
            if let Some(text) = prompt_file("prompt", raw, &p).map_err(|m| invalid("prompt", m))? {
                config.prompt = text;
            }
        }
        if let Some(t) = field("allowed_tools")? {
            config.allowed_tools = Typed {
                file,
                key: "allowed_tools",
                value: t,
            }
            .get()?;
        }
        if let Some(Value::Object(servers)) = field("mcp_servers")? {
            for (name, v) in servers {
                let key = format!("mcp_servers.{name}");
                let raw: RawMcp = Typed {
                    file,
                    key: &key,
                    value: v,
                }
                .get()?;
                if let Some(k) = raw.kind.as_deref().filter(|k| *k != "stdio") {
                    return Err(invalid(
                        &key,
                        format!(
                            "type `{k}` is not supported; crit starts stdio servers (`command`, `args`)"
                        ),
                    ));
                }
                config.mcp_servers.push(McpServerConfig {
                    name,
                    command: raw.command,
                    args: raw.args,
                    env: raw.env,
                });
            }
        }
        if let Some(Value::Object(agents)) = field("agents")? {
            for (name, v) in agents {
                let key = format!("agents.{name}");
                let raw: RawAgent = Typed {
                    file,
                    key: &key,
                    value: v,
                }
                .get()?;
                let written_prompt = written
                    .pointer(&format!(
                        "/agents/{}/prompt",
                        name.replace('~', "~0").replace('/', "~1")
                    ))
                    .and_then(Value::as_str)
                    .unwrap_or(&raw.prompt);
                let prompt_key = format!("{key}.prompt");
                let Some(system_prompt) = prompt_file(&prompt_key, written_prompt, &raw.prompt)
                    .map_err(|m| invalid(&key, m))?
                else {
                    continue;
                };
                config.agents.push(SubAgentDef {
                    system_prompt,
                    name,
                    description: raw.description,
                    tools: raw.tools.unwrap_or_default(),
                    model: raw.model,
                });
            }
        }
        if let Some(s) = field("output_schema")? {
            crit_agent::StructuredOutput::new(s.clone())
                .map_err(|e| invalid("output_schema", e.to_string()))?;
            config.output_schema = Some(s);
        }
        if let Some(t) = field("timeout_seconds")? {
            let secs: f64 = Typed {
                file,
                key: "timeout_seconds",
                value: t,
            }
            .get()?;
            if !(secs > 0.0 && secs.is_finite()) {
                return Err(invalid(
                    "timeout_seconds",
                    format!("expected a positive number of seconds, got {secs}"),
                ));
            }
            config.timeout = Duration::from_secs_f64(secs);
        }
        if let Some(t) = field("max_turns")? {
            config.max_turns = Some(
                Typed {
                    file,
                    key: "max_turns",
                    value: t,
                }
                .get()?,
            );
        }
        if let Some(m) = field("model")? {
            config.model = Some(
                Typed {
                    file,
                    key: "model",
                    value: m,
                }
                .get()?,
            );
        }
        if let Some(l) = field("logging")? {
            let raw: RawLogging = Typed {
                file,
                key: "logging",
                value: l,
            }
            .get()?;
            let written_dir = written
                .pointer("/logging/output_dir")
                .and_then(Value::as_str)
                .unwrap_or_default();
            config.logging = Logging {
                enabled: raw.enabled.unwrap_or(true),
                output_dir: raw
                    .output_dir
                    .map(|d| cwd.join(d))
                    .filter(|d| !gate.refuses_outside(d, "logging.output_dir", written_dir)),
                verbose: raw.verbose.unwrap_or(false),
            };
        }
        Ok(config)
    }
}

/// JSON when it looks like JSON (exact positions from serde_json), else YAML.
fn parse_document(text: &str, file: &str) -> Result<Value, RunConfigError> {
    let syntax = |line: u64, column: u64, message: String| RunConfigError::Syntax {
        file: file.to_string(),
        line,
        column,
        message,
    };
    if text.trim_start().starts_with('{') {
        return serde_json::from_str(text).map_err(|e| {
            let message = e.to_string();
            let message = message
                .split(" at line")
                .next()
                .unwrap_or(&message)
                .to_string();
            syntax(e.line() as u64, e.column() as u64, message)
        });
    }
    if text.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    serde_saphyr::from_str(text).map_err(|e| {
        let (line, column) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
        let message = e.to_string();
        let first = message
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("invalid YAML");
        syntax(line, column, first.trim().to_string())
    })
}

/// A string setting of the top level: `None` when absent (or null),
/// `Some(Err(()))` when not a string.
fn map_str<'a>(doc: &'a Value, key: &str) -> Option<Result<&'a str, ()>> {
    match doc.get(key)? {
        Value::Null => None,
        Value::String(s) => Some(Ok(s)),
        _ => Some(Err(())),
    }
}

/// A prompt is a file when it names one (one line, ending in `.md`/`.txt`, or
/// an existing file); otherwise it is the prompt itself. `read` gives a
/// file's text (`Ok(None)`: no such file), or refuses it: `Err(None)` when
/// the project's rules do not allow it, and then the prompt is `None`.
fn resolve_prompt(
    p: &str,
    cwd: &Path,
    read: impl Fn(&Path) -> Result<Option<String>, Option<String>>,
) -> Result<Option<String>, String> {
    let one_line = !p.trim().contains('\n');
    let path = cwd.join(p.trim());
    let looks_like_file = one_line && (p.trim().ends_with(".md") || p.trim().ends_with(".txt"));
    if one_line && (looks_like_file || path.is_file()) {
        match read(&path) {
            Ok(Some(text)) => return Ok(Some(text)),
            Ok(None) => {}
            Err(None) => return Ok(None),
            Err(Some(e)) => return Err(format!("cannot read {}: {e}", path.display())),
        }
    }
    if looks_like_file {
        return Err(format!(
            "prompt file {} does not exist (paths are relative to cwd, {})",
            path.display(),
            cwd.display()
        ));
    }
    Ok(Some(p.to_string()))
}

/// A config value on its way to a Rust type, with where it came from for the error.
struct Typed<'a> {
    file: &'a str,
    key: &'a str,
    value: Value,
}

impl Typed<'_> {
    fn get<T: serde::de::DeserializeOwned>(self) -> Result<T, RunConfigError> {
        serde_json::from_value(self.value).map_err(|e| RunConfigError::Invalid {
            file: self.file.to_string(),
            key: self.key.to_string(),
            message: e.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_orchestrator_prompt() {
        insta::assert_snapshot!("orchestrator_prompt", super::ORCHESTRATOR);
    }
}
