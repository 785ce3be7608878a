//! Anthropic's SSE events → normalized events.

use std::collections::BTreeMap;

use crit_core::Usage;
use serde_json::Value;

use crate::error::LlmError;
use crate::pricing;
use crate::protocol::{ModelEvent, StopReason};
use crate::sse::SseEvent;
use crate::transport::WireDecoder;

use super::wire::FORCED_TOOL;

enum Open {
    Text,
    Tool {
        id: String,
        name: String,
        json: String,
        start_input: Value,
    },
    Thinking {
        text: String,
        signature: String,
    },
    Redacted(String),
    Other,
}

pub(super) struct Decoder {
    /// The model asked for, priced when the stream does not name one.
    request_model: String,
    model: String,
    /// A forced structured-output tool call is turned back into text.
    forced_tool: bool,
    usage: Usage,
    open: BTreeMap<u64, Open>,
    stop: Option<StopReason>,
    done: bool,
}

impl Decoder {
    pub(super) fn new(request_model: &str, forced_tool: bool) -> Self {
        Decoder {
            request_model: request_model.to_string(),
            model: String::new(),
            forced_tool,
            usage: Usage::default(),
            open: BTreeMap::new(),
            stop: None,
            done: false,
        }
    }

    fn parse(ev: &SseEvent) -> Result<Value, LlmError> {
        serde_json::from_str(&ev.data).map_err(|e| LlmError::Parse {
            message: format!("bad `{}` event: {e}", ev.event),
        })
    }

    /// Cumulative usage fields: those present replace what we had.
    fn merge_usage(&mut self, u: &Value) {
        let get = |k: &str| u.get(k).and_then(Value::as_u64);
        if let Some(v) = get("input_tokens") {
            self.usage.input_tokens = v;
        }
        if let Some(v) = get("output_tokens") {
            self.usage.output_tokens = v;
        }
        if let Some(v) = get("cache_creation_input_tokens") {
            self.usage.cache_write_tokens = v;
        }
        if let Some(v) = get("cache_read_input_tokens") {
            self.usage.cache_read_tokens = v;
        }
    }

    fn block_start(&mut self, v: &Value) -> Vec<ModelEvent> {
        let index = v["index"].as_u64().unwrap_or(0);
        let cb = &v["content_block"];
        let s = |k: &str| cb[k].as_str().unwrap_or_default().to_string();
        let (open, out) = match cb["type"].as_str().unwrap_or_default() {
            "text" => {
                let text = s("text");
                let out = if text.is_empty() {
                    vec![]
                } else {
                    vec![ModelEvent::TextDelta { text }]
                };
                (Open::Text, out)
            }
            "tool_use" => (
                Open::Tool {
                    id: s("id"),
                    name: s("name"),
                    json: String::new(),
                    start_input: cb.get("input").cloned().unwrap_or(Value::Null),
                },
                vec![],
            ),
            "thinking" => (
                Open::Thinking {
                    text: s("thinking"),
                    signature: s("signature"),
                },
                vec![],
            ),
            "redacted_thinking" => (Open::Redacted(s("data")), vec![]),
            _ => (Open::Other, vec![]),
        };
        self.open.insert(index, open);
        out
    }

    fn block_delta(&mut self, v: &Value) -> Vec<ModelEvent> {
        let index = v["index"].as_u64().unwrap_or(0);
        let d = &v["delta"];
        let text = |k: &str| d[k].as_str().unwrap_or_default().to_string();
        match (
            self.open.get_mut(&index),
            d["type"].as_str().unwrap_or_default(),
        ) {
            (_, "text_delta") => vec![ModelEvent::TextDelta { text: text("text") }],
            (Some(Open::Tool { json, .. }), "input_json_delta") => {
                json.push_str(d["partial_json"].as_str().unwrap_or_default());
                vec![]
            }
            (Some(Open::Thinking { text: t, .. }), "thinking_delta") => {
                let piece = text("thinking");
                t.push_str(&piece);
                vec![ModelEvent::ThinkingDelta { text: piece }]
            }
            (Some(Open::Thinking { signature, .. }), "signature_delta") => {
                signature.push_str(d["signature"].as_str().unwrap_or_default());
                vec![]
            }
            // citations_delta and future delta types carry nothing we keep.
            _ => vec![],
        }
    }

