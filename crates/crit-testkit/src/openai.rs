//! OpenAI chat completions rendering.

use serde_json::{Map, Value, json};

use crate::render::{
    Rendered, RequestCtx, content_blocks, default_stop_reason, json_response, sse_headers,
    stream_error_status,
};
use crate::reply::{
    Block, Reply, ReplyBody, Usage, openai_finish_reason, openai_tool_id, split_text,
};

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
            let mut out = String::new();
            let chunk = Chunker { reply, ctx };
            data(
                &mut out,
                &chunk.delta(json!({"role":"assistant","content":null}), None),
            );
            data(&mut out, &chunk.delta(json!({"content":"Partial"}), None));
            data(&mut out, &error_body(kind, message));
            Rendered {
                status: 200,
                headers: sse_headers(base_headers),
                body: out.into_bytes(),
                repeat: Vec::new(),
            }
        }
        ReplyBody::EndlessError { status } => crate::render::endless_error(*status),
        ReplyBody::Endless { piece } => {
            let chunk = Chunker { reply, ctx };
            let mut head = String::new();
            data(
                &mut head,
                &chunk.delta(json!({"role":"assistant","content":null}), None),
            );
            let mut repeat = String::new();
            data(&mut repeat, &chunk.delta(json!({"content":piece}), None));
            Rendered {
                status: 200,
                headers: sse_headers(base_headers),
                body: head.into_bytes(),
                repeat: repeat.into_bytes(),
            }
        }
        ReplyBody::Blocks(_) | ReplyBody::Json(_) => {
            let blocks = content_blocks(reply, ctx).unwrap_or_default();
            let finish = openai_finish_reason(
                reply
                    .stop_reason
                    .as_deref()
                    .unwrap_or_else(|| default_stop_reason(&blocks)),
            );
            if ctx.stream() {
                Rendered {
                    status: 200,
                    headers: sse_headers(base_headers),
                    body: stream_chunks(reply, ctx, &blocks, &finish).into_bytes(),
                    repeat: Vec::new(),
                }
            } else {
                json_response(200, &completion(reply, ctx, &blocks, &finish), base_headers)
            }
        }
    }
}

fn error_body(kind: &str, message: &str) -> Value {
    json!({"error":{"message":message,"type":kind,"param":null,"code":null}})
}

fn completion_id(ctx: &RequestCtx<'_>) -> String {
    format!("chatcmpl-testkit-{}", ctx.step)
}

