//! Text that came from a model, a repository or a config file, made safe for
//! where it is printed. A [`Printable`] can only be made by escaping text for
//! one [`Dest`], so a function that takes one cannot be handed raw text.
//!
//! What every destination shares: control characters (C0 but tab and line
//! feed, DEL, C1), line and paragraph separators, and the characters that hide
//! or reorder text (bidirectional controls, zero-width characters, tag
//! characters) are shown as `<U+XXXX>`, so an escape sequence prints as inert
//! text and a hidden character is seen rather than obeyed. What each adds:
//!
//! - [`Dest::Terminal`]: a terminal, which may be a CI job's log. No line may
//!   start a GitHub workflow command: a `::` at a line's start (after
//!   whitespace, which the runner skips) becomes `<U+003A>:`, and `##[` (the
//!   runner's older command form, found anywhere in a line) becomes
//!   `#<U+0023>[`.
//! - [`Dest::CiLog`]: one line of a CI log, in the escaping GitHub's runner
//!   reads back: `%`, CR and LF percent-encoded (so the text stays one line),
//!   then the same workflow-command rules as a terminal, with `%3A`/`%23`.
//! - [`Dest::Markdown`]: a pull-request comment or job summary. HTML and
//!   Markdown syntax escaped, so text cannot open or close crit's own blocks
//!   (`</details>`, code fences, `<!--`), fake a heading, show a remote image
//!   or link, or mention anyone (`@` gets a zero-width space entity); it reads
//!   exactly as written, inline code spans included. [`Printable::code_block`] fences text instead, with a
//!   fence no line inside can close.
//! - [`Dest::Xml`]: an XML 1.0 attribute value or element text (JUnit):
//!   markup and quotes as entities, line breaks and tabs as character
//!   references, nothing XML forbids, and the workflow-command forms broken
//!   with character references (which read back as the same text).

use std::borrow::Cow;
use std::fmt;

use crate::screen::hidden_name;

/// Where a [`Printable`] is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dest {
    /// A terminal, which may be a CI job's log; several lines.
    Terminal,
    /// One line of a CI log (progress, status), in GitHub's workflow-command
    /// escaping.
    CiLog,
    /// GitHub-flavoured Markdown: a pull-request comment, a job summary.
    Markdown,
    /// An XML 1.0 attribute value or element text.
    Xml,
}

/// Text escaped for one [`Dest`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Printable {
    text: String,
    dest: Dest,
}

impl Printable {
    /// `raw` escaped for `dest`, its lines kept where `dest` has lines.
    pub fn new(raw: &str, dest: Dest) -> Printable {
        let text = match dest {
            Dest::Terminal => terminal(raw),
            Dest::CiLog => ci_log(raw),
            Dest::Markdown => markdown(raw),
            Dest::Xml => xml(raw),
        };
        Printable { text, dest }
    }

    /// `raw` on one line: every run of whitespace (line breaks included)
    /// becomes one space, and the ends are trimmed; then escaped for `dest`.
    /// For a title, a path or a name shown inline.
    pub fn line(raw: &str, dest: Dest) -> Printable {
        let folded = raw.split_whitespace().collect::<Vec<_>>().join(" ");
        Printable::new(&folded, dest)
    }

    /// `raw` on one line exactly as written: line breaks and tabs shown as
    /// `<U+XXXX>` like every other control, nothing folded or trimmed; then
    /// escaped for `dest`. For a value the user decides on (a setting on the
    /// trust screen), where a hidden line break matters as much as an escape
    /// sequence.
    pub fn exact_line(raw: &str, dest: Dest) -> Printable {
        if !raw.contains(['\n', '\t']) {
            return Printable::new(raw, dest);
        }
        let mut shown = String::with_capacity(raw.len() + 16);
        for c in raw.chars() {
            match c {
                '\n' | '\t' => push_visible(&mut shown, c),
                c => shown.push(c),
            }
        }
        Printable::new(&shown, dest)
    }

    /// `raw` as a Markdown fenced code block, shown exactly as written
    /// (controls and hidden characters made visible, no line starting a
    /// workflow command); `info` is crit's own info string (`suggestion`,
    /// `text`). For code and multi-line text a model wrote.
    pub fn code_block(raw: &str, info: &'static str) -> Printable {
        Printable {
            text: fenced(raw, info.trim()),
            dest: Dest::Markdown,
        }
    }

    /// The escaped text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn dest(&self) -> Dest {
        self.dest
    }

    pub fn into_string(self) -> String {
        self.text
    }
}

