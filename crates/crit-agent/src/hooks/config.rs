//! Hook configuration in Claude Code's shape, e.g.
//! `{"PreToolUse":[{"matcher":"Read|Grep","hooks":[{"type":"command","command":"…","timeout":30}]}]}`
//! (the value of `hooks` in a Claude Code settings file).
//!
//! Events and handler types crit does not run (`UserPromptSubmit`, `http`, …)
//! are kept, so a Claude Code file loads, and listed by [`HooksConfig::ignored`].

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::command::{CommandHook, DEFAULT_TIMEOUT};
use super::{Hook, HookEvent, Hooks};

/// The `hooks` object of a settings file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HooksConfig {
    #[serde(rename = "PreToolUse", default, skip_serializing_if = "Vec::is_empty")]
    pub pre_tool_use: Vec<HookMatcher>,
    #[serde(rename = "PostToolUse", default, skip_serializing_if = "Vec::is_empty")]
    pub post_tool_use: Vec<HookMatcher>,
    #[serde(rename = "Stop", default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<HookMatcher>,
    #[serde(
        rename = "SubagentStop",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    pub subagent_stop: Vec<HookMatcher>,
    /// Other events, kept verbatim and not run.
    #[serde(flatten)]
    pub other: BTreeMap<String, Value>,
}

/// One `{"matcher": …, "hooks": […]}` entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HookMatcher {
    /// A regex on the tool name, matched in full; empty or `*` matches all.
    /// Only tool events use it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub matcher: String,
    pub hooks: Vec<HookHandler>,
}

/// One handler. Only `command` runs; other types are kept and ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HookHandler {
    Command {
        command: String,
        /// Exec form: run `command` with these arguments, no shell.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        args: Option<Vec<String>>,
        /// Seconds (default 60).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout: Option<f64>,
    },
    /// `prompt`, `agent`, `http`, `mcp_tool`, …
    #[serde(other)]
    Unsupported,
}

/// A configuration that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HookConfigError {
    #[error("hooks.{event}[{index}].matcher `{matcher}` is not a valid regex: {message}")]
    BadMatcher {
        event: &'static str,
        index: usize,
        matcher: String,
        message: String,
    },
    #[error("hooks.{event}[{index}]: timeout must be a positive number of seconds, not {timeout}")]
    BadTimeout {
        event: &'static str,
        index: usize,
        timeout: String,
    },
    #[error("hooks.{event}[{index}]: empty command")]
    EmptyCommand { event: &'static str, index: usize },
}

/// Which tool names a hook applies to.
#[derive(Debug, Clone)]
pub enum ToolMatcher {
    All,
    Regex(regex::Regex),
}

impl ToolMatcher {
    /// `""` or `"*"` match everything; anything else is a regex matched against
    /// the whole tool name (`Read|Grep`, `github__.*`).
    pub fn parse(matcher: &str) -> Result<Self, regex::Error> {
        let m = matcher.trim();
        if m.is_empty() || m == "*" {
            return Ok(ToolMatcher::All);
        }
        regex::Regex::new(&format!("^(?:{m})$")).map(ToolMatcher::Regex)
    }

    pub fn matches(&self, tool_name: &str) -> bool {
        match self {
            ToolMatcher::All => true,
            ToolMatcher::Regex(r) => r.is_match(tool_name),
        }
    }
}

impl HooksConfig {
    fn events(&self) -> [(HookEvent, &Vec<HookMatcher>); 4] {
        [
            (HookEvent::PreToolUse, &self.pre_tool_use),
            (HookEvent::PostToolUse, &self.post_tool_use),
            (HookEvent::Stop, &self.stop),
            (HookEvent::SubagentStop, &self.subagent_stop),
        ]
    }

