//! Talking to models for crit: one HTTP transport (SSE, retries, deadlines), the
//! Anthropic Messages and OpenAI-compatible backends, the Claude Code CLI backend,
//! record/replay, model aliases and prices, and backend selection with provenance.
//!
//! Two kinds of backend sit behind two small traits: a [`Model`] answers one
//! [`ModelRequest`] with a stream of [`ModelEvent`]s (the agent loop in
//! `crit-agent` drives it); an [`Agent`] (Claude Code) runs its own loop and tools.
//! Claude Code also implements [`Model`] for tool-less one-shot prompts.
//!
//! ```no_run
//! # async fn demo() -> Result<(), crit_llm::LlmError> {
//! use crit_llm::{BackendConfig, Env, ModelRequest, Selection};
//! use tokio_util::sync::CancellationToken;
//!
//! let env = Env::from_process();
//! let selection = Selection::resolve(&BackendConfig::default(), &env)?;
//! for row in selection.rows() {
//!     println!("{:<10} {:<30} ({})", row.key, row.value, row.source);
//! }
//! let backend = selection.build()?;
//! let req = ModelRequest::new(selection.request_model(), 1024)
//!     .system("You review code.")
//!     .user("Review this diff: …");
//! let resp = backend.model.complete(&req, CancellationToken::new()).await?;
//! println!("{} (${:.4})", resp.text(), resp.cost.usd);
//! # Ok(()) }
//! ```

// A library never writes to the terminal: what it has to say goes to its caller.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![warn(unreachable_pub)]

pub mod anthropic;
pub mod claude_code;
pub mod doctor;
/// The environment as data (from crit-os, where it lives).
pub use crit_os::env;
pub mod error;
#[doc(hidden)]
pub mod fuzzing;
pub mod model;
pub mod openai;
pub mod pricing;
/// The process groups of the children crit starts (from crit-os, where they live).
pub mod process_group {
    pub use crit_os::process::{GroupGuard, kill_all};
}
pub mod protocol;
pub mod ratelimit;
pub mod replay;
pub mod retry;
pub mod secret;
pub mod select;
pub mod sse;
pub mod transport;

pub use anthropic::{Anthropic, AnthropicAuth, AnthropicConfig};
pub use claude_code::{
    AgentIncomplete, AgentOutcome, AgentProgress, AgentTask, ClaudeAuth, ClaudeCode,
    ClaudeCodeConfig,
};
pub use doctor::{DoctorReport, doctor};
pub use env::Env;
pub use error::LlmError;
pub use model::{Agent, EventStream, Model, collect};
pub use openai::{OpenAi, OpenAiConfig};
pub use protocol::*;
pub use ratelimit::{Headroom, RateGauge};
pub use replay::{Recorder, Replay};
pub use retry::RetryPolicy;
pub use secret::Secret;
pub use select::{Backend, BackendConfig, Provider, Selection, SelectionRow, Source, Sourced};
pub use transport::{HttpTransport, ResponseLimits, Timeouts};
