//! `Read`: a file's lines, numbered like `cat -n`, confined to the project.
//! The file's secrets are masked on its whole text before a window of lines
//! is cut from it ([`crate::redaction`]), so no offset or limit shows a piece
//! of one.

use std::io::{self, BufRead, BufReader};
use std::path::Path;

use serde_json::{Value, json};

use crate::context::ToolContext;
use crate::input::Input;
use crate::redaction::{FileView, ToolRedactor};
use crate::tool::{Tool, ToolFuture, ToolOutput};

const DEFAULT_LIMIT: u64 = 2000;
/// Characters of one line shown before it is cut.
const MAX_LINE_CHARS: usize = 2000;
/// Bytes of one line kept in memory (a UTF-8 char is at most 4 bytes).
const MAX_LINE_BYTES: usize = MAX_LINE_CHARS * 4;

#[derive(Debug, Clone, Copy, Default)]
pub struct ReadTool;

impl Tool for ReadTool {
    fn name(&self) -> &str {
        "Read"
    }

    fn description(&self) -> &str {
        include_str!("../../prompts/tools/read.md")
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "file_path": {"type": "string", "description": "Path of the file to read, absolute or relative to the project root"},
                "offset": {"type": "integer", "minimum": 1, "description": "1-based line number to start at (default 1)"},
                "limit": {"type": "integer", "minimum": 1, "description": "Number of lines to read (default 2000)"}
            },
            "required": ["file_path"],
            "additionalProperties": false
        })
    }

    fn call<'a>(&'a self, input: Value, cx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let parsed = Input::parse(input, &["file_path", "offset", "limit"]).and_then(|i| {
                Ok((
                    i.req_str("file_path")?,
                    i.opt_u64("offset", 1)?,
                    i.opt_u64("limit", 1)?,
                ))
            });
            let (given, offset, limit) = match parsed {
                Ok(p) => p,
                Err(e) => return ToolOutput::error(e.to_string()),
            };
            let path = match cx.roots.resolve(&given) {
                Ok(p) => p,
                Err(e) => return ToolOutput::error(e.to_string()),
            };
            let max_bytes = cx.limits.max_read_bytes;
            let window = Window {
                offset: offset.unwrap_or(1),
                limit: limit.unwrap_or(DEFAULT_LIMIT),
            };
            let redaction = cx.redaction.clone();
            let root = cx.root().to_path_buf();
            super::blocking(cx, move || {
                read_file(&given, &path, window, max_bytes, &redaction, &root)
            })
            .await
        })
    }
}

#[derive(Debug, Clone, Copy)]
struct Window {
    offset: u64,
    limit: u64,
}

fn read_file(
    given: &str,
    path: &Path,
    w: Window,
    max_bytes: usize,
    redaction: &ToolRedactor,
    root: &Path,
) -> ToolOutput {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return ToolOutput::error(format!(
                "file `{given}` does not exist (resolved to `{}`); use Glob to find files",
                path.display()
            ));
        }
        Err(e) => return ToolOutput::error(format!("cannot read `{given}`: {e}")),
    };
    if meta.is_dir() {
        return ToolOutput::error(format!(
            "`{given}` is a directory, not a file; list it with Glob (pattern `*`, path `{given}`) \
             or Bash `ls {given}`"
        ));
    }
    if !meta.is_file() {
        return ToolOutput::error(format!(
            "`{given}` is not a regular file (a device, socket or pipe); Read only reads files"
        ));
    }
    let text = match redaction.view_file("Read", path, given, root) {
        Ok(FileView::Text(text)) => text,
        Ok(FileView::Binary) => return binary(given),
        Ok(FileView::Refused(why) | FileView::TooLarge(why)) => return ToolOutput::error(why),
        Err(e) => return ToolOutput::error(format!("cannot read `{given}`: {e}")),
    };
    match render(BufReader::new(text.as_bytes()), w, max_bytes) {
        Ok(Rendered::Binary) => binary(given),
        Ok(Rendered::Empty) => ToolOutput::ok(format!("(file `{given}` is empty)")),
        Ok(Rendered::PastEnd { lines }) => ToolOutput::error(format!(
            "offset {} is past the end: `{given}` has {lines} lines",
            w.offset
        )),
        Ok(Rendered::Text(text)) => ToolOutput::ok(text),
        Err(e) => ToolOutput::error(format!("cannot read `{given}`: {e}")),
    }
}

fn binary(given: &str) -> ToolOutput {
    ToolOutput::error(format!(
        "`{given}` looks like a binary file (it contains NUL bytes); Read only shows text"
    ))
}

enum Rendered {
    Binary,
    Empty,
    PastEnd { lines: u64 },
    Text(String),
}

fn render(mut r: impl BufRead, w: Window, max_bytes: usize) -> io::Result<Rendered> {
    let head = r.fill_buf()?;
    if head.is_empty() {
        return Ok(Rendered::Empty);
    }
    if head.contains(&0) {
        return Ok(Rendered::Binary);
    }
    let mut out = String::new();
    let mut line = Vec::new();
    let mut n: u64 = 0;
    let last = w.offset.saturating_add(w.limit - 1);
    while let Some(dropped) = read_line_capped(&mut r, &mut line, MAX_LINE_BYTES)? {
        n += 1;
        if n < w.offset {
            continue;
        }
        let shown = format_line(n, &line, dropped);
        if !out.is_empty() && out.len() + shown.len() > max_bytes {
            out.push_str(&format!(
                "\n[output cut at {max_bytes} bytes after line {}; call Read with offset={} to read on]",
                n - 1,
                n
            ));
            return Ok(Rendered::Text(out));
        }
        out.push_str(&shown);
        if n == last {
            if !r.fill_buf()?.is_empty() {
                out.push_str(&format!(
                    "\n[showing lines {}-{n}; the file goes on: call Read with offset={} to read more]",
                    w.offset,
                    n + 1
                ));
            }
            return Ok(Rendered::Text(out));
        }
    }
    if n < w.offset {
        return Ok(Rendered::PastEnd { lines: n });
    }
    Ok(Rendered::Text(out))
}

/// `{n:>6}\t{line}\n`, the line cut at `MAX_LINE_CHARS` with a marker.
fn format_line(n: u64, raw: &[u8], dropped: usize) -> String {
    let text = String::from_utf8_lossy(raw);
    let text = text.strip_suffix('\n').unwrap_or(&text);
    let text = text.strip_suffix('\r').unwrap_or(text);
    let mut chars = text.char_indices();
    let (body, cut) = match chars.nth(MAX_LINE_CHARS) {
        Some((i, _)) => (&text[..i], true),
        None => (text, dropped > 0),
    };
    if cut {
        format!("{n:>6}\t{body}… [line cut at {MAX_LINE_CHARS} characters]\n")
    } else {
        format!("{n:>6}\t{body}\n")
    }
}

/// Reads one line into `buf`, keeping at most `cap` bytes; returns how many bytes
/// of the line were dropped, or `None` at end of file.
fn read_line_capped(
    r: &mut impl BufRead,
    buf: &mut Vec<u8>,
    cap: usize,
) -> io::Result<Option<usize>> {
    buf.clear();
    let mut dropped = 0;
    let mut any = false;
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            return Ok(any.then_some(dropped));
        }
        any = true;
        let (used, done) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let room = cap.saturating_sub(buf.len());
        let keep = used.min(room);
        buf.extend_from_slice(&chunk[..keep]);
        // The newline itself is not content: dropping only it does not cut the line.
        dropped += used - keep - usize::from(done && keep < used);
        r.consume(used);
        if done {
            return Ok(Some(dropped));
        }
    }
}
