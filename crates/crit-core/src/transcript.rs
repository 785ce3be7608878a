//! The items of a review agent's transcript, as data: crit's agent loop
//! (crit-agent) writes them, one JSON object per line; the project's scope
//! reads one back only to tell a transcript crit wrote from a file saved
//! under its name.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Usage;

/// One event of a run. Read back only to tell a transcript crit wrote from
/// a file saved under its name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TranscriptItem {
    /// The run began.
    Start {
        agent: String,
        model: String,
        system: String,
        prompt: String,
        tools: Vec<String>,
    },
    /// What the model said in one turn (text and thinking, tool calls listed).
    Assistant {
        agent: String,
        turn: u32,
        text: String,
        tool_calls: Vec<ToolCallRecord>,
    },
    /// A tool ran.
    ToolResult {
        agent: String,
        turn: u32,
        id: String,
        name: String,
        content: String,
        is_error: bool,
        duration_ms: u64,
    },
    /// Usage of one model call, and the run's total so far.
    Usage {
        agent: String,
        turn: u32,
        usage: Usage,
        total: Usage,
        cost_usd: f64,
        total_cost_usd: f64,
    },
    /// A hook answered something (a decision, context, or its own failure).
    Hook {
        agent: String,
        turn: u32,
        event: String,
        hook: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        tool_name: Option<String>,
        effect: String,
    },
    /// A limit ended the run.
    LimitHit {
        agent: String,
        limit: String,
        detail: String,
    },
    /// The run ended.
    End {
        agent: String,
        status: String,
        turns: u32,
        usage: Usage,
        cost_usd: f64,
        duration_ms: u64,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallRecord {
    pub id: String,
    pub name: String,
    pub input: Value,
}
