//! Reviewer definitions in `.claude/agents/*.md`, Claude Code's sub-agent files:
//! YAML frontmatter with `name` and `description` (required), `tools` (a
//! comma-separated string or a list; omitted means all of the parent's tools) and
//! `model` (`sonnet`, `opus`, `haiku`, `inherit` or a full id); the body is the
//! system prompt. Other frontmatter fields Claude Code knows (`color`,
//! `permissionMode`, `skills`, …) are ignored: crit's reviewers are read-only
//! whatever the file says. `hooks` and `mcpServers` would run programs; crit
//! never starts them from a reviewer definition, whoever wrote it, and says so.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::Spanned;

use crate::context::frontmatter::{self, Frontmatter, YamlError};

/// One reviewer definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentDef {
    pub name: String,
    pub description: String,
    /// Tool names as written (MCP tools included); empty means all of the parent's.
    pub tools: Vec<String>,
    /// `None` for `inherit` or no `model`.
    pub model: Option<String>,
    /// The body after the frontmatter: the reviewer's system prompt.
    pub prompt: String,
    pub path: PathBuf,
}

/// A definition that cannot be used, said so a person can fix it.
#[derive(Debug, thiserror::Error)]
pub enum AgentDefError {
    #[error("{}:{line}:{column}: {message}", path.display())]
    Invalid {
        path: PathBuf,
        line: u64,
        column: u64,
        message: String,
    },
    #[error(
        "{}:{}:{}: agent `{name}` is already defined at {}:{}:{}; agent names must be unique, so rename one of them",
        second.display(), second_at.0, second_at.1, first.display(), first_at.0, first_at.1
    )]
    Duplicate {
        name: String,
        first: PathBuf,
        first_at: (u64, u64),
        second: PathBuf,
        second_at: (u64, u64),
    },
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

#[derive(Debug, Deserialize)]
struct RawAgent {
    name: Option<Spanned<String>>,
    description: Option<Spanned<String>>,
    tools: Option<Spanned<Value>>,
    model: Option<Spanned<String>>,
    hooks: Option<Spanned<Value>>,
    #[serde(rename = "mcpServers")]
    mcp_servers: Option<Spanned<Value>>,
}

/// Every `*.md` in `dir`, sorted by agent name. A missing directory has none.
pub fn load_dir(dir: &Path) -> Result<Vec<AgentDef>, AgentDefError> {
    let io = |path: &Path, source| AgentDefError::Io {
        path: path.to_path_buf(),
        source,
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(dir, e)),
    };
    let mut paths = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| io(dir, e))?.path();
        if path.extension().is_some_and(|e| e == "md") && path.is_file() {
            paths.push(path);
        }
    }
    // File order decides which error is reported first; keep it stable.
    paths.sort();
    let mut defs = Vec::with_capacity(paths.len());
    for path in paths {
        let text = crit_core::files::read_to_string(&path).map_err(|e| io(&path, e))?;
        defs.push(parse_located(&text, &path)?);
    }
    defs.sort_by(|(a, _), (b, _)| a.name.cmp(&b.name).then_with(|| a.path.cmp(&b.path)));
    for pair in defs.windows(2) {
        let [(first, first_at), (second, second_at)] = pair else {
            continue;
        };
        if first.name == second.name {
            return Err(AgentDefError::Duplicate {
                name: second.name.clone(),
                first: first.path.clone(),
                first_at: *first_at,
                second: second.path.clone(),
                second_at: *second_at,
            });
        }
    }
    Ok(defs.into_iter().map(|(def, _)| def).collect())
}

/// Parse one definition; `path` names it in errors and in the result.
pub fn parse(text: &str, path: &Path) -> Result<AgentDef, AgentDefError> {
    parse_located(text, path).map(|(def, _)| def)
}

/// The definition and where its `name` is (for duplicate errors).
fn parse_located(text: &str, path: &Path) -> Result<(AgentDef, (u64, u64)), AgentDefError> {
    let err = |line: u64, column: u64, message: String| AgentDefError::Invalid {
        path: path.to_path_buf(),
        line,
        column,
        message,
    };
    let from_yaml = |e: YamlError| err(e.line, e.column, e.message);
    let fm = frontmatter::split(text).map_err(from_yaml)?.ok_or_else(|| {
        err(
            1,
            1,
            "no frontmatter: an agent file starts with a `---` line, then `name:` and `description:`, then `---` and the prompt".into(),
        )
    })?;
    let raw: RawAgent = fm.parse().map_err(from_yaml)?;
    let at = |s: &Spanned<String>| fm.at(&s.referenced);
    for (key, value) in [("hooks", &raw.hooks), ("mcpServers", &raw.mcp_servers)] {
        if let Some(v) = value {
            let (line, _) = fm.at(&v.referenced);
            tracing::warn!(
                "ignoring `{key}` in {}:{line}: crit never runs hooks or MCP servers from a reviewer definition",
                path.display()
            );
        }
    }

    let name = raw.name.ok_or_else(|| {
        err(
            1,
            1,
            "missing `name`: add e.g. `name: backend-reviewer` to the frontmatter".into(),
        )
    })?;
    let name_at = at(&name);
    let name_value = name.value.trim();
    if !is_agent_name(name_value) {
        return Err(err(
            name_at.0,
            name_at.1,
            format!(
                "invalid name `{}`: use lower-case letters, digits and hyphens, e.g. `{}`",
                name.value,
                suggest_name(&name.value)
            ),
        ));
    }
    let description = raw.description.ok_or_else(|| {
        err(
            1,
            1,
            "missing `description`: say when to use this agent, e.g. `description: Reviews PHP changes against the backend rules`".into(),
        )
    })?;
    if description.value.trim().is_empty() {
        let (line, column) = at(&description);
        return Err(err(
            line,
            column,
            "empty `description`: say when to use this agent".into(),
        ));
    }
    let tools = match &raw.tools {
        Some(tools) => parse_tools(&fm, tools).map_err(|(l, c, m)| err(l, c, m))?,
        None => Vec::new(),
    };
    let model = match raw.model {
        Some(m) if m.value.trim().is_empty() => {
            let (line, column) = at(&m);
            return Err(err(
                line,
                column,
                "empty `model`: use sonnet, opus, haiku, inherit or a model id, or leave `model` out".into(),
            ));
        }
        Some(m) if m.value.trim() == "inherit" => None,
        Some(m) => Some(m.value.trim().to_string()),
        None => None,
    };
    let prompt = fm.body.trim().to_string();
    if prompt.is_empty() {
        let line = 1 + text[..text.len() - fm.body.len()].matches('\n').count() as u64;
        return Err(err(
            line,
            1,
            "no prompt: write the agent's instructions after the closing `---`".into(),
        ));
    }
    let def = AgentDef {
        name: name_value.to_string(),
        description: description.value.trim().to_string(),
        tools,
        model,
        prompt,
        path: path.to_path_buf(),
    };
    Ok((def, name_at))
}

