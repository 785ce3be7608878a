//! `crit mcp`'s stdio transport: rmcp's writer, and a reader that bounds
//! every message. rmcp's own reader drops a line over its limit without a
//! word, so the client waits for an answer that never comes; here a
//! message over [`MAX_MESSAGE_BYTES`] is read through (kept to nothing but
//! its `id`) and answered with an error that says why.

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};

/// The largest message a client may send: a call's arguments (a prompt, a
/// plan, a list of files) are far smaller.
pub(super) const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// The tool a message over the limit becomes, so the answer goes out
/// through the server, under the message's `id`.
pub(super) const OVERSIZED: &str = "crit/oversized";

pub(super) struct Bounded<R: AsyncRead, W: AsyncWrite> {
    read: BufReader<R>,
    line: Vec<u8>,
    write: AsyncRwTransport<RoleServer, tokio::io::Empty, W>,
}

impl<R, W> Bounded<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    pub(super) fn new(read: R, write: W) -> Self {
        Bounded {
            read: BufReader::new(read),
            line: Vec::new(),
            write: AsyncRwTransport::new_server(tokio::io::empty(), write),
        }
    }

    /// The next line, or the size and `id` of one over the limit; `None`
    /// at the end of input.
    async fn next_line(&mut self) -> Option<Line> {
        self.line.clear();
        let mut over: Option<(usize, IdScan)> = None;
        loop {
            let available = self.read.fill_buf().await.ok()?;
            if available.is_empty() {
                // The end of input: a last line without its newline still counts.
                return match over {
                    Some((n, scan)) => Some(Line::Over(n, scan.id())),
                    None if self.line.is_empty() => None,
                    None => Some(Line::Whole),
                };
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let chunk = &available[..take];
            match &mut over {
                Some((n, scan)) => {
                    *n += chunk.len();
                    scan.feed(chunk);
                }
                None if self.line.len() + chunk.len() > MAX_MESSAGE_BYTES => {
                    let mut scan = IdScan::default();
                    scan.feed(&self.line);
                    scan.feed(chunk);
                    over = Some((self.line.len() + chunk.len(), scan));
                    self.line = Vec::new();
                }
                None => self.line.extend_from_slice(chunk),
            }
            self.read.consume(take);
            if newline.is_some() {
                return Some(match over {
                    Some((n, scan)) => Line::Over(n, scan.id()),
                    None => Line::Whole,
                });
            }
        }
    }
}

enum Line {
    /// In `Bounded::line`.
    Whole,
    /// Over the limit: its size, and its `id` if it had one.
    Over(usize, Option<Value>),
}

impl<R, W> Transport<RoleServer> for Bounded<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.write.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.next_line().await? {
                Line::Whole => {
                    let text = self.line.trim_ascii();
                    if text.is_empty() {
                        continue;
                    }
                    // Not a message: skipped, as rmcp's own reader does.
                    if let Ok(msg) = serde_json::from_slice(text) {
                        return Some(msg);
                    }
                }
                // A notification (no id) has no one to answer.
                Line::Over(_, None) => continue,
                Line::Over(bytes, Some(id)) => {
                    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                        "params": {"name": OVERSIZED, "arguments": {"bytes": bytes}}});
                    if let Ok(msg) = serde_json::from_value(call) {
                        return Some(msg);
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.write.close().await
    }
}

/// Finds the top-level `"id"` of a JSON object fed to it in pieces, keeping
/// nothing else (an id is a number or a short string).
#[derive(Default)]
struct IdScan {
    depth: u32,
    in_string: bool,
    escaped: bool,
    expect_key: bool,
    /// The key being read at the top level (its first bytes).
    key: Option<Vec<u8>>,
    after_id_key: bool,
    value: Option<Vec<u8>>,
    found: Option<Vec<u8>>,
}

impl IdScan {
    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.found.is_some() {
                return;
            }
            if self.value.is_some() && self.value_byte(b) {
                continue;
            }
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                    if let Some(k) = self.key.take() {
                        self.after_id_key = k == b"id";
                    }
                    continue;
                }
                if let Some(k) = &mut self.key {
                    // Longer than "id": never it.
                    if k.len() < 3 {
                        k.push(b);
                    }
                }
                continue;
            }
            match b {
                b'"' => {
                    self.in_string = true;
                    if self.depth == 1 && self.expect_key {
                        self.key = Some(Vec::new());
                        self.expect_key = false;
                    }
                }
                b'{' | b'[' => {
                    self.depth += 1;
                    self.expect_key = self.depth == 1 && b == b'{';
                }
                b'}' | b']' => self.depth = self.depth.saturating_sub(1),
                b',' if self.depth == 1 => {
                    self.expect_key = true;
                    self.after_id_key = false;
                }
                b':' if self.depth == 1 && self.after_id_key => {
                    self.after_id_key = false;
                    self.value = Some(Vec::new());
                }
                _ => {}
            }
        }
    }

    /// One byte of the id's value; false when the value ended before it
    /// (the byte is then read as structure).
    fn value_byte(&mut self, b: u8) -> bool {
        let Some(v) = &mut self.value else {
            return false;
        };
        if v.len() > 256 {
            self.value = None;
            return false;
        }
        if v.first() == Some(&b'"') {
            v.push(b);
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.found = self.value.take();
            }
            return true;
        }
        if v.is_empty() && b.is_ascii_whitespace() {
            return true;
        }
        if (v.is_empty() && b == b'"') || b.is_ascii_digit() || b"-+.eE".contains(&b) {
            v.push(b);
            return true;
        }
        self.found = self.value.take().filter(|v| !v.is_empty());
        false
    }

    /// The id, when it is a number or a string.
    fn id(&self) -> Option<Value> {
        let v: Value = serde_json::from_slice(self.found.as_deref()?).ok()?;
        (v.is_number() || v.is_string()).then_some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id_of(text: &str, piece: usize) -> Option<Value> {
        let mut scan = IdScan::default();
        for chunk in text.as_bytes().chunks(piece) {
            scan.feed(chunk);
        }
        scan.id()
    }

    #[test]
    fn the_top_level_id_wherever_it_is() {
        for piece in [1, 3, 1000] {
            assert_eq!(
                id_of(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call"}"#, piece),
                Some(json!(7))
            );
            // The TypeScript SDK writes the id last, after the arguments.
            assert_eq!(
                id_of(
                    r#"{"method":"tools/call","params":{"id":1,"arguments":{"prompt":"\"id\": 9"}},"jsonrpc":"2.0", "id" : "a\"b"}"#,
                    piece
                ),
                Some(json!("a\"b"))
            );
            assert_eq!(
                id_of(r#"{"method":"notify","params":{"id":3}}"#, piece),
                None
            );
            assert_eq!(id_of(r#"{"idx":1,"id":null}"#, piece), None);
        }
    }
}
