//! Which MCP tools a run may call: a server's tools need `allowed_tools`
//! (`mcp__serena` or `mcp__serena__*` for all of them,
//! `mcp__serena__find_symbol` for one). Reldo's SDK offers the others to the
//! model and refuses each call, since a review runs with nobody to grant a
//! permission; with a Reldo config crit does the same, in the SDK's words,
//! and otherwise does not offer them. A started server none of whose tools
//! is allowed is a warning either way: its tools are unreachable, which a
//! config copied from Reldo's documentation does not show by itself.

use std::collections::BTreeSet;
use std::sync::Arc;

use crit_agent::hooks::HookFuture;
use crit_agent::{Hook, HookEvent, HookInput, HookResponse, McpServer, ToolRegistry};
use tokio_util::sync::CancellationToken;

/// What `allowed_tools` grants of the started servers' tools.
#[derive(Debug, Default)]
pub(super) struct McpAccess {
    /// Tools of started servers that `allowed_tools` does not grant.
    pub(super) not_granted: BTreeSet<String>,
    /// One per server whose tools are all unreachable.
    pub(super) warnings: Vec<String>,
    /// Refused in Reldo's words (the tools are offered).
    reldo: bool,
}

impl McpAccess {
    pub(super) fn of(servers: &[Arc<McpServer>], allowed: &[String], reldo: bool) -> McpAccess {
        let mut all = ToolRegistry::default();
        for s in servers {
            s.add_to(&mut all);
        }
        // MCP names only: `mcp__…`, or crit's older `server__tool`.
        let wanted: Vec<&str> = allowed
            .iter()
            .map(|t| t.trim())
            .filter(|t| t.contains("__"))
            .collect();
        let granted: BTreeSet<String> = all
            .select(&wanted)
            .map(|r| r.names().map(str::to_string).collect())
            .unwrap_or_default();
        let mut access = McpAccess {
            reldo,
            ..McpAccess::default()
        };
        for s in servers {
            let tools: Vec<String> = s.tools().iter().map(|t| t.name().to_string()).collect();
            if tools.is_empty() {
                continue;
            }
            let reachable = tools.iter().filter(|t| granted.contains(*t)).count();
            if reachable == 0 {
                let why = match reldo {
                    true => {
                        "the model is shown them, and every call is refused, as in Reldo: nobody is there to grant the permission allowed_tools does not give"
                    }
                    false => {
                        "so the review cannot use them (nobody is there to grant the permission allowed_tools does not give)"
                    }
                };
                access.warnings.push(format!(
                    "MCP server `{name}` started, but allowed_tools grants none of its {n} tool{s}: {why}; add \"mcp__{name}\" to allowed_tools to allow them all",
                    name = s.name(),
                    n = tools.len(),
                    s = if tools.len() == 1 { "" } else { "s" },
                ));
            }
            access
                .not_granted
                .extend(tools.into_iter().filter(|t| !granted.contains(t)));
        }
        access
    }

    /// The hook that refuses the tools not granted, if there are any.
    pub(super) fn hook(&self) -> Option<Arc<dyn Hook>> {
        (!self.not_granted.is_empty()).then(|| {
            Arc::new(NotGranted {
                tools: self.not_granted.clone(),
                reldo: self.reldo,
            }) as Arc<dyn Hook>
        })
    }
}

/// Refuses a call to an MCP tool `allowed_tools` does not grant, with the
/// fix in the reason the model (and the transcript) reads.
struct NotGranted {
    tools: BTreeSet<String>,
    reldo: bool,
}

impl Hook for NotGranted {
    fn name(&self) -> &str {
        "allowed_tools"
    }

    fn matches(&self, event: HookEvent, tool_name: Option<&str>) -> bool {
        event == HookEvent::PreToolUse && tool_name.is_some_and(|t| self.tools.contains(t))
    }

    fn run<'a>(&'a self, input: &'a HookInput, _cancel: &'a CancellationToken) -> HookFuture<'a> {
        let tool = input.tool_name.clone().unwrap_or_default();
        let reldo = self.reldo;
        Box::pin(async move {
            HookResponse::deny(match reldo {
                // The Claude Agent SDK's words, which Reldo's reviewers read.
                true => format!(
                    "Claude requested permissions to use {tool}, but you haven't granted it yet."
                ),
                false => format!(
                    "permission to use {tool} was not granted: the run's allowed_tools does not list it, so it cannot be called in this review"
                ),
            })
        })
    }
}
