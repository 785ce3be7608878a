//! The vendor-free conversation model every backend speaks: one [`ModelRequest`] in,
//! a stream of [`ModelEvent`]s out, collected into a [`ModelResponse`].
//!
//! Field names are crit's own; each backend maps them onto its wire format.

use crit_core::Usage;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One call to a model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelRequest {
    /// Model id or alias (`opus`, `sonnet`, `haiku` resolve through the price table).
    pub model: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub system: Vec<SystemBlock>,
    pub messages: Vec<Message>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolSpec>,
    #[serde(default, skip_serializing_if = "ToolChoice::is_auto")]
    pub tool_choice: ToolChoice,
    pub max_tokens: u32,
    /// Ask for a JSON answer matching this schema (native where the backend can,
    /// a forced tool call otherwise). The answer arrives as text holding the JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<OutputSchema>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<Thinking>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop_sequences: Vec<String>,
    /// Mark the last tool definition as a prompt-cache breakpoint (tools are part of
    /// the prefix shared by every turn and every reviewer).
    #[serde(default, skip_serializing_if = "is_false")]
    pub cache_tools: bool,
    /// Sampling temperature; `None` sends none (the provider's default). Only a
    /// caller reproducing someone else's request sets it (a benchmark's judge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
}

impl ModelRequest {
    /// A request with one user text message and nothing else set.
    pub fn new(model: impl Into<String>, max_tokens: u32) -> Self {
        ModelRequest {
            model: model.into(),
            system: Vec::new(),
            messages: Vec::new(),
            tools: Vec::new(),
            tool_choice: ToolChoice::Auto,
            max_tokens,
            output_schema: None,
            thinking: None,
            stop_sequences: Vec::new(),
            cache_tools: false,
            temperature: None,
        }
    }

    pub fn system(mut self, text: impl Into<String>) -> Self {
        self.system.push(SystemBlock::new(text));
        self
    }

    pub fn user(mut self, text: impl Into<String>) -> Self {
        self.messages.push(Message::user_text(text));
        self
    }
}

pub(crate) fn is_false(b: &bool) -> bool {
    !*b
}

/// One block of the system prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemBlock {
    pub text: String,
    /// End of a shared prefix: mark it for prompt caching.
    #[serde(default, skip_serializing_if = "is_false")]
    pub cache: bool,
}

impl SystemBlock {
    pub fn new(text: impl Into<String>) -> Self {
        SystemBlock {
            text: text.into(),
            cache: false,
        }
    }

    pub fn cached(text: impl Into<String>) -> Self {
        SystemBlock {
            text: text.into(),
            cache: true,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: Vec<Block>,
}

impl Message {
    pub fn user_text(text: impl Into<String>) -> Self {
        Message {
            role: Role::User,
            content: vec![Block::text(text)],
        }
    }

    pub fn assistant(content: Vec<Block>) -> Self {
        Message {
            role: Role::Assistant,
            content,
        }
    }
}

/// A content block. Thinking signatures are opaque and echoed back verbatim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    Text {
        text: String,
        /// A prompt-cache breakpoint after this block (e.g. the project context).
        #[serde(default, skip_serializing_if = "is_false")]
        cache: bool,
    },
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    ToolResult {
        tool_use_id: String,
        content: String,
        #[serde(default, skip_serializing_if = "is_false")]
        is_error: bool,
        /// A prompt-cache breakpoint after this block (the conversation so far).
        #[serde(default, skip_serializing_if = "is_false")]
        cache: bool,
    },
    Thinking {
        thinking: String,
        signature: String,
    },
    RedactedThinking {
        data: String,
    },
}

impl Block {
    pub fn text(text: impl Into<String>) -> Self {
        Block::Text {
            text: text.into(),
            cache: false,
        }
    }

    pub fn cached_text(text: impl Into<String>) -> Self {
        Block::Text {
            text: text.into(),
            cache: true,
        }
    }

    /// Whether a prompt-cache breakpoint follows this block.
    pub fn is_cache_breakpoint(&self) -> bool {
        matches!(
            self,
            Block::Text { cache: true, .. } | Block::ToolResult { cache: true, .. }
        )
    }

    /// Marks (or unmarks) a breakpoint after this block; `false` when the
    /// block cannot carry one (thinking blocks, tool calls).
    pub fn set_cache_breakpoint(&mut self, on: bool) -> bool {
        match self {
            Block::Text { cache, .. } | Block::ToolResult { cache, .. } => {
                *cache = on;
                true
            }
            _ => false,
        }
    }

