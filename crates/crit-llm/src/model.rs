//! The two small traits backends implement: [`Model`] (one request in, events out)
//! and [`Agent`] (a backend that runs its own loop, see `claude_code`).

use std::pin::Pin;

use futures_util::future::BoxFuture;
use futures_util::{Stream, StreamExt};
use tokio_util::sync::CancellationToken;

use crate::claude_code::{AgentOutcome, AgentTask};
use crate::error::LlmError;
use crate::protocol::{Capabilities, ModelEvent, ModelRequest, ModelResponse};

/// A model's answer as it streams in. Errors end the stream.
pub type EventStream = Pin<Box<dyn Stream<Item = Result<ModelEvent, LlmError>> + Send>>;

/// A backend that answers one request at a time (the caller drives any loop).
pub trait Model: Send + Sync {
    /// A short name for logs and `crit doctor`: `anthropic`, `openai`, `claude-code`, `replay`.
    fn name(&self) -> &str;

    fn capabilities(&self) -> Capabilities;

    /// What the provider's rate-limit headers said last (`None`: a backend
    /// that has none).
    fn headroom(&self) -> Option<crate::ratelimit::Headroom> {
        None
    }

    /// Sends `req`; errors that happen before the first event (HTTP status, auth,
    /// retries exhausted) come back here, later ones inside the stream.
    fn stream<'a>(
        &'a self,
        req: &'a ModelRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<EventStream, LlmError>>;

    /// The whole answer at once.
    fn complete<'a>(
        &'a self,
        req: &'a ModelRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<ModelResponse, LlmError>> {
        Box::pin(async move {
            let stream = self.stream(req, cancel).await?;
            collect(stream).await
        })
    }
}

/// A backend that runs its own agent loop and tools (Claude Code): crit hands it
/// the prompt, tools, schema and limits and reads back the outcome.
pub trait Agent: Send + Sync {
    fn name(&self) -> &str;

    fn capabilities(&self) -> Capabilities;

    fn run<'a>(
        &'a self,
        task: &'a AgentTask,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<AgentOutcome, LlmError>>;
}

/// Folds a stream into a response; the first error wins.
pub async fn collect(mut stream: EventStream) -> Result<ModelResponse, LlmError> {
    let mut resp = ModelResponse::default();
    while let Some(ev) = stream.next().await {
        resp.apply(ev?);
    }
    Ok(resp)
}

/// A stream of already-known events (replay, agent adapters).
pub(crate) fn stream_of(events: Vec<ModelEvent>) -> EventStream {
    Box::pin(futures_util::stream::iter(events.into_iter().map(Ok)))
}
