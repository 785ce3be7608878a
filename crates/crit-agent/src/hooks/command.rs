//! Command hooks: a user-configured command gets the event as JSON on stdin and
//! answers with its exit code and stdout.
//!
//! A `command` without `args` runs through `sh -c`, as in Claude Code. That is
//! fine here, unlike for the model's Bash: the command line comes from the
//! user's own configuration, never from a model or a reviewed file, so the
//! shell gives the user no power they do not already have. The event JSON goes
//! on stdin, never into the command line. With `args`, the command is run
//! directly (no shell). Either way it gets `CLAUDE_PROJECT_DIR`, runs in the
//! project root in its own process group, and is killed (with its children)
//! at its timeout; the run then goes on as if the hook had said nothing.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::config::ToolMatcher;
use super::{Hook, HookEvent, HookFuture, HookInput, HookResponse, Permission};
use crate::process::{self, Ended, Spawn};

/// Claude Code's default command-hook timeout.
pub(super) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// Bytes of a hook's stdout and stderr kept.
const OUTPUT_CAPS: (usize, usize) = (256 * 1024, 32 * 1024);

/// One configured command, bound to an event and a tool matcher.
#[derive(Debug, Clone)]
pub struct CommandHook {
    event: HookEvent,
    matcher: ToolMatcher,
    command: String,
    args: Option<Vec<String>>,
    timeout: Duration,
    project_dir: PathBuf,
}

impl CommandHook {
    /// A `sh -c command` hook for `event`, in `project_dir`.
    pub fn new(
        event: HookEvent,
        command: impl Into<String>,
        project_dir: impl Into<PathBuf>,
    ) -> Self {
        Self {
            event,
            matcher: ToolMatcher::All,
            command: command.into(),
            args: None,
            timeout: DEFAULT_TIMEOUT,
            project_dir: project_dir.into(),
        }
    }

    pub fn with_matcher(mut self, matcher: ToolMatcher) -> Self {
        self.matcher = matcher;
        self
    }

    /// Run `command` directly with these arguments instead of through `sh -c`.
    pub fn with_args(mut self, args: Vec<String>) -> Self {
        self.args = Some(args);
        self
    }

    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    async fn execute(&self, input: &HookInput, cancel: &CancellationToken) -> HookResponse {
        let stdin = serde_json::to_vec(input).unwrap_or_default();
        let (program, args) = match &self.args {
            Some(args) => (self.command.as_str(), args.clone()),
            None => ("sh", vec!["-c".to_string(), self.command.clone()]),
        };
        let env: Vec<(OsString, OsString)> = vec![(
            "CLAUDE_PROJECT_DIR".into(),
            self.project_dir.clone().into_os_string(),
        )];
        let spawned = process::spawn_capture(Spawn {
            program,
            args: &args,
            cwd: &self.project_dir,
            env,
            clear_env: false,
            stdin: Some(stdin),
            timeout: self.timeout,
            caps: OUTPUT_CAPS,
            cancel,
        })
        .await;
        let captured = match spawned {
            Ok(c) => c,
            Err(e) => return failed(format!("hook `{}` could not start: {e}", self.command)),
        };
        let stderr = captured.stderr.render();
        match captured.ended {
            Ended::Exited(status) => match status.code() {
                Some(0) => parse_stdout(&captured.stdout.render(), self.event),
                Some(2) => {
                    HookResponse::block(format!("[{}]: {}", self.command, stderr.trim_end()))
                }
                Some(code) => failed(format!(
                    "hook `{}` failed with exit code {code}: {}",
                    self.command,
                    stderr.trim_end()
                )),
                None => failed(format!("hook `{}` was killed by a signal", self.command)),
            },
            Ended::TimedOut => failed(format!(
                "hook `{}` timed out after {} s and was killed",
                self.command,
                self.timeout.as_secs_f64()
            )),
            Ended::Cancelled => failed(format!("hook `{}` was cancelled", self.command)),
        }
    }
}

