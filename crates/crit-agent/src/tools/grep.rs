//! `Grep`: ripgrep's engine in process (grep-regex + grep-searcher over the shared
//! walker), confined to the project. Binary files are skipped. Each file is
//! searched as [`crate::redaction`] shows it, secrets masked on its whole
//! text, so no pattern can match or print a piece of one.

use std::io;
use std::path::Path;

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use ignore::overrides::OverrideBuilder;
use ignore::types::TypesBuilder;
use serde_json::{Value, json};

use super::walk;
use crate::confine::Roots;
use crate::context::ToolContext;
use crate::input::{Input, InputError};
use crate::redaction::{FileView, ToolRedactor};
use crate::tool::{Tool, ToolFuture, ToolOutput};
use crate::truncate::cut_at_char;

/// Characters of one matching line shown before it is cut (minified files).
const MAX_LINE_CHARS: usize = 2000;

const FIELDS: &[&str] = &[
    "pattern",
    "path",
    "glob",
    "type",
    "output_mode",
    "-i",
    "-n",
    "-A",
    "-B",
    "-C",
    "multiline",
    "head_limit",
];

#[derive(Debug, Clone, Copy, Default)]
pub struct GrepTool;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Content,
    FilesWithMatches,
    Count,
}

#[derive(Debug)]
struct Query {
    pattern: String,
    path: Option<String>,
    glob: Option<String>,
    file_type: Option<String>,
    mode: Mode,
    ignore_case: bool,
    line_numbers: bool,
    after: usize,
    before: usize,
    multiline: bool,
    head_limit: Option<usize>,
}

impl Tool for GrepTool {
    fn name(&self) -> &str {
        "Grep"
    }

    fn description(&self) -> &str {
        include_str!("../../prompts/tools/grep.md")
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Regular expression (Rust regex syntax, like ripgrep)"},
                "path": {"type": "string", "description": "File or directory to search (default: the project root)"},
                "glob": {"type": "string", "description": "Only search files matching this glob, e.g. \"*.rs\" or \"*.{ts,tsx}\""},
                "type": {"type": "string", "description": "Only search files of this type, e.g. \"rust\", \"py\", \"js\""},
                "output_mode": {"type": "string", "enum": ["content", "files_with_matches", "count"], "description": "What to show (default files_with_matches)"},
                "-i": {"type": "boolean", "description": "Case-insensitive search"},
                "-n": {"type": "boolean", "description": "Show line numbers (content mode; default true)"},
                "-A": {"type": "integer", "minimum": 0, "description": "Lines of context after each match (content mode)"},
                "-B": {"type": "integer", "minimum": 0, "description": "Lines of context before each match (content mode)"},
                "-C": {"type": "integer", "minimum": 0, "description": "Lines of context before and after each match (content mode)"},
                "multiline": {"type": "boolean", "description": "Let the pattern span lines; `.` then matches newlines too"},
                "head_limit": {"type": "integer", "minimum": 1, "description": "Show only the first N output lines, files or counts"}
            },
            "required": ["pattern"],
            "additionalProperties": false
        })
    }

    fn call<'a>(&'a self, input: Value, cx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let q = match parse(input) {
                Ok(q) => q,
                Err(e) => return ToolOutput::error(e.to_string()),
            };
            let dir = match q.path.as_deref().filter(|p| !p.trim().is_empty()) {
                None => cx.root().to_path_buf(),
                Some(given) => match cx.roots.resolve(given) {
                    Ok(p) if p.exists() => p,
                    Ok(p) => {
                        return ToolOutput::error(format!(
                            "field `path`: `{given}` does not exist (resolved to `{}`)",
                            p.display()
                        ));
                    }
                    Err(e) => return ToolOutput::error(e.to_string()),
                },
            };
            let roots = cx.roots.clone();
            let cancel = cx.cancel.clone();
            let max = cx.limits.max_output_bytes;
            let redaction = cx.redaction.clone();
            super::blocking(cx, move || {
                search(&q, &dir, &roots, &redaction, max, || cancel.is_cancelled())
            })
            .await
        })
    }
}

