//! The Claude Code CLI backend (`claude -p`): an *agent* that runs
//! its own loop and tools, usually on the user's subscription.
//!
//! The child runs in its own process group. On timeout, cancellation or drop the
//! whole group gets SIGKILL through `rustix::process::kill_process_group`: a safe
//! wrapper over one syscall (the workspace forbids `unsafe`, so not `libc`), already
//! in the tree through `tempfile`, and without spawning `kill` (which needs PATH and
//! can fail under process limits). `kill_on_drop` alone would miss grandchildren.

mod parse;
mod process;
pub mod schema;

use std::path::PathBuf;
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use parse::{AgentIncomplete, AgentOutcome, AgentProgress};

use crate::env::Env;
use crate::error::LlmError;
use crate::model::{Agent, EventStream, Model, stream_of};
use crate::protocol::{Block, Capabilities, ModelEvent, ModelRequest, Role, StopReason};

/// Whose account pays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaudeAuth {
    /// The user's Claude login: ANTHROPIC_API_KEY and ANTHROPIC_AUTH_TOKEN are
    /// removed from the child's environment, since an API key would win over it.
    Subscription,
    /// Whatever credentials the environment holds, passed through.
    Environment,
}

#[derive(Debug, Clone)]
pub struct ClaudeCodeConfig {
    pub bin: PathBuf,
    pub auth: ClaudeAuth,
    /// The child's whole environment (the child gets nothing else).
    pub env: Env,
    pub timeout: Duration,
    /// `CLAUDE_CODE_MAX_RETRIES`: low, because crit owns the deadline.
    pub max_retries: u32,
    pub cwd: Option<PathBuf>,
    /// Caps on what one run may print (its stream-json on stdout).
    pub limits: crate::transport::ResponseLimits,
}

impl ClaudeCodeConfig {
    pub fn new(bin: impl Into<PathBuf>, env: Env) -> Self {
        ClaudeCodeConfig {
            bin: bin.into(),
            auth: ClaudeAuth::Subscription,
            env,
            timeout: Duration::from_secs(600),
            max_retries: 2,
            cwd: None,
            limits: Default::default(),
        }
    }
}

/// One agent run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentTask {
    /// Sent on stdin (no argv length limit, never visible in `ps`).
    pub prompt: String,
    pub system_prompt: Option<String>,
    pub model: Option<String>,
    /// `--tools`: restricts the tool set (`Some(vec![])` = no tools at all).
    pub tools: Option<Vec<String>>,
    /// `--allowedTools`: pre-approves these.
    pub allowed_tools: Vec<String>,
    pub max_turns: Option<u32>,
    pub max_budget_usd: Option<f64>,
    /// `--json-schema` (rewritten into the dialect the CLI accepts, see
    /// [`schema::for_cli`]): the outcome must carry `structured_output`.
    pub json_schema: Option<Value>,
    pub add_dirs: Vec<PathBuf>,
    /// Where the CLI runs (the project root); overrides the config's `cwd`.
    pub cwd: Option<PathBuf>,
}

#[derive(Debug)]
pub struct ClaudeCode {
    config: ClaudeCodeConfig,
}

impl ClaudeCode {
    pub fn new(config: ClaudeCodeConfig) -> Self {
        ClaudeCode { config }
    }

    /// The argv after the binary.
    pub fn args(task: &AgentTask) -> Vec<String> {
        let mut a: Vec<String> = [
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--no-session-persistence",
            // Never run project hooks: crit may itself be running as one.
            "--settings",
            r#"{"disableAllHooks":true}"#,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut flag = |f: &str, v: String| {
            a.push(f.to_string());
            a.push(v);
        };
        if let Some(m) = &task.model {
            flag("--model", m.clone());
        }
        if let Some(s) = &task.system_prompt {
            flag("--system-prompt", s.clone());
        }
        if let Some(t) = &task.tools {
            flag("--tools", t.join(","));
        }
        if !task.allowed_tools.is_empty() {
            flag("--allowedTools", task.allowed_tools.join(","));
        }
        if let Some(n) = task.max_turns {
            flag("--max-turns", n.to_string());
        }
        if let Some(b) = task.max_budget_usd {
            flag("--max-budget-usd", b.to_string());
        }
        if let Some(s) = &task.json_schema {
            flag("--json-schema", schema::for_cli(s).to_string());
        }
        for d in &task.add_dirs {
            flag("--add-dir", d.display().to_string());
        }
        a
    }

