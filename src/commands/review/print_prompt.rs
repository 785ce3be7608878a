//! `--print-prompt`: the review runs as it would (scope, redaction, the hunk
//! cache, parts, panel), up to each model request, which is printed instead
//! of sent: the system prompt, every message and the tools by name, one
//! request per reviewer and part.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use crit_llm::{Backend, Block, Capabilities, EventStream, LlmError, Model, ModelRequest, Role};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// A model that keeps each request and answers none: its reviewer stops
/// there as cancelled, so nothing after the first request runs.
pub(crate) struct Printer {
    name: String,
    capabilities: Capabilities,
    seen: Mutex<Vec<ModelRequest>>,
}

impl Printer {
    /// Stands in for `built`'s model (its name and capabilities shape the
    /// request), or for an HTTP model when there is no backend.
    pub(crate) fn for_backend(built: Option<&Backend>) -> Arc<Printer> {
        let (name, capabilities) = match built {
            Some(b) => (b.model.name().to_string(), b.model.capabilities()),
            None => ("anthropic".to_string(), Capabilities::HTTP_MODEL),
        };
        Arc::new(Printer {
            name,
            capabilities,
            seen: Mutex::new(Vec::new()),
        })
    }

    /// A backend whose every request comes here (crit's own loop, even where
    /// the configured backend runs its own).
    pub(crate) fn backend(self: &Arc<Self>) -> Backend {
        Backend {
            model: self.clone(),
            agent: None,
        }
    }

    /// The requests kept, in the order they were made.
    pub(crate) fn requests(&self) -> Vec<ModelRequest> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Model for Printer {
    fn name(&self) -> &str {
        &self.name
    }

    fn capabilities(&self) -> Capabilities {
        self.capabilities
    }

    fn stream<'a>(
        &'a self,
        req: &'a ModelRequest,
        _cancel: CancellationToken,
    ) -> Pin<Box<dyn Future<Output = Result<EventStream, LlmError>> + Send + 'a>> {
        self.seen
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(req.clone());
        Box::pin(async { Err(LlmError::Cancelled) })
    }
}

/// Why a review made no request at all: the hunk cache answered every hunk,
/// or there was nothing to review.
pub(crate) fn why_none(result: &crit_core::ReviewResult) -> String {
    match &result.coverage {
        Some(c) if c.hunks_cached > 0 && c.hunks_reviewed == 0 => format!(
            "no request to print: the hunk cache answers all {} hunks of this change (reviewed \
             before, unchanged since, nothing found in their files); --no-cache shows the prompts \
             a review without the cache sends",
            c.hunks_cached
        ),
        _ => format!("no request to print: {}", result.summary.trim()),
    }
}

/// The requests as JSON: per request its model, system blocks, messages
/// (each block's text; other blocks as they are) and tool names.
pub(crate) fn to_json(reqs: &[ModelRequest]) -> Value {
    Value::Array(
        reqs.iter()
            .map(|r| {
                json!({
                    "model": crit_llm::pricing::resolve_alias(&r.model),
                    "system": r.system.iter().map(|b| b.text.clone()).collect::<Vec<_>>(),
                    "messages": r.messages.iter().map(|m| json!({
                        "role": role(m.role),
                        "content": m.content.iter().map(block).collect::<Vec<_>>(),
                    })).collect::<Vec<_>>(),
                    "tools": r.tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}

/// The requests for a person: each under its own heading.
pub(crate) fn to_text(reqs: &[ModelRequest]) -> String {
    let mut out = String::new();
    let n = reqs.len();
    for (i, r) in reqs.iter().enumerate() {
        let model = crit_llm::pricing::resolve_alias(&r.model);
        let tools: Vec<&str> = r.tools.iter().map(|t| t.name.as_str()).collect();
        out.push_str(&format!(
            "=== request {} of {n} · model {} · tools: {} ===\n",
            i + 1,
            if model.is_empty() {
                "(the backend's default)"
            } else {
                model.as_str()
            },
            if tools.is_empty() {
                "none".to_string()
            } else {
                tools.join(", ")
            }
        ));
        for (j, b) in r.system.iter().enumerate() {
            out.push_str(&format!(
                "--- system {} ---\n{}\n",
                j + 1,
                b.text.trim_end()
            ));
        }
        for (j, m) in r.messages.iter().enumerate() {
            for (k, b) in m.content.iter().enumerate() {
                let text = match block(b) {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                out.push_str(&format!(
                    "--- message {} · {} · block {} ---\n{}\n",
                    j + 1,
                    role(m.role),
                    k + 1,
                    text.trim_end()
                ));
            }
        }
        out.push('\n');
    }
    out
}

fn role(r: Role) -> &'static str {
    match r {
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

/// A text block's text; any other block as JSON.
fn block(b: &Block) -> Value {
    match b {
        Block::Text { text, .. } => Value::String(text.clone()),
        other => serde_json::to_value(other).unwrap_or(Value::Null),
    }
}
