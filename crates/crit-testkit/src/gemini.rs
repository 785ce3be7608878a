//! Google's Gemini API rendering (`POST …/models/MODEL:generateContent` and
//! `…:streamGenerateContent?alt=sse`), the API Gemini CLI speaks.
//!
//! An answer is a `GenerateContentResponse`: `candidates[0].content` with
//! `role: "model"` and its `parts` (`text`, `text` with `thought: true`,
//! `functionCall {name, args}`), `finishReason` (`STOP`, `MAX_TOKENS`, …),
//! `usageMetadata`, `modelVersion`, `responseId`. Streamed, the same shape in
//! pieces, one `data: {…}` per piece separated by `\r\n\r\n` as Google's
//! servers send it, the finish reason on the last; every piece carries the
//! usage so far. Errors are `{"error":{"code","message","status"}}`.

use serde_json::{Value, json};

use crate::render::{
    Rendered, RequestCtx, content_blocks, json_response, sse_headers, stream_error_status,
};
use crate::reply::{Block, Reply, ReplyBody, Usage, split_text};

const DEFAULT_MODEL: &str = "gemini-testkit";

/// True for the streaming method's path.
pub(crate) fn is_stream_path(path: &str) -> bool {
    path.ends_with(":streamGenerateContent")
}

pub(crate) fn render(reply: &Reply, ctx: &RequestCtx<'_>, stream: bool) -> Rendered {
    match &reply.body {
        ReplyBody::HttpError { status, body } => json_response(*status, body, Vec::new()),
        ReplyBody::ApiError {
            status,
            kind,
            message,
        } => json_response(*status, &error_body(*status, kind, message), Vec::new()),
        ReplyBody::StreamError { kind, message } => {
            let status = stream_error_status(kind);
            if !stream {
                return json_response(status, &error_body(status, kind, message), Vec::new());
            }
            let mut out = String::new();
            let piece = chunk(reply, ctx, vec![json!({"text": "Partial"})], None);
            data(&mut out, &piece);
            data(&mut out, &error_body(status, kind, message));
            sse(out, Vec::new())
        }
        ReplyBody::EndlessError { status } => crate::render::endless_error(*status),
        ReplyBody::Endless { piece } => {
            let mut repeat = String::new();
            data(
                &mut repeat,
                &chunk(reply, ctx, vec![json!({"text": piece})], None),
            );
            sse(String::new(), repeat.into_bytes())
        }
        ReplyBody::Blocks(_) | ReplyBody::Json(_) => {
            let blocks = content_blocks(reply, ctx).unwrap_or_default();
            let finish = finish_reason(reply);
            if !stream {
                return json_response(
                    200,
                    &chunk(reply, ctx, parts(&blocks), Some(&finish)),
                    Vec::new(),
                );
            }
            let mut pieces: Vec<Vec<Value>> = Vec::new();
            for b in &blocks {
                match b {
                    Block::Text(t) => {
                        pieces.extend(
                            split_text(t, 3)
                                .into_iter()
                                .map(|p| vec![json!({"text": p})]),
                        );
                    }
                    Block::Thinking(t) => pieces.extend(
                        split_text(t, 2)
                            .into_iter()
                            .map(|p| vec![json!({"text": p, "thought": true})]),
                    ),
                    other => pieces.push(parts(std::slice::from_ref(other))),
                }
            }
            if pieces.is_empty() {
                pieces.push(vec![json!({"text": ""})]);
            }
            let last = pieces.len() - 1;
            let mut out = String::new();
            for (i, p) in pieces.into_iter().enumerate() {
                let finish = (i == last).then_some(finish.as_str());
                data(&mut out, &chunk(reply, ctx, p, finish));
            }
            sse(out, Vec::new())
        }
    }
}

fn sse(out: String, repeat: Vec<u8>) -> Rendered {
    Rendered {
        status: 200,
        headers: sse_headers(Vec::new()),
        body: out.into_bytes(),
        repeat,
    }
}

fn data(out: &mut String, v: &Value) {
    out.push_str("data: ");
    out.push_str(&v.to_string());
    out.push_str("\r\n\r\n");
}

/// Google's status name for an error kind (Anthropic's or OpenAI's words
/// are mapped; an upper-case name is taken as it is).
fn status_name(status: u16, kind: &str) -> String {
    if !kind.is_empty() && kind.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
        return kind.to_string();
    }
    match status {
        400 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        429 => "RESOURCE_EXHAUSTED",
        503 | 529 => "UNAVAILABLE",
        504 => "DEADLINE_EXCEEDED",
        _ => "INTERNAL",
    }
    .to_string()
}

pub(crate) fn error_body(status: u16, kind: &str, message: &str) -> Value {
    json!({"error": {"code": status, "message": message, "status": status_name(status, kind)}})
}

fn finish_reason(reply: &Reply) -> String {
    match reply.stop_reason.as_deref() {
        None | Some("end_turn" | "stop" | "tool_use" | "tool_calls" | "stop_sequence") => "STOP",
        Some("max_tokens" | "length") => "MAX_TOKENS",
        Some("refusal" | "content_filter") => "SAFETY",
        Some(other) => return other.to_string(),
    }
    .to_string()
}

fn parts(blocks: &[Block]) -> Vec<Value> {
    blocks
        .iter()
        .map(|b| match b {
            Block::Text(t) => json!({"text": t}),
            Block::Thinking(t) => json!({"text": t, "thought": true}),
            Block::ToolUse { name, input } => json!({"functionCall": {"name": name, "args": input}}),
            Block::RawToolUse { name, raw } => {
                json!({"functionCall": {"name": name, "args": serde_json::from_str::<Value>(raw).unwrap_or_else(|_| json!(raw))}})
            }
        })
        .collect()
}

fn usage_json(u: &Usage) -> Value {
    let prompt = u.input + u.cache_write + u.cache_read;
    let mut v = json!({
        "promptTokenCount": prompt,
        "candidatesTokenCount": u.output,
        "totalTokenCount": prompt + u.output,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}]
    });
    if u.cache_read > 0 {
        v["cachedContentTokenCount"] = json!(u.cache_read);
    }
    v
}

fn chunk(reply: &Reply, ctx: &RequestCtx<'_>, parts: Vec<Value>, finish: Option<&str>) -> Value {
    let mut candidate = json!({"content": {"parts": parts, "role": "model"}, "index": 0});
    if let Some(f) = finish {
        candidate["finishReason"] = json!(f);
    }
    json!({
        "candidates": [candidate],
        "usageMetadata": usage_json(&reply.usage),
        "modelVersion": reply.model.clone().unwrap_or_else(|| model_of(ctx)),
        "responseId": format!("testkit-{}", ctx.step)
    })
}

/// The model the request's path names (`…/models/NAME:method`).
fn model_of(ctx: &RequestCtx<'_>) -> String {
    ctx.path
        .rsplit_once("/models/")
        .and_then(|(_, rest)| rest.split(':').next())
        .filter(|m| !m.is_empty())
        .unwrap_or(DEFAULT_MODEL)
        .to_string()
}
