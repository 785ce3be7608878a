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
use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::PyString;
use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::bridge::CallerLoop;
use crate::errors;
use crate::runtime;

/// One hook as the Python layer hands it over: `(event, matcher, adapter, name)`.
pub(crate) type HookSpecTuple = (String, String, Py<PyAny>, String);

/// A validated hook, shared by every review of a `Crit`.
#[derive(Debug)]
pub(crate) struct HookSpec {
    event: HookEvent,
    matcher: ToolMatcher,
    adapter: Py<PyAny>,
    name: String,
}

pub(crate) fn specs(raw: Vec<HookSpecTuple>) -> PyResult<Vec<Arc<HookSpec>>> {
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

/// The hooks of one review; `caller` is the event loop of an awaited review.
pub(crate) fn for_review(
    specs: &[Arc<HookSpec>],
    caller: Option<Arc<CallerLoop>>,
) -> crit_agent::Hooks {
    crit_agent::Hooks::new(
        specs
            .iter()
            .map(|spec| {
                Arc::new(PyHook {
                    spec: Arc::clone(spec),
                    caller: caller.clone(),
                }) as Arc<dyn Hook>
            })
            .collect(),
    )
}

struct PyHook {
    spec: Arc<HookSpec>,
    caller: Option<Arc<CallerLoop>>,
}

/// What a hook raised, as Python prints it: taken while the GIL is held, so
/// reporting it later never waits for the GIL on a runtime thread.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Raised(String);

impl Raised {
    fn from(e: PyErr) -> Raised {
        Raised(e.to_string())
    }
}

/// A hook's answer (its JSON), or what it raised.
type Answered = Result<String, Raised>;

/// What calling the adapter gave: the answer, or one to wait for.
enum Called {
    Answer(Answered),
    Pending(oneshot::Receiver<Answered>),
}

/// Where a hook run on the caller's event loop sends its answer.
#[pyclass(module = "crit._crit", frozen)]
pub struct Reply {
    tx: Mutex<Option<oneshot::Sender<Answered>>>,
}

#[pymethods]
impl Reply {
    #[pyo3(signature = (answer, error=None))]
    fn __call__(&self, answer: Option<String>, error: Option<Bound<'_, PyAny>>) {
        let answered = match error {
            Some(e) => Err(Raised::from(PyErr::from_value(e))),
            None => Ok(answer.unwrap_or_else(|| "{}".into())),
        };
        let tx = self.tx.lock().ok().and_then(|mut tx| tx.take());
        if let Some(tx) = tx {
            let _ = tx.send(answered);
        }
    }
}

impl PyHook {
    async fn call(&self, input: &HookInput, cancel: &CancellationToken) -> HookResponse {
        let json = serde_json::to_string(input).unwrap_or_default();
        let spec = Arc::clone(&self.spec);
        let caller = self.caller.clone();
        // The GIL may be busy (the caller's own Python code): wait for it on a
        // blocking thread, never on one of the review's runtime threads.
        let called = tokio::task::spawn_blocking(move || {
            runtime::with_python(|py| match caller {
                // An awaited review: the hook runs on the caller's event
                // loop, as the Claude Agent SDK runs hooks.
                Some(l) => on_loop(py, &l, &spec, json),
                // A blocking review has no running loop: the hook runs on
                // this thread, an `async def` hook on a loop of its own.
                None => Called::Answer(here(py, &spec, json).map_err(Raised::from)),
            })
        });
        let answer = tokio::select! {
            r = called => match r {
                Ok(Some(Called::Answer(a))) => a,
                Ok(Some(Called::Pending(rx))) => tokio::select! {
                    r = rx => match r {
                        Ok(a) => a,
                        Err(_) => return self.failed("was not answered: its event loop closed".into()),
                    },
                    () = cancel.cancelled() => return self.failed("was cancelled".into()),
                },
                Ok(None) => return self.failed("did not run: the Python interpreter is exiting".into()),
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

/// Schedules the hook on the caller's loop (`crit.hooks._on_loop`); its
/// answer comes back through a [`Reply`].
fn on_loop(py: Python<'_>, caller: &CallerLoop, spec: &HookSpec, json: String) -> Called {
    let (tx, rx) = oneshot::channel();
    let scheduled = (|| -> PyResult<()> {
        let reply = Bound::new(
            py,
            Reply {
                tx: Mutex::new(Some(tx)),
            },
        )?
        .into_any();
        let start = py.import("crit.hooks")?.getattr("_on_loop")?;
        let args = vec![
            spec.adapter.bind(py).clone(),
            PyString::new(py, &json).into_any(),
            reply,
        ];
        caller.call_soon(py, start, args)
    })();
    match scheduled {
        Ok(()) => Called::Pending(rx),
        Err(e) => Called::Answer(Err(Raised::from(e))),
    }
}

/// Runs the hook on this thread; an `async def` hook on a loop of its own.
fn here(py: Python<'_>, spec: &HookSpec, json: String) -> PyResult<String> {
    let out = spec.adapter.bind(py).call1((json,))?;
    if let Ok(s) = out.extract::<String>() {
        return Ok(s);
    }
    py.import("asyncio")?.call_method1("run", (out,))?.extract()
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
