//! The configuration of `crit run`: Reldo's format (`.claude/reldo.json`,
//! `.reldo/settings.json`) loads unchanged, in JSON or YAML. Every key Reldo
//! documents loads; one crit does not use is a warning naming it
//! ([`RunConfig::warnings`]), not an error. `${cwd}` and `${env:NAME}` expand
//! in every string value; prompts given as file paths are read relative to
//! `cwd`. A config inside the project is honoured as the project's rules
//! allow ([`RunConfig::load_with`], `gate`).

mod expand;
mod gate;
mod raw;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crit_core::agent::{McpServerConfig, SubAgentDef};
use serde_json::Value;

use crate::trust::{ProjectRules, TrustError};
pub use expand::expand;
use expand::{Lookup, expand_all, expand_with};
use gate::Gate;
use raw::{RawAgent, RawLogging, RawMcp};

/// Where `${env:NAME}` is looked up.
#[derive(Clone, Copy)]
enum Vars<'a> {
    Env(&'a crit_os::Env),
    /// Every name is set (empty): `crit trust` asks about each one used.
    Any,
}

impl Vars<'_> {
    fn get(&self, name: &str) -> Option<String> {
        match self {
            Vars::Env(env) => env.get(name).map(str::to_string),
            Vars::Any => Some(String::new()),
        }
    }
}

/// The working directory a config is loaded for.
#[derive(Debug, Clone, Copy)]
pub enum Cwd<'a> {
    /// Where crit runs: the config's own `cwd` (relative to it) wins.
    Default(&'a Path),
    /// `--cwd`: wins over the config's `cwd`, as in Reldo.
    Given(&'a Path),
}

impl<'a> From<&'a Path> for Cwd<'a> {
    fn from(p: &'a Path) -> Self {
        Cwd::Default(p)
    }
}

impl<'a> From<&'a PathBuf> for Cwd<'a> {
    fn from(p: &'a PathBuf) -> Self {
        Cwd::Default(p)
    }
}

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

/// A loaded, resolved `crit run` configuration.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// The orchestrator's system prompt (file contents, or inline text), sent
    /// as written, its answer read for a `STATUS: PASS|FAIL` line. `None`:
    /// crit's own orchestrator, which answers in crit's findings contract.
    pub prompt: Option<String>,
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
    /// What of the file crit does not use, or could not honour as written:
    /// said on stderr and kept in the result's `warnings`.
    pub warnings: Vec<String>,
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
    #[error(
        "{}: no such file; expected the orchestrator's config there (Reldo's `.claude/reldo.json` format, JSON or YAML)",
        path.display()
    )]
    Missing { path: PathBuf },
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

impl RunConfig {
    /// The built-in orchestrator, for `crit run` with no config file: it
    /// reviews with the reviewers defined in `.claude/agents` (added by the caller).
    pub fn builtin(cwd: &Path) -> RunConfig {
        RunConfig {
            prompt: None,
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
            warnings: Vec::new(),
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
    pub fn load_with<'c>(
        path: &Path,
        cwd: impl Into<Cwd<'c>>,
        env: &crit_os::Env,
        rules: &ProjectRules,
    ) -> Result<RunConfig, RunConfigError> {
        RunConfig::load_gated(path, cwd.into(), Vars::Env(env), rules)
    }

    /// [`RunConfig::load_with`] as `crit trust` surveys a file: every
    /// `${env:NAME}` counts as set, so each is asked about whatever the
    /// environment holds now.
    pub fn survey_with<'c>(
        path: &Path,
        cwd: impl Into<Cwd<'c>>,
        rules: &ProjectRules,
    ) -> Result<RunConfig, RunConfigError> {
        RunConfig::load_gated(path, cwd.into(), Vars::Any, rules)
    }

    fn load_gated(
        path: &Path,
        cwd: Cwd<'_>,
        vars: Vars<'_>,
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
            return RunConfig::load_vars(path, cwd, vars);
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        let file = rules.read(&rel)?.ok_or_else(|| RunConfigError::Missing {
            path: path.to_path_buf(),
        })?;
        let gate = Gate {
            rules: Some(rules),
            file: rel,
        };
        let mut config = RunConfig::parse_with(&file.text, &file.label, cwd, vars, &gate)?;
        config.source = Some(PathBuf::from(file.label));
        Ok(config)
    }

