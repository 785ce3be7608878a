//! Fitting the context into its token budget.
//!
//! Tokens are estimated as `ceil(bytes / 4)` of the rendered block (close enough
//! for English and code, and it needs no tokenizer), so the budget is a byte
//! limit of `4 × budget` on the whole block, headings included.
//!
//! While the block is over the limit, one step at a time:
//! 1. Drop a whole path-scoped rule. These are the most optional text: a reviewer
//!    with file tools can read them, and the block says which were left out. The
//!    most narrowly scoped goes first, the least specific last, because a broad
//!    rule (`**/*.rs`) governs more of the change than one for a corner of the tree
//!    (`src/api/v1/**`); ties drop the larger file first, then the later path.
//! 2. Truncate the largest remaining file (a memory file, or a rule that always
//!    applies: Claude Code gives both the same standing) by exactly what is over,
//!    at a line boundary, ending it with `[… truncated by crit: N tokens over the
//!    context budget]`. A file that would keep too little to be useful is dropped
//!    whole instead. Memory files come root first, so the earliest and broadest
//!    text survives ties.
//!
//! Every drop and truncation is recorded in `omitted`, so the CLI can say what
//! was left out.

use std::cmp::Reverse;

use super::render::{self, truncation_marker};
use super::{OmitCause, Omitted, Section, estimate_tokens, thousands};

/// Below this a truncated file says too little to be worth its heading.
const MIN_KEPT_BYTES: usize = 256;

/// A section before budgeting.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    pub section: Section,
    /// The full text, kept so repeated truncation always cuts from the original.
    pub original: String,
    /// `Some(specificity)` for a path-scoped rule (dropped first).
    pub scoped: Option<usize>,
    /// Bytes of `original` still shown, once truncated.
    pub kept: Option<usize>,
}

/// The sections that fit `budget` tokens, recording what was left out.
pub(super) fn fit(
    mut entries: Vec<Entry>,
    budget: usize,
    omitted: &mut Vec<Omitted>,
) -> Vec<Section> {
    let limit = budget.saturating_mul(4);
    let mut left_out: Vec<String> = Vec::new();
    // Each step removes a file or strictly shortens one, so this ends; the bound
    // is a second guard.
    for _ in 0..10_000 {
        let len = rendered_len(&entries, &left_out);
        if len <= limit {
            break;
        }
        let over = len - limit;
        let index = match next_scoped(&entries) {
            Some(i) => i,
            None => match largest(&entries) {
                Some(i) if truncate(&mut entries[i], over) => continue,
                Some(i) => i,
                None => break,
            },
        };
        let entry = entries.remove(index);
        omitted.push(Omitted {
            reason: format!(
                "over the token budget ({} tokens)",
                thousands(estimate_tokens(entry.original.len()))
            ),
            path: entry.section.path.clone(),
            cause: OmitCause::Budget,
        });
        left_out.push(entry.section.path);
    }
    for entry in &entries {
        let Some(kept) = entry.kept else { continue };
        let total = estimate_tokens(entry.original.len());
        let cut = estimate_tokens(entry.original.len() - kept);
        omitted.push(Omitted {
            path: entry.section.path.clone(),
            reason: format!(
                "truncated: {} of its {} tokens left out to fit the token budget",
                thousands(cut),
                thousands(total)
            ),
            cause: OmitCause::Truncated,
        });
    }
    entries.into_iter().map(|e| e.section).collect()
}

fn rendered_len(entries: &[Entry], left_out: &[String]) -> usize {
    let names: Vec<&str> = left_out.iter().map(String::as_str).collect();
    render::rendered_len(entries.iter().map(|e| &e.section), &names)
}

fn next_scoped(entries: &[Entry]) -> Option<usize> {
    entries
        .iter()
        .enumerate()
        .filter_map(|(i, e)| e.scoped.map(|s| (i, s, e.original.len())))
        .max_by_key(|&(i, specificity, len)| (specificity, len, i))
        .map(|(i, ..)| i)
}

fn largest(entries: &[Entry]) -> Option<usize> {
    entries
        .iter()
        .enumerate()
        .max_by_key(|(i, e)| (e.section.text.len(), Reverse(*i)))
        .map(|(i, _)| i)
}

/// Shorten `entry` by at least `over` bytes; `false` when too little would remain.
fn truncate(entry: &mut Entry, over: usize) -> bool {
    let Some(target) = entry.section.text.len().checked_sub(over) else {
        return false;
    };
    let mut cut = estimate_tokens(over);
    // The marker's length depends on the number it states; settle on one.
    for _ in 0..4 {
        let marker = truncation_marker(cut);
        let Some(room) = target.checked_sub(marker.len() + 2) else {
            return false;
        };
        let keep = line_boundary(&entry.original, room.min(entry.original.len()));
        if keep < MIN_KEPT_BYTES {
            return false;
        }
        let actual = estimate_tokens(entry.original.len() - keep);
        if actual == cut {
            set_truncated(entry, keep, &marker);
            return true;
        }
        cut = actual;
    }
    // Not settled (a digit more in the marker each time): cut a little deeper;
    // the next round of `fit` checks the result.
    let keep = line_boundary(&entry.original, target.saturating_sub(64));
    let cut = estimate_tokens(entry.original.len() - keep);
    set_truncated(entry, keep, &truncation_marker(cut));
    keep >= MIN_KEPT_BYTES
}

fn set_truncated(entry: &mut Entry, keep: usize, marker: &str) {
    entry.section.text = format!("{}\n\n{marker}", &entry.original[..keep]);
    entry.section.truncated = true;
    entry.kept = Some(keep);
}

/// The largest prefix length `<= at` that ends a line, when one ends in the
/// second half; else the largest char boundary. Trailing whitespace is dropped.
fn line_boundary(text: &str, at: usize) -> usize {
    let mut end = at.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if let Some(newline) = text[..end].rfind('\n')
        && newline >= end / 2
    {
        end = newline;
    }
    text[..end].trim_end().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_boundary_prefers_whole_lines() {
        let text = "line one\nline two\nline three";
        assert_eq!(&text[..line_boundary(text, 22)], "line one\nline two");
        assert_eq!(line_boundary("ééé", 3), 2);
        assert_eq!(line_boundary("short", 100), 5);
    }
}