    /// The command hooks, bound to `project_dir` (their cwd and `CLAUDE_PROJECT_DIR`).
    pub fn command_hooks(&self, project_dir: &Path) -> Result<Vec<Arc<dyn Hook>>, HookConfigError> {
        let mut out: Vec<Arc<dyn Hook>> = Vec::new();
        for (event, groups) in self.events() {
            for (index, group) in groups.iter().enumerate() {
                let matcher = ToolMatcher::parse(&group.matcher).map_err(|e| {
                    HookConfigError::BadMatcher {
                        event: event.as_str(),
                        index,
                        matcher: group.matcher.clone(),
                        message: e.to_string(),
                    }
                })?;
                for handler in &group.hooks {
                    let HookHandler::Command {
                        command,
                        args,
                        timeout,
                    } = handler
                    else {
                        continue;
                    };
                    if command.trim().is_empty() {
                        return Err(HookConfigError::EmptyCommand {
                            event: event.as_str(),
                            index,
                        });
                    }
                    let timeout = match timeout {
                        None => DEFAULT_TIMEOUT,
                        Some(t) if t.is_finite() && *t > 0.0 => Duration::from_secs_f64(*t),
                        Some(t) => {
                            return Err(HookConfigError::BadTimeout {
                                event: event.as_str(),
                                index,
                                timeout: t.to_string(),
                            });
                        }
                    };
                    let mut hook = CommandHook::new(event, command.clone(), project_dir)
                        .with_matcher(matcher.clone())
                        .with_timeout(timeout);
                    if let Some(args) = args {
                        hook = hook.with_args(args.clone());
                    }
                    out.push(Arc::new(hook));
                }
            }
        }
        Ok(out)
    }

    /// [`Self::command_hooks`] as a [`Hooks`] set.
    pub fn to_hooks(&self, project_dir: &Path) -> Result<Hooks, HookConfigError> {
        Ok(Hooks::new(self.command_hooks(project_dir)?))
    }

    /// What is configured but not run, for a warning: other events and handler types.
    pub fn ignored(&self) -> Vec<String> {
        let mut out: Vec<String> = self.other.keys().map(|k| format!("event {k}")).collect();
        for (event, groups) in self.events() {
            let n = groups
                .iter()
                .flat_map(|g| &g.hooks)
                .filter(|h| matches!(h, HookHandler::Unsupported))
                .count();
            if n > 0 {
                out.push(format!("{n} non-command hook(s) at {event}"));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn deserializes_the_claude_code_shape() {
        let c: HooksConfig = serde_json::from_value(json!({
            "PreToolUse": [{"matcher": "Read|Grep", "hooks": [{"type": "command", "command": "check", "timeout": 30}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "stop-check"}, {"type": "http", "url": "http://x"}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "p"}]}]
        }))
        .unwrap();
        assert_eq!(c.pre_tool_use[0].matcher, "Read|Grep");
        assert_eq!(
            c.pre_tool_use[0].hooks[0],
            HookHandler::Command {
                command: "check".into(),
                args: None,
                timeout: Some(30.0)
            }
        );
        assert_eq!(c.stop[0].hooks[1], HookHandler::Unsupported);
        assert_eq!(
            c.ignored(),
            ["event UserPromptSubmit", "1 non-command hook(s) at Stop"]
        );
        let hooks = c.command_hooks(Path::new("/tmp")).unwrap();
        assert_eq!(hooks.len(), 2);
        assert!(hooks[0].matches(HookEvent::PreToolUse, Some("Grep")));
        assert!(!hooks[0].matches(HookEvent::PreToolUse, Some("Bash")));
        assert!(
            !hooks[0].matches(HookEvent::PreToolUse, Some("ReadX")),
            "matched in full"
        );
        assert!(!hooks[0].matches(HookEvent::PostToolUse, Some("Read")));
        assert!(hooks[1].matches(HookEvent::Stop, None));
    }

    #[test]
    fn bad_entries_are_named() {
        let c: HooksConfig = serde_json::from_value(json!({
            "PostToolUse": [{"matcher": "Read(", "hooks": []}]
        }))
        .unwrap();
        let e = c
            .command_hooks(Path::new("/tmp"))
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.starts_with("hooks.PostToolUse[0].matcher `Read(` is not a valid regex"),
            "{e}"
        );
        let c: HooksConfig = serde_json::from_value(json!({
            "Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 0}]}]
        }))
        .unwrap();
        assert!(c.command_hooks(Path::new("/tmp")).is_err());
        assert!(ToolMatcher::parse("*").unwrap().matches("anything"));
    }
}
