//! Anthropic Messages rendering.

use serde_json::{Value, json};

use crate::render::{
    Rendered, RequestCtx, content_blocks, default_stop_reason, json_response, sse_headers,
    stream_error_status,
};
use crate::reply::{
    Block, Reply, ReplyBody, Usage, anthropic_stop_reason, anthropic_tool_id, split_text,
};

const DEFAULT_MODEL: &str = "claude-opus-5-5";
const RESET: &str = "2026-01-01T00:00:00Z";

pub(crate) fn render(reply: &Reply, ctx: &RequestCtx<'_>) -> Rendered {
    let request_id = format!("req_testkit_{}", ctx.seq);
    let mut base_headers = vec![("request-id".to_string(), request_id.clone())];
    // The real API sends these on every response (overridable with_header).
    for (kind, limit) in [("requests", "4000"), ("tokens", "2000000")] {
        for (field, value) in [("limit", limit), ("remaining", limit), ("reset", RESET)] {
            base_headers.push((
                format!("anthropic-ratelimit-{kind}-{field}"),
                value.to_string(),
            ));
        }
    }
    match &reply.body {
        ReplyBody::HttpError { status, body } => json_response(*status, body, base_headers),
        ReplyBody::ApiError {
            status,
            kind,
            message,
        } => json_response(
            *status,
            &error_body(kind, message, &request_id),
            base_headers,
        ),
        ReplyBody::StreamError { kind, message } if !ctx.stream() => json_response(
            stream_error_status(kind),
            &error_body(kind, message, &request_id),
            base_headers,
        ),
        ReplyBody::StreamError { kind, message } => Rendered {
            status: 200,
            headers: sse_headers(base_headers),
            body: stream_error_events(reply, ctx, kind, message, &request_id).into_bytes(),
            repeat: Vec::new(),
        },
        ReplyBody::EndlessError { status } => crate::render::endless_error(*status),
        ReplyBody::Endless { piece } => {
            let mut head = String::new();
            message_start(&mut head, reply, ctx);
            event(
                &mut head,
                "content_block_start",
                &json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}),
            );
            ping(&mut head);
            let mut repeat = String::new();
            delta(&mut repeat, 0, json!({"type":"text_delta","text":piece}));
            Rendered {
                status: 200,
                headers: sse_headers(base_headers),
                body: head.into_bytes(),
                repeat: repeat.into_bytes(),
            }
        }
        ReplyBody::Blocks(_) | ReplyBody::Json(_) => {
            let blocks = content_blocks(reply, ctx).unwrap_or_default();
            let stop = reply
                .stop_reason
                .as_deref()
                .map(anthropic_stop_reason)
                .unwrap_or_else(|| default_stop_reason(&blocks).to_string());
            if ctx.stream() {
                Rendered {
                    status: 200,
                    headers: sse_headers(base_headers),
                    body: stream_events(reply, ctx, &blocks, &stop).into_bytes(),
                    repeat: Vec::new(),
                }
            } else {
                json_response(200, &message_json(reply, ctx, &blocks, &stop), base_headers)
            }
        }
    }
}

fn error_body(kind: &str, message: &str, request_id: &str) -> Value {
    json!({"type":"error","error":{"type":kind,"message":message},"request_id":request_id})
}

fn message_id(ctx: &RequestCtx<'_>) -> String {
    format!("msg_testkit_{}", ctx.step)
}

fn signature(step: usize, index: usize) -> String {
    format!("c2lnX3Rlc3RraXQ{step}x{index}")
}

fn block_json(block: &Block, step: usize, index: usize) -> Value {
    match block {
        Block::Text(t) => json!({"type":"text","text":t}),
        Block::Thinking(t) => {
            json!({"type":"thinking","thinking":t,"signature":signature(step, index)})
        }
        Block::ToolUse { name, input } => json!({
            "type":"tool_use","id":anthropic_tool_id(step, index),"name":name,"input":input
        }),
        Block::RawToolUse { name, raw } => json!({
            "type":"tool_use","id":anthropic_tool_id(step, index),"name":name,"input":raw
        }),
    }
}

fn full_usage(u: &Usage) -> Value {
    json!({
        "input_tokens": u.input,
        "output_tokens": u.output,
        "cache_creation_input_tokens": u.cache_write,
        "cache_read_input_tokens": u.cache_read,
        "cache_creation": {"ephemeral_5m_input_tokens": u.cache_write, "ephemeral_1h_input_tokens": 0},
        "service_tier": "standard"
    })
}

