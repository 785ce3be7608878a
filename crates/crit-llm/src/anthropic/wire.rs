//! Normalized request → Anthropic Messages request body.
//! No sampling parameter is sent unless the request sets one (newer models
//! reject some); only a benchmark's judge does, with temperature 0.

use serde_json::{Map, Value, json};

use crate::protocol::{Block, Message, ModelRequest, Role, Thinking, ToolChoice};

/// The tool that carries structured output when the model has no native support.
pub const FORCED_TOOL: &str = "StructuredOutput";

fn cache_control() -> Value {
    json!({"type": "ephemeral"})
}

/// The request body. `native_schema`: use `output_config.format`; otherwise a
/// forced tool call carries the schema.
pub fn body(req: &ModelRequest, model_id: &str, native_schema: bool) -> Value {
    let mut b = Map::new();
    b.insert("model".into(), json!(model_id));
    b.insert("max_tokens".into(), json!(req.max_tokens));
    if let Some(t) = req.temperature {
        b.insert("temperature".into(), json!(t));
    }
    if !req.system.is_empty() {
        let blocks: Vec<Value> = req
            .system
            .iter()
            .map(|s| {
                let mut o = json!({"type": "text", "text": s.text});
                if s.cache {
                    o["cache_control"] = cache_control();
                }
                o
            })
            .collect();
        b.insert("system".into(), Value::Array(blocks));
    }
    b.insert(
        "messages".into(),
        Value::Array(req.messages.iter().map(message).collect()),
    );

    let mut tools: Vec<Value> = req
        .tools
        .iter()
        .map(|t| {
            let mut o = json!({"name": t.name, "description": t.description, "input_schema": t.input_schema});
            if t.strict {
                o["strict"] = json!(true);
            }
            o
        })
        .collect();
    let mut tool_choice = match &req.tool_choice {
        ToolChoice::Auto => None,
        ToolChoice::Any => Some(json!({"type": "any"})),
        ToolChoice::None => Some(json!({"type": "none"})),
        ToolChoice::Tool(name) => Some(json!({"type": "tool", "name": name})),
    };
    let mut thinking = req.thinking;
    match &req.output_schema {
        Some(schema) if native_schema => {
            b.insert(
                "output_config".into(),
                json!({"format": {"type": "json_schema", "schema": schema.schema}}),
            );
        }
        Some(schema) => {
            tools.push(json!({
                "name": FORCED_TOOL,
                "description": "Use this tool to return your final response in the requested structured format. You MUST call this tool exactly once.",
                "input_schema": schema.schema,
            }));
            tool_choice = Some(json!({"type": "tool", "name": FORCED_TOOL}));
            // The API refuses extended thinking together with a forced tool call.
            if !matches!(thinking, Some(Thinking::Disabled) | None) {
                tracing::debug!("thinking dropped: a forced tool call carries the output schema");
                thinking = None;
            }
        }
        None => {}
    }
    if req.cache_tools
        && let Some(Value::Object(last)) = tools.last_mut()
    {
        last.insert("cache_control".into(), cache_control());
    }
    if !tools.is_empty() {
        b.insert("tools".into(), Value::Array(tools));
    }
    if let Some(tc) = tool_choice {
        b.insert("tool_choice".into(), tc);
    }
    if !req.stop_sequences.is_empty() {
        b.insert("stop_sequences".into(), json!(req.stop_sequences));
    }
    if let Some(t) = thinking {
        b.insert(
            "thinking".into(),
            match t {
                Thinking::Adaptive => json!({"type": "adaptive"}),
                Thinking::Enabled { budget_tokens } => {
                    json!({"type": "enabled", "budget_tokens": budget_tokens})
                }
                Thinking::Disabled => json!({"type": "disabled"}),
            },
        );
    }
    b.insert("stream".into(), json!(true));
    Value::Object(b)
}

fn message(m: &Message) -> Value {
    let role = match m.role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    json!({"role": role, "content": m.content.iter().map(block).collect::<Vec<_>>()})
}

fn block(b: &Block) -> Value {
    match b {
        Block::Text { text, cache } => {
            let mut o = json!({"type": "text", "text": text});
            if *cache {
                o["cache_control"] = cache_control();
            }
            o
        }
        Block::ToolUse { id, name, input } => {
            json!({"type": "tool_use", "id": id, "name": name, "input": input})
        }
        Block::ToolResult {
            tool_use_id,
            content,
            is_error,
            cache,
        } => {
            let mut o =
                json!({"type": "tool_result", "tool_use_id": tool_use_id, "content": content});
            if *is_error {
                o["is_error"] = json!(true);
            }
            if *cache {
                o["cache_control"] = cache_control();
            }
            o
        }
        Block::Thinking {
            thinking,
            signature,
        } => json!({"type": "thinking", "thinking": thinking, "signature": signature}),
        Block::RedactedThinking { data } => json!({"type": "redacted_thinking", "data": data}),
    }
}
