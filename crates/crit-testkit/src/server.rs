//! The fake LLM server: an axum app on its own thread and runtime, so it
//! serves equally well to async tests and to blocking ones (`assert_cmd`).

use std::collections::BTreeMap;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};

use crate::delivery;
use crate::render::{self, Rendered, RequestCtx, WireFormat};
use crate::reply::{Delivery, Step};

/// One request the server received (and answered).
#[derive(Clone, Debug)]
pub struct RecordedRequest {
    /// Arrival order, from 0.
    pub seq: u64,
    pub method: String,
    /// The path without the query string.
    pub path: String,
    /// The query string without `?`, if any (Claude Code sends `beta=true`).
    pub query: Option<String>,
    /// Header names lower-case; repeated headers joined with `", "`.
    pub headers: BTreeMap<String, String>,
    /// The body parsed as JSON; `Value::Null` when empty, a `Value::String`
    /// of the raw text when it is not JSON.
    pub body: Value,
    pub received_at: Instant,
    /// When the response head was handed to the connection (after any
    /// `delay`).
    pub responded_at: Instant,
    /// Index (in push order, from 0) of the step that answered, if any.
    pub step: Option<usize>,
    /// The status answered.
    pub status: u16,
}

impl RecordedRequest {
    /// A header's value by (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }

    /// The credential sent: `x-api-key`, else the token of
    /// `authorization: Bearer`.
    pub fn api_key(&self) -> Option<&str> {
        self.header("x-api-key").or_else(|| {
            self.header("authorization")
                .and_then(|v| v.strip_prefix("Bearer "))
        })
    }

    /// True when the body asked for a stream (`"stream": true`).
    pub fn is_stream(&self) -> bool {
        self.body.get("stream").and_then(Value::as_bool) == Some(true)
    }

    /// True when this request and `other` were in flight at the same time
    /// (each arrived before the other was answered).
    pub fn overlaps(&self, other: &RecordedRequest) -> bool {
        self.received_at < other.responded_at && other.received_at < self.responded_at
    }
}

struct Slot {
    step: Step,
    consumed: bool,
}

#[derive(Default)]
struct Shared {
    steps: Mutex<Vec<Slot>>,
    records: Mutex<Vec<RecordedRequest>>,
    seq: AtomicU64,
    prompt_cache: Mutex<Option<crate::prompt_cache::PromptCache>>,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking test thread must not hide the script from the next assertion.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A scripted fake of the Anthropic Messages and OpenAI chat completions
/// APIs on `127.0.0.1`. Stops when dropped.
pub struct FakeServer {
    running: crate::listen::Running,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for FakeServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeServer")
            .field("addr", &self.running.addr)
            .finish_non_exhaustive()
    }
}

impl FakeServer {
    /// Binds `127.0.0.1:0` and starts serving. Panics if no port can be bound
    /// (a test cannot go on without its server).
    pub async fn start() -> Self {
        Self::start_blocking()
    }

    /// [`FakeServer::start`] for tests without an async runtime.
    pub fn start_blocking() -> Self {
        match Self::try_start() {
            Ok(s) => s,
            Err(e) => panic!("crit-testkit: cannot start the fake server: {e}"),
        }
    }

    /// Like [`FakeServer::start_blocking`], returning the error.
    pub fn try_start() -> io::Result<Self> {
        let shared = Arc::new(Shared::default());
        let app = Router::new()
            .fallback(handle)
            .with_state(Arc::clone(&shared));
        let running = crate::listen::serve(crate::listen::bind()?, app, "crit-testkit-server")?;
        Ok(Self { running, shared })
    }

