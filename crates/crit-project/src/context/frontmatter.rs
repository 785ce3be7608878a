//! YAML frontmatter of Markdown files (`.claude/rules/*.md`, `.claude/agents/*.md`):
//! a first line `---`, YAML, a closing line `---`, then the body. Locations are
//! reported as lines of the whole file, not of the YAML block.

use serde::de::DeserializeOwned;
use serde_saphyr::Location;

use crate::error::FileError;

/// A file split at its frontmatter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Frontmatter<'a> {
    /// The YAML between the `---` lines.
    pub yaml: &'a str,
    /// Everything after the closing `---` line.
    pub body: &'a str,
    /// The file's line number of the YAML's first line.
    pub first_line: u64,
}

/// Something wrong with the frontmatter, at a line and column of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct YamlError {
    pub line: u64,
    pub column: u64,
    pub message: String,
}

/// `Ok(None)` when the file has no frontmatter (its first line is not `---`).
/// A `---` that is never closed is an error: the whole file would otherwise be
/// read as YAML, or the YAML as prose.
pub(crate) fn split(text: &str) -> Result<Option<Frontmatter<'_>>, YamlError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some((first, rest)) = split_line(text) else {
        return Ok(None);
    };
    if first.trim_end() != "---" {
        return Ok(None);
    }
    let mut offset = 0;
    let mut remaining = rest;
    while let Some((line, after)) = split_line(remaining) {
        if line.trim_end() == "---" {
            return Ok(Some(Frontmatter {
                yaml: &rest[..offset],
                body: after,
                first_line: 2,
            }));
        }
        offset += remaining.len() - after.len();
        remaining = after;
    }
    Err(YamlError {
        line: 1,
        column: 1,
        message:
            "the frontmatter opened by `---` on line 1 is never closed; end it with a line `---`"
                .to_string(),
    })
}

/// The first line (without its `\n`) and the rest, or `None` for empty input.
fn split_line(text: &str) -> Option<(&str, &str)> {
    if text.is_empty() {
        return None;
    }
    Some(match text.find('\n') {
        Some(i) => (text[..i].trim_end_matches('\r'), &text[i + 1..]),
        None => (text.trim_end_matches('\r'), ""),
    })
}

impl Frontmatter<'_> {
    /// Deserialize the YAML. Claude Code's agent files and Cursor's rules are
    /// often not strict YAML (`globs: *.ts`, `description: Use when: …`), and the
    /// tools that write them accept that; so when strict parsing fails, it is tried
    /// once more with such values quoted, and the original error is reported if
    /// that fails too. Valid YAML is never rewritten.
    pub(crate) fn parse<T: DeserializeOwned>(&self) -> Result<T, YamlError> {
        let yaml = if self.yaml.trim().is_empty() {
            "{}"
        } else {
            self.yaml
        };
        match serde_saphyr::from_str(yaml) {
            Ok(v) => Ok(v),
            Err(strict) => {
                let lenient = quote_loose_scalars(yaml);
                if lenient != yaml
                    && let Ok(v) = serde_saphyr::from_str(&lenient)
                {
                    return Ok(v);
                }
                Err(self.yaml_error(&strict))
            }
        }
    }

    /// The file line and column of a location inside the YAML.
    pub(crate) fn at(&self, location: &Location) -> (u64, u64) {
        (
            location.line().max(1) + self.first_line - 1,
            location.column().max(1),
        )
    }

    fn yaml_error(&self, e: &serde_saphyr::Error) -> YamlError {
        // The crate's one conversion of YAML errors (first line of the message,
        // location clamped to 1:1) lives in FileError; reuse it.
        match FileError::from_yaml("", e) {
            FileError::Invalid {
                line,
                column,
                message,
                ..
            } => YamlError {
                line: line + self.first_line - 1,
                column,
                message: without_inner_location(&message),
            },
            other => YamlError {
                line: self.first_line,
                column: 1,
                message: other.to_string(),
            },
        }
    }
}

/// The parser's message repeats its location relative to the YAML block
/// (`error: line 2 column 14: …`), one line off from the file's; drop it, and
/// the advice meant for programmers about parser options.
fn without_inner_location(message: &str) -> String {
    let m = message.strip_prefix("error: ").unwrap_or(message);
    let m = strip_location(m).unwrap_or(m);
    let m = m.split(", set DuplicateKeyPolicy").next().unwrap_or(m);
    m.to_string()
}

/// `line 2 column 14: rest` → `rest`.
fn strip_location(m: &str) -> Option<&str> {
    let rest = m.strip_prefix("line ")?;
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = rest.strip_prefix(" column ")?;
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    rest.strip_prefix(": ")
}

