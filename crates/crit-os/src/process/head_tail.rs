//! The output cap of a child process: cut in the middle, since the start says
//! what ran and the end says how it ended.

/// Collects a byte stream but keeps only the first and last `cap / 2` bytes, so a
/// command printing gigabytes costs bounded memory while still being drained.
#[derive(Debug)]
pub struct HeadTail {
    cap: usize,
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    total: u64,
}

impl HeadTail {
    pub fn new(cap: usize) -> Self {
        Self {
            cap,
            head: Vec::new(),
            tail: std::collections::VecDeque::new(),
            total: 0,
        }
    }

    /// Adds the next bytes of the stream.
    pub fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let head_cap = self.cap / 2;
        if self.head.len() < head_cap {
            let take = bytes.len().min(head_cap - self.head.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        let tail_cap = self.cap - head_cap;
        if bytes.len() >= tail_cap {
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - tail_cap..]);
        } else {
            let overflow = (self.tail.len() + bytes.len()).saturating_sub(tail_cap);
            self.tail.drain(..overflow);
            self.tail.extend(bytes);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The text, with `… N bytes omitted …` in the middle when it was cut.
    pub fn render(&self) -> String {
        let kept = (self.head.len() + self.tail.len()) as u64;
        let head = String::from_utf8_lossy(&self.head);
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        let tail = String::from_utf8_lossy(&tail);
        if self.total > kept {
            format!(
                "{head}\n\n… {} bytes omitted …\n\n{tail}",
                self.total - kept
            )
        } else {
            format!("{head}{tail}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_tail_keeps_both_ends_and_counts_the_middle() {
        let mut h = HeadTail::new(10);
        for chunk in [&b"abc"[..], b"defghij", b"klmnopqrstuvwxyz"] {
            h.push(chunk);
        }
        assert_eq!(h.render(), "abcde\n\n… 16 bytes omitted …\n\nvwxyz");
    }

    #[test]
    fn head_tail_under_cap_is_untouched() {
        let mut h = HeadTail::new(100);
        h.push(b"hello ");
        h.push(b"world");
        assert_eq!(h.render(), "hello world");
    }
}
