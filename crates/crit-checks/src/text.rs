//! The plan's structure as expert-review defines it: lines, paragraphs (text between
//! blank lines, or one complete bullet point) and sentences (ending at `. `,
//! `.\n`, `? `, `! `, or at the end of a line in a bullet list).

use std::ops::Range;

use unicode_segmentation::UnicodeSegmentation;

/// Byte offsets of line starts, for offset → line number.
#[derive(Debug, Clone)]
pub struct Lines {
    starts: Vec<usize>,
    len: usize,
}

impl Lines {
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            text.match_indices('\n')
                .map(|(i, _)| i + 1)
                .filter(|&i| i < text.len()),
        );
        Lines {
            starts,
            len: text.len(),
        }
    }

    /// 0-based line index of a byte offset.
    pub fn index_of(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }

    /// 1-based line number of a byte offset.
    pub fn number_of(&self, offset: usize) -> u32 {
        u32::try_from(self.index_of(offset) + 1).unwrap_or(u32::MAX)
    }

    pub fn count(&self) -> usize {
        self.starts.len()
    }

    /// Byte range of line `i`, without its newline.
    pub fn range(&self, text: &str, i: usize) -> Range<usize> {
        let start = self.starts[i];
        let end = self.starts.get(i + 1).map_or(self.len, |&n| n - 1);
        let end = if end > start && text.as_bytes()[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        start..end
    }

    /// Byte range of line `i` including its newline.
    pub fn full_range(&self, i: usize) -> Range<usize> {
        self.starts[i]..self.starts.get(i + 1).copied().unwrap_or(self.len)
    }
}

/// What a line is, for paragraph and sentence boundaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Blank,
    Heading,
    TableRow,
    Fence,
    /// A bullet point's first line: `-`, `*`, `+`, `1.` or `1)`; the indent and the
    /// byte offset (within the line) where its text starts.
    Bullet {
        indent: usize,
        content: usize,
    },
    Text,
}

fn kind(line: &str) -> Kind {
    let t = line.trim_start();
    let indent = line.len() - t.len();
    if t.is_empty() {
        return Kind::Blank;
    }
    if crate::table::fence_marker(line).is_some() {
        return Kind::Fence;
    }
    if indent <= 3 && t.starts_with('#') && t.trim_start_matches('#').starts_with([' ', '\t'])
        || t.chars().all(|c| c == '#')
    {
        return Kind::Heading;
    }
    if t.starts_with('|') {
        return Kind::TableRow;
    }
    if let Some(rest) = t.strip_prefix(['-', '*', '+'])
        && (rest.starts_with([' ', '\t']) || rest.is_empty())
    {
        let content = indent + 1 + (rest.len() - rest.trim_start().len());
        return Kind::Bullet { indent, content };
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if (1..=9).contains(&digits) {
        let rest = &t[digits..];
        if let Some(after) = rest.strip_prefix(['.', ')'])
            && (after.starts_with([' ', '\t']) || after.is_empty())
        {
            let content = indent + digits + 1 + (after.len() - after.trim_start().len());
            return Kind::Bullet { indent, content };
        }
    }
    Kind::Text
}

/// The plan's lines, classified once (fences need the whole document).
#[derive(Debug, Clone)]
pub struct Structure {
    pub lines: Lines,
    kinds: Vec<Kind>,
    /// For lines inside a fenced block: the block's first and last line.
    fence_of: Vec<Option<(usize, usize)>>,
}

/// A paragraph unit and how its sentences are delimited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// First and last line (0-based, inclusive).
    pub first: usize,
    pub last: usize,
    /// True for bullets, headings, table rows and code: each line is its own
    /// sentence container.
    pub line_wise: bool,
}

impl Structure {
    pub fn new(text: &str) -> Self {
        let lines = Lines::new(text);
        let n = lines.count();
        let mut kinds = Vec::with_capacity(n);
        let mut fence_of = vec![None; n];
        let mut open: Option<(usize, (char, usize))> = None;
        for i in 0..n {
            let line = &text[lines.range(text, i)];
            match open {
                Some((start, (c, len))) => {
                    kinds.push(Kind::Fence);
                    if crate::table::fence_marker(line).is_some_and(|(c2, l2)| c2 == c && l2 >= len)
                    {
                        for slot in &mut fence_of[start..=i] {
                            *slot = Some((start, i));
                        }
                        open = None;
                    }
                }
                None => {
                    let k = kind(line);
                    if k == Kind::Fence
                        && let Some(m) = crate::table::fence_marker(line)
                    {
                        open = Some((i, m));
                    }
                    kinds.push(k);
                }
            }
        }
        if let Some((start, _)) = open {
            for slot in &mut fence_of[start..n] {
                *slot = Some((start, n - 1));
            }
        }
        Structure {
            lines,
            kinds,
            fence_of,
        }
    }

