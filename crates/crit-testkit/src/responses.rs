//! OpenAI Responses API rendering (`POST …/v1/responses`), the only API
//! Codex CLI speaks.
//!
//! A streamed answer is the event sequence the service sends, each as
//! `event: TYPE` and `data: {…,"sequence_number":N}`: `response.created`,
//! `response.in_progress`; per output item `response.output_item.added`,
//! its deltas (`response.output_text.delta` inside a content part,
//! `response.function_call_arguments.delta`, `response.reasoning_summary_text.delta`
//! inside a summary part) and their `.done`, `response.output_item.done`
//! with the whole item; then `response.completed` with the whole response
//! and its usage. Codex reads the items from `response.output_item.done`
//! and needs `response.completed` before the stream ends.
//!
//! A tool name `NAMESPACE/NAME` calls tool `NAME` of a `namespace` tool (how
//! Codex offers an MCP server's tools): `{"namespace": NAMESPACE, "name": NAME}`.

use serde_json::{Value, json};

use crate::render::{
    Rendered, RequestCtx, content_blocks, json_response, sse_headers, stream_error_status,
};
use crate::reply::{Block, Reply, ReplyBody, Usage, openai_tool_id, split_text};

const DEFAULT_MODEL: &str = "gpt-testkit";
/// Fixed so that answers are byte-for-byte reproducible.
const CREATED: u64 = 1_763_683_200;

pub(crate) fn render(reply: &Reply, ctx: &RequestCtx<'_>) -> Rendered {
    let base_headers = vec![(
        "x-request-id".to_string(),
        format!("req_testkit_{}", ctx.seq),
    )];
    match &reply.body {
        ReplyBody::HttpError { status, body } => json_response(*status, body, base_headers),
        ReplyBody::ApiError {
            status,
            kind,
            message,
        } => json_response(*status, &error_body(kind, message), base_headers),
        ReplyBody::StreamError { kind, message } if !ctx.stream() => json_response(
            stream_error_status(kind),
            &error_body(kind, message),
            base_headers,
        ),
        ReplyBody::StreamError { kind, message } => {
            let mut s = Events::new(reply, ctx);
            s.start();
            let mut failed = s.response("failed", &[], None);
            failed["error"] = json!({"code": kind, "message": message});
            s.event("response.failed", json!({"response": failed}));
            sse(s.out, Vec::new(), base_headers)
        }
        ReplyBody::EndlessError { status } => crate::render::endless_error(*status),
        ReplyBody::Endless { piece } => {
            let mut head = Events::new(reply, ctx);
            head.start();
            head.event(
                "response.output_item.added",
                json!({"output_index": 0, "item": {"id": message_id(ctx, 0), "type": "message",
                    "status": "in_progress", "content": [], "role": "assistant"}}),
            );
            let mut repeat = Events::new(reply, ctx);
            repeat.event(
                "response.output_text.delta",
                json!({"item_id": message_id(ctx, 0), "output_index": 0, "content_index": 0,
                       "delta": piece, "logprobs": []}),
            );
            sse(head.out, repeat.out.into_bytes(), base_headers)
        }
        ReplyBody::Blocks(_) | ReplyBody::Json(_) => {
            let blocks = content_blocks(reply, ctx).unwrap_or_default();
            if ctx.stream() {
                let mut s = Events::new(reply, ctx);
                s.start();
                let items: Vec<Value> = items(ctx, &blocks)
                    .into_iter()
                    .enumerate()
                    .map(|(i, item)| s.item(i, item))
                    .collect();
                let done = s.response("completed", &items, Some(&reply.usage));
                s.event("response.completed", json!({"response": done}));
                sse(s.out, Vec::new(), base_headers)
            } else {
                let items = items(ctx, &blocks);
                let s = Events::new(reply, ctx);
                json_response(
                    200,
                    &s.response("completed", &items, Some(&reply.usage)),
                    base_headers,
                )
            }
        }
    }
}

