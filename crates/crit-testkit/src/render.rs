//! Turns a [`Reply`] into status, headers and body bytes for one request.

use serde_json::{Value, json};

use crate::reply::{Block, Reply, ReplyBody};
use crate::{anthropic, gemini, openai, responses};

/// The wire format a request was made in (decided by its path).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireFormat {
    /// `POST …/v1/messages`
    Anthropic,
    /// `POST …/v1/chat/completions`
    OpenAi,
    /// `POST …/v1/responses` (OpenAI's Responses API, Codex CLI's)
    Responses,
    /// `POST …/models/MODEL:generateContent` or `…:streamGenerateContent`
    /// (Google's Gemini API, Gemini CLI's)
    Gemini,
}

/// What the renderers need to know about the request.
#[derive(Debug)]
pub(crate) struct RequestCtx<'a> {
    pub body: &'a Value,
    /// The path without the query string.
    pub path: &'a str,
    pub step: usize,
    pub seq: u64,
}

impl RequestCtx<'_> {
    pub fn stream(&self) -> bool {
        self.body.get("stream").and_then(Value::as_bool) == Some(true)
    }

    pub fn include_usage(&self) -> bool {
        self.body
            .pointer("/stream_options/include_usage")
            .and_then(Value::as_bool)
            == Some(true)
    }

    pub fn model(&self, reply: &Reply, fallback: &str) -> String {
        reply
            .model
            .clone()
            .or_else(|| {
                self.body
                    .get("model")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .unwrap_or_else(|| fallback.to_string())
    }

    /// True when the request offers a tool called `StructuredOutput`, in
    /// either format's tool shape.
    pub fn offers_structured_output_tool(&self) -> bool {
        self.body
            .get("tools")
            .and_then(Value::as_array)
            .is_some_and(|tools| {
                tools.iter().any(|t| {
                    t.get("name").and_then(Value::as_str) == Some("StructuredOutput")
                        || t.pointer("/function/name").and_then(Value::as_str)
                            == Some("StructuredOutput")
                })
            })
    }
}

/// A rendered response.
#[derive(Debug)]
pub(crate) struct Rendered {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Sent after `body` again and again, forever, when not empty.
    pub repeat: Vec<u8>,
}

/// Content blocks of a successful reply, or `None` for error replies.
pub(crate) fn content_blocks(reply: &Reply, ctx: &RequestCtx<'_>) -> Option<Vec<Block>> {
    match &reply.body {
        ReplyBody::Blocks(b) => Some(b.clone()),
        ReplyBody::Json(v) if ctx.offers_structured_output_tool() => Some(vec![Block::ToolUse {
            name: "StructuredOutput".to_string(),
            input: v.clone(),
        }]),
        ReplyBody::Json(v) => Some(vec![Block::Text(v.to_string())]),
        _ => None,
    }
}

/// The default stop reason (Anthropic vocabulary) for these blocks.
pub(crate) fn default_stop_reason(blocks: &[Block]) -> &'static str {
    if blocks
        .iter()
        .any(|b| matches!(b, Block::ToolUse { .. } | Block::RawToolUse { .. }))
    {
        "tool_use"
    } else {
        "end_turn"
    }
}

pub(crate) fn render(reply: &Reply, format: WireFormat, ctx: &RequestCtx<'_>) -> Rendered {
    let mut rendered = match format {
        WireFormat::Anthropic => anthropic::render(reply, ctx),
        WireFormat::OpenAi => openai::render(reply, ctx),
        WireFormat::Responses => responses::render(reply, ctx),
        WireFormat::Gemini => gemini::render(reply, ctx, gemini::is_stream_path(ctx.path)),
    };
    for (name, value) in &reply.headers {
        rendered.headers.retain(|(n, _)| n != name);
        rendered.headers.push((name.clone(), value.clone()));
    }
    rendered
}

/// Status used when a `stream_error` reply meets a non-streaming request.
pub(crate) fn stream_error_status(kind: &str) -> u16 {
    match kind {
        "overloaded_error" => 529,
        "rate_limit_error" => 429,
        "timeout_error" => 504,
        _ => 500,
    }
}

pub(crate) fn json_response(status: u16, body: &Value, extra: Vec<(String, String)>) -> Rendered {
    let mut headers = vec![("content-type".to_string(), "application/json".to_string())];
    headers.extend(extra);
    Rendered {
        status,
        headers,
        body: body.to_string().into_bytes(),
        repeat: Vec::new(),
    }
}

/// A JSON error body that never ends: `{"error":{"message":"xxxx…` forever.
pub(crate) fn endless_error(status: u16) -> Rendered {
    Rendered {
        status,
        headers: vec![("content-type".to_string(), "application/json".to_string())],
        body: br#"{"error":{"type":"api_error","message":""#.to_vec(),
        repeat: vec![b'x'; 4096],
    }
}

pub(crate) fn sse_headers(extra: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut headers = vec![
        (
            "content-type".to_string(),
            "text/event-stream; charset=utf-8".to_string(),
        ),
        ("cache-control".to_string(), "no-cache".to_string()),
    ];
    headers.extend(extra);
    headers
}

/// The 500 answered when the script has no step left for a request, in the
/// request's format, marked not retryable so clients fail at once.
pub(crate) fn exhausted(format: WireFormat, seq: u64, path: &str) -> Rendered {
    let message = format!(
        "crit-testkit: no scripted step left for request #{seq} (POST {path}); push more Steps"
    );
    let body = match format {
        WireFormat::Anthropic => {
            json!({"type":"error","error":{"type":"api_error","message":message},"request_id":format!("req_testkit_{seq}")})
        }
        WireFormat::OpenAi | WireFormat::Responses => {
            json!({"error":{"message":message,"type":"server_error","param":null,"code":"testkit_script_exhausted"}})
        }
        WireFormat::Gemini => gemini::error_body(500, "INTERNAL", &message),
    };
    json_response(
        500,
        &body,
        vec![("x-should-retry".to_string(), "false".to_string())],
    )
}
