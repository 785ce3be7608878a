//! The tool trait the agent loop drives, and what a tool returns.

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

use crate::context::ToolContext;

/// What a tool call returns to the model. A failure is still an output: the model
/// reads `content` and can correct itself; nothing here ends the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    pub content: String,
    pub is_error: bool,
}

impl ToolOutput {
    pub fn ok(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: false,
        }
    }

    pub fn error(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: true,
        }
    }
}

/// A boxed future so `Tool` stays object-safe without `async_trait`.
pub type ToolFuture<'a> = Pin<Box<dyn Future<Output = ToolOutput> + Send + 'a>>;

/// One tool a model may call. Object-safe: the registry holds `Arc<dyn Tool>`.
pub trait Tool: Send + Sync {
    /// The name the model calls it by (Claude Code's names: `Read`, `Glob`, ...;
    /// `server__tool` for MCP tools, hence not `'static`).
    fn name(&self) -> &str;

    /// The description the model reads; a prompt, kept in `prompts/tools/*.md`
    /// for the built-in tools, the server's text for MCP tools.
    fn description(&self) -> &str;

    /// JSON Schema of the input object (`additionalProperties: false`).
    fn input_schema(&self) -> Value;

    /// Whether the tool changes anything. The loop may run the non-mutating calls
    /// of one turn concurrently. All built-in reviewer tools are read-only; an MCP
    /// tool is read-only only when its server says so (`readOnlyHint`).
    fn is_mutating(&self) -> bool {
        false
    }

    /// Runs the tool. Never panics on any input; errors are `is_error` outputs.
    fn call<'a>(&'a self, input: Value, cx: &'a ToolContext) -> ToolFuture<'a>;
}
