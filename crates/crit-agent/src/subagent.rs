//! Sub-agents: named agents the main agent launches through the `Task` tool,
//! each with its own system prompt, tools and model. Several Task calls of one
//! turn run concurrently. Depth is 1: a sub-agent is never offered Task.
//!
//! Definitions are data ([`SubAgentDef`]); reading them from `.claude/agents/*.md`
//! is the caller's business. A run's [`crate::RunOutcome`] lists what each
//! sub-agent did ([`SubAgentOutcome`]) and counts its usage and cost in the totals.

use std::time::Duration;

use crit_core::Usage;
use crit_llm::ToolSpec;
use serde_json::{Value, json};

use crate::registry::{RegistryError, ToolRegistry};
use crate::run::RunStatus;

/// The tool's name.
pub use crit_core::agent::TASK_TOOL;

pub use crit_core::agent::SubAgentDef;

/// The tools sub-agent `def` gets from its parent's `registry`.
pub fn registry_for(
    def: &SubAgentDef,
    parent: &ToolRegistry,
) -> Result<ToolRegistry, RegistryError> {
    let mut tools = if def.tools.is_empty() {
        parent.clone()
    } else {
        let names: Vec<&str> = def
            .tools
            .iter()
            .map(|t| t.trim())
            .filter(|t| *t != TASK_TOOL)
            .collect();
        parent.select(&names)?
    };
    tools.remove(TASK_TOOL);
    Ok(tools)
}

/// What one sub-agent run did.
#[derive(Debug, Clone, PartialEq)]
pub struct SubAgentOutcome {
    pub name: String,
    /// The id hooks saw as `agent_id`.
    pub agent_id: String,
    /// The Task call that launched it.
    pub tool_use_id: String,
    pub status: RunStatus,
    pub usage: Usage,
    pub cost_usd: f64,
    /// Its model, when that has no known price.
    pub unpriced_model: Option<String>,
    pub turns: u32,
    pub duration: Duration,
    /// Its final answer (every turn's text when a limit cut it short): what
    /// its parent read, and what its own verdict is read from.
    pub answer: String,
}

/// The Task tool's description: the prompt plus one line per sub-agent,
/// `- name: description (Tools: Read, Grep)` as in Claude Code.
pub fn task_description(defs: &[SubAgentDef], parent_tools: &ToolRegistry) -> String {
    let agents: Vec<String> = defs
        .iter()
        .map(|d| {
            let tools = match registry_for(d, parent_tools) {
                Ok(r) if r.is_empty() => "none".to_string(),
                Ok(r) => r.names().collect::<Vec<_>>().join(", "),
                Err(_) => d.tools.join(", "),
            };
            format!("- {}: {} (Tools: {tools})", d.name, d.description.trim())
        })
        .collect();
    include_str!("../prompts/tools/task.md").replace("{agents}", &agents.join("\n"))
}

/// The Task tool as the model is offered it.
pub fn task_tool_spec(defs: &[SubAgentDef], parent_tools: &ToolRegistry) -> ToolSpec {
    let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
    ToolSpec {
        name: TASK_TOOL.to_string(),
        description: task_description(defs, parent_tools),
        input_schema: task_input_schema(&names),
        strict: false,
    }
}

fn task_input_schema(names: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": {
            "description": {"type": "string", "description": "A short (3-5 word) description of the task"},
            "prompt": {"type": "string", "description": "The task for the agent to perform"},
            "subagent_type": {"type": "string", "enum": names, "description": "The type of specialized agent to use for this task"}
        },
        "required": ["description", "prompt", "subagent_type"],
        "additionalProperties": false
    })
}
