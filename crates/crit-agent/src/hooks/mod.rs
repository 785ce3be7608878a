//! Hooks: code that runs at fixed points of a run and may change what happens,
//! with Claude Code's events, inputs and decisions.
//!
//! - `PreToolUse`: before a tool runs. Allow, deny with a reason (the tool does
//!   not run; the model reads the reason), or rewrite the input (`updatedInput`).
//!   An allow does not lift crit's own confinement: the tools still check paths.
//! - `PostToolUse`: after a tool ran. Observe, or add context: appended to the
//!   tool result as a `<system-reminder>`, as the CLI does.
//! - `Stop` / `SubagentStop`: when the main agent / a sub-agent would end. A block
//!   re-prompts the model with `Stop hook feedback: R`, at most
//!   [`MAX_STOP_BLOCKS`] times; the next input says `stop_hook_active: true`.
//!
//! Any hook may end the run (`continue: false`). Library users implement
//! [`Hook`]; configured command hooks come from [`HooksConfig`].

mod command;
mod config;

use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;

use futures_util::future::join_all;
use serde::Serialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use command::CommandHook;
pub use config::{HookConfigError, HookHandler, HookMatcher, HooksConfig, ToolMatcher};

/// How many times Stop (or SubagentStop) hooks may send the model back to work
/// in one run; after that a block is ignored. The CLI was seen to stop after 8.
pub const MAX_STOP_BLOCKS: u32 = 8;

/// The events crit runs hooks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum HookEvent {
    PreToolUse,
    PostToolUse,
    Stop,
    SubagentStop,
}

impl HookEvent {
    pub fn as_str(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::Stop => "Stop",
            HookEvent::SubagentStop => "SubagentStop",
        }
    }

    /// Tool events filter on the tool name.
    pub fn is_tool_event(self) -> bool {
        matches!(self, HookEvent::PreToolUse | HookEvent::PostToolUse)
    }
}

impl std::fmt::Display for HookEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a hook is told: the JSON a command hook reads on stdin, with Claude
/// Code's field names. Fields that do not apply to the event are left out.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HookInput {
    pub session_id: String,
    pub transcript_path: String,
    pub cwd: String,
    pub hook_event_name: HookEvent,
    /// Set inside a sub-agent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// The sub-agent's name (`subagent_type`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_input: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// PostToolUse: the text the model is given (a JSON string).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_response: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_hook_active: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_assistant_message: Option<String>,
}

/// A PreToolUse permission decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Permission {
    Allow,
    /// `deny`, or `ask` (there is nobody to ask in a review run), with the reason.
    Deny(String),
}

/// What a hook decided. The default changes nothing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookResponse {
    /// PreToolUse: allow or deny the call.
    pub permission: Option<Permission>,
    /// `decision: "block"` (or exit code 2) with its reason. PreToolUse: a
    /// denial; PostToolUse: feedback after the result; Stop: a re-prompt.
    pub block: Option<String>,
    /// PreToolUse: the input the tool runs with instead.
    pub updated_input: Option<Value>,
    /// Text for the model (appended to the tool result, or a reminder at Stop).
    pub additional_context: Option<String>,
    /// `continue: false`: end the run, with the hook's `stopReason`.
    pub stop_run: Option<String>,
    /// The hook itself failed (crashed, timed out, bad output): logged, and the
    /// action proceeds as if the hook had said nothing.
    pub error: Option<String>,
}

impl HookResponse {
    pub fn allow() -> Self {
        Self {
            permission: Some(Permission::Allow),
            ..Self::default()
        }
    }

    pub fn deny(reason: impl Into<String>) -> Self {
        Self {
            permission: Some(Permission::Deny(reason.into())),
            ..Self::default()
        }
    }

    pub fn block(reason: impl Into<String>) -> Self {
        Self {
            block: Some(reason.into()),
            ..Self::default()
        }
    }

    pub fn context(text: impl Into<String>) -> Self {
        Self {
            additional_context: Some(text.into()),
            ..Self::default()
        }
    }

    /// Says nothing at all (worth no transcript line).
    pub fn is_noop(&self) -> bool {
        self == &Self::default()
    }
}

