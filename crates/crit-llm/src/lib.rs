//! Talking to models for crit: one HTTP transport (SSE, retries, deadlines), the
//! Anthropic Messages and OpenAI-compatible backends, the Claude Code CLI backend,
//! record/replay, model aliases and prices, and backend selection with provenance.

pub mod error;
pub mod model;
pub mod protocol;
pub mod retry;
pub mod sse;
pub mod transport;

pub use error::LlmError;
pub use model::{EventStream, Model, collect};
pub use protocol::*;
pub use retry::RetryPolicy;
pub use transport::{HttpTransport, Timeouts};
pub mod anthropic;
pub mod pricing;
pub mod secret;

pub use anthropic::{Anthropic, AnthropicAuth, AnthropicConfig};
pub use secret::Secret;
pub mod openai;

pub use openai::{OpenAi, OpenAiConfig};
pub mod claude_code;
pub mod env;

pub use claude_code::{
    AgentOutcome, AgentProgress, AgentTask, ClaudeAuth, ClaudeCode, ClaudeCodeConfig,
};
pub use env::Env;
pub use model::Agent;
pub mod replay;

pub use replay::{Recorder, Replay};
pub mod doctor;
pub mod select;

pub use doctor::{DoctorReport, doctor};
pub use select::{Backend, BackendConfig, Provider, Selection, SelectionRow, Source, Sourced};
