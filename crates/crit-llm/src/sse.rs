//! A server-sent events decoder (the WHATWG event-stream rules that matter here):
//! events may be split anywhere across chunks, lines end in LF, CRLF or CR,
//! `:` lines are comments, several `data:` lines join with `\n`.

/// One dispatched event. `event` is empty when the stream gave no name (OpenAI).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    pub event: String,
    pub data: String,
}

#[derive(Debug, Default)]
pub struct SseDecoder {
    buf: Vec<u8>,
    /// How much of `buf` holds no line end: a long line is scanned once, not
    /// again on every chunk (which made an endless line quadratic).
    scanned: usize,
    event: String,
    data: String,
    has_data: bool,
}

impl SseDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds bytes in; returns the events they complete.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        self.buf.extend_from_slice(chunk);
        let mut out = Vec::new();
        let mut start = 0;
        let mut i = self.scanned;
        while i < self.buf.len() {
            let b = self.buf[i];
            if b == b'\n' || b == b'\r' {
                // A CR at the very end may be the first half of a CRLF: wait.
                if b == b'\r' && i + 1 == self.buf.len() {
                    break;
                }
                let line = String::from_utf8_lossy(&self.buf[start..i]).into_owned();
                self.line(&line, &mut out);
                i += if b == b'\r' && self.buf[i + 1] == b'\n' {
                    2
                } else {
                    1
                };
                start = i;
            } else {
                i += 1;
            }
        }
        self.buf.drain(..start);
        // Everything left before `i` was scanned and holds no complete line end
        // (at most a CR that may start a CRLF, which is looked at again).
        self.scanned = (i - start).min(self.buf.len());
        out
    }

    /// End of stream: a pending event without its blank line is still dispatched
    /// (servers that close right after the last `data:` line).
    pub fn finish(&mut self) -> Vec<SseEvent> {
        let mut out = Vec::new();
        self.scanned = 0;
        if !self.buf.is_empty() {
            let rest = std::mem::take(&mut self.buf);
            let line = String::from_utf8_lossy(&rest);
            let line = line.trim_end_matches(['\r', '\n']).to_string();
            self.line(&line, &mut out);
        }
        self.line("", &mut out);
        out
    }

    fn line(&mut self, line: &str, out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            if self.has_data {
                out.push(SseEvent {
                    event: std::mem::take(&mut self.event),
                    data: std::mem::take(&mut self.data),
                });
            }
            self.event.clear();
            self.data.clear();
            self.has_data = false;
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = value.to_string(),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            // `id` and `retry` do not matter for one-shot POST streams.
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_at_once(input: &[u8]) -> Vec<SseEvent> {
        let mut d = SseDecoder::new();
        let mut v = d.push(input);
        v.extend(d.finish());
        v
    }

    fn byte_by_byte(input: &[u8]) -> Vec<SseEvent> {
        let mut d = SseDecoder::new();
        let mut v = Vec::new();
        for b in input {
            v.extend(d.push(std::slice::from_ref(b)));
        }
        v.extend(d.finish());
        v
    }

    const ANTHROPIC: &[u8] = b"event: message_start\ndata: {\"a\":1}\n\nevent: ping\ndata: {\"type\":\"ping\"}\n\n: keepalive comment\n\nevent: content_block_delta\ndata: {\"b\":2}\n\n";

    #[test]
    fn splits_do_not_matter() {
        let whole = all_at_once(ANTHROPIC);
        assert_eq!(whole.len(), 3);
        assert_eq!(whole[0].event, "message_start");
        assert_eq!(whole[1].event, "ping");
        assert_eq!(whole[2].data, "{\"b\":2}");
        assert_eq!(byte_by_byte(ANTHROPIC), whole);
        for cut in 0..ANTHROPIC.len() {
            let mut d = SseDecoder::new();
            let mut v = d.push(&ANTHROPIC[..cut]);
            v.extend(d.push(&ANTHROPIC[cut..]));
            v.extend(d.finish());
            assert_eq!(v, whole, "cut at {cut}");
        }
    }

    #[test]
    fn crlf_and_cr_line_endings() {
        let crlf = b"event: a\r\ndata: 1\r\n\r\nevent: b\r\ndata: 2\r\n\r\n";
        let cr = b"event: a\rdata: 1\r\revent: b\rdata: 2\r\r";
        let expect = vec![
            SseEvent {
                event: "a".into(),
                data: "1".into(),
            },
            SseEvent {
                event: "b".into(),
                data: "2".into(),
            },
        ];
        assert_eq!(all_at_once(crlf), expect);
        assert_eq!(byte_by_byte(crlf), expect);
        assert_eq!(all_at_once(cr), expect);
        assert_eq!(byte_by_byte(cr), expect);
    }

    #[test]
    fn openai_style_multiline_and_unterminated() {
        let s = b"data: {\"x\":1}\n\ndata: line1\ndata: line2\n\ndata:nospace\n\ndata: [DONE]";
        let v = all_at_once(s);
        assert_eq!(v.len(), 4);
        assert_eq!(v[0].event, "");
        assert_eq!(v[1].data, "line1\nline2");
        assert_eq!(v[2].data, "nospace");
        assert_eq!(v[3].data, "[DONE]");
    }

    #[test]
    fn utf8_split_across_chunks() {
        let s = "data: héllo ✓\n\n".as_bytes();
        assert_eq!(byte_by_byte(s)[0].data, "héllo ✓");
    }

    #[test]
    fn a_long_line_is_scanned_once() {
        // 4 MiB in 4 KiB pieces with no line end: linear, not quadratic.
        let mut d = SseDecoder::new();
        let piece = vec![b'x'; 4096];
        assert!(d.push(b"data: ").is_empty());
        for _ in 0..1024 {
            assert!(d.push(&piece).is_empty());
        }
        let v = d.push(b"\n\n");
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].data.len(), 4 * 1024 * 1024);
        // A CR at a chunk's end is looked at again with the next chunk.
        let mut d = SseDecoder::new();
        assert!(d.push(b"data: a\r").is_empty());
        let v = d.push(b"\ndata: b\r\n\r\n");
        assert_eq!(v[0].data, "a\nb");
    }

    #[test]
    fn event_without_data_is_not_dispatched() {
        assert!(all_at_once(b"event: lonely\n\n: c\n\nid: 3\nretry: 10\n\n").is_empty());
    }

    /// A tiny deterministic generator: no `rand` in the tree.
    fn xorshift(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    #[test]
    fn random_splits_and_garbage() {
        let mut seed = 0x1234_5678_9abc_def1u64;
        let whole = all_at_once(ANTHROPIC);
        for _ in 0..500 {
            let mut d = SseDecoder::new();
            let mut v = Vec::new();
            let mut rest = ANTHROPIC;
            while !rest.is_empty() {
                let n = 1 + (xorshift(&mut seed) as usize) % rest.len().min(17);
                v.extend(d.push(&rest[..n]));
                rest = &rest[n..];
            }
            v.extend(d.finish());
            assert_eq!(v, whole);
        }
        // Arbitrary bytes (invalid UTF-8, lone CRs, colons) never panic.
        let alphabet = b"data:event: \r\n:\xff\xfe{}x";
        for _ in 0..500 {
            let len = (xorshift(&mut seed) % 200) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| alphabet[(xorshift(&mut seed) as usize) % alphabet.len()])
                .collect();
            let mut d = SseDecoder::new();
            for chunk in bytes.chunks(1 + (xorshift(&mut seed) % 7) as usize) {
                let _ = d.push(chunk);
            }
            let _ = d.finish();
        }
    }
}
