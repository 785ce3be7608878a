//! The work of a code review over a diff: the change cut into hunks and
//! screened, the hunks reviewed before taken from the cache, the rest packed
//! into parts that each fit the model's context budget (at most
//! `max_parts`; what is over is left out, and said so). Nothing is cut
//! silently: every hunk is in a part, in the cache, or left out with a cause.
//!
//! Each hunk keeps its raw text (before redaction and screening) for its
//! cache key, and whether redaction or screening touched it: such a hunk's
//! part is never stored.

use super::checks::screening::Screened;
use crate::engine::hunk_cache::Hunks;
use crate::engine::hunk_cache::decide::{PartHunk, ReviewedPart};
use crit_project::scope::ChangedFile;
use crit_project::scope::units::{self, HunkText};

/// How big a part may be, and how many there may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartLimits {
    /// Bytes of numbered diff per part.
    pub part_bytes: usize,
    /// At most this many parts (`--max-chunks`). By default as many as the
    /// change needs: the review's budget stops parts once it is spent (and
    /// the coverage says so), and git's diff output has its own cap.
    pub max_parts: usize,
}

impl Default for PartLimits {
    fn default() -> Self {
        PartLimits {
            part_bytes: 200_000,
            max_parts: usize::MAX,
        }
    }
}

/// One hunk as the review handles it.
#[derive(Debug, Clone)]
pub(super) struct Unit {
    /// Index into `Work::files`.
    pub file: usize,
    /// The hunk as reviewers are sent it (redacted, screened).
    pub hunk: HunkText,
    pub key: Option<String>,
    /// Redaction or screening changed it, or screening found words aimed at
    /// the reviewer in it: its review is not one to reuse.
    pub tainted: bool,
}

/// One file of the change.
#[derive(Debug, Clone)]
pub(super) struct FileWork {
    /// Root-relative, as findings name it.
    pub path: String,
    pub changed: ChangedFile,
    /// Its `diff --git` header lines, screened.
    pub header: String,
    /// Its units, in patch order.
    pub units: Vec<usize>,
}

#[derive(Debug, Default)]
pub(super) struct Work {
    pub files: Vec<FileWork>,
    pub units: Vec<Unit>,
    /// Units served from the cache: reviewed before, nothing found in
    /// their file.
    pub cached: Vec<usize>,
    /// What reviewing the cached units cost when they were reviewed: what
    /// this review did not spend. `None` when a unit's cost is unknown.
    pub cached_cost_usd: Option<f64>,
    /// Units to review, part by part.
    pub parts: Vec<Vec<usize>>,
    /// Parts over `max_parts`: left out.
    pub over: Vec<Vec<usize>>,
    pub screened: Screened,
}

/// A file's diff header without its `index <old>..<new>` line: the blob ids
/// tell a reviewer nothing, and a fix anywhere in the file changes them, so
/// they would make the part's cached diff differ from its first byte on a
/// re-review. (A mode is said by its own lines.)
pub(super) fn without_blob_ids(header: &str) -> String {
    header
        .split_inclusive('\n')
        .filter(|l| !l.starts_with("index "))
        .collect()
}

pub(super) fn numbered_len(h: &HunkText) -> usize {
    h.text.len() + 8 * h.text.lines().count()
}

impl Work {
    /// The diff of `units` for the prompt: each file's header, then its
    /// hunks with new-file line numbers; and the files it touches.
    pub(super) fn text(&self, part: &[usize]) -> (String, Vec<usize>) {
        // The part's units grouped by file, files in order of first use:
        // one pass, however many files the part holds.
        let mut files: Vec<usize> = Vec::new();
        let mut of_file: std::collections::HashMap<usize, Vec<usize>> =
            std::collections::HashMap::new();
        for &u in part {
            let f = self.units[u].file;
            of_file
                .entry(f)
                .or_insert_with(|| {
                    files.push(f);
                    Vec::new()
                })
                .push(u);
        }
        let mut out = String::new();
        for f in &files {
            out.push_str(&self.files[*f].header);
            for &u in of_file.get(f).map(Vec::as_slice).unwrap_or_default() {
                if !self.units[u].hunk.text.is_empty() {
                    out.push_str(&units::numbered(&self.units[u].hunk));
                }
            }
        }
        (out, files)
    }

    /// Part `i` as the cache's decision sees it: its hunks, and whether it
    /// `passed` (every reviewer finished and said PASS).
    pub(super) fn reviewed_part(&self, part: &[usize], passed: bool) -> ReviewedPart<'_> {
        ReviewedPart {
            passed,
            hunks: part
                .iter()
                .map(|u| {
                    let unit = &self.units[*u];
                    PartHunk {
                        path: &self.files[unit.file].path,
                        key: unit.key.as_deref(),
                        tainted: unit.tainted,
                    }
                })
                .collect(),
        }
    }

    /// Stores the hunks `keep` (indexes into `part`) as reviewed clean, each
    /// with its share of `cost_usd` (what the part's review cost) by size.
    pub(super) fn store(
        &self,
        cache: &mut Hunks,
        part: &[usize],
        keep: &[usize],
        cost_usd: Option<f64>,
    ) {
        let size = |u: usize| self.units[u].hunk.text.len().max(1) as f64;
        let total: f64 = part.iter().map(|u| size(*u)).sum();
        for &u in keep.iter().filter_map(|j| part.get(*j)) {
            if let Some(key) = &self.units[u].key {
                cache.store(key, cost_usd.map(|c| c * size(u) / total));
            }
        }
    }
}
