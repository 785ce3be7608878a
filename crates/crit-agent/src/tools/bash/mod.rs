//! `Bash`, restricted: no shell. The command line is split with shlex, checked
//! against an allow-list of read-only programs and arguments ([`policy`],
//! [`git`] and [`git_options`] for git, [`git_enclosed`] when the repository is larger than the
//! project), then run directly with a cleared environment, a timeout that kills
//! the whole process group, capped output, and under the kernel sandbox of the
//! [`session`] ([`exec`]).

mod exec;
pub(crate) mod git;
mod git_enclosed;
mod git_options;
mod git_refusal;
pub(crate) mod policy;
pub(crate) mod session;
mod spec;

use std::time::Duration;

use serde_json::{Value, json};

use crate::context::ToolContext;
use crate::input::Input;
use crate::tool::{Tool, ToolFuture, ToolOutput};

#[derive(Debug, Clone, Copy, Default)]
pub struct BashTool;

impl Tool for BashTool {
    fn name(&self) -> &str {
        "Bash"
    }

    fn description(&self) -> &str {
        include_str!("../../../prompts/tools/bash.md")
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "One read-only command, e.g. \"git diff HEAD~1 -- src/lib.rs\""},
                "timeout": {"type": "integer", "minimum": 1, "description": "Timeout in milliseconds (default 120000, max 600000)"},
                "description": {"type": "string", "description": "A few words on what the command is for"}
            },
            "required": ["command"],
            "additionalProperties": false
        })
    }

    fn call<'a>(&'a self, input: Value, cx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let parsed = Input::parse(input, &["command", "timeout", "description"])
                .and_then(|i| Ok((i.req_str("command")?, i.opt_u64("timeout", 1)?)));
            let (command, timeout_ms) = match parsed {
                Ok(p) => p,
                Err(e) => return ToolOutput::error(e.to_string()),
            };
            let checked =
                match policy::check_command_with(&command, &cx.roots, &cx.project_commands) {
                    Ok(c) => c,
                    Err(e) => return ToolOutput::error(e.to_string()),
                };
            // A slice of a file's secret would get past redaction.
            if let Some(why) =
                crate::redaction::commands::refusal(&checked, &cx.roots, &cx.redaction).await
            {
                return ToolOutput::error(why);
            }
            let timeout = timeout_ms
                .map(Duration::from_millis)
                .unwrap_or(cx.limits.bash_timeout)
                .min(cx.limits.bash_max_timeout);
            exec::run(&checked, cx, timeout).await
        })
    }
}
