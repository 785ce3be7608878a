//! The transcript of a run: typed items, one JSON object per line (JSONL),
//! written wherever the caller asks (a file, memory, nowhere).

use std::io::Write;

pub use crit_core::transcript::{ToolCallRecord, TranscriptItem};

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

/// Caps on a transcript file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TranscriptLimits {
    /// Bytes written before the transcript is cut (with a last line saying so).
    pub max_bytes: u64,
}

impl Default for TranscriptLimits {
    fn default() -> Self {
        // Tool outputs are capped per call; this bounds a run that loops.
        TranscriptLimits {
            max_bytes: 64 * 1024 * 1024,
        }
    }
}

/// Writes JSONL, secrets redacted. A write error is remembered, not raised: a
/// full disk must not end a review, but the caller asks afterwards and reports
/// it. Past its size limit the transcript ends with one `truncated` line.
#[derive(Debug)]
pub struct JsonlTranscript<W: Write + Send> {
    out: W,
    pub error: Option<String>,
    limits: TranscriptLimits,
    written: u64,
    /// The size limit was reached.
    pub cut: bool,
    /// Hides secrets in every line; the process's own unless given.
    redactor: Option<crit_core::redact::Redactor>,
}

impl<W: Write + Send> JsonlTranscript<W> {
    pub fn new(out: W) -> Self {
        Self::with_limits(out, TranscriptLimits::default())
    }

    pub fn with_limits(out: W, limits: TranscriptLimits) -> Self {
        JsonlTranscript {
            out,
            error: None,
            limits,
            written: 0,
            cut: false,
            redactor: None,
        }
    }

    /// Redacts with `redactor` (a review's, which knows the secrets found in
    /// its inputs and tools' results) instead of the process's.
    pub fn with_redactor(mut self, redactor: crit_core::redact::Redactor) -> Self {
        self.redactor = Some(redactor);
        self
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write + Send> JsonlTranscript<W> {
    /// Writes one line as is: for events that are not [`TranscriptItem`]s (an
    /// agent backend's own log lines).
    pub fn write_line(&mut self, line: &str) {
        if self.error.is_some() || self.cut {
            return;
        }
        let line = redacted_line(
            self.redactor
                .as_ref()
                .unwrap_or_else(|| crit_core::redact::Redactor::process()),
            line,
        );
        let line = line.as_str();
        let size = line.len() as u64 + 1;
        if self.written.saturating_add(size) > self.limits.max_bytes {
            self.cut = true;
            let limit = self.limits.max_bytes;
            let marker = serde_json::json!({
                "type": "truncated",
                "limit_bytes": limit,
                "detail": format!("the transcript reached its limit of {limit} bytes; later events were not recorded"),
            });
            self.put(&marker.to_string());
            return;
        }
        self.written += size;
        self.put(line);
    }

    fn put(&mut self, line: &str) {
        if let Err(e) = writeln!(self.out, "{line}").and_then(|()| self.out.flush()) {
            self.error = Some(e.to_string());
        }
    }
}

/// A transcript line with its secrets redacted: string by string when it is
/// JSON (so quoting cannot hide an assignment), as text otherwise.
fn redacted_line(redactor: &crit_core::redact::Redactor, line: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(line) {
        Ok(mut v) => {
            if redactor.redact_json(&mut v) == 0 {
                return line.to_string();
            }
            v.to_string()
        }
        Err(_) => redactor.redact_str(line).into_owned(),
    }
}

impl<W: Write + Send> TranscriptSink for JsonlTranscript<W> {
    fn record(&mut self, item: &TranscriptItem) {
        let line = serde_json::to_string(item).unwrap_or_default();
        self.write_line(&line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transcript_past_its_limit_ends_with_a_marker() {
        let mut t = JsonlTranscript::with_limits(Vec::new(), TranscriptLimits { max_bytes: 100 });
        for i in 0..50 {
            t.write_line(&format!("{{\"n\":{i}}}"));
        }
        assert!(t.cut);
        let text = String::from_utf8(t.into_inner()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let last: serde_json::Value = serde_json::from_str(lines.last().unwrap()).unwrap();
        assert_eq!(last["type"], "truncated");
        assert_eq!(last["limit_bytes"], 100);
        assert!(text.len() < 100 + 200, "{}", text.len());
        assert!(
            lines[..lines.len() - 1]
                .iter()
                .all(|l| l.starts_with("{\"n\""))
        );
    }

    #[test]
    fn a_write_error_is_kept() {
        let mut t = JsonlTranscript::new(FailingWriter);
        t.write_line("{}");
        t.write_line("{}");
        assert_eq!(
            t.error.as_deref(),
            Some("No space left on device (os error 28)")
        );
    }

    struct FailingWriter;

    impl Write for FailingWriter {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::from_raw_os_error(28))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
}
