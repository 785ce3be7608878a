//! `crit run` (Reldo): an orchestrator agent that delegates to specialist
//! sub-agents through the Task tool and merges their reports. The library API
//! is [`Crit`]; the CLI is a thin wrapper over it.
//!
//! As in Reldo, a prompt of the user's is sent as written and its answer text
//! is the result; crit reads its verdict from a `STATUS: PASS|FAIL` line (see
//! [`crit_core::contract::status_line`]), or from `passed` when the config has
//! an `output_schema`. Sessions keep Reldo's file names and keys.
//!
//! ```no_run
//! # async fn demo() -> Result<(), crit_review::orchestrate::RunError> {
//! // The front end reads the environment once and hands it down.
//! let env = crit_os::env::Env::from_process();
//! let cwd = std::env::current_dir().unwrap_or_default();
//! let crit = crit_review::orchestrate::Crit::from_config(".claude/reldo.json", &cwd, env)?;
//! let result = crit.review("Review src/auth.rs: added token refresh").await?;
//! println!("{} {}", result.verdict, result.usage.total());
//! # Ok(()) }
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use crit_agent::{Hooks, McpServer, McpTimeouts, RunLimits, SubAgentDef};
use crit_core::contract::Contract;
use crit_core::{ReviewResult, ReviewerOutcome, ReviewerStatus, Verdict};
use crit_llm::{Backend, LlmError};
use tokio_util::sync::CancellationToken;

pub use crit_project::config::reldo::{
    Cwd, DEFAULT_TIMEOUT, DEFAULT_TOOLS, Logging, RunConfig, RunConfigError, STANDARD_PATHS, expand,
};

mod mcp_access;

use crate::engine::panel::{self, PanelEnv, Progress, ReviewerPlan, SharedTranscript};
use crate::engine::prompts::{OutputSpec, PromptError, contract_instructions};
use crate::engine::redaction::Removed;
use crate::engine::session::{self, Session, SessionMeta};
use crit_core::redact::Redactor;
use crit_project::context::{self, ContextOptions, UnderReview};
use mcp_access::McpAccess;

/// crit's own orchestrator, for a run whose config gives no prompt.
const ORCHESTRATOR: &str = include_str!("../../../prompts/orchestrator.md");