    fn block_stop(&mut self, v: &Value) -> Result<Vec<ModelEvent>, LlmError> {
        let index = v["index"].as_u64().unwrap_or(0);
        Ok(match self.open.remove(&index) {
            Some(Open::Tool {
                id,
                name,
                json,
                start_input,
            }) => {
                let input = if json.trim().is_empty() {
                    Ok(match start_input {
                        Value::Null => Value::Object(Default::default()),
                        v => v,
                    })
                } else {
                    serde_json::from_str::<Value>(&json)
                };
                match input {
                    // The forced structured-output call is the answer itself: as
                    // text, a malformed one fails the answer contract (UNKNOWN).
                    Ok(input) if self.forced_tool && name == FORCED_TOOL => {
                        vec![ModelEvent::TextDelta {
                            text: input.to_string(),
                        }]
                    }
                    Err(_) if self.forced_tool && name == FORCED_TOOL => {
                        vec![ModelEvent::TextDelta { text: json }]
                    }
                    Ok(input) => vec![ModelEvent::ToolCall { id, name, input }],
                    // One bad call must not sink the answer: the loop tells the
                    // model its input was not JSON.
                    Err(e) => vec![ModelEvent::MalformedToolCall {
                        id,
                        name,
                        error: e.to_string(),
                    }],
                }
            }
            Some(Open::Thinking { text, signature }) => vec![ModelEvent::Thinking {
                thinking: text,
                signature,
            }],
            Some(Open::Redacted(data)) => vec![ModelEvent::RedactedThinking { data }],
            _ => vec![],
        })
    }
}

impl WireDecoder for Decoder {
    fn event(&mut self, ev: SseEvent) -> Result<Vec<ModelEvent>, LlmError> {
        match ev.event.as_str() {
            "message_start" => {
                let v = Self::parse(&ev)?;
                let m = &v["message"];
                self.model = m["model"].as_str().unwrap_or_default().to_string();
                self.merge_usage(&m["usage"]);
                Ok(vec![
                    ModelEvent::MessageStart {
                        id: m["id"].as_str().map(str::to_string),
                        model: self.model.clone(),
                    },
                    ModelEvent::Usage { usage: self.usage },
                ])
            }
            "content_block_start" => Ok(self.block_start(&Self::parse(&ev)?)),
            "content_block_delta" => Ok(self.block_delta(&Self::parse(&ev)?)),
            "content_block_stop" => self.block_stop(&Self::parse(&ev)?),
            "message_delta" => {
                let v = Self::parse(&ev)?;
                if let Some(r) = v["delta"]["stop_reason"].as_str() {
                    self.stop = Some(StopReason::from_wire(r));
                }
                self.merge_usage(&v["usage"]);
                Ok(vec![ModelEvent::Usage { usage: self.usage }])
            }
            "message_stop" => {
                self.done = true;
                Ok(vec![])
            }
            "error" => {
                let v = Self::parse(&ev)?;
                Err(LlmError::from_stream_error(&v))
            }
            // ping, and event types added after this was written.
            _ => Ok(vec![]),
        }
    }

    fn done(&self) -> bool {
        self.done
    }

