//! What the fake server answers: scripted [`Step`]s holding a [`Reply`].
//!
//! A `Reply` is format-neutral: the same value is rendered as an Anthropic
//! Messages answer or an OpenAI chat completion depending on the path the
//! request came in on, streaming or not depending on the request's `stream`.

use std::time::Duration;

use serde_json::Value;

/// Token counts a reply reports.
///
/// Anthropic: `input_tokens`, `output_tokens`, `cache_creation_input_tokens`
/// (= `cache_write`) and `cache_read_input_tokens`. OpenAI has no cache
/// writes: `prompt_tokens = input + cache_write + cache_read`,
/// `prompt_tokens_details.cached_tokens = cache_read`, and
/// `prompt_tokens_details.cache_write_tokens = cache_write` when non-zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cache_write: u64,
    pub cache_read: u64,
}

impl Default for Usage {
    fn default() -> Self {
        Self {
            input: 25,
            output: 10,
            cache_write: 0,
            cache_read: 0,
        }
    }
}

/// One content block of a successful answer.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Block {
    Text(String),
    Thinking(String),
    ToolUse {
        name: String,
        input: Value,
    },
    /// A tool call whose input is sent as this text, JSON or not.
    RawToolUse {
        name: String,
        raw: String,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ReplyBody {
    /// A normal answer made of content blocks.
    Blocks(Vec<Block>),
    /// A structured answer (see [`Reply::json`]).
    Json(Value),
    /// Any status with a verbatim JSON body.
    HttpError { status: u16, body: Value },
    /// An error whose body is shaped for the format of the request.
    ApiError {
        status: u16,
        kind: String,
        message: String,
    },
    /// HTTP 200, some events, then an error event.
    StreamError { kind: String, message: String },
    /// HTTP 200 and an answer that never ends: `piece` as text, again and again.
    Endless { piece: String },
    /// This status and an error body that never ends.
    EndlessError { status: u16 },
}

/// How the bytes of a reply are delivered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Delivery {
    pub delay: Option<Duration>,
    pub drop_after: Option<usize>,
    pub stall: Option<(usize, Duration)>,
    pub chunk: Option<usize>,
}

/// One scripted answer. Build with the constructors, refine with the
/// chainable modifiers.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    pub(crate) body: ReplyBody,
    pub(crate) usage: Usage,
    pub(crate) stop_reason: Option<String>,
    pub(crate) delivery: Delivery,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) model: Option<String>,
}

impl Reply {
    fn new(body: ReplyBody) -> Self {
        Self {
            body,
            usage: Usage::default(),
            stop_reason: None,
            delivery: Delivery::default(),
            headers: Vec::new(),
            model: None,
        }
    }

