//! Running the tool calls of one turn. Read-only calls run concurrently; the
//! results go back in call order. A tool that is not offered gets an error
//! result, never a crash.

use std::time::Instant;

use futures_util::future::join_all;
use serde_json::Value;

use crate::context::ToolContext;
use crate::registry::ToolRegistry;
use crate::tool::ToolOutput;

/// One call the model made.
#[derive(Debug, Clone)]
pub(super) struct Call {
    pub id: String,
    pub name: String,
    pub input: Value,
}

/// A call's result and how long it took.
pub(super) struct Done {
    pub output: ToolOutput,
    pub duration_ms: u64,
}

pub(super) async fn execute(calls: &[Call], tools: &ToolRegistry, cx: &ToolContext) -> Vec<Done> {
    let all_read_only = calls
        .iter()
        .all(|c| tools.get(&c.name).is_none_or(|t| !t.is_mutating()));
    if all_read_only {
        join_all(calls.iter().map(|c| one(c, tools, cx))).await
    } else {
        let mut out = Vec::with_capacity(calls.len());
        for c in calls {
            out.push(one(c, tools, cx).await);
        }
        out
    }
}

async fn one(call: &Call, tools: &ToolRegistry, cx: &ToolContext) -> Done {
    let start = Instant::now();
    let output = match tools.get(&call.name) {
        Some(tool) => tool.call(call.input.clone(), cx).await,
        None => {
            let available: Vec<&str> = tools.names().collect();
            ToolOutput::error(format!(
                "There is no tool named `{}`. Available tools: {}.",
                call.name,
                if available.is_empty() {
                    "none".to_string()
                } else {
                    available.join(", ")
                }
            ))
        }
    };
    Done {
        output,
        duration_ms: start.elapsed().as_millis() as u64,
    }
}