/// Why a run could not start. Once the orchestrator runs, failures are in the
/// result (and never pass).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Config(#[from] RunConfigError),
    #[error(transparent)]
    Backend(#[from] LlmError),
    #[error("configuration: {0}")]
    Settings(#[from] crit_project::FileError),
    #[error(transparent)]
    Context(#[from] context::ContextError),
    #[error(transparent)]
    Session(#[from] session::SessionError),
    #[error(transparent)]
    AgentDefs(#[from] crit_project::agent_defs::AgentDefError),
    #[error("the output contract: {0}")]
    Contract(#[source] PromptError),
}

/// A configured orchestrator. Cheap to build; [`Crit::review`] does the work.
pub struct Crit {
    config: RunConfig,
    backend: Option<(Backend, String)>,
    hooks: Hooks,
    progress: Option<Arc<dyn Progress>>,
    cancel: CancellationToken,
    env: crit_os::Env,
    verbose: bool,
    max_budget_usd: Option<f64>,
    fail_on: crit_core::FailOn,
    /// MCP tools `allowed_tools` does not grant are offered and refused at
    /// the call, as Reldo's SDK does, rather than not offered.
    reldo_tools: bool,
    /// The project's commands the agents' Bash may run (trusted settings).
    project_commands: Vec<Vec<String>>,
}

impl std::fmt::Debug for Crit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Crit")
            .field("config", &self.config)
            .field("backend", &self.backend.as_ref().map(|(b, m)| (b, m)))
            .field("hooks", &self.hooks)
            .finish_non_exhaustive()
    }
}

impl Crit {
    /// Loads a config file (JSON or YAML; Reldo's format), relative to
    /// `cwd`; `env` is the environment the front end read (`XDG_*`, `HOME`,
    /// `CRIT_*`, and `PATH`/`LANG` for the tools' programs).
    pub fn from_config(
        path: impl AsRef<Path>,
        cwd: &Path,
        env: crit_os::Env,
    ) -> Result<Crit, RunError> {
        let config = RunConfig::load(path.as_ref(), cwd, &env)?;
        Ok(Crit::new(config, env))
    }

    /// The orchestrator for `config`; `env` as for [`Crit::from_config`].
    pub fn new(config: RunConfig, env: crit_os::Env) -> Crit {
        Crit {
            config,
            backend: None,
            hooks: Hooks::default(),
            progress: None,
            cancel: CancellationToken::new(),
            env,
            verbose: false,
            max_budget_usd: None,
            fail_on: crit_core::FailOn::default(),
            reldo_tools: false,
            project_commands: Vec::new(),
        }
    }

    /// The project's own commands (`npm run lint`) the orchestrator's and
    /// its sub-agents' Bash may run in the tools' sandbox, each as its words;
    /// from the user's trusted settings only (`project_commands`).
    pub fn with_project_commands(mut self, commands: Vec<Vec<String>>) -> Self {
        self.project_commands = commands;
        self
    }

    /// `--max-budget-usd`: what the orchestrator and all its sub-agents may
    /// spend together. Each stops before its next model call once the total
    /// reaches it, and the result is INCOMPLETE.
    pub fn with_max_budget_usd(mut self, usd: Option<f64>) -> Self {
        self.max_budget_usd = usd;
        self
    }

    /// The level `passed` is decided at (the settings' `fail_on`).
    pub fn with_fail_on(mut self, fail_on: crit_core::FailOn) -> Self {
        self.fail_on = fail_on;
        self
    }

    /// The model backend and the model to use when the config names none.
    /// Without this, the backend is selected as the CLI does (config files,
    /// `CRIT_*`, auto-detection).
    pub fn with_backend(mut self, backend: Backend, default_model: impl Into<String>) -> Self {
        self.backend = Some((backend, default_model.into()));
        self
    }

    /// Hooks in code (FR9): they see every tool call of the orchestrator and
    /// its sub-agents.
    /// The backend and model a project's settings for `crit run` choose
    /// ([`crit_project::Project::settings`] with [`crit_project::Kind::Run`]).
    pub fn with_settings(self, settings: &crit_project::Settings) -> Result<Self, LlmError> {
        let backend = settings.build_backend()?;
        Ok(self.with_backend(backend, settings.request_model()))
    }

    pub fn with_hooks(mut self, hooks: Hooks) -> Self {
        self.hooks = hooks;
        self
    }

    pub fn with_progress(mut self, progress: Arc<dyn Progress>) -> Self {
        self.progress = Some(progress);
        self
    }

    pub fn with_cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// Reldo's treatment of MCP tools `allowed_tools` does not grant (a Reldo
    /// config, `--compat reldo`): the model sees them, as the Claude Agent
    /// SDK shows them, and each call is refused for want of permission, in
    /// the SDK's words. Otherwise they are not offered at all.
    pub fn reldo_tools(mut self, on: bool) -> Self {
        self.reldo_tools = on;
        self
    }

    /// `--verbose`: keep the full transcript in the session (FR7).
    pub fn verbose(mut self, on: bool) -> Self {
        self.verbose = on;
        self
    }

    /// `--no-log`.
    pub fn logging(mut self, on: bool) -> Self {
        self.config.logging.enabled = on;
        self
    }

    pub fn config(&self) -> &RunConfig {
        &self.config
    }

    /// Runs the orchestrator on `prompt` and returns the merged result: text
    /// (`raw_output`), usage, cost, duration, `structured_output`, and one
    /// outcome per sub-agent run in `reviewers`.
    pub async fn review(&self, prompt: &str) -> Result<ReviewResult, RunError> {
        let started = Instant::now();
        let now = SystemTime::now();
        let cfg = &self.config;
        let home = self.env.get("HOME").map(PathBuf::from);
        let root = crit_project::paths::project_root_in(&cfg.cwd, home.as_deref());
        let (backend, default_model) = match &self.backend {
            Some((b, m)) => (b.clone(), m.clone()),
            None => return Err(RunError::Backend(LlmError::NoBackend)),
        };
        let (conventions, mut removed) = project_context(&root, &cfg.cwd)?;
        let mut plan = self.plan(prompt, &root, default_model, &conventions)?;
        let session = match cfg.logging.enabled {
            true => Some(self.session(&root, prompt, now)?),
            false => None,
        };
        let mut warnings = cfg.warnings.clone();
        let mcp = start_mcp(cfg, &mut warnings).await;
        let access = McpAccess::of(&mcp, &cfg.allowed_tools, self.reldo_tools);
        warnings.extend(access.warnings.iter().cloned());
        if self.reldo_tools {
            plan.tools.extend(access.not_granted.iter().cloned());
        }
        let mut hooks = match &session {
            Some(s) => self
                .hooks
                .clone()
                .with_session(s.id(), Some(s.transcript_path())),
            None => self.hooks.clone(),
        };
        if let Some(hook) = access.hook() {
            hooks.push(hook);
        }
        let env = PanelEnv {
            root: cfg.cwd.clone(),
            add_dirs: Vec::new(),
            project_context: conventions,
            hooks,
            mcp: mcp.clone(),
            transcript: session
                .as_ref()
                .filter(|_| self.verbose || cfg.logging.verbose)
                .and_then(SharedTranscript::for_session),
            progress: self.progress.clone(),
            cancel: self.cancel.clone(),
            spend: Default::default(),
            redaction: crate::engine::redaction::tools_redactor(),
            tool_env: panel::tool_env(&self.env),
            panel_start: Default::default(),
            project_commands: Arc::new(self.project_commands.clone()),
        };
        let runs = panel::run_panel(&backend, std::slice::from_ref(&plan), &env).await;
        let mut result = panel::aggregate("run", &runs);
        removed.extend(env.redaction.found().iter().map(Removed::from_tool));
        crate::engine::redaction::dedup(&mut removed);
        result.findings.extend(removed.iter().map(Removed::finding));
        // Decided once, with every finding in.
        result.apply_gate(self.fail_on);
        let subs: Vec<ReviewerOutcome> = runs
            .iter()
            .flat_map(|r| r.sub_agents.iter().map(sub_agent_outcome))
            .collect();
        // The orchestrator's totals hold its sub-agents' already; their own
        // models' prices are known or not apart from its.
        let unpriced = panel::unpriced(subs.iter())
            .into_iter()
            .filter(|w| !result.warnings.contains(w))
            .collect::<Vec<_>>();
        if !unpriced.is_empty() {
            result.cost_usd = None;
        }
        result.reviewers.extend(subs);
        warnings.append(&mut result.warnings);
        warnings.extend(unpriced);
        result.warnings = warnings;
        let transcript_error = env.transcript.as_ref().and_then(|t| t.error());
        drop(env);
        for server in mcp {
            if let Ok(server) = Arc::try_unwrap(server) {
                server.shutdown().await;
            }
        }
        result.started_at = Some(crit_core::timestamp::rfc3339(
            crit_core::timestamp::unix_secs(now),
        ));
        result.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        if let Some(s) = &session {
            result.session_log_path = Some(s.dir().display().to_string());
            // Reldo's keys beside crit's: its scripts read result.json too.
            let mut reldo = match crit_core::render::compat::reldo::value(&result) {
                serde_json::Value::Object(map) => map,
                _ => Default::default(),
            };
            reldo.insert(
                "completed_at".into(),
                crit_core::timestamp::rfc3339(crit_core::timestamp::unix_secs(SystemTime::now()))
                    .into(),
            );
            session::save_with(s, &result, reldo, transcript_error, &self.env, now);
        }
        Ok(result)
    }

    /// The orchestrator as a one-reviewer panel: the config's prompt with the
    /// answer contract, the user's prompt, its tools, sub-agents and limits.
    /// Sub-agents are given the project's conventions too (CLAUDE.md and its
    /// rules), as Claude Code gives them to its sub-agents.
    fn plan(
        &self,
        prompt: &str,
        root: &Path,
        default_model: String,
        conventions: &str,
    ) -> Result<ReviewerPlan, RunError> {
        let cfg = &self.config;
        let output = match &cfg.output_schema {
            Some(s) => OutputSpec::Schema(s.clone()),
            None if cfg.prompt.is_none() => OutputSpec::Contract(Contract::FindingsJson),
            // Reldo sends the user's prompt as written and returns the text.
            None => OutputSpec::Contract(Contract::StatusLine),
        };
        let contract = contract_instructions(&output).map_err(RunError::Contract)?;
        let mut agents: Vec<SubAgentDef> = cfg.agents.clone();
        for def in crit_project::agent_defs::load_dir(&root.join(".claude").join("agents"))? {
            if !agents.iter().any(|a| a.name == def.name) {
                agents.push(def.into_sub_agent());
            }
        }
        if !conventions.trim().is_empty() {
            for a in &mut agents {
                a.system_prompt = format!("{}\n\n{}", a.system_prompt.trim_end(), conventions);
            }
        }
        Ok(ReviewerPlan {
            name: "orchestrator".into(),
            model: cfg.model.clone().unwrap_or(default_model),
            system: crate::engine::prompts::with_contract(
                cfg.prompt.as_deref().unwrap_or(ORCHESTRATOR),
                &contract,
            ),
            user: prompt.to_string(),
            shared: None,
            tools: cfg.allowed_tools.clone(),
            output,
            limits: RunLimits {
                max_turns: cfg.max_turns,
                timeout: Some(cfg.timeout),
                max_tokens: None,
                max_budget_usd: self.max_budget_usd,
            },
            max_output_tokens: 16_384,
            sub_agents: agents,
        })
    }

    fn session(&self, root: &Path, prompt: &str, now: SystemTime) -> Result<Session, RunError> {
        let meta = SessionMeta {
            review: "run".into(),
            inputs: Default::default(),
            config: config_snapshot(&self.config),
            cwd: self.config.cwd.display().to_string(),
            started_at: crit_core::timestamp::rfc3339(crit_core::timestamp::unix_secs(now)),
            crit_version: env!("CARGO_PKG_VERSION").to_string(),
            prompt: Some(prompt.to_string()),
        };
        let session = match &self.config.logging.output_dir {
            Some(dir) => Session::create_in(&sessions_dir(dir), &meta, now)?,
            None => Session::create(root, &meta, now)?,
        };
        Ok(session.with_transcript_name(session::RELDO_TRANSCRIPT))
    }
}

/// What session.json records of the config (secrets are redacted on write).
fn config_snapshot(c: &RunConfig) -> serde_json::Value {
    serde_json::json!({
        "source": c.source.as_ref().map(|p| p.display().to_string()),
        "allowed_tools": c.allowed_tools,
        "mcp_servers": c.mcp_servers,
        "agents": c.agents.iter().map(|a| serde_json::json!({"name": a.name, "description": a.description, "tools": a.tools, "model": a.model})).collect::<Vec<_>>(),
        "output_schema": c.output_schema,
        "cwd": c.cwd.display().to_string(),
        "timeout_seconds": c.timeout.as_secs_f64(),
        "max_turns": c.max_turns,
        "model": c.model,
    })
}

/// Where a configured `logging.output_dir` keeps sessions: in it when it is
/// itself a `sessions` directory (Reldo's documented `.reldo/sessions`), else
/// in its `sessions/` (Reldo's published `.reldo`): either way under what
/// Reldo's `.gitignore` names.
fn sessions_dir(output_dir: &Path) -> PathBuf {
    match output_dir.file_name().is_some_and(|n| n == "sessions") {
        true => output_dir.to_path_buf(),
        false => output_dir.join("sessions"),
    }
}

/// Starts the config's MCP servers. One that does not start is a warning in
/// the result and its tools are absent; the review goes on, as in Reldo.
async fn start_mcp(cfg: &RunConfig, warnings: &mut Vec<String>) -> Vec<Arc<McpServer>> {
    if cfg.mcp_servers.is_empty() {
        return Vec::new();
    }
    let (ok, failed) =
        crit_agent::mcp::start_all(&cfg.mcp_servers, &cfg.cwd, McpTimeouts::default()).await;
    warnings.extend(
        failed
            .iter()
            .map(|e| format!("{e}; the review goes on without its tools")),
    );
    ok.into_iter().map(Arc::new).collect()
}

/// The conventions, with their secrets redacted (and what was removed).
fn project_context(root: &Path, cwd: &Path) -> Result<(String, Vec<Removed>), RunError> {
    let mut cx = context::discover(
        root,
        cwd,
        UnderReview::Everything,
        &ContextOptions::default(),
    )?;
    let removed = crate::engine::redaction::redact_context(&mut cx, Redactor::process());
    Ok((cx.render(), removed))
}

fn sub_agent_outcome(s: &crit_agent::SubAgentOutcome) -> ReviewerOutcome {
    use crit_agent::RunStatus;
    let (status, verdict) = match &s.status {
        RunStatus::Completed => (ReviewerStatus::Completed, answer_verdict(&s.answer)),
        RunStatus::Incomplete(_) | RunStatus::Cancelled => {
            (ReviewerStatus::Incomplete, Verdict::Incomplete)
        }
        RunStatus::NoValidOutput(_) | RunStatus::AmbiguousOutput(_) => {
            (ReviewerStatus::ParseError, Verdict::Unknown)
        }
        RunStatus::Failed(_) | RunStatus::HookStopped(_) | RunStatus::Refused(_) => {
            (ReviewerStatus::Failed, Verdict::Error)
        }
    };
    ReviewerOutcome {
        name: s.name.clone(),
        status,
        // Its own answer's verdict, for the record: the orchestrator read
        // the answer and gives the review's verdict.
        verdict,
        model: s.unpriced_model.clone(),
        findings: 0,
        usage: s.usage,
        cost_usd: s.unpriced_model.is_none().then_some(s.cost_usd),
        duration_ms: u64::try_from(s.duration.as_millis()).unwrap_or(u64::MAX),
        error: s.status.shortfall(),
    }
}

/// A sub-agent's verdict from its own answer, in whichever convention it
/// used: Reldo's `STATUS: PASS|FAIL`, the findings JSON, or the review
/// templates' markdown. An answer in none of them is UNKNOWN.
fn answer_verdict(answer: &str) -> Verdict {
    use crit_core::contract::{self, Contract, ParseContext};
    let cx = ParseContext::new("sub-agent");
    [Contract::StatusLine, Contract::FindingsJson]
        .into_iter()
        .find_map(|c| {
            contract::parse_any(c, answer, &cx)
                .ok()
                .map(|p| p.verdict)
                .filter(|v| *v != Verdict::Unknown)
        })
        .unwrap_or(Verdict::Unknown)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_orchestrator_prompt() {
        insta::assert_snapshot!("orchestrator_prompt", super::ORCHESTRATOR);
    }
}