/// A boxed future so [`Hook`] stays object-safe.
pub type HookFuture<'a> = Pin<Box<dyn std::future::Future<Output = HookResponse> + Send + 'a>>;

/// A hook. Object-safe; held as `Arc<dyn Hook>`.
pub trait Hook: Send + Sync {
    /// A label for transcripts and feedback (a command hook's command line).
    fn name(&self) -> &str;

    /// Whether it runs at `event`; `tool_name` is set for tool events.
    fn matches(&self, event: HookEvent, tool_name: Option<&str>) -> bool;

    /// Runs the hook. Failures are reported in [`HookResponse::error`], never panics.
    fn run<'a>(&'a self, input: &'a HookInput, cancel: &'a CancellationToken) -> HookFuture<'a>;
}

/// The hooks of a run, and the session facts their inputs carry.
#[derive(Clone, Default)]
pub struct Hooks {
    hooks: Vec<Arc<dyn Hook>>,
    /// `session_id` in hook inputs.
    pub session_id: String,
    /// `transcript_path` in hook inputs (empty when the run keeps none).
    pub transcript_path: Option<PathBuf>,
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks")
            .field(
                "hooks",
                &self.hooks.iter().map(|h| h.name()).collect::<Vec<_>>(),
            )
            .field("session_id", &self.session_id)
            .field("transcript_path", &self.transcript_path)
            .finish()
    }
}

/// One hook's answer, with its label.
#[derive(Debug, Clone, PartialEq)]
pub struct HookAnswer {
    pub hook: String,
    pub response: HookResponse,
}

/// A hook event about to fire, before the session facts are filled in.
#[derive(Debug, Clone, Default)]
pub(crate) struct EventData {
    pub tool_name: Option<String>,
    pub tool_input: Option<Value>,
    pub tool_use_id: Option<String>,
    pub tool_response: Option<Value>,
    pub duration_ms: Option<u64>,
    pub stop_hook_active: Option<bool>,
    pub last_assistant_message: Option<String>,
}

/// Who is running: the main agent, or a sub-agent (`agent_id`, `agent_type`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Who {
    pub agent_id: Option<String>,
    pub agent_type: Option<String>,
}

impl Hooks {
    pub fn new(hooks: Vec<Arc<dyn Hook>>) -> Self {
        Self {
            hooks,
            ..Self::default()
        }
    }

    pub fn with_session(
        mut self,
        session_id: impl Into<String>,
        transcript_path: Option<PathBuf>,
    ) -> Self {
        self.session_id = session_id.into();
        self.transcript_path = transcript_path;
        self
    }

    pub fn push(&mut self, hook: Arc<dyn Hook>) {
        self.hooks.push(hook);
    }

    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }

    pub fn len(&self) -> usize {
        self.hooks.len()
    }

    /// Runs every hook matching `event` concurrently (as the CLI does); answers
    /// in configuration order. Nothing matches: nothing runs, no input is built.
    pub(crate) async fn fire(
        &self,
        event: HookEvent,
        who: &Who,
        cwd: &std::path::Path,
        data: EventData,
        cancel: &CancellationToken,
    ) -> Vec<HookAnswer> {
        let tool = data.tool_name.as_deref().filter(|_| event.is_tool_event());
        let matching: Vec<&Arc<dyn Hook>> = self
            .hooks
            .iter()
            .filter(|h| h.matches(event, tool))
            .collect();
        if matching.is_empty() {
            return Vec::new();
        }
        let input = HookInput {
            session_id: self.session_id.clone(),
            transcript_path: self
                .transcript_path
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
            cwd: cwd.display().to_string(),
            hook_event_name: event,
            agent_id: who.agent_id.clone(),
            agent_type: who.agent_type.clone(),
            tool_name: data.tool_name,
            tool_input: data.tool_input,
            tool_use_id: data.tool_use_id,
            tool_response: data.tool_response,
            duration_ms: data.duration_ms,
            stop_hook_active: data.stop_hook_active,
            last_assistant_message: data.last_assistant_message,
        };
        let runs = matching.iter().map(|h| h.run(&input, cancel));
        join_all(runs)
            .await
            .into_iter()
            .zip(matching)
            .map(|(response, h)| HookAnswer {
                hook: h.name().to_string(),
                response,
            })
            .collect()
    }
}
