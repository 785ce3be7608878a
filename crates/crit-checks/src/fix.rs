//! Fix actions on the plan text (expert-review's "FIXING State"): `replace`,
//! `remove_sentence`, `remove_paragraph`. Every hit of the failing check is fixed
//! in one edit, so a check that still matches afterwards has truly persisted.

use std::ops::Range;

use crate::check::FixAction;
use crate::text::Structure;

/// The plan after one edit, and what to record about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub text: String,
    /// 1-based line of the first hit, in the plan before the edit.
    pub line: u32,
    /// For `state.history[].fix`, e.g. `eval → JSON.parse`.
    pub description: String,
}

/// Apply `action` to every hit (non-empty, sorted ranges into `text`).
pub fn apply(text: &str, action: &FixAction, hits: &[Range<usize>]) -> Option<Edit> {
    let first = hits.first()?.clone();
    let structure = Structure::new(text);
    let line = structure.lines.number_of(first.start);
    let matched = one_line(&text[first.clone()]);
    let count = disjoint(hits).len();
    let times = if count > 1 {
        format!(" (×{count})")
    } else {
        String::new()
    };
    let (deletions, description) = match action {
        FixAction::Replace { with } => {
            let new = replace_all(text, &disjoint(hits), with);
            let description = if with.is_empty() {
                format!("removed {matched}{times}")
            } else {
                format!("{matched} → {}{times}", one_line(with))
            };
            return Some(Edit {
                text: new,
                line,
                description,
            });
        }
        FixAction::RemoveSentence => (
            sentence_deletions(text, &structure, hits),
            format!("removed sentence with '{matched}'{times}"),
        ),
        FixAction::RemoveParagraph => (
            paragraph_deletions(text, &structure, hits),
            format!("removed paragraph with '{matched}'{times}"),
        ),
    };
    Some(Edit {
        text: delete(text, &deletions),
        line,
        description,
    })
}

/// An ASKING answer of free text: as expert-review says, "apply as
/// replacement text to the matched line" — the whole line holding `hit`
/// becomes `with` (its line ending kept).
pub fn replace_line(text: &str, hit: Range<usize>, with: &str) -> Edit {
    let lines = Structure::new(text).lines;
    let index = lines.index_of(hit.start);
    let line = lines.range(text, index);
    // The last line's range runs to the end of the text: keep its newline.
    let kept = text[line.clone()].trim_end_matches(['\n', '\r']).len();
    let line = line.start..line.start + kept;
    // What the line said, as the other fixes say what they replaced.
    let description = format!(
        "{} → {} (user)",
        shortened(&one_line(&text[line.clone()]), 60),
        one_line(with)
    );
    let with = with.trim_end_matches(['\n', '\r']);
    Edit {
        text: replace_all(text, &[line], with),
        line: lines.number_of(hit.start),
        description,
    }
}

/// Keep the leftmost of overlapping hits (Aho-Corasick reports overlaps).
fn disjoint(hits: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::with_capacity(hits.len());
    for h in hits {
        if out.last().is_none_or(|l| h.start >= l.end) && !h.is_empty() {
            out.push(h.clone());
        }
    }
    out
}