    /// Loads `path`, every setting honoured (the caller vouches for the
    /// file). `cwd` is the working directory: a path (where crit runs; the
    /// config's own `cwd` wins) or [`Cwd::Given`] (`--cwd`, which wins);
    /// `env` looks up `${env:NAME}`.
    pub fn load<'c>(
        path: &Path,
        cwd: impl Into<Cwd<'c>>,
        env: &crit_os::Env,
    ) -> Result<RunConfig, RunConfigError> {
        RunConfig::load_vars(path, cwd.into(), Vars::Env(env))
    }

    fn load_vars(path: &Path, cwd: Cwd<'_>, vars: Vars<'_>) -> Result<RunConfig, RunConfigError> {
        let text =
            crit_core::files::read_to_string(path).map_err(|source| match source.kind() {
                std::io::ErrorKind::NotFound => RunConfigError::Missing {
                    path: path.to_path_buf(),
                },
                _ => RunConfigError::Io {
                    path: path.to_path_buf(),
                    source,
                },
            })?;
        let file = path.display().to_string();
        let mut config = RunConfig::parse_with(&text, &file, cwd, vars, &Gate::trusting())?;
        config.source = Some(path.to_path_buf());
        Ok(config)
    }

    /// Parses `text` (JSON or YAML), every setting honoured; `file` names
    /// it in errors.
    pub fn parse<'c>(
        text: &str,
        file: &str,
        cwd: impl Into<Cwd<'c>>,
        env: &crit_os::Env,
    ) -> Result<RunConfig, RunConfigError> {
        RunConfig::parse_with(text, file, cwd.into(), Vars::Env(env), &Gate::trusting())
    }

    fn parse_with(
        text: &str,
        file: &str,
        cwd: Cwd<'_>,
        vars: Vars<'_>,
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
        let mut warnings: Vec<String> = Vec::new();
        for k in map.keys().filter(|k| !raw::KEYS.contains(&k.as_str())) {
            let why = raw::UNUSED.iter().find(|(u, _)| u == k).map(|(_, w)| *w);
            warnings.push(raw::unused(file, k, why));
        }
        // An MCP server is a program to start: asked about as written.
        if let Some(Value::Object(servers)) = doc.get_mut("mcp_servers") {
            servers.retain(|name, v| gate.allow(&format!("mcp_servers.{name}"), &v.to_string()));
        }
        let written = doc.clone();
        let env = |name: &str| match gate.env(name) {
            true => Lookup::Value(vars.get(name)),
            false => Lookup::Keep,
        };
        let cwd = settle_cwd(&written, cwd, &env, gate, file, &mut warnings)?;
        expand_all(&mut doc, "", &cwd, &env, &mut warnings);
        let reader = Reader {
            file,
            cwd: &cwd,
            gate,
            written: &written,
        };
        let field = |k: &str| doc.get(k).filter(|v| !v.is_null()).cloned();

        let mut config = RunConfig::builtin(&cwd);
        if let Some(p) = field("prompt") {
            let p: String = reader.typed("prompt", p)?;
            let raw = map_str(&written, "prompt")
                .and_then(Result::ok)
                .unwrap_or(&p);
            if let Some(text) = reader
                .prompt_file("prompt", raw, &p)
                .map_err(|m| invalid("prompt", m.to_string()))?
            {
                config.prompt = Some(text);
            }
        }
        if let Some(t) = field("allowed_tools") {
            let tools: Vec<String> = reader.typed("allowed_tools", t)?;
            config.allowed_tools = offered_tools(file, "allowed_tools", tools, &mut warnings);
        }
        if let Some(Value::Object(servers)) = field("mcp_servers") {
            for (name, v) in servers {
                if let Some(server) = reader.mcp_server(name, v, &mut warnings)? {
                    config.mcp_servers.push(server);
                }
            }
        }
        if let Some(Value::Object(agents)) = field("agents") {
            for (name, v) in agents {
                if let Some(agent) = reader.agent(name, v, &mut warnings)? {
                    config.agents.push(agent);
                }
            }
        }
        if let Some(s) = field("output_schema") {
            jsonschema::validator_for(&s).map_err(|e| invalid("output_schema", e.to_string()))?;
            config.output_schema = Some(s);
        }
        if let Some(t) = field("timeout_seconds") {
            let secs: f64 = reader.typed("timeout_seconds", t)?;
            if !(secs > 0.0 && secs.is_finite()) {
                return Err(invalid(
                    "timeout_seconds",
                    format!("expected a positive number of seconds, got {secs}"),
                ));
            }
            config.timeout = Duration::from_secs_f64(secs);
        }
        if let Some(t) = field("max_turns") {
            config.max_turns = Some(reader.typed("max_turns", t)?);
        }
        if let Some(m) = field("model") {
            config.model = Some(reader.typed("model", m)?);
        }
        if let Some(l) = field("logging") {
            config.logging = reader.logging(l, &mut warnings)?;
        }
        config.warnings = warnings;
        Ok(config)
    }
}