fn sse(out: String, repeat: Vec<u8>, headers: Vec<(String, String)>) -> Rendered {
    Rendered {
        status: 200,
        headers: sse_headers(headers),
        body: out.into_bytes(),
        repeat,
    }
}

fn error_body(kind: &str, message: &str) -> Value {
    json!({"error":{"message":message,"type":kind,"param":null,"code":null}})
}

fn response_id(ctx: &RequestCtx<'_>) -> String {
    format!("resp_testkit_{}", ctx.step)
}

fn message_id(ctx: &RequestCtx<'_>, index: usize) -> String {
    format!("msg_testkit_{}_{index}", ctx.step)
}

/// The finished output items of an answer: a reasoning item for a thought, a
/// message for the text, a `function_call` per tool call.
fn items(ctx: &RequestCtx<'_>, blocks: &[Block]) -> Vec<Value> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut thought = String::new();
    let mut calls = Vec::new();
    for b in blocks {
        match b {
            Block::Text(t) => text.push_str(t),
            Block::Thinking(t) => thought.push_str(t),
            Block::ToolUse { name, input } => calls.push((name.clone(), input.to_string())),
            Block::RawToolUse { name, raw } => calls.push((name.clone(), raw.clone())),
        }
    }
    if !thought.is_empty() {
        out.push(
            json!({"id": format!("rs_testkit_{}", ctx.step), "type": "reasoning",
            "summary": [{"type": "summary_text", "text": thought}]}),
        );
    }
    if !text.is_empty() {
        out.push(
            json!({"id": message_id(ctx, out.len()), "type": "message", "status": "completed",
            "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": text}],
            "role": "assistant"}),
        );
    }
    for (i, (name, arguments)) in calls.into_iter().enumerate() {
        let mut call = json!({"id": format!("fc_testkit_{}_{i}", ctx.step), "type": "function_call",
            "status": "completed", "arguments": arguments,
            "call_id": openai_tool_id(ctx.step, i), "name": name});
        // A tool offered inside a `namespace` tool (Codex's MCP servers) is
        // called by its own name with the namespace beside it.
        if let Some((namespace, tool)) = name.split_once('/') {
            call["namespace"] = json!(namespace);
            call["name"] = json!(tool);
        }
        out.push(call);
    }
    out
}

fn usage_json(u: &Usage) -> Value {
    let input = u.input + u.cache_write + u.cache_read;
    json!({
        "input_tokens": input,
        "input_tokens_details": {"cached_tokens": u.cache_read},
        "output_tokens": u.output,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input + u.output
    })
}

/// The event stream being written, numbering its events.
struct Events<'a> {
    reply: &'a Reply,
    ctx: &'a RequestCtx<'a>,
    out: String,
    seq: u64,
}

impl<'a> Events<'a> {
    fn new(reply: &'a Reply, ctx: &'a RequestCtx<'a>) -> Self {
        Self {
            reply,
            ctx,
            out: String::new(),
            seq: 0,
        }
    }

    fn event(&mut self, kind: &str, mut data: Value) {
        if let Some(map) = data.as_object_mut() {
            let mut ordered = serde_json::Map::new();
            ordered.insert("type".into(), json!(kind));
            ordered.append(map);
            ordered.insert("sequence_number".into(), json!(self.seq));
            data = Value::Object(ordered);
        }
        self.seq += 1;
        self.out.push_str("event: ");
        self.out.push_str(kind);
        self.out.push_str("\ndata: ");
        self.out.push_str(&data.to_string());
        self.out.push_str("\n\n");
    }