fn parse(input: Value) -> Result<Query, InputError> {
    let i = Input::parse(input, FIELDS)?;
    let mode = match i.opt_str("output_mode")?.as_deref() {
        None | Some("files_with_matches") => Mode::FilesWithMatches,
        Some("content") => Mode::Content,
        Some("count") => Mode::Count,
        Some(other) => {
            return Err(InputError::Type {
                field: "output_mode",
                expected: "one of \"content\", \"files_with_matches\", \"count\"",
                got: format!("{other:?}"),
            });
        }
    };
    let ctx = i.opt_u64("-C", 0)?;
    let num = |v: Option<u64>| v.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
    Ok(Query {
        pattern: i.req_str("pattern")?,
        path: i.opt_str("path")?,
        glob: i.opt_str("glob")?,
        file_type: i.opt_str("type")?,
        mode,
        ignore_case: i.opt_bool("-i")?.unwrap_or(false),
        line_numbers: i.opt_bool("-n")?.unwrap_or(true),
        after: num(i.opt_u64("-A", 0)?.or(ctx)).unwrap_or(0),
        before: num(i.opt_u64("-B", 0)?.or(ctx)).unwrap_or(0),
        multiline: i.opt_bool("multiline")?.unwrap_or(false),
        head_limit: num(i.opt_u64("head_limit", 1)?),
    })
}

fn search(
    q: &Query,
    dir: &Path,
    roots: &Roots,
    redaction: &ToolRedactor,
    max: usize,
    cancelled: impl Fn() -> bool,
) -> ToolOutput {
    let matcher = match build_matcher(q) {
        Ok(m) => m,
        Err(e) => return ToolOutput::error(format!("field `pattern`: invalid regex: {e}")),
    };
    let mut walker = walk::builder(dir);
    walker.sort_by_file_name(|a, b| a.cmp(b));
    if let Some(t) = &q.file_type {
        let mut types = TypesBuilder::new();
        types.add_defaults();
        types.select(t);
        match types.build() {
            Ok(types) => walker.types(types),
            Err(_) => {
                return ToolOutput::error(format!(
                    "field `type`: unknown file type `{t}`; examples: rust, py, js, ts, go, java, \
                     c, cpp, md, json, yaml, toml, sh"
                ));
            }
        };
    }
    if let Some(g) = &q.glob {
        let base = if dir.is_dir() {
            dir
        } else {
            dir.parent().unwrap_or(dir)
        };
        let built = OverrideBuilder::new(base).add(g).and_then(|b| b.build());
        match built {
            Ok(o) => walker.overrides(o),
            Err(e) => return ToolOutput::error(format!("field `glob`: invalid glob `{g}`: {e}")),
        };
    }
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .multi_line(q.multiline)
        .before_context(if q.mode == Mode::Content { q.before } else { 0 })
        .after_context(if q.mode == Mode::Content { q.after } else { 0 })
        .binary_detection(BinaryDetection::quit(0))
        .build();
    let mut lines: Vec<String> = Vec::new();
    let mut files = 0usize;
    let mut refused: Vec<String> = Vec::new();
    let mut too_large: Vec<String> = Vec::new();
    for entry in walker.build() {
        if cancelled() {
            return ToolOutput::error("cancelled");
        }
        let Ok(entry) = entry else { continue };
        if !walk::admit_file(&entry, roots) {
            continue;
        }
        let shown = walk::display_path(roots, entry.path());
        let mut sink = Collect {
            q,
            path: &shown,
            lines: Vec::new(),
            matches: 0,
        };
        let text = match redaction.view_file("Grep", entry.path(), &shown, roots.root()) {
            Ok(FileView::Text(text)) => text,
            Ok(FileView::Binary) | Err(_) => continue,
            Ok(FileView::Refused(_)) => {
                refused.push(shown);
                continue;
            }
            Ok(FileView::TooLarge(_)) => {
                too_large.push(shown);
                continue;
            }
        };
        if searcher
            .search_slice(&matcher, text.as_bytes(), &mut sink)
            .is_err()
            || sink.matches == 0
        {
            continue;
        }
        files += 1;
        match q.mode {
            Mode::FilesWithMatches => lines.push(shown),
            Mode::Count => lines.push(format!("{shown}:{}", sink.matches)),
            Mode::Content => {
                if !lines.is_empty() && (q.before > 0 || q.after > 0) {
                    lines.push("--".to_string());
                }
                lines.extend(sink.lines);
            }
        }
    }
    let mut out = finish(q, lines, files, max);
    if !refused.is_empty() {
        out.content.push_str(&format!(
            "[not searched: {}; crit does not show credential files git ignores]\n",
            refused.join(", ")
        ));
    }
    if !too_large.is_empty() {
        out.content.push_str(&format!(
            "[not searched: {}; larger than the {} MiB crit reads whole to mask secrets]\n",
            too_large.join(", "),
            crate::redaction::MAX_FILE_BYTES / (1024 * 1024)
        ));
    }
    out
}