    /// The child's environment.
    pub fn child_env(&self) -> Env {
        let mut env = self.config.env.clone();
        if self.config.auth == ClaudeAuth::Subscription {
            env.remove("ANTHROPIC_API_KEY");
            env.remove("ANTHROPIC_AUTH_TOKEN");
        }
        // Set when crit runs inside a Claude Code hook; the CLI refuses to nest.
        env.remove("CLAUDECODE");
        env.set("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
        env.set("DISABLE_AUTOUPDATER", "1");
        env.set(
            "CLAUDE_CODE_MAX_RETRIES",
            self.config.max_retries.to_string(),
        );
        env
    }

    /// Whether the CLI is logged in, as `claude auth status` says with the
    /// environment a run gets: `None` when it cannot tell (an older CLI
    /// without the command, a timeout), so a CLI that may work is not refused.
    pub fn logged_in(&self) -> Option<bool> {
        let mut cmd = std::process::Command::new(&self.config.bin);
        cmd.args(["auth", "status", "--json"])
            .env_clear()
            .envs(self.child_env().iter());
        let limits = crit_os::process::Limits {
            stdout: 64 * 1024,
            stderr: 16 * 1024,
            timeout: Duration::from_secs(10),
        };
        let out = crit_os::process::run(&mut cmd, limits).ok()?;
        if out.timed_out {
            return None;
        }
        let status: Value = serde_json::from_slice(&out.stdout).ok()?;
        status.get("loggedIn").and_then(Value::as_bool)
    }

    /// [`Agent::run`], reporting progress (text, tool calls, retries) as it happens.
    pub async fn run_with_progress(
        &self,
        task: &AgentTask,
        cancel: CancellationToken,
        on_progress: &mut (dyn FnMut(AgentProgress) + Send),
    ) -> Result<AgentOutcome, LlmError> {
        let secrets = self.secrets();
        let secrets: Vec<&str> = secrets.iter().map(String::as_str).collect();
        process::run(self, task, cancel, on_progress)
            .await
            .map_err(|e| self.withheld(e.redacted(&secrets)))
    }

    /// A login error when crit withheld an API key on purpose
    /// ([`ClaudeAuth::Subscription`]) says so, and how to use the key: else
    /// "Not logged in" reads as if the key were wrong or ignored by mistake.
    fn withheld(&self, e: LlmError) -> LlmError {
        let keys: Vec<&str> = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"]
            .into_iter()
            .filter(|k| self.config.env.non_empty(k).is_some())
            .collect();
        match e {
            LlmError::Auth { status, message }
                if self.config.auth == ClaudeAuth::Subscription && !keys.is_empty() =>
            {
                LlmError::Auth {
                    status,
                    message: format!(
                        "{message}. crit withheld {} from claude on purpose: the claude-code \
                         provider runs on your Claude login (subscription mode), so a key is \
                         never billed unasked. Log in (run `claude`, then /login), or let claude \
                         use the key with CRIT_CLAUDE_AUTH=api-key, or review on the API \
                         directly with --provider anthropic",
                        keys.join(" and ")
                    ),
                }
            }
            other => other,
        }
    }

    fn secrets(&self) -> Vec<String> {
        [
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_AUTH_TOKEN",
            "CLAUDE_CODE_OAUTH_TOKEN",
        ]
        .iter()
        .filter_map(|k| self.config.env.non_empty(k).map(str::to_string))
        .collect()
    }
}

impl Agent for ClaudeCode {
    fn name(&self) -> &str {
        "claude-code"
    }

    fn capabilities(&self) -> Capabilities {
        CAPABILITIES
    }

    fn run<'a>(
        &'a self,
        task: &'a AgentTask,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<AgentOutcome, LlmError>> {
        Box::pin(async move { self.run_with_progress(task, cancel, &mut |_| {}).await })
    }
}

const CAPABILITIES: Capabilities = Capabilities {
    native_structured_output: true,
    parallel_tools: true,
    runs_own_loop: true,
    client_tools: false,
};

/// Used as a [`Model`], Claude Code answers one prompt with no tools: the system
/// blocks become `--system-prompt`, the conversation becomes the stdin prompt.
impl Model for ClaudeCode {
    fn name(&self) -> &str {
        "claude-code"
    }

    fn capabilities(&self) -> Capabilities {
        CAPABILITIES
    }

    fn stream<'a>(
        &'a self,
        req: &'a ModelRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<EventStream, LlmError>> {
        Box::pin(async move {
            let task = task_for(req);
            let out = Agent::run(self, &task, cancel).await?;
            Ok(stream_of(events_for(out)))
        })
    }
}

fn task_for(req: &ModelRequest) -> AgentTask {
    let system: Vec<&str> = req.system.iter().map(|s| s.text.as_str()).collect();
    let only_user = req.messages.len() == 1 && req.messages[0].role == Role::User;
    let mut prompt = String::new();
    for m in &req.messages {
        let text: String = m
            .content
            .iter()
            .filter_map(|b| match b {
                Block::Text { text, .. } => Some(text.as_str()),
                Block::ToolResult { content, .. } => Some(content.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n\n");
        if only_user {
            prompt = text;
        } else {
            let who = if m.role == Role::User {
                "User"
            } else {
                "Assistant"
            };
            prompt.push_str(&format!("{who}: {text}\n\n"));
        }
    }
    AgentTask {
        prompt,
        system_prompt: (!system.is_empty()).then(|| system.join("\n\n")),
        model: (!req.model.is_empty()).then(|| req.model.clone()),
        tools: Some(Vec::new()),
        max_turns: Some(if req.output_schema.is_some() { 2 } else { 1 }),
        json_schema: req.output_schema.as_ref().map(|s| s.schema.clone()),
        ..AgentTask::default()
    }
}

fn events_for(out: AgentOutcome) -> Vec<ModelEvent> {
    let text = match &out.structured_output {
        Some(v) => v.to_string(),
        None => out.text.clone(),
    };
    let stop = match &out.incomplete {
        Some(reason) => StopReason::Other(reason.to_string()),
        None => StopReason::EndTurn,
    };
    vec![
        ModelEvent::MessageStart {
            id: out.session_id.clone(),
            model: out.model.clone().unwrap_or_default(),
        },
        ModelEvent::TextDelta { text },
        ModelEvent::Usage { usage: out.usage },
        ModelEvent::Stop { reason: stop },
        ModelEvent::MessageEnd { cost: out.cost },
    ]
}
