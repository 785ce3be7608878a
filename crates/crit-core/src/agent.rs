//! What configures crit's review agents, as data: sub-agents a reviewer may
//! launch, MCP servers it may use, and which tool names a reviewer can be
//! offered. Read from configuration files by the project (crit-project) and
//! run by the agent loop (crit-agent).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The tool a main agent launches sub-agents with.
pub const TASK_TOOL: &str = "Task";

/// The prefix of MCP tool names, as in Claude Code.
pub const MCP_PREFIX: &str = "mcp__";

/// The agent loop's built-in tools (crit-agent's registry holds exactly
/// these; a test there keeps the two the same).
pub const BUILTIN_TOOLS: [&str; 5] = ["Read", "Glob", "Grep", "Bash", "TodoWrite"];

/// A sub-agent the main agent may launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubAgentDef {
    /// What the model passes as `subagent_type`.
    pub name: String,
    /// When to use it; shown to the main agent in the Task tool's description.
    pub description: String,
    pub system_prompt: String,
    /// Tool names from the main agent's registry; empty means all of them.
    /// `Task` is never given to a sub-agent.
    pub tools: Vec<String>,
    /// A model id or alias; `None` (or `inherit`) uses the main agent's model.
    pub model: Option<String>,
}

impl SubAgentDef {
    /// The model this sub-agent runs on.
    pub fn model_or<'a>(&'a self, parent: &'a str) -> &'a str {
        match self.model.as_deref().map(str::trim) {
            None | Some("" | "inherit") => parent,
            Some(m) => m,
        }
    }
}

/// One MCP server: a program to start (stdio), or an HTTP endpoint
/// (streamable HTTP, which servers configured as `sse` speak too).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpServerConfig {
    /// The server's name: its tools are `mcp__name__tool`.
    pub name: String,
    /// The program of a stdio server (empty for an HTTP one).
    #[serde(default)]
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    /// Added to crit's own environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Where the program runs (default: the run's working directory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<PathBuf>,
    /// The endpoint of an HTTP server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Headers sent with every request to an HTTP server.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
}

/// crit's older MCP spelling, `server__tool`.
pub fn is_legacy_mcp(name: &str) -> bool {
    !name.starts_with(MCP_PREFIX)
        && name
            .split_once("__")
            .is_some_and(|(s, t)| !s.is_empty() && !t.is_empty())
}

/// Whether a reviewer can be offered a tool of this name: a built-in tool,
/// `Task`, or an MCP tool or server (known only once servers start).
pub fn is_offered_tool(name: &str) -> bool {
    BUILTIN_TOOLS.contains(&name)
        || name == TASK_TOOL
        || name
            .strip_prefix(MCP_PREFIX)
            .is_some_and(|rest| !rest.is_empty())
        || is_legacy_mcp(name)
}
