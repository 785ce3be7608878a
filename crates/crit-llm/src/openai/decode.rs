//! OpenAI chat-completion chunks → normalized events.

use std::collections::BTreeMap;

use crit_core::Usage;
use serde_json::Value;

use crate::error::LlmError;
use crate::pricing;
use crate::protocol::{ModelEvent, StopReason};
use crate::sse::SseEvent;
use crate::transport::WireDecoder;

#[derive(Default)]
struct Call {
    id: String,
    name: String,
    arguments: String,
}

#[derive(Default)]
pub(super) struct Decoder {
    request_model: String,
    started: bool,
    model: String,
    usage: Usage,
    /// Tool calls accumulated by their `index`; `id` and `name` come first only.
    calls: BTreeMap<u64, Call>,
    finish: Option<String>,
    refused: bool,
    done: bool,
}

impl Decoder {
    pub(super) fn new(request_model: &str) -> Self {
        Decoder {
            request_model: request_model.to_string(),
            ..Decoder::default()
        }
    }

    fn chunk(&mut self, v: &Value) -> Vec<ModelEvent> {
        let mut out = Vec::new();
        if !self.started {
            self.started = true;
            self.model = v["model"].as_str().unwrap_or_default().to_string();
            out.push(ModelEvent::MessageStart {
                id: v["id"].as_str().map(str::to_string),
                model: self.model.clone(),
            });
        }
        if let Some(choice) = v["choices"].as_array().and_then(|c| c.first()) {
            let d = &choice["delta"];
            if let Some(t) = d["content"].as_str().filter(|t| !t.is_empty()) {
                out.push(ModelEvent::TextDelta {
                    text: t.to_string(),
                });
            }
            // vLLM, llama.cpp and Ollama stream reasoning under one of these names.
            for key in ["reasoning_content", "reasoning"] {
                if let Some(t) = d[key].as_str().filter(|t| !t.is_empty()) {
                    out.push(ModelEvent::ThinkingDelta {
                        text: t.to_string(),
                    });
                }
            }
            if let Some(t) = d["refusal"].as_str().filter(|t| !t.is_empty()) {
                self.refused = true;
                out.push(ModelEvent::TextDelta {
                    text: t.to_string(),
                });
            }
            for tc in d["tool_calls"].as_array().into_iter().flatten() {
                let index = tc["index"].as_u64().unwrap_or(self.calls.len() as u64);
                let call = self.calls.entry(index).or_default();
                if let Some(id) = tc["id"].as_str() {
                    call.id = id.to_string();
                }
                if let Some(name) = tc["function"]["name"].as_str() {
                    call.name.push_str(name);
                }
                if let Some(args) = tc["function"]["arguments"].as_str() {
                    call.arguments.push_str(args);
                }
            }
            if let Some(f) = choice["finish_reason"].as_str() {
                self.finish = Some(f.to_string());
            }
        }
        if v["usage"].is_object() {
            let u = &v["usage"];
            let n = |x: &Value| x.as_u64().unwrap_or(0);
            let cached = n(&u["prompt_tokens_details"]["cached_tokens"]);
            self.usage = Usage {
                input_tokens: n(&u["prompt_tokens"]).saturating_sub(cached),
                output_tokens: n(&u["completion_tokens"]),
                cache_write_tokens: 0,
                cache_read_tokens: cached,
            };
            out.push(ModelEvent::Usage { usage: self.usage });
        }
        out
    }
}

