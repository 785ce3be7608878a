//! Anti-pattern tables in markdown (expert-review's "Parsing CLAUDE.md Tables" and
//! "Parsing Rules Tables").
//!
//! A table starts at a header row whose first cell names a pattern column
//! (`If you write...`, `Code Pattern`, `Text Pattern`, `Pattern`, `Old`), skips
//! its separator row, and runs until a blank or non-table line. Tables inside
//! fenced code blocks are examples, not rules, and are skipped.

/// Which file a table comes from; it decides the recognised headers and how a
/// row's reason is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// A CLAUDE.md `| If you write... | STOP because... |` table: column 2 is the
    /// reason, as is.
    ClaudeMd,
    /// A `rules/*.md` file: every recognised header; the reason is prefixed with
    /// the section heading and followed by a column-3 fix hint.
    Rules,
}

/// The kind of pattern column a header names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Header {
    IfYouWrite,
    Pattern,
    /// `| Old | New |`: deprecated names; the reason is "Use {New} instead".
    Old,
}

/// One row of an anti-pattern table: the pattern (backticks stripped) and the
/// finished reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub pattern: String,
    pub reason: String,
    /// 1-based line of the row in its file.
    pub line: usize,
}

/// Every anti-pattern row of every recognised table in `text`, in file order.
pub fn parse(text: &str, flavor: Flavor) -> Vec<Row> {
    let lines: Vec<&str> = text.lines().collect();
    let mut rows = Vec::new();
    let mut heading: Option<String> = None;
    let mut fence: Option<(char, usize)> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(f) = fence_marker(line) {
            fence = match fence {
                None => Some(f),
                Some((c, n)) if f.0 == c && f.1 >= n => None,
                open => open,
            };
            i += 1;
            continue;
        }
        if fence.is_some() {
            i += 1;
            continue;
        }
        if let Some(h) = heading_text(line) {
            heading = Some(h);
            i += 1;
            continue;
        }
        let Some(header) = header_kind(line, lines.get(i + 1).copied(), flavor) else {
            i += 1;
            continue;
        };
        i += 1;
        if lines.get(i).is_some_and(|l| is_separator(l)) {
            i += 1;
        }
        while let Some(row) = lines.get(i).filter(|l| is_table_line(l)) {
            if !is_separator(row)
                && let Some(r) = build_row(row, i + 1, header, flavor, heading.as_deref())
            {
                rows.push(r);
            }
            i += 1;
        }
    }
    rows
}

fn build_row(
    line: &str,
    line_no: usize,
    header: Header,
    flavor: Flavor,
    section: Option<&str>,
) -> Option<Row> {
    let cells = split_cells(line);
    let pattern = strip_code(cells.first()?);
    if pattern.is_empty() {
        return None;
    }
    let second = cells
        .get(1)
        .map(|c| c.trim().to_string())
        .unwrap_or_default();
    let mut reason = match header {
        Header::Old => format!("Use {} instead", strip_code(&second)),
        Header::IfYouWrite | Header::Pattern => second,
    };
    if flavor == Flavor::Rules {
        if let Some(hint) = cells.get(2).map(|c| c.trim()).filter(|c| !c.is_empty()) {
            reason = join_hint(&reason, hint);
        }
        if let Some(section) = section {
            reason = format!("{section}: {reason}");
        }
    }
    Some(Row {
        pattern,
        reason,
        line: line_no,
    })
}

/// "Two propagators = loop diagram" + "See §X" → "Two propagators = loop diagram. See §X".
fn join_hint(reason: &str, hint: &str) -> String {
    if reason.is_empty() {
        hint.to_string()
    } else if reason.ends_with(['.', '!', '?', ':', ';']) {
        format!("{reason} {hint}")
    } else {
        format!("{reason}. {hint}")
    }
}

