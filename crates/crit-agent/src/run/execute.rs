//! Running the tool calls of one turn. Read-only calls (Task included) run
//! concurrently, a bounded number at a time; the results go back in call
//! order. A tool that is not offered, or a call whose input was not JSON, gets
//! an error result, never a crash. PreToolUse and PostToolUse hooks run around
//! each call.

use std::time::Instant;

use futures_util::StreamExt;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::task::{self, TaskCtx};
use crate::context::ToolContext;
use crate::hooks::{EventData, HookAnswer, HookEvent, HookResponse, Hooks, Permission, Who};
use crate::registry::ToolRegistry;
use crate::subagent::{SubAgentOutcome, TASK_TOOL};
use crate::tool::ToolOutput;
use crate::transcript::{SharedSink, TranscriptItem};

/// One call the model made.
#[derive(Debug, Clone)]
pub(super) struct Call {
    pub id: String,
    pub name: String,
    pub input: Value,
    /// Set when the model's input was not valid JSON (`input` is then `{}`).
    pub input_error: Option<String>,
}

/// A call's result and how long it took.
pub(super) struct Done {
    pub output: ToolOutput,
    pub duration_ms: u64,
    /// The sub-agent a Task call ran.
    pub sub: Option<SubAgentOutcome>,
    /// A hook asked to end the run (`continue: false`).
    pub stop_run: Option<String>,
}

/// What the calls of one turn run with.
pub(super) struct Exec<'a, 's> {
    pub tools: &'a ToolRegistry,
    pub cx: &'a ToolContext,
    pub hooks: &'a Hooks,
    pub who: &'a Who,
    pub agent: &'a str,
    pub turn: u32,
    pub sink: &'a SharedSink<'s>,
    pub cancel: &'a CancellationToken,
    /// Set when this agent may launch sub-agents.
    pub tasks: Option<TaskCtx<'a>>,
}

impl Exec<'_, '_> {
    fn is_mutating(&self, name: &str) -> bool {
        if name == TASK_TOOL && self.tasks.is_some() {
            return false;
        }
        self.tools.get(name).is_some_and(|t| t.is_mutating())
    }

    /// Runs the hooks of `event` and records what they said.
    pub(super) async fn fire(&self, event: HookEvent, data: EventData) -> Vec<HookAnswer> {
        if self.hooks.is_empty() {
            return Vec::new();
        }
        let tool_name = data.tool_name.clone();
        let answers = self
            .hooks
            .fire(event, self.who, self.cx.root(), data, self.cancel)
            .await;
        for a in answers.iter().filter(|a| !a.response.is_noop()) {
            self.sink.record(&TranscriptItem::Hook {
                agent: self.agent.to_string(),
                turn: self.turn,
                event: event.as_str().to_string(),
                hook: a.hook.clone(),
                tool_name: tool_name.clone(),
                effect: effect(&a.response),
            });
        }
        answers
    }
}

/// A hook's answer in a few words, for the transcript.
pub(super) fn effect(r: &HookResponse) -> String {
    let mut parts = Vec::new();
    match &r.permission {
        Some(Permission::Allow) => parts.push("allow".to_string()),
        Some(Permission::Deny(why)) => parts.push(format!("deny: {why}")),
        None => {}
    }
    if let Some(b) = &r.block {
        parts.push(format!("block: {b}"));
    }
    if r.updated_input.is_some() {
        parts.push("updated input".to_string());
    }
    if let Some(c) = &r.additional_context {
        parts.push(format!("context: {c}"));
    }
    if let Some(s) = &r.stop_run {
        parts.push(format!("stop run: {s}"));
    }
    if let Some(e) = &r.error {
        parts.push(format!("error: {e}"));
    }
    parts.join("; ")
}

/// Runs `calls`: at most `concurrency` at a time when all are read-only, one
/// by one otherwise.
pub(super) async fn execute(calls: &[Call], ex: &Exec<'_, '_>, concurrency: usize) -> Vec<Done> {
    if calls.iter().all(|c| !ex.is_mutating(&c.name)) {
        // Built up front: a lazy `map` closure in the stream trips the
        // compiler's Send check on the boxed run future.
        let pending: Vec<_> = calls.iter().map(|c| one(c, ex)).collect();
        futures_util::stream::iter(pending)
            .buffered(concurrency.max(1))
            .collect()
            .await
    } else {
        let mut out = Vec::with_capacity(calls.len());
        for c in calls {
            out.push(one(c, ex).await);
        }
        out
    }
}