impl WireDecoder for Decoder {
    fn event(&mut self, ev: SseEvent) -> Result<Vec<ModelEvent>, LlmError> {
        let data = ev.data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(vec![]);
        }
        let v: Value = serde_json::from_str(data).map_err(|e| LlmError::Parse {
            message: format!("bad chunk: {e}"),
        })?;
        if v.get("error").is_some_and(|e| !e.is_null()) || ev.event == "error" {
            return Err(LlmError::from_stream_error(&v));
        }
        Ok(self.chunk(&v))
    }

    fn done(&self) -> bool {
        self.done
    }

    fn finish(&mut self) -> Result<Vec<ModelEvent>, LlmError> {
        let mut out = Vec::new();
        let had_calls = !self.calls.is_empty();
        for (index, call) in std::mem::take(&mut self.calls) {
            let input = if call.arguments.trim().is_empty() {
                Ok(Value::Object(Default::default()))
            } else {
                serde_json::from_str::<Value>(&call.arguments)
            };
            // Some local servers leave the id empty; the loop needs one to answer.
            let id = if call.id.is_empty() {
                format!("call_{index}")
            } else {
                call.id
            };
            out.push(match input {
                Ok(input) => ModelEvent::ToolCall {
                    id,
                    name: call.name,
                    input,
                },
                // The loop answers it with the error; the rest of the turn stands.
                Err(e) => ModelEvent::MalformedToolCall {
                    id,
                    name: call.name,
                    error: e.to_string(),
                },
            });
        }
        let stop = if self.refused {
            Some(StopReason::Refusal)
        } else {
            match self.finish.as_deref() {
                // Ollama says "stop" even when it made tool calls.
                Some("stop") if had_calls => Some(StopReason::ToolUse),
                other => other.map(StopReason::from_wire),
            }
        };
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

    fn run(raw: &str) -> Result<ModelResponse, LlmError> {
        let mut d = Decoder::new("local");
        let mut sse = SseDecoder::new();
        let mut resp = ModelResponse::default();
        let mut evs = sse.push(raw.as_bytes());
        evs.extend(sse.finish());
        for e in evs {
            for m in d.event(e)? {
                resp.apply(m);
            }
        }
        for m in d.finish()? {
            resp.apply(m);
        }
        Ok(resp)
    }

    #[test]
    fn parallel_tool_fragments_by_index() {
        let raw = concat!(
            "data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null},\"finish_reason\":null}],\"usage\":null}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\",\"type\":\"function\",\"function\":{\"name\":\"grep\",\"arguments\":\"{\\\"q\\\":\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"file_pat\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\"\\\"x\\\"}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"h\\\":\\\"/x\\\"}\"}}]}}],\"obfuscation\":\"abc\"}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":31,\"completion_tokens\":5,\"total_tokens\":36,\"prompt_tokens_details\":{\"cached_tokens\":11}}}\n\n",
            "data: [DONE]\n\n",
        );
        let r = run(raw).unwrap();
        let calls: Vec<_> = r.tool_calls().collect();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].0, "call_a");
        assert_eq!(calls[0].2, &serde_json::json!({"file_path": "/x"}));
        assert_eq!(calls[1].1, "grep");
        assert_eq!(calls[1].2, &serde_json::json!({"q": "x"}));
        assert_eq!(r.stop_reason, Some(StopReason::ToolUse));
        assert_eq!(r.usage.input_tokens, 20);
        assert_eq!(r.usage.cache_read_tokens, 11);
        assert_eq!(r.usage.output_tokens, 5);
        assert!(!r.cost.priced);
    }

    #[test]
    fn missing_usage_and_length_stop() {
        let raw = "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n";
        let r = run(raw).unwrap();
        assert_eq!(r.text(), "hi");
        assert_eq!(r.stop_reason, Some(StopReason::MaxTokens));
        assert!(r.usage.is_zero());
    }

    #[test]
    fn mid_stream_error() {
        let raw = "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: {\"error\":{\"message\":\"boom\",\"type\":\"server_error\",\"code\":null}}\n\n";
        assert!(matches!(run(raw), Err(LlmError::Server { .. })));
        let raw = "data: {\"error\":{\"message\":\"slow down\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}\n\n";
        assert!(matches!(run(raw), Err(LlmError::RateLimited { .. })));
    }

    #[test]
    fn arguments_that_are_not_json_make_a_malformed_call() {
        let raw = concat!(
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c0\",\"function\":{\"name\":\"Read\",\"arguments\":\"{\\\"file_path\\\": \"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"c1\",\"function\":{\"name\":\"Grep\",\"arguments\":\"{}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
            "data: [DONE]\n\n",
        );
        let r = run(raw).unwrap();
        assert_eq!(r.tool_calls().count(), 2);
        assert!(r.tool_input_error("c0").is_some());
        assert!(r.tool_input_error("c1").is_none());
    }

    #[test]
    fn ollama_style_stop_with_tool_calls_and_missing_ids() {
        let raw = concat!(
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"grep\",\"arguments\":\"{}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
            "data: [DONE]\n\n",
        );
        let r = run(raw).unwrap();
        assert_eq!(r.stop_reason, Some(StopReason::ToolUse));
        let calls: Vec<_> = r.tool_calls().collect();
        assert_eq!(calls[0].0, "call_0");
        assert_eq!(calls[0].2, &serde_json::json!({}));
    }
}