fn header_kind(line: &str, next: Option<&str>, flavor: Flavor) -> Option<Header> {
    if !line.contains('|') {
        return None;
    }
    // Without a leading pipe a line is only a header when a separator follows.
    if !line.trim_start().starts_with('|') && !next.is_some_and(is_separator) {
        return None;
    }
    let cells = split_cells(line);
    let first = normalize_header(cells.first()?);
    let kind = if first.starts_with("if you write") {
        Header::IfYouWrite
    } else if first == "code pattern" || first == "text pattern" || first == "pattern" {
        Header::Pattern
    } else if first == "old" {
        Header::Old
    } else {
        return None;
    };
    match flavor {
        Flavor::ClaudeMd if kind != Header::IfYouWrite => None,
        _ => Some(kind),
    }
}

/// Lower-case, whitespace collapsed, emphasis and trailing dots/ellipses gone.
fn normalize_header(cell: &str) -> String {
    let words: Vec<&str> = cell.split_whitespace().collect();
    let joined = words.join(" ").to_lowercase();
    joined
        .trim_matches(|c: char| matches!(c, '*' | '_' | '`'))
        .trim_end_matches(['.', '…', ':', '?'])
        .trim()
        .to_string()
}

fn is_table_line(line: &str) -> bool {
    !line.trim().is_empty() && line.contains('|')
}

/// `|---|:--:|` and friends.
fn is_separator(line: &str) -> bool {
    let cells = split_cells(line);
    !cells.is_empty()
        && line.contains('-')
        && cells.iter().all(|c| {
            let t = c.trim();
            !t.is_empty() && t.chars().all(|ch| matches!(ch, '-' | ':')) && t.contains('-')
        })
}

/// Split a row into cells on unescaped pipes outside code spans, with `\|`
/// unescaped. When a code span never closes, backticks are ignored instead.
pub(crate) fn split_cells(line: &str) -> Vec<String> {
    split_cells_with(line, true)
        .unwrap_or_else(|| split_cells_with(line, false).unwrap_or_default())
}

fn split_cells_with(line: &str, respect_code: bool) -> Option<Vec<String>> {
    let t = line.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let mut cells = Vec::new();
    let mut cur = String::new();
    let mut open_ticks = 0usize;
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cur.push('|');
                chars.next();
            }
            '`' if respect_code => {
                let mut run = 1;
                while chars.peek() == Some(&'`') {
                    run += 1;
                    chars.next();
                }
                if open_ticks == 0 {
                    open_ticks = run;
                } else if open_ticks == run {
                    open_ticks = 0;
                }
                cur.extend(std::iter::repeat_n('`', run));
            }
            '|' if open_ticks == 0 => cells.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    if open_ticks != 0 {
        return None;
    }
    if !cur.trim().is_empty() {
        cells.push(cur);
    }
    Some(cells)
}

/// A cell that is one code span yields its content; otherwise every backtick
/// goes. Whitespace is trimmed either way.
fn strip_code(cell: &str) -> String {
    let t = cell.trim();
    let ticks = t.chars().take_while(|&c| c == '`').count();
    if ticks > 0 && t.len() > 2 * ticks {
        let fence = &t[..ticks];
        let inner = &t[ticks..t.len() - ticks];
        if t.ends_with(fence)
            && !inner.contains(fence)
            && !inner.starts_with('`')
            && !inner.ends_with('`')
        {
            // CommonMark strips one space on each side of a padded code span.
            let inner = match inner.strip_prefix(' ').and_then(|s| s.strip_suffix(' ')) {
                Some(s) if !s.trim().is_empty() => s,
                _ => inner,
            };
            return inner.to_string();
        }
    }
    t.replace('`', "").trim().to_string()
}

fn heading_text(line: &str) -> Option<String> {
    let t = line.trim_start();
    if line.len() - t.len() > 3 {
        return None;
    }
    let hashes = t.chars().take_while(|&c| c == '#').count();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    let rest = &t[hashes..];
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let text = rest.trim().trim_end_matches('#').trim();
    Some(text.to_string())
}

/// The fence character and length when `line` opens or closes a code fence.
pub(crate) fn fence_marker(line: &str) -> Option<(char, usize)> {
    let t = line.trim_start();
    if line.len() - t.len() > 3 {
        return None;
    }
    let c = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = t.chars().take_while(|&x| x == c).count();
    (n >= 3).then_some((c, n))
}

#[cfg(test)]
#[path = "table_tests.rs"]
mod tests;