    fn structural(&self, i: usize) -> bool {
        matches!(
            self.kinds[i],
            Kind::Blank | Kind::Heading | Kind::TableRow | Kind::Fence
        )
    }

    /// The paragraph (or complete bullet point) holding line `i`.
    pub fn unit_of_line(&self, i: usize) -> Unit {
        if let Some((first, last)) = self.fence_of[i] {
            return Unit {
                first,
                last,
                line_wise: true,
            };
        }
        if self.structural(i) {
            return Unit {
                first: i,
                last: i,
                line_wise: true,
            };
        }
        // Walk up to the bullet that owns this line, or to the paragraph start.
        let mut j = i;
        loop {
            if let Kind::Bullet { indent, .. } = self.kinds[j] {
                let mut last = j;
                while last + 1 < self.kinds.len() && !self.structural(last + 1) {
                    match self.kinds[last + 1] {
                        Kind::Bullet { indent: inner, .. } if inner <= indent => break,
                        _ => last += 1,
                    }
                }
                return Unit {
                    first: j,
                    last,
                    line_wise: true,
                };
            }
            if j == 0 || self.structural(j - 1) {
                break;
            }
            j -= 1;
        }
        let mut last = i;
        while last + 1 < self.kinds.len()
            && !self.structural(last + 1)
            && !matches!(self.kinds[last + 1], Kind::Bullet { .. })
        {
            last += 1;
        }
        Unit {
            first: j,
            last,
            line_wise: false,
        }
    }

    /// Byte range of the sentence holding `offset` (trailing spaces included).
    pub fn sentence_at(&self, text: &str, offset: usize) -> Range<usize> {
        let line = self.lines.index_of(offset);
        let unit = self.unit_of_line(line);
        let span = if unit.line_wise {
            let r = self.lines.range(text, line);
            let skip = match self.kinds[line] {
                Kind::Bullet { content, .. } => content,
                _ => 0,
            };
            (r.start + skip.min(r.len()))..r.end
        } else {
            self.lines.range(text, unit.first).start..self.lines.range(text, unit.last).end
        };
        if !span.contains(&offset) {
            return span;
        }
        sentence_in(text, span, offset)
    }

    /// Byte range of the paragraph or complete bullet holding `offset`, newlines included.
    pub fn paragraph_at(&self, offset: usize) -> Range<usize> {
        let unit = self.unit_of_line(self.lines.index_of(offset));
        self.lines.full_range(unit.first).start..self.lines.full_range(unit.last).end
    }

    /// Content range of a bullet line without its marker, or the line itself.
    pub fn line_content(&self, text: &str, line: usize) -> Range<usize> {
        let r = self.lines.range(text, line);
        match self.kinds[line] {
            Kind::Bullet { content, .. } => (r.start + content.min(r.len()))..r.end,
            _ => r,
        }
    }
}

/// The sentence of `span` that holds `offset`. Boundaries are the union of the
/// expert-review's rule (`.`, `?`, `!` followed by whitespace) and UAX #29, on the span
/// with newlines read as spaces (a wrapped line does not end a sentence).
fn sentence_in(text: &str, span: Range<usize>, offset: usize) -> Range<usize> {
    let s = &text[span.clone()];
    let flat: String = s
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
    let mut breaks: Vec<usize> = flat
        .split_sentence_bound_indices()
        .map(|(i, _)| i)
        .collect();
    let bytes = flat.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if matches!(b, b'.' | b'?' | b'!')
            && bytes.get(i + 1).is_some_and(|n| n.is_ascii_whitespace())
        {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                j += 1;
            }
            breaks.push(j);
        }
    }
    breaks.push(flat.len());
    breaks.sort_unstable();
    breaks.dedup();
    let rel = offset - span.start;
    let mut start = 0;
    for &b in &breaks {
        if b > rel {
            return (span.start + start)..(span.start + b);
        }
        start = b;
    }
    (span.start + start)..span.end
}

#[cfg(test)]
#[path = "text_tests.rs"]
mod tests;
