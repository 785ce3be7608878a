//! Applying offered suggestions to a file's text: each replaces its lines
//! only when they still read as they did when crit checked it, and
//! suggestions whose lines overlap are all left out (no order between them
//! is right).

use crate::Finding;

/// One offered suggestion, ready to apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// First and last line replaced, 1-based, inclusive.
    pub start: u32,
    pub end: u32,
    /// The new lines, LF-separated, no final newline.
    pub text: String,
    /// The lines it replaces as crit checked them (LF-separated).
    pub replaces: String,
}

impl Edit {
    /// The finding's offered suggestion; `None` when it has none or it was
    /// never checked against its file.
    pub fn of(finding: &Finding) -> Option<Edit> {
        let (start, end) = super::range(finding)?;
        Some(Edit {
            start,
            end,
            text: super::replacement(finding)?,
            replaces: finding.suggestion_replaces.clone()?,
        })
    }
}

/// Why a suggestion was not applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotApplied {
    #[error("its lines overlap another suggestion's")]
    Overlaps,
    #[error("its lines changed since the review")]
    Moved,
}

/// A file's text with the suggestions applied, and those that were not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    pub text: String,
    /// How many were applied.
    pub applied: usize,
    /// Index into the edits given, and why not.
    pub skipped: Vec<(usize, NotApplied)>,
}

/// Applies `edits` to `file`, keeping its line endings (CRLF stays CRLF).
pub fn apply(file: &str, edits: &[Edit]) -> Applied {
    let lines: Vec<&str> = file.split_inclusive('\n').collect();
    let mut skipped = Vec::new();
    let mut ready: Vec<usize> = Vec::new();
    for (i, e) in edits.iter().enumerate() {
        let overlaps = edits
            .iter()
            .enumerate()
            .any(|(j, o)| j != i && o.start <= e.end && e.start <= o.end);
        if overlaps {
            skipped.push((i, NotApplied::Overlaps));
        } else if !unchanged(&lines, e) {
            skipped.push((i, NotApplied::Moved));
        } else {
            ready.push(i);
        }
    }
    // From the bottom up, so the line numbers above stay true.
    ready.sort_by_key(|i| std::cmp::Reverse(edits[*i].start));
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_string()).collect();
    for &i in &ready {
        let e = &edits[i];
        let (s, end) = (e.start as usize - 1, e.end as usize);
        let last = lines[end - 1];
        let eol = if last.ends_with("\r\n") {
            "\r\n"
        } else if last.ends_with('\n') {
            "\n"
        } else {
            ""
        };
        let inner = if lines[s].ends_with("\r\n") {
            "\r\n"
        } else {
            "\n"
        };
        let new: Vec<String> = match e.text.is_empty() {
            true => Vec::new(),
            false => {
                let text = e.text.split('\n').collect::<Vec<_>>().join(inner);
                vec![format!("{text}{eol}")]
            }
        };
        out.splice(s..end, new);
    }
    skipped.sort_by_key(|(i, _)| *i);
    Applied {
        text: out.concat(),
        applied: ready.len(),
        skipped,
    }
}

/// Whether the edit's lines still read as when it was checked.
fn unchanged(lines: &[&str], e: &Edit) -> bool {
    let (s, end) = (e.start as usize, e.end as usize);
    if s == 0 || end > lines.len() || s > end {
        return false;
    }
    let now: Vec<&str> = lines[s - 1..end]
        .iter()
        .map(|l| l.trim_end_matches('\n').trim_end_matches('\r'))
        .collect();
    now.join("\n") == e.replaces
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(start: u32, end: u32, text: &str, replaces: &str) -> Edit {
        Edit {
            start,
            end,
            text: text.into(),
            replaces: replaces.into(),
        }
    }

    #[test]
    fn applies_from_the_bottom_keeping_line_endings() {
        let file = "a\nb\nc\nd\n";
        let out = apply(file, &[edit(1, 1, "A1\nA2", "a"), edit(3, 4, "CD", "c\nd")]);
        assert_eq!(out.text, "A1\nA2\nb\nCD\n");
        assert_eq!((out.applied, out.skipped.len()), (2, 0));
        let crlf = apply("a\r\nb\r\n", &[edit(2, 2, "x\ny", "b")]);
        assert_eq!(crlf.text, "a\r\nx\r\ny\r\n");
        let no_final_newline = apply("a\nb", &[edit(2, 2, "c", "b")]);
        assert_eq!(no_final_newline.text, "a\nc");
        let deleted = apply("a\nb\nc\n", &[edit(2, 2, "", "b")]);
        assert_eq!(deleted.text, "a\nc\n");
    }

    #[test]
    fn overlapping_ones_are_all_left_out() {
        let out = apply(
            "a\nb\nc\nd\n",
            &[
                edit(1, 2, "x", "a\nb"),
                edit(2, 3, "y", "b\nc"),
                edit(4, 4, "D", "d"),
            ],
        );
        assert_eq!(out.text, "a\nb\nc\nD\n");
        assert_eq!(
            out.skipped,
            vec![(0, NotApplied::Overlaps), (1, NotApplied::Overlaps)]
        );
    }

    #[test]
    fn lines_that_changed_since_are_left_alone() {
        let out = apply("a\nB\n", &[edit(2, 2, "c", "b"), edit(3, 3, "c", "x")]);
        assert_eq!(out.text, "a\nB\n");
        assert_eq!(
            out.skipped,
            vec![(0, NotApplied::Moved), (1, NotApplied::Moved)]
        );
    }
}