async fn one(call: &Call, ex: &Exec<'_, '_>) -> Done {
    let start = Instant::now();
    let tool = call.name.as_str();
    if let Some(e) = &call.input_error {
        return Done {
            output: ToolOutput::error(format!(
                "The input of this `{tool}` call was not valid JSON ({e}), so it did not run. Call the tool again with a JSON object as its input."
            )),
            duration_ms: 0,
            sub: None,
            stop_run: None,
        };
    }
    let mut input = call.input.clone();
    let mut stop_run = None;
    let mut notes = Vec::new();
    let mut denied = None;
    let pre = ex
        .fire(
            HookEvent::PreToolUse,
            EventData {
                tool_name: Some(call.name.clone()),
                tool_input: Some(input.clone()),
                tool_use_id: Some(call.id.clone()),
                ..EventData::default()
            },
        )
        .await;
    for a in pre {
        let r = a.response;
        if stop_run.is_none() {
            stop_run = r.stop_run;
        }
        if let Some(Permission::Deny(why)) = r.permission {
            denied.get_or_insert(why);
        }
        if let Some(why) = r.block {
            denied.get_or_insert(why);
        }
        if let Some(updated) = r.updated_input {
            input = updated;
        }
        if let Some(c) = r.additional_context {
            notes.push(format!(
                "<system-reminder>PreToolUse:{tool} hook additional context: {c}</system-reminder>"
            ));
        }
    }
    if let Some(why) = denied {
        return Done {
            output: ToolOutput::error(format!("PreToolUse:{tool} hook error: {why}")),
            duration_ms: start.elapsed().as_millis() as u64,
            sub: None,
            stop_run,
        };
    }
    let (mut output, sub) = run_tool(call, input.clone(), ex).await;
    // Nothing a tool read reaches the model, its hooks or the transcript with
    // a secret in it.
    output.content = ex
        .cx
        .redaction
        .apply(tool, &input, &output.content, ex.cx.root());
    let duration_ms = start.elapsed().as_millis() as u64;
    let post = ex
        .fire(
            HookEvent::PostToolUse,
            EventData {
                tool_name: Some(call.name.clone()),
                tool_input: Some(input),
                tool_use_id: Some(call.id.clone()),
                tool_response: Some(Value::String(output.content.clone())),
                duration_ms: Some(duration_ms),
                ..EventData::default()
            },
        )
        .await;
    for a in post {
        let r = a.response;
        if stop_run.is_none() {
            stop_run = r.stop_run;
        }
        if let Some(why) = r.block {
            notes.push(format!(
                "<system-reminder>PostToolUse:{tool} hook blocking error from command: \"{}\": {why}</system-reminder>",
                a.hook
            ));
        }
        if let Some(c) = r.additional_context {
            notes.push(format!(
                "<system-reminder>PostToolUse:{tool} hook additional context: {c}</system-reminder>"
            ));
        }
    }
    // Data from the project, framed so it cannot pass for instructions; the
    // hooks' reminders (crit's own words) stay outside. A sub-agent's report
    // is the agent's answer, not project data.
    if call.name != TASK_TOOL && !output.content.is_empty() {
        output.content = crate::framing::frame(tool, &output.content);
    }
    if !notes.is_empty() {
        // One blank line between the result and the reminders.
        if !output.content.is_empty() {
            if !output.content.ends_with('\n') {
                output.content.push('\n');
            }
            output.content.push('\n');
        }
        output.content.push_str(&notes.join("\n"));
    }
    Done {
        output,
        duration_ms,
        sub,
        stop_run,
    }
}

async fn run_tool(
    call: &Call,
    input: Value,
    ex: &Exec<'_, '_>,
) -> (ToolOutput, Option<SubAgentOutcome>) {
    if call.name == TASK_TOOL
        && let Some(t) = &ex.tasks
    {
        return task::run(t, &call.id, input, ex).await;
    }
    match ex.tools.get(&call.name) {
        Some(tool) => (tool.call(input, ex.cx).await, None),
        None => {
            let mut available: Vec<&str> = ex.tools.names().collect();
            if ex.tasks.is_some() {
                available.push(TASK_TOOL);
            }
            let output = ToolOutput::error(format!(
                "There is no tool named `{}`. Available tools: {}.",
                call.name,
                if available.is_empty() {
                    "none".to_string()
                } else {
                    available.join(", ")
                }
            ));
            (output, None)
        }
    }
}