fn build_matcher(q: &Query) -> Result<RegexMatcher, grep_regex::Error> {
    let mut b = RegexMatcherBuilder::new();
    b.case_insensitive(q.ignore_case);
    if q.multiline {
        b.multi_line(true).dot_matches_new_line(true);
    } else {
        b.line_terminator(Some(b'\n'));
    }
    b.build(&q.pattern)
}

fn finish(q: &Query, lines: Vec<String>, files: usize, max: usize) -> ToolOutput {
    if lines.is_empty() {
        return ToolOutput::ok(format!("No matches for `{}`", q.pattern));
    }
    let total = lines.len();
    let limit = q.head_limit.unwrap_or(usize::MAX);
    let mut out = match q.mode {
        Mode::FilesWithMatches => format!("Found {files} file(s)\n"),
        _ => String::new(),
    };
    let mut shown = 0;
    for line in &lines {
        if shown == limit || out.len() + line.len() + 1 > max {
            break;
        }
        out.push_str(line);
        out.push('\n');
        shown += 1;
    }
    if shown < total {
        let what = if q.mode == Mode::Content {
            "lines"
        } else {
            "entries"
        };
        out.push_str(&format!(
            "[{} more {what} not shown; narrow the pattern, path, glob or type, or page with head_limit]\n",
            total - shown
        ));
    }
    ToolOutput::ok(out)
}

/// Collects one file's results in ripgrep's format: `path:line:text` for matches,
/// `path-line-text` for context, `--` between separate groups.
struct Collect<'a> {
    q: &'a Query,
    path: &'a str,
    lines: Vec<String>,
    matches: u64,
}

impl Collect<'_> {
    fn push(&mut self, sep: char, number: Option<u64>, bytes: &[u8]) {
        let text = String::from_utf8_lossy(bytes);
        let text = text.trim_end_matches(['\n', '\r']);
        let cut = cut_at_char(text, MAX_LINE_CHARS * 4);
        let cut = match cut.char_indices().nth(MAX_LINE_CHARS) {
            Some((i, _)) => &cut[..i],
            None => cut,
        };
        let marker = if cut.len() < text.len() {
            "… [line cut]"
        } else {
            ""
        };
        let line = match (self.q.line_numbers, number) {
            (true, Some(n)) => format!("{}{sep}{n}{sep}{cut}{marker}", self.path),
            _ => format!("{}{sep}{cut}{marker}", self.path),
        };
        self.lines.push(line);
    }
}

impl Sink for Collect<'_> {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, m: &SinkMatch<'_>) -> Result<bool, io::Error> {
        self.matches += 1;
        match self.q.mode {
            Mode::FilesWithMatches => return Ok(false),
            Mode::Count => return Ok(true),
            Mode::Content => {}
        }
        let first = m.line_number();
        for (k, line) in m.lines().enumerate() {
            self.push(':', first.map(|n| n + k as u64), line);
        }
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, c: &SinkContext<'_>) -> Result<bool, io::Error> {
        self.push('-', c.line_number(), c.bytes());
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, io::Error> {
        self.lines.push("--".to_string());
        Ok(true)
    }
}