    /// The response object in `status`, with these items.
    fn response(&self, status: &str, output: &[Value], usage: Option<&Usage>) -> Value {
        let body = self.ctx.body;
        let pick = |k: &str, default: Value| body.get(k).cloned().unwrap_or(default);
        json!({
            "id": response_id(self.ctx),
            "object": "response",
            "created_at": CREATED,
            "status": status,
            "background": false,
            "error": null,
            "incomplete_details": null,
            "instructions": pick("instructions", Value::Null),
            "max_output_tokens": pick("max_output_tokens", Value::Null),
            "model": self.ctx.model(self.reply, DEFAULT_MODEL),
            "output": output,
            "parallel_tool_calls": pick("parallel_tool_calls", json!(true)),
            "previous_response_id": pick("previous_response_id", Value::Null),
            "reasoning": pick("reasoning", json!({"effort": null, "summary": null})),
            "store": pick("store", json!(true)),
            "temperature": pick("temperature", json!(1.0)),
            "text": pick("text", json!({"format": {"type": "text"}})),
            "tool_choice": pick("tool_choice", json!("auto")),
            "tools": pick("tools", json!([])),
            "top_p": pick("top_p", json!(1.0)),
            "truncation": "disabled",
            "usage": usage.map(usage_json),
            "user": null,
            "metadata": {}
        })
    }

    fn start(&mut self) {
        let r = self.response("in_progress", &[], None);
        self.event("response.created", json!({"response": r.clone()}));
        self.event("response.in_progress", json!({"response": r}));
    }

    /// Streams one finished item at `index` as the service does, returns it.
    fn item(&mut self, index: usize, item: Value) -> Value {
        let id = item["id"].clone();
        let mut added = item.clone();
        match item["type"].as_str() {
            Some("message") => {
                added["status"] = json!("in_progress");
                added["content"] = json!([]);
                self.event(
                    "response.output_item.added",
                    json!({"output_index": index, "item": added}),
                );
                let text = item["content"][0]["text"].as_str().unwrap_or_default();
                let at = json!({"item_id": id, "output_index": index, "content_index": 0});
                let empty =
                    json!({"type": "output_text", "annotations": [], "logprobs": [], "text": ""});
                self.event(
                    "response.content_part.added",
                    merge(&at, json!({"part": empty})),
                );
                for piece in split_text(text, 3) {
                    self.event(
                        "response.output_text.delta",
                        merge(&at, json!({"delta": piece, "logprobs": []})),
                    );
                }
                self.event(
                    "response.output_text.done",
                    merge(&at, json!({"text": text, "logprobs": []})),
                );
                self.event(
                    "response.content_part.done",
                    merge(&at, json!({"part": item["content"][0].clone()})),
                );
            }
            Some("function_call") => {
                added["status"] = json!("in_progress");
                added["arguments"] = json!("");
                self.event(
                    "response.output_item.added",
                    json!({"output_index": index, "item": added}),
                );
                let args = item["arguments"].as_str().unwrap_or_default();
                let at = json!({"item_id": id, "output_index": index});
                for piece in split_text(args, 3) {
                    self.event(
                        "response.function_call_arguments.delta",
                        merge(&at, json!({"delta": piece})),
                    );
                }
                self.event(
                    "response.function_call_arguments.done",
                    merge(&at, json!({"arguments": args})),
                );
            }
            _ => {
                added["summary"] = json!([]);
                self.event(
                    "response.output_item.added",
                    json!({"output_index": index, "item": added}),
                );
                let text = item["summary"][0]["text"].as_str().unwrap_or_default();
                let at = json!({"item_id": id, "output_index": index, "summary_index": 0});
                let empty = json!({"type": "summary_text", "text": ""});
                self.event(
                    "response.reasoning_summary_part.added",
                    merge(&at, json!({"part": empty})),
                );
                for piece in split_text(text, 2) {
                    self.event(
                        "response.reasoning_summary_text.delta",
                        merge(&at, json!({"delta": piece})),
                    );
                }
                self.event(
                    "response.reasoning_summary_text.done",
                    merge(&at, json!({"text": text})),
                );
                self.event(
                    "response.reasoning_summary_part.done",
                    merge(&at, json!({"part": item["summary"][0].clone()})),
                );
            }
        }
        self.event(
            "response.output_item.done",
            json!({"output_index": index, "item": item.clone()}),
        );
        item
    }
}

/// `base`'s fields followed by `more`'s.
fn merge(base: &Value, more: Value) -> Value {
    let mut out = base.clone();
    if let (Some(o), Value::Object(m)) = (out.as_object_mut(), more) {
        o.extend(m);
    }
    out
}