    /// Rough size in tokens (bytes / 4, rounded up), for placing cache
    /// breakpoints: close enough for code and prose, no tokenizer needed.
    pub fn estimated_tokens(&self) -> u64 {
        let bytes = match self {
            Block::Text { text, .. } => text.len(),
            Block::ToolUse { name, input, .. } => name.len() + input.to_string().len(),
            Block::ToolResult { content, .. } => content.len(),
            Block::Thinking { thinking, .. } => thinking.len(),
            Block::RedactedThinking { data } => data.len(),
        };
        (bytes as u64).div_ceil(4)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON Schema of the tool's input.
    pub input_schema: Value,
    #[serde(default, skip_serializing_if = "is_false")]
    pub strict: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", content = "name", rename_all = "snake_case")]
pub enum ToolChoice {
    #[default]
    Auto,
    /// The model must call some tool.
    Any,
    None,
    /// The model must call this tool.
    Tool(String),
}

impl ToolChoice {
    fn is_auto(&self) -> bool {
        matches!(self, ToolChoice::Auto)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputSchema {
    /// A short identifier (OpenAI requires one; also the forced tool's name suffix).
    pub name: String,
    pub schema: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Thinking {
    Adaptive,
    Enabled { budget_tokens: u32 },
    Disabled,
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    EndTurn,
    MaxTokens,
    StopSequence,
    ToolUse,
    PauseTurn,
    Refusal,
    ContextWindowExceeded,
    /// A value this crate does not know yet, kept verbatim.
    #[serde(untagged)]
    Other(String),
}

impl StopReason {
    /// Anthropic's and OpenAI's words for it.
    pub fn from_wire(s: &str) -> Self {
        match s {
            "end_turn" | "stop" => StopReason::EndTurn,
            "max_tokens" | "length" => StopReason::MaxTokens,
            "stop_sequence" => StopReason::StopSequence,
            "tool_use" | "tool_calls" | "function_call" => StopReason::ToolUse,
            "pause_turn" => StopReason::PauseTurn,
            "refusal" | "content_filter" => StopReason::Refusal,
            "model_context_window_exceeded" => StopReason::ContextWindowExceeded,
            other => StopReason::Other(other.to_string()),
        }
    }

    /// The answer was cut short: the caller should not treat it as complete.
    pub fn is_truncated(&self) -> bool {
        matches!(
            self,
            StopReason::MaxTokens | StopReason::ContextWindowExceeded | StopReason::PauseTurn
        )
    }
}

/// What a call cost in USD.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    pub usd: f64,
    /// False when the model is not in the price table: `usd` is then 0, not a price.
    pub priced: bool,
}

/// One event of a streamed answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum ModelEvent {
    MessageStart {
        id: Option<String>,
        model: String,
    },
    TextDelta {
        text: String,
    },
    ThinkingDelta {
        text: String,
    },
    /// A whole thinking block, with its signature, once it is complete.
    Thinking {
        thinking: String,
        signature: String,
    },
    RedactedThinking {
        data: String,
    },
    /// A tool call, once its input is complete and parsed.
    ToolCall {
        id: String,
        name: String,
        input: Value,
    },
    /// A tool call whose input is not valid JSON. The call is kept (with an
    /// empty input) so the conversation stays well formed, and the agent loop
    /// answers it with `error` instead of running it.
    MalformedToolCall {
        id: String,
        name: String,
        error: String,
    },
    /// Usage so far (cumulative: the last one wins).
    Usage {
        usage: Usage,
    },
    Stop {
        reason: StopReason,
    },
    /// The last event of a message.
    MessageEnd {
        cost: Cost,
    },
}

impl ModelEvent {
    /// Events that carry part of the answer (a stream that drops before any of these
    /// can be retried without the caller noticing).
    pub fn is_content(&self) -> bool {
        !matches!(
            self,
            ModelEvent::MessageStart { .. } | ModelEvent::Usage { .. }
        )
    }
}

/// A complete answer, collected from the events.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelResponse {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub model: String,
    pub content: Vec<Block>,
    pub stop_reason: Option<StopReason>,
    pub usage: Usage,
    pub cost: Cost,
    /// Tool calls whose input was not valid JSON, by call id, with the parse
    /// error. Their `ToolUse` blocks hold an empty input.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub malformed_tool_calls: Vec<MalformedToolCall>,
}

/// A tool call the model made with input that is not valid JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MalformedToolCall {
    pub id: String,
    pub error: String,
}

impl ModelResponse {
    /// Fold one event in.
    pub fn apply(&mut self, event: ModelEvent) {
        match event {
            ModelEvent::MessageStart { id, model } => {
                self.id = id;
                self.model = model;
            }
            ModelEvent::TextDelta { text } => match self.content.last_mut() {
                Some(Block::Text { text: t, .. }) => t.push_str(&text),
                _ => self.content.push(Block::text(text)),
            },
            ModelEvent::ThinkingDelta { .. } => {}
            ModelEvent::Thinking {
                thinking,
                signature,
            } => self.content.push(Block::Thinking {
                thinking,
                signature,
            }),
            ModelEvent::RedactedThinking { data } => {
                self.content.push(Block::RedactedThinking { data })
            }
            ModelEvent::ToolCall { id, name, input } => {
                self.content.push(Block::ToolUse { id, name, input })
            }
            ModelEvent::MalformedToolCall { id, name, error } => {
                self.malformed_tool_calls.push(MalformedToolCall {
                    id: id.clone(),
                    error,
                });
                self.content.push(Block::ToolUse {
                    id,
                    name,
                    input: Value::Object(Default::default()),
                });
            }
            ModelEvent::Usage { usage } => self.usage = usage,
            ModelEvent::Stop { reason } => self.stop_reason = Some(reason),
            ModelEvent::MessageEnd { cost } => self.cost = cost,
        }
    }