    /// A plain text answer (`stop_reason: end_turn` / `finish_reason: stop`).
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(ReplyBody::Blocks(vec![Block::Text(text.into())]))
    }

    /// One tool call (`stop_reason: tool_use` / `finish_reason: tool_calls`).
    pub fn tool_use(name: impl Into<String>, input: Value) -> Self {
        Self::new(ReplyBody::Blocks(vec![Block::ToolUse {
            name: name.into(),
            input,
        }]))
    }

    /// Several tool calls in one turn (parallel tool use).
    pub fn tool_uses<S: Into<String>>(calls: Vec<(S, Value)>) -> Self {
        Self::new(ReplyBody::Blocks(
            calls
                .into_iter()
                .map(|(name, input)| Block::ToolUse {
                    name: name.into(),
                    input,
                })
                .collect(),
        ))
    }

    /// One tool call whose input is `raw` sent verbatim: as Anthropic
    /// `input_json_delta` fragments, as OpenAI `arguments`. For input that is
    /// not valid JSON. (A non-streaming Anthropic answer, whose body must be
    /// JSON, carries it as a string.)
    pub fn tool_use_raw(name: impl Into<String>, raw: impl Into<String>) -> Self {
        Self::new(ReplyBody::Blocks(vec![Block::RawToolUse {
            name: name.into(),
            raw: raw.into(),
        }]))
    }

    /// HTTP 200 and a text answer that never ends: `piece`, streamed again
    /// and again for as long as the client reads (a model gone wrong, a proxy
    /// looping). Streaming requests only make sense here.
    pub fn endless(piece: impl Into<String>) -> Self {
        Self::new(ReplyBody::Endless {
            piece: piece.into(),
        })
    }

    /// `status` with a JSON error body that never ends.
    pub fn endless_error(status: u16) -> Self {
        Self::new(ReplyBody::EndlessError { status })
    }

    /// A structured answer. Rendered as a text block holding the compact JSON
    /// (Anthropic `output_config.format`, OpenAI `response_format`), unless the
    /// request offers a tool named `StructuredOutput` (Claude Code's
    /// `--json-schema`), in which case it is a `tool_use` of that tool with the
    /// value as input.
    pub fn json(value: Value) -> Self {
        Self::new(ReplyBody::Json(value))
    }

    /// A thinking block followed by a text block. OpenAI-format answers carry
    /// the thought as `reasoning_content` (vLLM/Ollama/DeepSeek style).
    pub fn thinking(thought: impl Into<String>, then_text: impl Into<String>) -> Self {
        Self::new(ReplyBody::Blocks(vec![
            Block::Thinking(thought.into()),
            Block::Text(then_text.into()),
        ]))
    }

    /// Any status with this exact JSON body (add headers with
    /// [`Reply::with_header`]).
    pub fn http_error(status: u16, body: Value) -> Self {
        Self::new(ReplyBody::HttpError { status, body })
    }

    /// An error in the request's own format: Anthropic
    /// `{"type":"error","error":{"type":kind,"message":…},"request_id":…}`,
    /// OpenAI `{"error":{"message":…,"type":kind,"param":null,"code":null}}`.
    pub fn api_error(status: u16, kind: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(ReplyBody::ApiError {
            status,
            kind: kind.into(),
            message: message.into(),
        })
    }

    /// HTTP 200, a few events, then a mid-stream error: Anthropic
    /// `event: error` with `{"type":"error","error":{"type":kind,…}}`, OpenAI
    /// `data: {"error":{…}}`. A non-streaming request gets the equivalent HTTP
    /// error instead (529 for `overloaded_error`, 429 for `rate_limit_error`,
    /// 500 otherwise).
    pub fn stream_error(kind: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(ReplyBody::StreamError {
            kind: kind.into(),
            message: message.into(),
        })
    }

    /// Append a text block after the existing blocks (e.g. text, then a tool
    /// call). No effect on error or JSON replies.
    pub fn then_text(mut self, text: impl Into<String>) -> Self {
        if let ReplyBody::Blocks(blocks) = &mut self.body {
            blocks.push(Block::Text(text.into()));
        }
        self
    }

    /// Append a tool call with raw (possibly invalid) input after the existing blocks.
    pub fn then_tool_use_raw(mut self, name: impl Into<String>, raw: impl Into<String>) -> Self {
        if let ReplyBody::Blocks(blocks) = &mut self.body {
            blocks.push(Block::RawToolUse {
                name: name.into(),
                raw: raw.into(),
            });
        }
        self
    }

    /// Append a tool call after the existing blocks.
    pub fn then_tool_use(mut self, name: impl Into<String>, input: Value) -> Self {
        if let ReplyBody::Blocks(blocks) = &mut self.body {
            blocks.push(Block::ToolUse {
                name: name.into(),
                input,
            });
        }
        self
    }

    /// Add a response header (e.g. `retry-after`, `retry-after-ms`,
    /// `x-should-retry`). Works on every kind of reply.
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers
            .push((name.into().to_ascii_lowercase(), value.into()));
        self
    }

    /// Close the connection abruptly after `n` body bytes.
    pub fn drop_after_bytes(mut self, n: usize) -> Self {
        self.delivery.drop_after = Some(n);
        self
    }

    /// Wait this long before sending the response head.
    pub fn delay(mut self, d: Duration) -> Self {
        self.delivery.delay = Some(d);
        self
    }

    /// Send `n` body bytes, then nothing for `d`, then the rest.
    pub fn stall_after_bytes(mut self, n: usize, d: Duration) -> Self {
        self.delivery.stall = Some((n, d));
        self
    }

    /// Write the body in `n`-byte pieces, each flushed on its own, so SSE
    /// events arrive split across reads.
    pub fn chunked(mut self, n: usize) -> Self {
        self.delivery.chunk = Some(n.max(1));
        self
    }

    /// Token usage to report (see [`Usage`] for the OpenAI mapping).
    pub fn usage(mut self, input: u64, output: u64, cache_write: u64, cache_read: u64) -> Self {
        self.usage = Usage {
            input,
            output,
            cache_write,
            cache_read,
        };
        self
    }

    /// Override the stop reason. Anthropic names (`end_turn`, `max_tokens`,
    /// `stop_sequence`, `tool_use`, `pause_turn`, `refusal`,
    /// `model_context_window_exceeded`) are mapped for OpenAI to `stop`,
    /// `length`, `tool_calls`, `content_filter`; OpenAI names are accepted and
    /// mapped back. Unknown strings pass through unchanged.
    pub fn stop_reason(mut self, reason: impl Into<String>) -> Self {
        self.stop_reason = Some(reason.into());
        self
    }

    /// Report this model id instead of echoing the request's `model`.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }
}