fn message_json(reply: &Reply, ctx: &RequestCtx<'_>, blocks: &[Block], stop: &str) -> Value {
    let content: Vec<Value> = blocks
        .iter()
        .enumerate()
        .map(|(i, b)| block_json(b, ctx.step, i))
        .collect();
    json!({
        "id": message_id(ctx),
        "type": "message",
        "role": "assistant",
        "model": ctx.model(reply, DEFAULT_MODEL),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": null,
        "usage": full_usage(&reply.usage),
    })
}

fn event(out: &mut String, name: &str, data: &Value) {
    out.push_str("event: ");
    out.push_str(name);
    out.push_str("\ndata: ");
    out.push_str(&data.to_string());
    out.push_str("\n\n");
}

fn message_start(out: &mut String, reply: &Reply, ctx: &RequestCtx<'_>) {
    let u = &reply.usage;
    event(
        out,
        "message_start",
        &json!({"type":"message_start","message":{
            "id": message_id(ctx), "type":"message", "role":"assistant",
            "model": ctx.model(reply, DEFAULT_MODEL), "content": [],
            "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens":u.input,"cache_creation_input_tokens":u.cache_write,
                      "cache_read_input_tokens":u.cache_read,"output_tokens":1}}}),
    );
}

fn ping(out: &mut String) {
    event(out, "ping", &json!({"type":"ping"}));
}

fn delta(out: &mut String, index: usize, delta: Value) {
    event(
        out,
        "content_block_delta",
        &json!({"type":"content_block_delta","index":index,"delta":delta}),
    );
}

fn stream_events(reply: &Reply, ctx: &RequestCtx<'_>, blocks: &[Block], stop: &str) -> String {
    let mut out = String::new();
    message_start(&mut out, reply, ctx);
    for (index, block) in blocks.iter().enumerate() {
        let start = match block {
            Block::Text(_) => json!({"type":"text","text":""}),
            Block::Thinking(_) => json!({"type":"thinking","thinking":""}),
            Block::ToolUse { name, .. } | Block::RawToolUse { name, .. } => json!({
                "type":"tool_use","id":anthropic_tool_id(ctx.step, index),"name":name,"input":{}
            }),
        };
        event(
            &mut out,
            "content_block_start",
            &json!({"type":"content_block_start","index":index,"content_block":start}),
        );
        if index == 0 {
            ping(&mut out);
        }
        match block {
            Block::Text(t) => {
                for piece in split_text(t, 3) {
                    delta(&mut out, index, json!({"type":"text_delta","text":piece}));
                }
            }
            Block::Thinking(t) => {
                for piece in split_text(t, 2) {
                    delta(
                        &mut out,
                        index,
                        json!({"type":"thinking_delta","thinking":piece}),
                    );
                }
                delta(
                    &mut out,
                    index,
                    json!({"type":"signature_delta","signature":signature(ctx.step, index)}),
                );
            }
            Block::ToolUse { .. } | Block::RawToolUse { .. } => {
                let text = match block {
                    Block::RawToolUse { raw, .. } => raw.clone(),
                    Block::ToolUse { input, .. } => input.to_string(),
                    _ => String::new(),
                };
                // The real API often opens with an empty fragment.
                delta(
                    &mut out,
                    index,
                    json!({"type":"input_json_delta","partial_json":""}),
                );
                for piece in split_text(&text, 3) {
                    delta(
                        &mut out,
                        index,
                        json!({"type":"input_json_delta","partial_json":piece}),
                    );
                }
            }
        }
        event(
            &mut out,
            "content_block_stop",
            &json!({"type":"content_block_stop","index":index}),
        );
    }
    ping(&mut out);
    let u = &reply.usage;
    event(
        &mut out,
        "message_delta",
        &json!({"type":"message_delta","delta":{"stop_reason":stop,"stop_sequence":null},
                "usage":{"input_tokens":u.input,"cache_creation_input_tokens":u.cache_write,
                         "cache_read_input_tokens":u.cache_read,"output_tokens":u.output}}),
    );
    event(&mut out, "message_stop", &json!({"type":"message_stop"}));
    out
}

fn stream_error_events(
    reply: &Reply,
    ctx: &RequestCtx<'_>,
    kind: &str,
    message: &str,
    request_id: &str,
) -> String {
    let mut out = String::new();
    message_start(&mut out, reply, ctx);
    event(
        &mut out,
        "content_block_start",
        &json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}),
    );
    ping(&mut out);
    delta(&mut out, 0, json!({"type":"text_delta","text":"Partial"}));
    event(&mut out, "error", &error_body(kind, message, request_id));
    out
}