fn failed(msg: String) -> HookResponse {
    tracing::warn!("{msg}");
    HookResponse {
        error: Some(msg),
        ..HookResponse::default()
    }
}

impl Hook for CommandHook {
    fn name(&self) -> &str {
        &self.command
    }

    fn matches(&self, event: HookEvent, tool_name: Option<&str>) -> bool {
        event == self.event
            && (!event.is_tool_event() || self.matcher.matches(tool_name.unwrap_or("")))
    }

    fn run<'a>(&'a self, input: &'a HookInput, cancel: &'a CancellationToken) -> HookFuture<'a> {
        Box::pin(self.execute(input, cancel))
    }
}

/// Exit 0: stdout is JSON with Claude Code's fields, or anything else (ignored:
/// plain text only means something for events crit does not run).
fn parse_stdout(stdout: &str, event: HookEvent) -> HookResponse {
    match serde_json::from_str::<Value>(stdout.trim()) {
        Ok(out) => HookResponse::from_json(&out, event),
        Err(_) => HookResponse::default(),
    }
}

impl HookResponse {
    /// A hook's answer in Claude Code's JSON shape (`decision`, `reason`,
    /// `continue`, `stopReason`, `hookSpecificOutput`), as a command hook
    /// prints it or an in-process hook returns it. Anything but an object
    /// says nothing.
    pub fn from_json(out: &Value, event: HookEvent) -> HookResponse {
        let Value::Object(out) = out else {
            return HookResponse::default();
        };
        let mut r = HookResponse::default();
        if out.get("continue") == Some(&Value::Bool(false)) {
            r.stop_run = Some(str_field(out, "stopReason").unwrap_or_default());
        }
        if out.get("decision").and_then(Value::as_str) == Some("block") {
            r.block = Some(str_field(out, "reason").unwrap_or_default());
        }
        if let Some(Value::Object(specific)) = out.get("hookSpecificOutput") {
            let reason = str_field(specific, "permissionDecisionReason").unwrap_or_default();
            if event == HookEvent::PreToolUse {
                r.permission = match specific.get("permissionDecision").and_then(Value::as_str) {
                    Some("allow") => Some(Permission::Allow),
                    Some("deny" | "ask") => Some(Permission::Deny(reason)),
                    _ => None,
                };
                r.updated_input = specific
                    .get("updatedInput")
                    .filter(|v| v.is_object())
                    .cloned();
            }
            r.additional_context = str_field(specific, "additionalContext");
        }
        r
    }
}

fn str_field(map: &serde_json::Map<String, Value>, key: &str) -> Option<String> {
    map.get(key).and_then(Value::as_str).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn stdout_json_maps_to_claude_code_semantics() {
        let pre = |v: Value| parse_stdout(&v.to_string(), HookEvent::PreToolUse);
        assert_eq!(
            pre(
                json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "R"}})
            ),
            HookResponse::deny("R")
        );
        assert_eq!(
            pre(
                json!({"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "why"}})
            ),
            HookResponse::deny("why")
        );
        let allow = pre(
            json!({"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"file_path": "b"}, "additionalContext": "C"}}),
        );
        assert_eq!(allow.permission, Some(Permission::Allow));
        assert_eq!(allow.updated_input, Some(json!({"file_path": "b"})));
        assert_eq!(allow.additional_context.as_deref(), Some("C"));
        let stop = parse_stdout(
            r#"{"decision":"block","reason":"more","continue":false,"stopReason":"S"}"#,
            HookEvent::Stop,
        );
        assert_eq!(stop.block.as_deref(), Some("more"));
        assert_eq!(stop.stop_run.as_deref(), Some("S"));
        assert!(parse_stdout("plain text", HookEvent::Stop).is_noop());
        assert!(parse_stdout("", HookEvent::PreToolUse).is_noop());
        // updatedInput only means something before a tool runs.
        let post = parse_stdout(
            r#"{"hookSpecificOutput":{"updatedInput":{"a":1},"additionalContext":"C"}}"#,
            HookEvent::PostToolUse,
        );
        assert_eq!(post, HookResponse::context("C"));
    }
}
