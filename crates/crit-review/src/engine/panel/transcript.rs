//! One transcript file for a whole panel: reviewers run concurrently, each
//! writes through its own handle, lines never interleave mid-line.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::sync::{Arc, Mutex};

use crit_agent::transcript::{JsonlTranscript, TranscriptItem, TranscriptSink};

use super::progress::{Progress, ProgressEvent};

/// A JSONL transcript shared by the reviewers of a panel.
#[derive(Debug)]
pub struct SharedTranscript {
    inner: Mutex<JsonlTranscript<BufWriter<File>>>,
}

impl SharedTranscript {
    /// Creates (or truncates) `path`.
    pub fn create(path: &Path) -> std::io::Result<Self> {
        let file = File::create(path)?;
        Ok(SharedTranscript {
            inner: Mutex::new(JsonlTranscript::new(BufWriter::new(file))),
        })
    }

    /// The transcript of `session`, or `None` (reported as an error) when
    /// the file cannot be created: the review goes on without one.
    pub fn for_session(session: &crate::engine::session::Session) -> Option<Arc<Self>> {
        Self::for_session_with(session, crit_core::redact::Redactor::process().clone())
    }

    /// [`SharedTranscript::for_session`], redacting every line with a
    /// review's own redactor (which knows the secrets found in its inputs).
    pub fn for_session_with(
        session: &crate::engine::session::Session,
        redactor: crit_core::redact::Redactor,
    ) -> Option<Arc<Self>> {
        let path = session.transcript_path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        match session.create_file(name) {
            Ok(file) => Some(Arc::new(SharedTranscript {
                inner: Mutex::new(
                    JsonlTranscript::new(BufWriter::new(file)).with_redactor(redactor),
                ),
            })),
            Err(e) => {
                tracing::error!("cannot write the transcript {}: {e}", path.display());
                None
            }
        }
    }

    pub fn record(&self, item: &TranscriptItem) {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .record(item);
    }

    /// The first write error, if writing ever failed (a full disk must not end
    /// a review, but the caller can say the transcript is incomplete).
    pub fn error(&self) -> Option<String> {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .error
            .clone()
    }
}

/// What one reviewer's loop writes to: the shared transcript, and progress
/// events derived from the same items.
pub(super) struct ReviewerSink {
    pub reviewer: String,
    pub transcript: Option<Arc<SharedTranscript>>,
    pub progress: Option<Arc<dyn Progress>>,
    /// Tripped when the reviewer's first model answer arrives (its request
    /// wrote the panel's shared prefix to the cache).
    pub first_answer: Option<tokio_util::sync::CancellationToken>,
}

impl TranscriptSink for ReviewerSink {
    fn record(&mut self, item: &TranscriptItem) {
        if let Some(t) = &self.transcript {
            t.record(item);
        }
        if let (TranscriptItem::Usage { .. }, Some(first)) = (item, &self.first_answer) {
            first.cancel();
        }
        let Some(p) = &self.progress else { return };
        let event = match item {
            TranscriptItem::Assistant {
                agent,
                turn,
                tool_calls,
                ..
            } => ProgressEvent::Turn {
                reviewer: self.reviewer.clone(),
                agent: agent.clone(),
                turn: *turn,
                tools: tool_calls.iter().map(|c| c.name.clone()).collect(),
            },
            TranscriptItem::Usage {
                agent,
                total,
                total_cost_usd,
                ..
            } if agent == &self.reviewer => ProgressEvent::Usage {
                reviewer: self.reviewer.clone(),
                tokens: total.total(),
                cost_usd: *total_cost_usd,
            },
            _ => return,
        };
        p.event(&event);
    }
}

impl SharedTranscript {
    /// A line an agent backend logged itself (Claude Code's stream-json), kept
    /// verbatim under the reviewer's name.
    pub fn record_raw(&self, reviewer: &str, line: &serde_json::Value) {
        let item = serde_json::json!({"type": "agent_event", "agent": reviewer, "event": line});
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.write_line(&item.to_string());
    }
}