    fn finish(&mut self) -> Result<Vec<ModelEvent>, LlmError> {
        let mut out = Vec::new();
        let mut stop = self.stop.take();
        if self.forced_tool && stop == Some(StopReason::ToolUse) {
            stop = Some(StopReason::EndTurn);
        }
        if let Some(reason) = stop {
            out.push(ModelEvent::Stop { reason });
        }
        let model = if self.model.is_empty() {
            &self.request_model
        } else {
            &self.model
        };
        out.push(ModelEvent::MessageEnd {
            cost: pricing::cost(model, &self.usage),
        });
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ModelResponse;
    use crate::sse::SseDecoder;

    fn run(raw: &str, forced: bool) -> Result<ModelResponse, LlmError> {
        let mut d = Decoder::new("claude-opus-5-5", forced);
        let mut sse = SseDecoder::new();
        let mut resp = ModelResponse::default();
        let mut evs = sse.push(raw.as_bytes());
        evs.extend(sse.finish());
        for e in evs {
            for m in d.event(e)? {
                resp.apply(m);
            }
        }
        assert!(d.done());
        for m in d.finish()? {
            resp.apply(m);
        }
        Ok(resp)
    }

    const TOOL: &str = concat!(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"model\":\"claude-opus-5-5\",\"usage\":{\"input_tokens\":95,\"cache_creation_input_tokens\":10,\"cache_read_input_tokens\":20,\"output_tokens\":1}}}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
        "event: ping\ndata: {\"type\":\"ping\"}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Let me r\"}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ead.\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"Read\",\"input\":{}}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"file_pat\"}}\n\n",
        "event: brand_new_event\ndata: {\"type\":\"brand_new_event\"}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"h\\\":\\\"/x.rs\\\"}\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":40}}\n\n",
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
    );

    #[test]
    fn text_then_tool_call_with_fragments() {
        let r = run(TOOL, false).unwrap();
        assert_eq!(r.id.as_deref(), Some("msg_1"));
        assert_eq!(r.text(), "Let me read.");
        let calls: Vec<_> = r.tool_calls().collect();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].1, "Read");
        assert_eq!(calls[0].2, &serde_json::json!({"file_path": "/x.rs"}));
        assert_eq!(r.stop_reason, Some(StopReason::ToolUse));
        assert_eq!(
            r.usage,
            Usage {
                input_tokens: 95,
                output_tokens: 40,
                cache_write_tokens: 10,
                cache_read_tokens: 20
            }
        );
        let expect = (95.0 * 4.0 + 40.0 * 20.0 + 10.0 * 5.0 + 20.0 * 0.4) / 1e6;
        assert!((r.cost.usd - expect).abs() < 1e-12);
    }

    #[test]
    fn forced_tool_becomes_text() {
        let raw = TOOL.replace("\"Read\"", "\"StructuredOutput\"");
        let r = run(&raw, true).unwrap();
        assert_eq!(r.text(), "Let me read.{\"file_path\":\"/x.rs\"}");
        assert_eq!(r.tool_calls().count(), 0);
        assert_eq!(r.stop_reason, Some(StopReason::EndTurn));
    }

    #[test]
    fn bad_tool_json_is_a_malformed_call_not_a_failed_answer() {
        let raw = TOOL.replace("h\\\":\\\"/x.rs", "");
        assert_ne!(raw, TOOL);
        let r = run(&raw, false).unwrap();
        assert_eq!(r.text(), "Let me read.");
        let calls: Vec<_> = r.tool_calls().collect();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].2, &serde_json::json!({}));
        let err = r.tool_input_error("toolu_1").unwrap();
        assert!(err.contains("EOF") || err.contains("expected"), "{err}");
        // Replayed, the call is malformed again.
        let mut again = ModelResponse::default();
        for e in r.to_events() {
            again.apply(e);
        }
        assert_eq!(again, r);
        // The forced structured-output call turns into text the contract rejects.
        let raw = raw.replace("\"Read\"", "\"StructuredOutput\"");
        let r = run(&raw, true).unwrap();
        assert_eq!(r.text(), "Let me read.{\"file_pat\"}");
        assert!(r.malformed_tool_calls.is_empty());
    }
}