    /// `http://127.0.0.1:PORT`, without `/v1`.
    pub fn url(&self) -> String {
        format!("http://{}", self.running.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.running.addr
    }

    /// Appends a step to the script. Accepts a [`Step`] or a bare
    /// [`crate::Reply`].
    pub fn push(&self, step: impl Into<Step>) {
        lock(&self.shared.steps).push(Slot {
            step: step.into(),
            consumed: false,
        });
    }

    /// From now on, Anthropic answers report the usage a prompt cache with
    /// this minimum (in tokens) would give, computed from each request's
    /// cache breakpoints (see `prompt_cache.rs`), instead of the scripted
    /// usage; the scripted output tokens stay.
    pub fn simulate_prompt_cache(&self, min_tokens: u64) {
        *lock(&self.shared.prompt_cache) = Some(crate::prompt_cache::PromptCache::new(min_tokens));
    }

    /// Appends several steps.
    pub fn push_all<S: Into<Step>>(&self, steps: impl IntoIterator<Item = S>) {
        for s in steps {
            self.push(s);
        }
    }

    /// Every answered request, in arrival order. A request is recorded when
    /// its response head is sent, so one still waiting out a `delay` is not
    /// listed yet (a stalled or dropped body is: its head went out).
    pub fn requests(&self) -> Vec<RecordedRequest> {
        let mut all = lock(&self.shared.records).clone();
        all.sort_by_key(|r| r.seq);
        all
    }

    /// Answered requests to the model endpoints only (no `HEAD`, no unknown
    /// paths), in arrival order.
    pub fn model_requests(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(|r| r.method == "POST" && WireFormat::of_path(&r.path).is_some())
            .collect()
    }

    /// Steps not yet consumed.
    pub fn remaining_steps(&self) -> usize {
        lock(&self.shared.steps)
            .iter()
            .filter(|s| !s.consumed)
            .count()
    }

    /// Waits until at least `n` requests have been answered; false on timeout.
    pub async fn wait_for_requests(&self, n: usize, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            if lock(&self.shared.records).len() >= n {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

impl WireFormat {
    /// The format served on `path`, if it is a model endpoint.
    pub fn of_path(path: &str) -> Option<Self> {
        if path.ends_with("/messages") {
            Some(Self::Anthropic)
        } else if path.ends_with("/chat/completions") {
            Some(Self::OpenAi)
        } else if path.ends_with("/responses") {
            Some(Self::Responses)
        } else if path.contains("/models/")
            && (path.ends_with(":generateContent") || path.ends_with(":streamGenerateContent"))
        {
            Some(Self::Gemini)
        } else {
            None
        }
    }
}

fn take_step(shared: &Shared, raw: &str, body: &Value) -> Option<(usize, Step)> {
    let mut steps = lock(&shared.steps);
    let (index, slot) = steps
        .iter_mut()
        .enumerate()
        .find(|(_, s)| !s.consumed && s.step.matches(raw, body))?;
    slot.consumed = true;
    Some((index, slot.step.clone()))
}

async fn handle(State(shared): State<Arc<Shared>>, req: Request) -> Response {
    let received_at = Instant::now();
    let seq = shared.seq.fetch_add(1, Ordering::SeqCst);
    let (parts, body) = req.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let raw = String::from_utf8_lossy(&bytes).into_owned();
    let body: Value = if raw.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&raw).unwrap_or_else(|_| Value::String(raw.clone()))
    };
    let path = parts.uri.path().to_string();
    let mut headers = BTreeMap::new();
    for (name, value) in &parts.headers {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        headers
            .entry(name.as_str().to_string())
            .and_modify(|v: &mut String| {
                v.push_str(", ");
                v.push_str(&value);
            })
            .or_insert(value);
    }

    let (rendered, step, delivery) = answer(&shared, &parts.method, &path, &raw, &body, seq);
    if let Some(d) = delivery.delay {
        tokio::time::sleep(d).await;
    }
    let status = rendered.status;
    let response = build_response(rendered, delivery);
    lock(&shared.records).push(RecordedRequest {
        seq,
        method: parts.method.to_string(),
        path,
        query: parts.uri.query().map(str::to_string),
        headers,
        body,
        received_at,
        responded_at: Instant::now(),
        step,
        status,
    });
    response
}

fn answer(
    shared: &Shared,
    method: &Method,
    path: &str,
    raw: &str,
    body: &Value,
    seq: u64,
) -> (Rendered, Option<usize>, Delivery) {
    let none = Delivery::default();
    if method == Method::HEAD {
        let r = Rendered {
            status: 200,
            headers: Vec::new(),
            body: Vec::new(),
            repeat: Vec::new(),
        };
        return (r, None, none);
    }
    if method == Method::POST && path.ends_with("/messages/count_tokens") {
        let estimate = (raw.len() / 4).max(1);
        return (
            render::json_response(200, &json!({"input_tokens": estimate}), Vec::new()),
            None,
            none,
        );
    }
    let Some(format) = WireFormat::of_path(path).filter(|_| method == Method::POST) else {
        let msg = format!("crit-testkit: no route for {method} {path}");
        let b = json!({"type":"error","error":{"type":"not_found_error","message":msg}});
        return (render::json_response(404, &b, Vec::new()), None, none);
    };
    if !matches!(body, Value::Object(_)) {
        let msg = "crit-testkit: request body is not a JSON object";
        let b = match format {
            WireFormat::Anthropic => {
                json!({"type":"error","error":{"type":"invalid_request_error","message":msg}})
            }
            WireFormat::OpenAi | WireFormat::Responses => {
                json!({"error":{"message":msg,"type":"invalid_request_error","param":null,"code":null}})
            }
            WireFormat::Gemini => crate::gemini::error_body(400, "INVALID_ARGUMENT", msg),
        };
        return (render::json_response(400, &b, Vec::new()), None, none);
    }
    let Some((index, mut step)) = take_step(shared, raw, body) else {
        return (render::exhausted(format, seq, path), None, none);
    };
    if format == WireFormat::Anthropic
        && let Some(cache) = lock(&shared.prompt_cache).as_mut()
    {
        step.reply.usage = cache.account(body, step.reply.usage.output);
    }
    let ctx = RequestCtx {
        body,
        path,
        step: index,
        seq,
    };
    let rendered = render::render(&step.reply, format, &ctx);
    (rendered, Some(index), step.reply.delivery)
}

fn build_response(rendered: Rendered, delivery: Delivery) -> Response {
    let is_sse = rendered
        .headers
        .iter()
        .any(|(n, v)| n == "content-type" && v.starts_with("text/event-stream"));
    let len = rendered.body.len();
    let streamed =
        delivery.chunk.is_some() || delivery.drop_after.is_some() || delivery.stall.is_some();
    let body = if rendered.repeat.is_empty() {
        delivery::body(rendered.body, delivery)
    } else {
        delivery::endless(rendered.body, rendered.repeat)
    };
    let mut response = Response::new(body);
    *response.status_mut() = StatusCode::from_u16(rendered.status).unwrap_or(StatusCode::OK);
    let headers = response.headers_mut();
    for (name, value) in rendered.headers {
        if let (Ok(n), Ok(v)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&value),
        ) {
            headers.append(n, v);
        }
    }
    if streamed && !is_sse && !headers.contains_key("content-length") {
        // A JSON body announces its length, so a drop is seen as truncation.
        if let Ok(v) = HeaderValue::from_str(&len.to_string()) {
            headers.insert("content-length", v);
        }
    }
    response
}