fn replace_all(text: &str, hits: &[Range<usize>], with: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for h in hits {
        out.push_str(&text[at..h.start]);
        out.push_str(with);
        at = h.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Delete sorted, possibly overlapping ranges.
fn delete(text: &str, ranges: &[Range<usize>]) -> String {
    let mut merged: Vec<Range<usize>> = Vec::new();
    let mut sorted = ranges.to_vec();
    sorted.sort_by_key(|r| r.start);
    for r in sorted {
        match merged.last_mut() {
            Some(l) if r.start <= l.end => l.end = l.end.max(r.end),
            _ => merged.push(r),
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for r in merged {
        out.push_str(&text[at..r.start]);
        at = r.end;
    }
    out.push_str(&text[at..]);
    out
}

/// The sentences holding the hits; a container (bullet line, heading, or
/// paragraph) left with no text goes as a whole, so no empty bullet or
/// stray blank line remains.
fn sentence_deletions(text: &str, s: &Structure, hits: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut sentences: Vec<Range<usize>> =
        hits.iter().map(|h| s.sentence_at(text, h.start)).collect();
    sentences.sort_by_key(|r| (r.start, r.end));
    sentences.dedup();
    let mut groups: Vec<Container> = Vec::new();
    for sentence in sentences {
        let line = s.lines.index_of(sentence.start);
        let unit = s.unit_of_line(line);
        let (content, whole) = if unit.line_wise {
            (
                s.line_content(text, line),
                with_blank_line(text, s, s.lines.full_range(line)),
            )
        } else {
            let content = s.lines.range(text, unit.first).start..s.lines.range(text, unit.last).end;
            (
                content,
                with_blank_line(text, s, s.paragraph_at(sentence.start)),
            )
        };
        match groups.last_mut() {
            Some(g) if g.content == content => g.sentences.push(sentence),
            _ => groups.push(Container {
                content,
                whole,
                sentences: vec![sentence],
            }),
        }
    }
    let mut out = Vec::new();
    for g in groups {
        if only_whitespace_left(text, &g.content, &g.sentences) {
            out.push(g.whole);
        } else {
            out.extend(g.sentences.into_iter().map(|r| tidy_sentence(text, r)));
        }
    }
    out
}

/// Sentences to delete, grouped by the line or paragraph that holds them.
struct Container {
    /// The container's text (a bullet line without its marker).
    content: Range<usize>,
    /// What goes when no text is left: the line or paragraph and a blank line.
    whole: Range<usize>,
    sentences: Vec<Range<usize>>,
}

fn only_whitespace_left(text: &str, content: &Range<usize>, removed: &[Range<usize>]) -> bool {
    let mut at = content.start;
    for r in removed {
        if !text[at..r.start.max(at)].trim().is_empty() {
            return false;
        }
        at = at.max(r.end);
    }
    at >= content.end || text[at..content.end].trim().is_empty()
}

/// A sentence's range widened so no double space, trailing space or empty line remains.
fn tidy_sentence(text: &str, r: Range<usize>) -> Range<usize> {
    let bytes = text.as_bytes();
    let at_line_start = r.start == 0 || bytes[r.start - 1] == b'\n';
    let mut end = r.end;
    // The sentence's trailing newline (read as a space) must stay unless the line goes too.
    while end > r.start && bytes[end - 1] == b'\n' {
        end -= 1;
    }
    let at_line_end = end == text.len() || bytes[end] == b'\n';
    if at_line_start && at_line_end && end < text.len() {
        return r.start..end + 1;
    }
    if at_line_end && !at_line_start {
        // Last sentence of a line: take the spaces before it instead.
        let mut start = r.start;
        while start > 0 && matches!(bytes[start - 1], b' ' | b'\t') {
            start -= 1;
        }
        return start..end;
    }
    r.start..end
}

fn paragraph_deletions(text: &str, s: &Structure, hits: &[Range<usize>]) -> Vec<Range<usize>> {
    hits.iter()
        .map(|h| with_blank_line(text, s, s.paragraph_at(h.start)))
        .collect()
}

/// A block's range plus one blank line after it (or before it, at the end of
/// the plan), so removing it leaves one blank line between its neighbours.
fn with_blank_line(text: &str, s: &Structure, r: Range<usize>) -> Range<usize> {
    let blank = |i: usize| text[s.lines.full_range(i)].trim().is_empty();
    let prev = (r.start > 0).then(|| s.lines.index_of(r.start - 1));
    let next = (r.end < text.len()).then(|| s.lines.index_of(r.end));
    let prev_open = prev.is_none_or(blank);
    match (prev, next) {
        (_, Some(n)) if prev_open && blank(n) => r.start..s.lines.full_range(n).end,
        (Some(p), None) if blank(p) => s.lines.full_range(p).start..r.end,
        _ => r,
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `s` cut to `max` characters, with `…` where it was cut.
fn shortened(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

#[cfg(test)]
#[path = "fix_tests.rs"]
mod tests;
