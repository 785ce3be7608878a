//! The shapes of a `crit run` config as written: every key Reldo documents
//! (and the Claude Agent SDK options it passes through) loads; a key crit
//! does not use is kept aside and becomes a warning naming it, never an error.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

/// Top-level keys crit reads.
pub(super) const KEYS: [&str; 10] = [
    "prompt",
    "allowed_tools",
    "mcp_servers",
    "agents",
    "output_schema",
    "cwd",
    "timeout_seconds",
    "max_turns",
    "model",
    "logging",
];

/// Top-level keys of Reldo's or the SDK's that crit reads but does not act
/// on, with why.
pub(super) const UNUSED: [(&str, &str); 5] = [
    (
        "setting_sources",
        "crit always reads the project's CLAUDE.md, AGENTS.md and .claude/rules",
    ),
    (
        "permission_mode",
        "crit's reviewers are read-only whatever the mode",
    ),
    ("$schema", "an editor hint"),
    (
        "disallowed_tools",
        "crit's reviewers only get the tools named in allowed_tools",
    ),
    (
        "system_prompt",
        "crit sends `prompt` as the orchestrator's system prompt",
    ),
];

/// Tools of Claude Code that write or reach the network: never given to a
/// reviewer, whatever a config says.
pub(super) const WRITING_TOOLS: [&str; 7] = [
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
    "WebFetch",
    "WebSearch",
    "KillShell",
];

/// One entry of `agents`: the SDK's `AgentDefinition`.
#[derive(Debug, Deserialize)]
pub(super) struct RawAgent {
    /// Optional: an agent without one is offered with an empty description.
    #[serde(default)]
    pub description: String,
    pub prompt: String,
    #[serde(default)]
    pub tools: Option<Vec<String>>,
    #[serde(default)]
    pub model: Option<String>,
    /// Claude Code's `color`, and anything else: warned about, not used.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// One entry of `mcp_servers`, as Claude Code writes it: a stdio server
/// (`command`, `args`, `env`, `cwd`) or an HTTP one (`type: http` or `sse`,
/// `url`, `headers`).
#[derive(Debug, Deserialize)]
pub(super) struct RawMcp {
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// The `logging` block (Reldo's FR7).
#[derive(Debug, Default, Deserialize)]
pub(super) struct RawLogging {
    pub enabled: Option<bool>,
    pub output_dir: Option<String>,
    pub verbose: Option<bool>,
    /// Python's log level; crit's diagnostics follow `-v`/`-q` and `CRIT_LOG`.
    pub level: Option<Value>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// The warning for a key crit does not use.
pub(super) fn unused(file: &str, key: &str, why: Option<&str>) -> String {
    match why {
        Some(why) => format!("{file}: `{key}` is not used by crit ({why}); ignored"),
        None => format!("{file}: `{key}` is not a setting crit knows; ignored"),
    }
}