/// Quote plain scalars YAML rejects but people write: a top-level value or list
/// item that starts with `*` (a glob, read by YAML as an alias), and a top-level
/// value containing `: ` (prose, read as a nested mapping).
fn quote_loose_scalars(yaml: &str) -> String {
    let mut out = String::with_capacity(yaml.len() + 16);
    for line in yaml.split_inclusive('\n') {
        let (content, newline) = match line.strip_suffix('\n') {
            Some(c) => (c.trim_end_matches('\r'), "\n"),
            None => (line, ""),
        };
        out.push_str(&quote_line(content).unwrap_or_else(|| content.to_string()));
        out.push_str(newline);
    }
    out
}

fn quote_line(line: &str) -> Option<String> {
    let indent = line.len() - line.trim_start().len();
    let trimmed = line.trim_start();
    if let Some(item) = trimmed.strip_prefix("- ") {
        let item = item.trim();
        return item
            .starts_with('*')
            .then(|| format!("{}- {}", &line[..indent], single_quoted(item)));
    }
    if indent > 0 {
        return None;
    }
    let (key, value) = line.split_once(':')?;
    let value = value.trim();
    let plain_key = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let quoted_already = value.starts_with(['\'', '"', '[', '{', '|', '>', '&', '!']);
    if !plain_key || value.is_empty() || quoted_already {
        return None;
    }
    (value.starts_with('*') || value.contains(": "))
        .then(|| format!("{key}: {}", single_quoted(value)))
}

fn single_quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// Split `s` at top-level commas: commas inside `{…}`, `[…]` or `(…)` stay, so
/// `src/**/*.{ts,tsx}` and `Bash(git log:*), Read` split where a person would.
/// Items are trimmed and keep their byte offset in `s`.
pub(crate) fn split_commas(s: &str) -> Vec<(usize, &str)> {
    let mut items = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                items.push(trimmed_at(s, start, i));
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(trimmed_at(s, start, s.len()));
    items
}

fn trimmed_at(s: &str, start: usize, end: usize) -> (usize, &str) {
    let raw = &s[start..end];
    let lead = raw.len() - raw.trim_start().len();
    (start + lead, raw.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_reports_unclosed() {
        let fm = split("---\npaths: a\n---\n# Body\n").unwrap().unwrap();
        assert_eq!(fm.yaml, "paths: a\n");
        assert_eq!(fm.body, "# Body\n");
        assert!(split("# no frontmatter\n---\n").unwrap().is_none());
        assert!(split("").unwrap().is_none());
        let crlf = split("\u{feff}---\r\nname: x\r\n---\r\nbody")
            .unwrap()
            .unwrap();
        assert_eq!((crlf.yaml, crlf.body), ("name: x\r\n", "body"));
        assert_eq!(split("---\nname: x\n").unwrap_err().line, 1);
        let empty = split("---\n---\nbody").unwrap().unwrap();
        assert_eq!((empty.yaml, empty.body), ("", "body"));
    }

    #[test]
    fn errors_are_at_file_lines_without_the_parser_s_own() {
        let fm = split("---\nname: r\nname: s\n---\nb").unwrap().unwrap();
        let e = fm.parse::<serde_json::Value>().unwrap_err();
        assert_eq!((e.line, e.column), (3, 1));
        assert_eq!(e.message, "duplicate mapping key: name");
        let fm = split("---\na: [x\n---\n").unwrap().unwrap();
        let e = fm.parse::<serde_json::Value>().unwrap_err();
        assert_eq!(e.message, "unclosed bracket '['");
        assert_eq!(without_inner_location("line 2 x"), "line 2 x");
    }

    #[test]
    fn loose_scalars_are_quoted_only_when_needed() {
        assert_eq!(
            quote_loose_scalars("globs: *.ts\npaths:\n  - **/*.rs\nname: ok\n"),
            "globs: '*.ts'\npaths:\n  - '**/*.rs'\nname: ok\n"
        );
        assert_eq!(
            quote_loose_scalars("description: Use when: it's late\n"),
            "description: 'Use when: it''s late'\n"
        );
        assert_eq!(quote_loose_scalars("a: \"b: c\"\n"), "a: \"b: c\"\n");
    }

    #[test]
    fn comma_split_respects_brackets() {
        let items: Vec<&str> = split_commas("src/**/*.{ts,tsx}, lib/** ,")
            .into_iter()
            .map(|(_, s)| s)
            .collect();
        assert_eq!(items, ["src/**/*.{ts,tsx}", "lib/**", ""]);
        assert_eq!(
            split_commas("Bash(git log:*, git diff:*), Read"),
            [(0, "Bash(git log:*, git diff:*)"), (29, "Read")]
        );
    }
}