impl fmt::Display for Printable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl AsRef<str> for Printable {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

/// A serialized JSON document made safe to print, as the same JSON value:
/// the characters serializers leave raw inside strings (hidden and
/// reordering ones, line and paragraph separators) become `\uXXXX` escapes,
/// and `##[` (which can only sit inside a string) becomes `#\u0023[`, so a
/// report printed in a CI log starts no workflow command. Control
/// characters are already escaped by every JSON serializer.
pub fn json_document(serialized: String) -> String {
    if !serialized.chars().any(escaped_everywhere) && !serialized.contains("##[") {
        return serialized;
    }
    let mut out = String::with_capacity(serialized.len() + 16);
    for c in serialized.chars() {
        if escaped_everywhere(c) && c != '\r' {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out.replace("##[", "#\\u0023[")
}

/// Whether `c` is shown as `<U+XXXX>` everywhere: controls but tab and line
/// feed, separators, hidden and reordering characters, noncharacters.
fn escaped_everywhere(c: char) -> bool {
    (c.is_control() && c != '\t' && c != '\n')
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{FFFE}' | '\u{FFFF}')
        || hidden_name(c).is_some()
}

fn push_visible(out: &mut String, c: char) {
    out.push_str(&format!("<U+{:04X}>", u32::from(c)));
}

/// `raw` with [`escaped_everywhere`] characters made visible; borrowed when
/// there are none.
fn visible(raw: &str) -> Cow<'_, str> {
    if !raw.chars().any(escaped_everywhere) {
        return Cow::Borrowed(raw);
    }
    let mut out = String::with_capacity(raw.len() + 16);
    for c in raw.chars() {
        if escaped_everywhere(c) {
            push_visible(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A line that cannot start a workflow command: its first `::` (after the
/// whitespace the runner skips) and every `##[` broken with `colon`/`hash`.
fn no_workflow_command(line: &str, colon: &str, hash: &str) -> String {
    let body = line.trim_start();
    let lead = &line[..line.len() - body.len()];
    let mut out = match body.strip_prefix(':') {
        Some(rest) if rest.starts_with(':') => format!("{lead}{colon}{rest}"),
        _ => line.to_string(),
    };
    if out.contains("##[") {
        out = out.replace("##[", &format!("#{hash}["));
    }
    out
}

fn terminal(raw: &str) -> String {
    let shown = visible(raw);
    shown
        .split('\n')
        .map(|line| no_workflow_command(line, "<U+003A>", "<U+0023>"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn ci_log(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c if escaped_everywhere(c) => push_visible(&mut out, c),
            c => out.push(c),
        }
    }
    no_workflow_command(&out, "%3A", "%23")
}

fn markdown(raw: &str) -> String {
    let shown = visible(raw);
    shown
        .split('\n')
        .map(markdown_line)
        .collect::<Vec<_>>()
        .join("\n")
}

/// One line of Markdown, shown as written: every character that could start
/// markup escaped, and the line-start forms (headings, list and setext
/// markers, workflow commands) broken with a backslash.
fn markdown_line(line: &str) -> String {
    let body = line.trim_start();
    let lead = &line[..line.len() - body.len()];
    let mut out = String::with_capacity(line.len() + 8);
    // Indentation would make a code block, where escapes show as written.
    out.push_str(&lead.replace('\t', "    ").replace(' ', "&#32;"));
    if ["#", "::", "+", "-", "="]
        .iter()
        .any(|p| body.starts_with(p))
    {
        out.push('\\');
    }
    let mut chars = body.char_indices().peekable();
    // The closing run of a code span judged unsafe: escaped like its opening.
    let mut escaped_close = None;
    while let Some((at, c)) = chars.next() {
        if c == '`' && escaped_close.is_none_or(|close| at > close) {
            match code_span(&body[at..]) {
                Span::Inert(len) => {
                    out.push_str(&body[at..at + len]);
                    while chars.peek().is_some_and(|(i, _)| *i < at + len) {
                        chars.next();
                    }
                    continue;
                }
                Span::Escaped { close } => escaped_close = Some(at + close),
                Span::Unclosed => {}
            }
        }
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\\' | '[' | ']' | '|' | '`' | '*' | '_' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '@' if chars.peek().is_some_and(|(_, n)| n.is_alphanumeric()) => {
                out.push_str("@&#8203;");
            }
            c => out.push(c),
        }
    }
    out
}

/// What the backtick run `s` starts with opens.
enum Span {
    /// A code span this long, shown as it is: it closes on the same line,
    /// is one or two backticks deep (three could be read as a fence), and
    /// holds nothing that is not inert there; so `conn.Close()` keeps its
    /// formatting.
    Inert(usize),
    /// A code span to show as escaped text, closed by the run at `close`.
    Escaped {
        close: usize,
    },
    Unclosed,
}

fn code_span(s: &str) -> Span {
    let ticks = s.bytes().take_while(|b| *b == b'`').count();
    let mut from = ticks;
    while let Some(i) = s[from..].find('`') {
        let at = from + i;
        let run = s[at..].bytes().take_while(|b| *b == b'`').count();
        if run == ticks {
            let content = &s[ticks..at];
            let inert = ticks <= 2
                && !content.trim().is_empty()
                && !content.contains(['<', '>', '&', '|', '\n'])
                && !content.contains("##[");
            return if inert {
                Span::Inert(at + run)
            } else {
                Span::Escaped {
                    close: at + run - 1,
                }
            };
        }
        from = at + run;
    }
    Span::Unclosed
}

/// A fenced code block around `raw`, shown as written: the fence is longer
/// than any run of backticks inside, so nothing in it can close it.
fn fenced(raw: &str, info: &str) -> String {
    let shown = visible(raw);
    let longest = shown.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let body = shown
        .trim_end_matches('\n')
        .split('\n')
        .map(|line| no_workflow_command(line, "<U+003A>", "<U+0023>"))
        .collect::<Vec<_>>()
        .join("\n");
    if body.is_empty() {
        // No line at all (a suggestion that deletes): an empty line would be
        // one line of text.
        return format!("{fence}{info}\n{fence}");
    }
    format!("{fence}{info}\n{body}\n{fence}")
}

fn xml(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len() + 8);
    for c in raw.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\t' => out.push_str("&#9;"),
            c if escaped_everywhere(c) => out.push_str(&format!("&lt;U+{:04X}&gt;", u32::from(c))),
            c => out.push(c),
        }
    }
    // Character references read back as the same text.
    no_workflow_command(&out, "&#58;", "&#35;")
}

#[cfg(test)]
#[path = "printable_tests.rs"]
mod tests;
