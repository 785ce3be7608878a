//! The set of tools one reviewer may use, built from names (a template's or an
//! agent file's `tools:` list).

use std::sync::Arc;

use serde_json::Value;

use crate::context::ToolContext;
use crate::tool::{Tool, ToolOutput};
use crate::tools::{BashTool, GlobTool, GrepTool, ReadTool};

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
    /// Every built-in reviewer tool: Read, Glob, Grep, Bash.
    pub fn builtin() -> Self {
        Self {
            tools: vec![
                Arc::new(ReadTool),
                Arc::new(GlobTool),
                Arc::new(GrepTool),
                Arc::new(BashTool),
            ],
        }
    }

    /// The built-in tools named in `names`, in that order (duplicates once).
    pub fn from_names<S: AsRef<str>>(names: &[S]) -> Result<Self, RegistryError> {
        Self::builtin().select(names)
    }

    /// The tools of this registry named in `names`, in that order (duplicates once).
    pub fn select<S: AsRef<str>>(&self, names: &[S]) -> Result<Self, RegistryError> {
        let mut out = Self::default();
        for name in names {
            let name = name.as_ref().trim();
            let tool = self.get(name).ok_or_else(|| RegistryError::UnknownTool {
                name: name.to_string(),
                known: self.names().map(str::to_string).collect(),
            })?;
            if out.get(name).is_none() {
                out.tools.push(tool);
            }
        }
        Ok(out)
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