/// A scripted turn: a reply plus an optional content matcher.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub(crate) needle: Option<String>,
    pub(crate) reply: Reply,
}

impl Step {
    /// A step that matches any request (taken in script order).
    pub fn reply(reply: Reply) -> Self {
        Self {
            needle: None,
            reply,
        }
    }

    /// A step that only a request whose body contains `needle` may take
    /// (checked against the raw body text and against every decoded JSON
    /// string in it, so escaping does not matter).
    pub fn when_contains(needle: impl Into<String>) -> StepWhen {
        StepWhen {
            needle: needle.into(),
        }
    }

    pub(crate) fn matches(&self, raw: &str, body: &Value) -> bool {
        match &self.needle {
            None => true,
            Some(n) => raw.contains(n.as_str()) || any_string_contains(body, n),
        }
    }
}

impl From<Reply> for Step {
    fn from(reply: Reply) -> Self {
        Step::reply(reply)
    }
}

/// Half-built content-matched step; finish with [`StepWhen::reply`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepWhen {
    needle: String,
}

impl StepWhen {
    pub fn reply(self, reply: Reply) -> Step {
        Step {
            needle: Some(self.needle),
            reply,
        }
    }
}

fn any_string_contains(v: &Value, needle: &str) -> bool {
    match v {
        Value::String(s) => s.contains(needle),
        Value::Array(items) => items.iter().any(|i| any_string_contains(i, needle)),
        Value::Object(map) => map
            .iter()
            .any(|(k, v)| k.contains(needle) || any_string_contains(v, needle)),
        _ => false,
    }
}

/// Deterministic Anthropic tool_use id of block `block` of step `step`.
pub fn anthropic_tool_id(step: usize, block: usize) -> String {
    format!("toolu_testkit_{step}_{block}")
}

/// Deterministic OpenAI tool call id of call `call` of step `step`.
pub fn openai_tool_id(step: usize, call: usize) -> String {
    format!("call_testkit_{step}_{call}")
}

/// Maps a stop reason to Anthropic's vocabulary.
pub(crate) fn anthropic_stop_reason(reason: &str) -> String {
    match reason {
        "stop" => "end_turn",
        "length" => "max_tokens",
        "tool_calls" => "tool_use",
        "content_filter" => "refusal",
        other => other,
    }
    .to_string()
}

/// Maps a stop reason to OpenAI's `finish_reason` vocabulary.
pub(crate) fn openai_finish_reason(reason: &str) -> String {
    match reason {
        "end_turn" | "stop_sequence" | "pause_turn" => "stop",
        "max_tokens" | "model_context_window_exceeded" => "length",
        "tool_use" => "tool_calls",
        "refusal" => "content_filter",
        other => other,
    }
    .to_string()
}

/// Splits `s` into up to `parts` non-empty pieces on char boundaries.
pub(crate) fn split_text(s: &str, parts: usize) -> Vec<String> {
    if s.is_empty() {
        return Vec::new();
    }
    let chars: Vec<char> = s.chars().collect();
    let size = chars.len().div_ceil(parts.max(1));
    chars
        .chunks(size.max(1))
        .map(|c| c.iter().collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn split_text_keeps_all_chars_on_boundaries() {
        let pieces = split_text("héllo wörld", 3);
        assert_eq!(pieces.len(), 3);
        assert_eq!(pieces.concat(), "héllo wörld");
        assert!(split_text("", 3).is_empty());
        assert_eq!(split_text("ab", 3), vec!["a", "b"]);
    }

    #[test]
    fn needle_matches_raw_or_decoded_strings() {
        let step = Step::when_contains("é\"x").reply(Reply::text("t"));
        let body = json!({"messages":[{"content":"say é\"x"}]});
        // Python's json.dumps escapes non-ASCII, so the raw text lacks the needle.
        let raw = r#"{"messages":[{"content":"say \u00e9\"x"}]}"#;
        assert!(step.matches(raw, &body));
        assert!(!step.matches("{}", &json!({})));
        assert!(Step::reply(Reply::text("t")).matches("", &Value::Null));
    }

    #[test]
    fn stop_reasons_map_both_ways() {
        assert_eq!(openai_finish_reason("max_tokens"), "length");
        assert_eq!(openai_finish_reason("refusal"), "content_filter");
        assert_eq!(openai_finish_reason("tool_use"), "tool_calls");
        assert_eq!(openai_finish_reason("end_turn"), "stop");
        assert_eq!(anthropic_stop_reason("length"), "max_tokens");
        assert_eq!(anthropic_stop_reason("refusal"), "refusal");
    }
}