    /// The answer's text blocks, joined.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for b in &self.content {
            if let Block::Text { text, .. } = b {
                out.push_str(text);
            }
        }
        out
    }

    /// The tool calls, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = (&str, &str, &Value)> {
        self.content.iter().filter_map(|b| match b {
            Block::ToolUse { id, name, input } => Some((id.as_str(), name.as_str(), input)),
            _ => None,
        })
    }

    /// Why the input of tool call `id` could not be read, when it was malformed.
    pub fn tool_input_error(&self, id: &str) -> Option<&str> {
        self.malformed_tool_calls
            .iter()
            .find(|m| m.id == id)
            .map(|m| m.error.as_str())
    }

    /// Replays this response as the events that would have produced it.
    pub fn to_events(&self) -> Vec<ModelEvent> {
        let mut out = vec![ModelEvent::MessageStart {
            id: self.id.clone(),
            model: self.model.clone(),
        }];
        for b in &self.content {
            out.push(match b.clone() {
                Block::Text { text, .. } => ModelEvent::TextDelta { text },
                Block::Thinking {
                    thinking,
                    signature,
                } => ModelEvent::Thinking {
                    thinking,
                    signature,
                },
                Block::RedactedThinking { data } => ModelEvent::RedactedThinking { data },
                Block::ToolUse { id, name, input } => match self.tool_input_error(&id) {
                    Some(error) => ModelEvent::MalformedToolCall {
                        error: error.to_string(),
                        id,
                        name,
                    },
                    None => ModelEvent::ToolCall { id, name, input },
                },
                Block::ToolResult { .. } => continue,
            });
        }
        out.push(ModelEvent::Usage { usage: self.usage });
        if let Some(reason) = &self.stop_reason {
            out.push(ModelEvent::Stop {
                reason: reason.clone(),
            });
        }
        out.push(ModelEvent::MessageEnd { cost: self.cost });
        out
    }
}

/// What a backend can do, so callers pick a strategy instead of probing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capabilities {
    /// JSON-schema constrained output without a forced tool call.
    pub native_structured_output: bool,
    /// Several tool calls in one turn.
    pub parallel_tools: bool,
    /// The backend runs its own agent loop and tools (Claude Code).
    pub runs_own_loop: bool,
    /// Client-defined tools in the request are honoured.
    pub client_tools: bool,
}

impl Capabilities {
    /// A model behind an HTTP API that crit's own loop drives: tools run in
    /// crit, several per turn, with native structured output.
    pub const HTTP_MODEL: Capabilities = Capabilities {
        native_structured_output: true,
        parallel_tools: true,
        runs_own_loop: false,
        client_tools: true,
    };
}
