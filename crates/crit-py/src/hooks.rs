//! Python callables as crit hooks. The Python layer wraps each user hook in
//! an adapter that takes the event as JSON (Claude Code's hook input), calls
//! the hook as Reldo and the Claude Agent SDK do (`input_data, tool_use_id,
//! context`), and returns its answer as JSON, or an awaitable of it for an
//! `async def` hook. Here the adapter is called without holding up the
//! review's runtime: on the caller's event loop for an awaited review, on a
//! thread of its own (and an `async def` hook on a loop of its own) for a
//! blocking one; the answer is read with Claude Code's semantics.

use std::sync::Arc;

use crit_agent::hooks::{Hook, HookEvent, HookFuture, HookInput, HookResponse, ToolMatcher};
use pyo3::prelude::*;
use pyo3_async_runtimes::TaskLocals;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::errors;

/// One hook as the Python layer hands it over: `(event, matcher, adapter, name)`.
pub type HookSpecTuple = (String, String, Py<PyAny>, String);

/// A validated hook, shared by every review of a `Crit`.
#[derive(Debug)]
pub struct HookSpec {
    event: HookEvent,
    matcher: ToolMatcher,
    adapter: Py<PyAny>,
    name: String,
}

pub fn specs(raw: Vec<HookSpecTuple>) -> PyResult<Vec<Arc<HookSpec>>> {
    raw.into_iter()
        .map(|(event, matcher, adapter, name)| {
            let event = match event.as_str() {
                "PreToolUse" => HookEvent::PreToolUse,
                "PostToolUse" => HookEvent::PostToolUse,
                "Stop" => HookEvent::Stop,
                "SubagentStop" => HookEvent::SubagentStop,
                other => {
                    return Err(errors::config(format!(
                        "hooks: unknown event `{other}`; expected PreToolUse, PostToolUse, Stop or SubagentStop"
                    )));
                }
            };
            let matcher = ToolMatcher::parse(&matcher).map_err(|e| {
                errors::config(format!(
                    "hooks.{event}: matcher `{matcher}` is not a valid regex: {e}"
                ))
            })?;
            Ok(Arc::new(HookSpec {
                event,
                matcher,
                adapter,
                name,
            }))
        })
        .collect()
}

/// The hooks of one review; `locals` is the event loop of an awaited review.
pub fn for_review(specs: &[Arc<HookSpec>], locals: Option<TaskLocals>) -> crit_agent::Hooks {
    crit_agent::Hooks::new(
        specs
            .iter()
            .map(|spec| {
                Arc::new(PyHook {
                    spec: Arc::clone(spec),
                    locals: locals.clone(),
                }) as Arc<dyn Hook>
            })
            .collect(),
    )
}

struct PyHook {
    spec: Arc<HookSpec>,
    locals: Option<TaskLocals>,
}

/// What calling the adapter gave: the answer, or an awaitable to wait for.
enum Called {
    Answer(String),
    Pending(std::pin::Pin<Box<dyn std::future::Future<Output = PyResult<Py<PyAny>>> + Send>>),
}

impl PyHook {
    async fn call(&self, input: &HookInput, cancel: &CancellationToken) -> HookResponse {
        let json = serde_json::to_string(input).unwrap_or_default();
        let spec = Arc::clone(&self.spec);
        let locals = self.locals.clone();
        // The GIL may be busy (the caller's own Python code): wait for it on a
        // blocking thread, never on one of the review's runtime threads.
        let called = tokio::task::spawn_blocking(move || {
            Python::attach(|py| -> PyResult<Called> {
                match locals {
                    // An awaited review: the hook runs on the caller's event
                    // loop, as the Claude Agent SDK runs hooks.
                    Some(l) => {
                        let on_loop = py
                            .import("crit.hooks")?
                            .getattr("_on_loop")?
                            .call1((spec.adapter.bind(py), json))?;
                        Ok(Called::Pending(Box::pin(
                            pyo3_async_runtimes::into_future_with_locals(&l, on_loop)?,
                        )))
                    }
                    // A blocking review has no running loop: the hook runs on
                    // this thread, an `async def` hook on a loop of its own.
                    None => {
                        let out = spec.adapter.bind(py).call1((json,))?;
                        if let Ok(s) = out.extract::<String>() {
                            return Ok(Called::Answer(s));
                        }
                        let r = py.import("asyncio")?.call_method1("run", (out,))?;
                        Ok(Called::Answer(r.extract()?))
                    }
                }
            })
        });
        let answer = tokio::select! {
            r = called => match r {
                Ok(Ok(Called::Answer(s))) => Ok(s),
                Ok(Ok(Called::Pending(fut))) => tokio::select! {
                    r = fut => r.and_then(|obj| Python::attach(|py| obj.extract::<String>(py))),
                    () = cancel.cancelled() => return self.failed("was cancelled".into()),
                },
                Ok(Err(e)) => Err(e),
                Err(e) => return self.failed(format!("could not run: {e}")),
            },
            () = cancel.cancelled() => return self.failed("was cancelled".into()),
        };
        match answer {
            Ok(text) => self.read(&text),
            Err(e) => self.failed(format!("raised {e}")),
        }
    }

    /// The adapter's JSON: Claude Code's fields, plus Reldo's `systemMessage`
    /// ("inject context into the conversation"), given to the model as context.
    fn read(&self, text: &str) -> HookResponse {
        let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let mut r = HookResponse::from_json(&value, self.spec.event);
        if r.additional_context.is_none() {
            r.additional_context = value
                .get("systemMessage")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        r
    }

    fn failed(&self, what: String) -> HookResponse {
        let msg = format!("hook `{}` {what}", self.spec.name);
        tracing::warn!("{msg}");
        HookResponse {
            error: Some(msg),
            ..HookResponse::default()
        }
    }
}

impl Hook for PyHook {
    fn name(&self) -> &str {
        &self.spec.name
    }

    fn matches(&self, event: HookEvent, tool_name: Option<&str>) -> bool {
        event == self.spec.event
            && (!event.is_tool_event() || self.spec.matcher.matches(tool_name.unwrap_or("")))
    }

    fn run<'a>(&'a self, input: &'a HookInput, cancel: &'a CancellationToken) -> HookFuture<'a> {
        Box::pin(self.call(input, cancel))
    }
}
