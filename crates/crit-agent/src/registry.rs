//! The set of tools one reviewer may use, built from names (a template's or an
//! agent file's `tools:` list).

use std::sync::Arc;

use serde_json::Value;

use crate::context::ToolContext;
use crate::tool::{Tool, ToolOutput};
use crate::tools::{BashTool, GlobTool, GrepTool, ReadTool, TodoWriteTool};

pub use crit_core::agent::{MCP_PREFIX, is_legacy_mcp, is_offered_tool};

/// A tool name that does not exist.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    #[error("unknown tool `{name}`; known tools: {}", known.join(", "))]
    UnknownTool { name: String, known: Vec<String> },
}

/// An ordered set of tools, looked up by name.
#[derive(Clone, Default)]
pub struct ToolRegistry {
    tools: Vec<Arc<dyn Tool>>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

impl ToolRegistry {
    /// Every built-in reviewer tool: Read, Glob, Grep, Bash, TodoWrite.
    pub fn builtin() -> Self {
        Self {
            tools: vec![
                Arc::new(ReadTool),
                Arc::new(GlobTool),
                Arc::new(GrepTool),
                Arc::new(BashTool),
                Arc::new(TodoWriteTool),
            ],
        }
    }

    /// The built-in tools named in `names`, in that order (duplicates once).
    pub fn from_names<S: AsRef<str>>(names: &[S]) -> Result<Self, RegistryError> {
        Self::builtin().select(names)
    }

    /// The tools of this registry named in `names`, in that order (duplicates
    /// once). MCP tools are named as Claude Code names them: `mcp__server__tool`
    /// one tool, `mcp__server` (or `mcp__server__*`) all of a server's tools;
    /// crit's older `server__tool` still works. An MCP name that matches no
    /// tool (its server did not start, which was said then) is skipped.
    pub fn select<S: AsRef<str>>(&self, names: &[S]) -> Result<Self, RegistryError> {
        let mut out = Self::default();
        for name in names {
            let name = name.as_ref().trim();
            let found: Vec<Arc<dyn Tool>> = match self.get(name) {
                Some(tool) => vec![tool],
                None => self.mcp_matches(name),
            };
            if found.is_empty() {
                if name.starts_with(MCP_PREFIX) || is_legacy_mcp(name) {
                    tracing::warn!("tool `{name}`: no such MCP tool is available; skipped");
                    continue;
                }
                return Err(RegistryError::UnknownTool {
                    name: name.to_string(),
                    known: self.names().map(str::to_string).collect(),
                });
            }
            for tool in found {
                if out.get(tool.name()).is_none() {
                    out.tools.push(tool);
                }
            }
        }
        Ok(out)
    }

    /// The MCP tools `name` stands for: a whole server, or a tool in the old
    /// `server__tool` spelling.
    fn mcp_matches(&self, name: &str) -> Vec<Arc<dyn Tool>> {
        let server = name
            .strip_prefix(MCP_PREFIX)
            .map(|rest| rest.strip_suffix("__*").unwrap_or(rest))
            .filter(|rest| !rest.contains("__"));
        if let Some(server) = server {
            let prefix = format!("{MCP_PREFIX}{server}__");
            return self
                .tools
                .iter()
                .filter(|t| t.name().starts_with(&prefix))
                .cloned()
                .collect();
        }
        if is_legacy_mcp(name) {
            return self
                .get(&format!("{MCP_PREFIX}{name}"))
                .into_iter()
                .collect();
        }
        Vec::new()
    }

    /// Removes the tool named `name`, if any.
    pub fn remove(&mut self, name: &str) {
        self.tools.retain(|t| t.name() != name);
    }

    /// Adds a tool (e.g. an MCP or structured-output tool); replaces one of the same name.
    pub fn insert(&mut self, tool: Arc<dyn Tool>) {
        self.tools.retain(|t| t.name() != tool.name());
        self.tools.push(tool);
    }

    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.tools.iter().find(|t| t.name() == name).cloned()
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.iter().map(|t| t.name())
    }

    pub fn tools(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.tools.iter()
    }

    pub fn len(&self) -> usize {
        self.tools.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Runs the named tool; a name the model made up becomes an error output
    /// listing the tools it has.
    pub async fn call(&self, name: &str, input: Value, cx: &ToolContext) -> ToolOutput {
        match self.get(name) {
            Some(tool) => tool.call(input, cx).await,
            None => ToolOutput::error(format!(
                "no tool named `{name}` is available; available tools: {}",
                self.names().collect::<Vec<_>>().join(", ")
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names a configuration may offer (crit-core's list, which the
    /// project reads) are exactly the built-in tools this loop has.
    #[test]
    fn the_offered_built_ins_are_the_registrys() {
        let registry = ToolRegistry::builtin();
        let names: Vec<&str> = registry.names().collect();
        assert_eq!(names, crit_core::agent::BUILTIN_TOOLS);
        for name in names {
            assert!(is_offered_tool(name), "{name}");
        }
        assert!(!is_offered_tool("Write"));
    }
}