/// The working directory: `--cwd` when given (as in Reldo, it wins over the
/// config), else the config's `cwd` (relative to the directory crit runs
/// in), else that directory. `${cwd}` means this directory, so it is settled
/// before anything else expands.
fn settle_cwd(
    written: &Value,
    cwd: Cwd<'_>,
    env: &dyn Fn(&str) -> Lookup,
    gate: &Gate<'_>,
    file: &str,
    warnings: &mut Vec<String>,
) -> Result<PathBuf, RunConfigError> {
    let (base, given) = match cwd {
        Cwd::Given(p) => (p, true),
        Cwd::Default(p) => (p, false),
    };
    match map_str(written, "cwd") {
        Some(Err(())) => Err(RunConfigError::Invalid {
            file: file.to_string(),
            key: "cwd".into(),
            message: "expected a path".into(),
        }),
        Some(Ok(_)) if given => Ok(base.to_path_buf()),
        Some(Ok(raw)) => {
            let mut unset = Vec::new();
            let c = base.join(expand_with(raw, base, env, &mut unset));
            warnings.extend(unset.iter().map(|n| expand::unset_warning("cwd", n)));
            Ok(match gate.refuses_outside(&c, "cwd", raw) {
                true => base.to_path_buf(),
                false => c,
            })
        }
        None => Ok(base.to_path_buf()),
    }
}

/// Tool names as a reviewer is offered them: tools that write or browse are
/// dropped with a warning (crit's reviewers are read-only); names crit does
/// not know are dropped with a warning too, so one stray name does not stop
/// the review. MCP names (`mcp__server`, `mcp__server__tool`) stay: the
/// servers' tools are known only once they start.
fn offered_tools(
    file: &str,
    key: &str,
    tools: Vec<String>,
    warnings: &mut Vec<String>,
) -> Vec<String> {
    let mut out = Vec::new();
    for t in tools {
        let name = t.trim();
        if raw::WRITING_TOOLS.contains(&name) {
            warnings.push(format!(
                "{file}: {key}: `{name}` is not offered: crit's reviewers are read-only"
            ));
        } else if crit_core::agent::is_offered_tool(name) {
            if !out.iter().any(|o: &String| o == name) {
                out.push(name.to_string());
            }
        } else {
            warnings.push(format!(
                "{file}: {key}: `{name}` is not a tool crit has ({}, TodoWrite, Task, or MCP tools as `mcp__server__tool`); ignored",
                crate::config::KNOWN_TOOLS[..4].join(", ")
            ));
        }
    }
    out
}

/// What the parts of one config are read with.
struct Reader<'a> {
    file: &'a str,
    cwd: &'a Path,
    gate: &'a Gate<'a>,
    /// The document before expansion: what the project's rules are asked about.
    written: &'a Value,
}