/// `tools: Read, Grep, Glob` or a YAML list. Unknown names are fine (MCP tools
/// have any name; the registry reports what it lacks); empty ones are not.
fn parse_tools(
    fm: &Frontmatter<'_>,
    tools: &Spanned<Value>,
) -> Result<Vec<String>, (u64, u64, String)> {
    let (line, column) = fm.at(&tools.referenced);
    let empty = |column: u64| {
        (
            line,
            column,
            "empty tool name in `tools`: remove the extra comma, or leave `tools` out to inherit all tools"
                .to_string(),
        )
    };
    let names: Vec<String> = match &tools.value {
        Value::String(s) => {
            // The items' columns, when the value is a plain scalar on its line.
            let quoted = line_at(fm, line)
                .and_then(|l| l.chars().nth(usize::try_from(column).unwrap_or(1) - 1))
                .is_some_and(|c| c == '"' || c == '\'');
            let base = column + u64::from(quoted);
            frontmatter::split_commas(s)
                .into_iter()
                .map(|(offset, item)| {
                    if item.is_empty() {
                        // At the comma that ends the empty item, or for a trailing
                        // comma, at that comma.
                        let at = if offset == s.len() {
                            s.rfind(',').unwrap_or(0)
                        } else {
                            offset
                        };
                        Err(empty(base + s[..at].chars().count() as u64))
                    } else {
                        Ok(item.to_string())
                    }
                })
                .collect::<Result<_, _>>()?
        }
        Value::Array(items) => items
            .iter()
            .map(|item| match item {
                Value::String(s) if !s.trim().is_empty() => Ok(s.trim().to_string()),
                Value::String(_) | Value::Null => Err(empty(column)),
                other => Err((
                    line,
                    column,
                    format!("expected a tool name, found `{other}`"),
                )),
            })
            .collect::<Result<_, _>>()?,
        other => {
            return Err((
                line,
                column,
                format!("expected tool names, e.g. `tools: Read, Grep, Glob`; found `{other}`"),
            ));
        }
    };
    if names.is_empty() {
        return Err((
            line,
            column,
            "`tools` lists no tools; leave `tools` out to inherit all tools".to_string(),
        ));
    }
    Ok(names)
}

/// The text of a file line inside the frontmatter.
fn line_at<'a>(fm: &Frontmatter<'a>, file_line: u64) -> Option<&'a str> {
    let index = file_line.checked_sub(fm.first_line)?;
    fm.yaml.lines().nth(usize::try_from(index).ok()?)
}

/// Claude Code's rule: lower-case letters and hyphens (digits are accepted too,
/// as in `k8s-reviewer`); not starting or ending with a hyphen.
fn is_agent_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('-')
        && !name.ends_with('-')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// `Backend Reviewer_2` → `backend-reviewer-2`.
fn suggest_name(name: &str) -> String {
    let mapped: String = name
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let parts: Vec<&str> = mapped.split('-').filter(|p| !p.is_empty()).collect();
    if parts.is_empty() {
        "code-reviewer".to_string()
    } else {
        parts.join("-")
    }
}

impl AgentDef {
    /// The sub-agent the agent loop launches through `Task`.
    pub fn into_sub_agent(self) -> crit_core::agent::SubAgentDef {
        crit_core::agent::SubAgentDef {
            name: self.name,
            description: self.description,
            system_prompt: self.prompt,
            tools: self.tools,
            model: self.model,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for ok in ["backend-reviewer", "k8s", "a"] {
            assert!(is_agent_name(ok), "{ok}");
        }
        for bad in ["", "Backend", "back_end", "-x", "x-", "rev iewer", "é"] {
            assert!(!is_agent_name(bad), "{bad}");
        }
        assert_eq!(suggest_name("Backend Reviewer_2"), "backend-reviewer-2");
        assert_eq!(suggest_name("__"), "code-reviewer");
    }
}
