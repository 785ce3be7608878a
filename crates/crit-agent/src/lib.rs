//! crit's in-process agent: the loop that drives a model through turns and tool
//! calls under enforced limits ([`run`]), the structured-output tool
//! ([`structured`]), sub-agents launched with `Task` ([`subagent`]), tools of MCP
//! servers ([`mcp`]), Claude-Code-style hooks ([`hooks`]), transcripts
//! ([`transcript`]), and the reviewer tools it hands
//! to a model: `Read`, `Glob`, `Grep` and a restricted `Bash`. They are read-only and
//! confined to the project root plus `--add-dir` roots: every file path
//! goes through [`confine`], Bash runs no shell and only allow-listed read-only
//! programs. A tool never fails the run: bad input, refusals and I/O problems come
//! back as a [`ToolOutput`] with `is_error` set, worded for the model.

// A library never writes to the terminal: what it has to say goes to its caller.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![warn(unreachable_pub)]

pub mod confine;
pub mod context;
pub mod framing;
/// What makes git inert in an untrusted repository (crit-os, shared with crit's own git).
pub use crit_os::git::hardening as git_hardening;
/// Where the repository is, found without git (crit-os).
pub use crit_os::git::layout as git_layout;
pub mod hooks;
mod input;
pub mod mcp;
pub mod process;
pub mod redaction;
pub mod registry;
pub mod run;
pub mod sandbox;
pub mod structured;
pub mod subagent;
pub mod tool;
pub mod tools;
pub mod transcript;
mod truncate;

pub use confine::{ConfineError, Roots};
pub use context::{Limits, ToolContext};
pub use hooks::{Hook, HookEvent, HookInput, HookResponse, Hooks, HooksConfig, MAX_STOP_BLOCKS};
pub use mcp::{McpError, McpServer, McpServerConfig, McpTimeouts};
pub use registry::{RegistryError, ToolRegistry, is_offered_tool};
pub use run::{
    AgentSpec, LimitHit, RejectedAnswer, RunLimits, RunOutcome, RunStatus, SpendMeter, TextAnswer,
    TurnLimits, run_agent,
};
pub use structured::{SchemaMismatch, StructuredOutput};
pub use subagent::{SubAgentDef, SubAgentOutcome};
pub use tool::{Tool, ToolFuture, ToolOutput};
pub use tools::{BashTool, GlobTool, GrepTool, ReadTool, TodoWriteTool};