fn usage_json(u: &Usage) -> Value {
    let prompt = u.input + u.cache_write + u.cache_read;
    let mut v = json!({
        "prompt_tokens": prompt,
        "completion_tokens": u.output,
        "total_tokens": prompt + u.output,
        "prompt_tokens_details": {"cached_tokens": u.cache_read, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
            "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}
    });
    // openai 3.54 knows `prompt_tokens_details.cache_write_tokens`; sent only
    // when there were cache writes, as most servers never send it.
    if u.cache_write > 0
        && let Some(details) = v
            .get_mut("prompt_tokens_details")
            .and_then(Value::as_object_mut)
    {
        details.insert("cache_write_tokens".into(), json!(u.cache_write));
    }
    v
}

fn texts(blocks: &[Block]) -> (Option<String>, Option<String>) {
    let mut text: Option<String> = None;
    let mut thought: Option<String> = None;
    for b in blocks {
        match b {
            Block::Text(t) => text.get_or_insert_with(String::new).push_str(t),
            Block::Thinking(t) => thought.get_or_insert_with(String::new).push_str(t),
            Block::ToolUse { .. } | Block::RawToolUse { .. } => {}
        }
    }
    (text, thought)
}

/// Each call's name and its `arguments` text.
fn tool_calls(blocks: &[Block]) -> Vec<(&str, String)> {
    blocks
        .iter()
        .filter_map(|b| match b {
            Block::ToolUse { name, input } => Some((name.as_str(), input.to_string())),
            Block::RawToolUse { name, raw } => Some((name.as_str(), raw.clone())),
            _ => None,
        })
        .collect()
}

fn completion(reply: &Reply, ctx: &RequestCtx<'_>, blocks: &[Block], finish: &str) -> Value {
    let (text, thought) = texts(blocks);
    let mut message = Map::new();
    message.insert("role".into(), json!("assistant"));
    message.insert("content".into(), json!(text));
    message.insert("refusal".into(), Value::Null);
    if let Some(t) = thought {
        message.insert("reasoning_content".into(), json!(t));
    }
    let calls: Vec<Value> = tool_calls(blocks)
        .into_iter()
        .enumerate()
        .map(|(i, (name, input))| {
            json!({"id":openai_tool_id(ctx.step, i),"type":"function",
                   "function":{"name":name,"arguments":input}})
        })
        .collect();
    if !calls.is_empty() {
        message.insert("tool_calls".into(), Value::Array(calls));
    }
    json!({
        "id": completion_id(ctx),
        "object": "chat.completion",
        "created": CREATED,
        "model": ctx.model(reply, DEFAULT_MODEL),
        "choices": [{"index":0,"message":message,"logprobs":null,"finish_reason":finish}],
        "usage": usage_json(&reply.usage),
        "system_fingerprint": null
    })
}

fn data(out: &mut String, v: &Value) {
    out.push_str("data: ");
    out.push_str(&v.to_string());
    out.push_str("\n\n");
}

struct Chunker<'a> {
    reply: &'a Reply,
    ctx: &'a RequestCtx<'a>,
}

impl Chunker<'_> {
    fn base(&self, choices: Value) -> Value {
        let mut v = json!({
            "id": completion_id(self.ctx),
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": self.ctx.model(self.reply, DEFAULT_MODEL),
            "system_fingerprint": null,
            "choices": choices,
        });
        if self.ctx.include_usage()
            && let Some(map) = v.as_object_mut()
        {
            map.insert("usage".into(), Value::Null);
        }
        v
    }

    fn delta(&self, delta: Value, finish: Option<&str>) -> Value {
        self.base(json!([{"index":0,"delta":delta,"logprobs":null,"finish_reason":finish}]))
    }
}

fn stream_chunks(reply: &Reply, ctx: &RequestCtx<'_>, blocks: &[Block], finish: &str) -> String {
    let chunk = Chunker { reply, ctx };
    let mut out = String::new();
    data(
        &mut out,
        &chunk.delta(json!({"role":"assistant","content":null}), None),
    );
    let (text, thought) = texts(blocks);
    for piece in split_text(thought.as_deref().unwrap_or(""), 2) {
        data(
            &mut out,
            &chunk.delta(json!({"reasoning_content":piece}), None),
        );
    }
    for piece in split_text(text.as_deref().unwrap_or(""), 3) {
        data(&mut out, &chunk.delta(json!({"content":piece}), None));
    }
    for (i, (name, input)) in tool_calls(blocks).into_iter().enumerate() {
        // id, type and name arrive only on the first fragment of a call.
        data(
            &mut out,
            &chunk.delta(
                json!({"tool_calls":[{"index":i,"id":openai_tool_id(ctx.step, i),"type":"function",
                                      "function":{"name":name,"arguments":""}}]}),
                None,
            ),
        );
        for piece in split_text(&input, 3) {
            data(
                &mut out,
                &chunk.delta(
                    json!({"tool_calls":[{"index":i,"function":{"arguments":piece}}]}),
                    None,
                ),
            );
        }
    }
    data(&mut out, &chunk.delta(json!({}), Some(finish)));
    if ctx.include_usage() {
        let mut last = chunk.base(json!([]));
        if let Some(map) = last.as_object_mut() {
            map.insert("usage".into(), usage_json(&reply.usage));
        }
        data(&mut out, &last);
    }
    out.push_str("data: [DONE]\n\n");
    out
}
