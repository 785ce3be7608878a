//! Normalized request → OpenAI chat completions body.

use serde_json::{Map, Value, json};

use crate::protocol::{Block, ModelRequest, Role, ToolChoice};

/// The request body. Thinking blocks are dropped (no such input on this API), the
/// system blocks become one system message, each tool result its own `tool` message.
pub fn body(req: &ModelRequest) -> Value {
    let mut messages = Vec::new();
    if !req.system.is_empty() {
        let text: Vec<&str> = req.system.iter().map(|s| s.text.as_str()).collect();
        messages.push(json!({"role": "system", "content": text.join("\n\n")}));
    }
    for m in &req.messages {
        match m.role {
            Role::User => user_messages(&m.content, &mut messages),
            Role::Assistant => messages.push(assistant_message(&m.content)),
        }
    }
    let mut b = Map::new();
    b.insert("model".into(), json!(req.model));
    b.insert("messages".into(), Value::Array(messages));
    if !req.tools.is_empty() {
        let tools: Vec<Value> = req
            .tools
            .iter()
            .map(|t| {
                let mut f = json!({"name": t.name, "description": t.description, "parameters": t.input_schema});
                if t.strict {
                    f["strict"] = json!(true);
                }
                json!({"type": "function", "function": f})
            })
            .collect();
        b.insert("tools".into(), Value::Array(tools));
        b.insert(
            "tool_choice".into(),
            match &req.tool_choice {
                ToolChoice::Auto => json!("auto"),
                ToolChoice::Any => json!("required"),
                ToolChoice::None => json!("none"),
                ToolChoice::Tool(name) => json!({"type": "function", "function": {"name": name}}),
            },
        );
    }
    if let Some(schema) = &req.output_schema {
        b.insert(
            "response_format".into(),
            json!({"type": "json_schema", "json_schema": {"name": schema.name, "strict": true, "schema": schema.schema}}),
        );
    }
    if !req.stop_sequences.is_empty() {
        b.insert("stop".into(), json!(req.stop_sequences));
    }
    b.insert("max_completion_tokens".into(), json!(req.max_tokens));
    if let Some(t) = req.temperature {
        b.insert("temperature".into(), json!(t));
    }
    b.insert("stream".into(), json!(true));
    b.insert("stream_options".into(), json!({"include_usage": true}));
    Value::Object(b)
}

fn user_messages(blocks: &[Block], out: &mut Vec<Value>) {
    let mut text = String::new();
    for b in blocks {
        match b {
            Block::Text { text: t, .. } => {
                if !text.is_empty() {
                    text.push_str("\n\n");
                }
                text.push_str(t);
            }
            Block::ToolResult {
                tool_use_id,
                content,
                is_error,
                ..
            } => {
                // No is_error field on this API: say it in the content.
                let content = if *is_error {
                    format!("Error: {content}")
                } else {
                    content.clone()
                };
                out.push(json!({"role": "tool", "tool_call_id": tool_use_id, "content": content}));
            }
            _ => {}
        }
    }
    if !text.is_empty() {
        out.push(json!({"role": "user", "content": text}));
    }
}

fn assistant_message(blocks: &[Block]) -> Value {
    let mut text = String::new();
    let mut calls = Vec::new();
    for b in blocks {
        match b {
            Block::Text { text: t, .. } => text.push_str(t),
            Block::ToolUse { id, name, input } => calls.push(json!({
                "id": id, "type": "function",
                "function": {"name": name, "arguments": input.to_string()}
            })),
            _ => {}
        }
    }
    let mut m = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { json!(text) }});
    if !calls.is_empty() {
        m["tool_calls"] = Value::Array(calls);
    }
    m
}
