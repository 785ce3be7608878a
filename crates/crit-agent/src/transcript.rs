//! The transcript of a run: typed items, one JSON object per line (JSONL),
//! written wherever the caller asks (a file, memory, nowhere).

use std::io::Write;

use crit_core::Usage;
use serde::Serialize;
use serde_json::Value;

/// One event of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TranscriptItem {
    /// The run began.
    Start {
        agent: String,
        model: String,
        system: String,
        prompt: String,
        tools: Vec<String>,
    },
    /// What the model said in one turn (text and thinking, tool calls listed).
    Assistant {
        agent: String,
        turn: u32,
        text: String,
        tool_calls: Vec<ToolCallRecord>,
    },
    /// A tool ran.
    ToolResult {
        agent: String,
        turn: u32,
        id: String,
        name: String,
        content: String,
        is_error: bool,
        duration_ms: u64,
    },
    /// Usage of one model call, and the run's total so far.
    Usage {
        agent: String,
        turn: u32,
        usage: Usage,
        total: Usage,
        cost_usd: f64,
        total_cost_usd: f64,
    },
    /// A hook answered something (a decision, context, or its own failure).
    Hook {
        agent: String,
        turn: u32,
        event: String,
        hook: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        tool_name: Option<String>,
        effect: String,
    },
    /// A limit ended the run.
    LimitHit {
        agent: String,
        limit: String,
        detail: String,
    },
    /// The run ended.
    End {
        agent: String,
        status: String,
        turns: u32,
        usage: Usage,
        cost_usd: f64,
        duration_ms: u64,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCallRecord {
    pub id: String,
    pub name: String,
    pub input: Value,
}

/// Where transcript items go.
pub trait TranscriptSink: Send {
    fn record(&mut self, item: &TranscriptItem);
}

/// One sink shared by concurrent writers (sub-agents running side by side).
pub(crate) struct SharedSink<'s>(std::sync::Mutex<&'s mut dyn TranscriptSink>);

impl<'s> SharedSink<'s> {
    pub(crate) fn new(sink: &'s mut dyn TranscriptSink) -> Self {
        Self(std::sync::Mutex::new(sink))
    }

    pub(crate) fn record(&self, item: &TranscriptItem) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .record(item);
    }

    /// A sink that writes here, for one writer.
    pub(crate) fn handle(&self) -> SinkHandle<'_, 's> {
        SinkHandle(self)
    }
}

pub(crate) struct SinkHandle<'a, 's>(&'a SharedSink<'s>);

impl TranscriptSink for SinkHandle<'_, '_> {
    fn record(&mut self, item: &TranscriptItem) {
        self.0.record(item);
    }
}

/// Discards everything.
#[derive(Debug, Default)]
pub struct NoTranscript;

impl TranscriptSink for NoTranscript {
    fn record(&mut self, _item: &TranscriptItem) {}
}

/// Keeps items in memory (tests, library users).
#[derive(Debug, Default)]
pub struct MemoryTranscript {
    pub items: Vec<TranscriptItem>,
}

impl TranscriptSink for MemoryTranscript {
    fn record(&mut self, item: &TranscriptItem) {
        self.items.push(item.clone());
    }
}

/// Writes JSONL. A write error is remembered, not raised: a full disk must not
/// end a review, but the caller can ask afterwards.
#[derive(Debug)]
pub struct JsonlTranscript<W: Write + Send> {
    out: W,
    pub error: Option<String>,
}

impl<W: Write + Send> JsonlTranscript<W> {
    pub fn new(out: W) -> Self {
        JsonlTranscript { out, error: None }
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write + Send> JsonlTranscript<W> {
    /// Writes one line as is: for events that are not [`TranscriptItem`]s (an
    /// agent backend's own log lines).
    pub fn write_line(&mut self, line: &str) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = writeln!(self.out, "{line}").and_then(|()| self.out.flush()) {
            self.error = Some(e.to_string());
        }
    }
}

impl<W: Write + Send> TranscriptSink for JsonlTranscript<W> {
    fn record(&mut self, item: &TranscriptItem) {
        let line = serde_json::to_string(item).unwrap_or_default();
        self.write_line(&line);
    }
}