impl Reader<'_> {
    fn typed<T: serde::de::DeserializeOwned>(
        &self,
        key: &str,
        value: Value,
    ) -> Result<T, RunConfigError> {
        Typed {
            file: self.file,
            key,
            value,
        }
        .get()
    }

    fn invalid(&self, key: &str, message: String) -> RunConfigError {
        RunConfigError::Invalid {
            file: self.file.to_string(),
            key: key.to_string(),
            message,
        }
    }

    /// A prompt given as a file (read, if the rules allow) or as text.
    fn prompt_file(
        &self,
        key: &str,
        raw: &str,
        expanded: &str,
    ) -> Result<Option<String>, PromptFileError> {
        resolve_prompt(expanded, self.cwd, |path| {
            if self.gate.refuses_outside(path, key, raw) {
                return Err(None);
            }
            match self.gate.read_prompt(path) {
                Some(Ok(text)) => Ok(text),
                Some(Err(e)) => Err(Some(e)),
                None => Ok(crit_core::files::read_to_string(path).ok()),
            }
        })
    }

    fn mcp_server(
        &self,
        name: String,
        v: Value,
        warnings: &mut Vec<String>,
    ) -> Result<Option<McpServerConfig>, RunConfigError> {
        let key = format!("mcp_servers.{name}");
        let raw: RawMcp = self.typed(&key, v)?;
        for k in raw.extra.keys() {
            warnings.push(raw::unused(self.file, &format!("{key}.{k}"), None));
        }
        let kind =
            raw.kind
                .clone()
                .unwrap_or_else(|| match raw.url.is_some() && raw.command.is_none() {
                    true => "http".into(),
                    false => "stdio".into(),
                });
        let cwd = raw.cwd.as_ref().map(|c| self.cwd.join(c));
        let written_cwd = self
            .written
            .pointer(&format!("/mcp_servers/{}/cwd", pointer_escape(&name)))
            .and_then(Value::as_str)
            .unwrap_or_default();
        if let Some(c) = &cwd
            && self
                .gate
                .refuses_outside(c, &format!("{key}.cwd"), written_cwd)
        {
            return Ok(None);
        }
        match kind.as_str() {
            "stdio" => {
                let command = raw
                    .command
                    .filter(|c| !c.trim().is_empty())
                    .ok_or_else(|| self.invalid(&key, "a stdio server needs `command`".into()))?;
                Ok(Some(McpServerConfig {
                    name,
                    command,
                    args: raw.args,
                    env: raw.env,
                    cwd,
                    url: None,
                    headers: BTreeMap::new(),
                }))
            }
            "http" | "sse" | "streamable-http" | "streamable_http" => {
                let url = raw
                    .url
                    .filter(|u| !u.trim().is_empty())
                    .ok_or_else(|| self.invalid(&key, format!("a `{kind}` server needs `url`")))?;
                Ok(Some(McpServerConfig {
                    name,
                    url: Some(url),
                    headers: raw.headers,
                    ..McpServerConfig::default()
                }))
            }
            other => {
                warnings.push(format!(
                    "{}: {key}: type `{other}` is not one crit starts (stdio, http, sse); server skipped",
                    self.file
                ));
                Ok(None)
            }
        }
    }

    fn agent(
        &self,
        name: String,
        v: Value,
        warnings: &mut Vec<String>,
    ) -> Result<Option<SubAgentDef>, RunConfigError> {
        let key = format!("agents.{name}");
        let raw: RawAgent = self.typed(&key, v)?;
        for k in raw.extra.keys() {
            warnings.push(raw::unused(self.file, &format!("{key}.{k}"), None));
        }
        let written_prompt = self
            .written
            .pointer(&format!("/agents/{}/prompt", pointer_escape(&name)))
            .and_then(Value::as_str)
            .unwrap_or(&raw.prompt);
        let prompt_key = format!("{key}.prompt");
        let Some(system_prompt) = self
            .prompt_file(&prompt_key, written_prompt, &raw.prompt)
            .map_err(|m| self.invalid(&key, m.to_string()))?
        else {
            return Ok(None);
        };
        let tools = raw
            .tools
            .map(|t| offered_tools(self.file, &format!("{key}.tools"), t, warnings))
            .unwrap_or_default();
        Ok(Some(SubAgentDef {
            system_prompt,
            name,
            description: raw.description,
            tools,
            model: raw.model,
        }))
    }

    fn logging(&self, l: Value, warnings: &mut Vec<String>) -> Result<Logging, RunConfigError> {
        let raw: RawLogging = self.typed("logging", l)?;
        if raw.level.is_some() {
            warnings.push(raw::unused(
                self.file,
                "logging.level",
                Some("crit's diagnostics follow -v, -q and CRIT_LOG"),
            ));
        }
        for k in raw.extra.keys() {
            warnings.push(raw::unused(self.file, &format!("logging.{k}"), None));
        }
        let written_dir = self
            .written
            .pointer("/logging/output_dir")
            .and_then(Value::as_str)
            .unwrap_or_default();
        Ok(Logging {
            enabled: raw.enabled.unwrap_or(true),
            output_dir: raw.output_dir.map(|d| self.cwd.join(d)).filter(|d| {
                !self
                    .gate
                    .refuses_outside(d, "logging.output_dir", written_dir)
            }),
            verbose: raw.verbose.unwrap_or(false),
        })
    }
}

/// A key as one segment of a JSON pointer.
fn pointer_escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
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

/// Why a prompt that names a file has no text.
#[derive(Debug, thiserror::Error)]
enum PromptFileError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: crate::trust::TrustError,
    },
    #[error(
        "prompt file {} does not exist (paths are relative to cwd, {})",
        path.display(),
        cwd.display()
    )]
    Missing { path: PathBuf, cwd: PathBuf },
}

/// A prompt is a file when it names one (one line, ending in `.md`/`.txt`, or
/// an existing file); otherwise it is the prompt itself. `read` gives a
/// file's text (`Ok(None)`: no such file), or refuses it: `Err(None)` when
/// the project's rules do not allow it, and then the prompt is `None`.
fn resolve_prompt(
    p: &str,
    cwd: &Path,
    read: impl Fn(&Path) -> Result<Option<String>, Option<crate::trust::TrustError>>,
) -> Result<Option<String>, PromptFileError> {
    let one_line = !p.trim().contains('\n');
    let path = cwd.join(p.trim());
    let looks_like_file = one_line && (p.trim().ends_with(".md") || p.trim().ends_with(".txt"));
    if one_line && (looks_like_file || path.is_file()) {
        match read(&path) {
            Ok(Some(text)) => return Ok(Some(text)),
            Ok(None) => {}
            Err(None) => return Ok(None),
            Err(Some(source)) => return Err(PromptFileError::Read { path, source }),
        }
    }
    if looks_like_file {
        return Err(PromptFileError::Missing {
            path,
            cwd: cwd.to_path_buf(),
        });
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
