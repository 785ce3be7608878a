//! The work of a code review over a diff: the change cut into hunks and
//! screened, the hunks reviewed before taken from the cache, the rest packed
//! into parts that each fit the model's context budget (at most
//! `max_parts`; what is over is left out, and said so). Nothing is cut
//! silently: every hunk is in a part, in the cache, or left out with a cause.
//!
//! Each hunk keeps its raw text (before redaction and screening) for its
//! cache key, and whether redaction or screening touched it: such a hunk's
//! part is never stored.

use crit_core::Location;

use super::checks::screening::{self, Screened};
use crate::engine::hunk_cache::decide::{PartHunk, ReviewedPart};
use crate::engine::hunk_cache::{self, Hunks};
use crit_project::scope::chunk::{self, Piece};
use crit_project::scope::units::{self, HunkText};
use crit_project::scope::{Change, ChangedFile};

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

/// Cuts `change` into the work of its review. `raw_patch`: the change's
/// patch before redaction, for the cache keys. `cache`: the hunk cache as
/// this review read it and the base of this review's keys.
pub(super) fn plan(
    change: &Change,
    raw_patch: &str,
    cache: Option<(&Hunks, &str)>,
    limits: PartLimits,
) -> Work {
    let mut work = Work::default();
    let mut raw_change = change.clone();
    raw_change.patch = raw_patch.to_string();
    let raw_files = units::split(&raw_change);
    for (n, mut fp) in units::split(change).into_iter().enumerate() {
        let Some(changed) = fp.file.and_then(|i| change.files.get(i)).cloned() else {
            continue;
        };
        let path = change.path_from_root(&changed.path).to_string();
        let header_before = fp.header.clone();
        let before: Vec<String> = fp.hunks.iter().map(|h| h.text.clone()).collect();
        let screened = screening::screen_file(&path, &mut fp.header, &mut fp.hunks);
        let flagged: Vec<u32> = screened
            .findings
            .iter()
            .filter_map(|f| f.location.as_ref().and_then(Location::start_line))
            .collect();
        let whole_file = fp.header != header_before
            || screened
                .findings
                .iter()
                .any(|f| f.location.as_ref().and_then(Location::start_line).is_none());
        work.screened.extend(screened);
        // The same section before redaction: same files, same hunks, as
        // redaction keeps every line in its place.
        let raw = raw_files
            .get(n)
            .filter(|r| r.file == fp.file && r.hunks.len() == fp.hunks.len());
        let file = work.files.len();
        let mut ids = Vec::new();
        // Leave room for the line numbers the prompt adds (about 8 bytes a line).
        let max_hunk = limits.part_bytes.saturating_mul(3) / 4;
        for (i, h) in fp.hunks.iter().enumerate() {
            let raw_hunk = raw
                .and_then(|r| r.hunks.get(i))
                .filter(|r| r.hunk == h.hunk);
            let changed_text = raw_hunk.is_none_or(|r| r.text != before[i]) || h.text != before[i];
            let pieces = units::split_hunk(h, max_hunk);
            let raw_pieces = raw_hunk.map(|r| units::split_hunk(r, max_hunk));
            let whole = pieces.len() == 1;
            for (j, piece) in pieces.into_iter().enumerate() {
                let range = piece.new_range();
                let tainted =
                    changed_text || whole_file || flagged.iter().any(|l| range.contains(l));
                // A split hunk's pieces are cached only when the hunk was
                // never touched: the raw pieces then match the sent ones.
                let key = match (cache, &raw_pieces) {
                    (Some((_, base)), Some(raw)) if !tainted && (whole || !changed_text) => raw
                        .get(j)
                        .filter(|r| r.hunk == piece.hunk)
                        .map(|r| hunk_cache::key(base, &path, r.without_numbers())),
                    _ => None,
                };
                ids.push(work.units.len());
                work.units.push(Unit {
                    file,
                    hunk: piece,
                    key,
                    tainted,
                });
            }
        }
        // A rename, a mode change or an empty file: its header is the change.
        if fp.hunks.is_empty() && !changed.binary && !fp.header.trim().is_empty() {
            ids.push(work.units.len());
            work.units.push(Unit {
                file,
                hunk: HunkText {
                    hunk: crit_project::scope::Hunk {
                        old_start: 0,
                        old_lines: 0,
                        new_start: 0,
                        new_lines: 0,
                        added: Vec::new(),
                    },
                    text: String::new(),
                },
                key: None,
                tainted: false,
            });
        }
        work.files.push(FileWork {
            path,
            changed,
            header: without_blob_ids(&fp.header),
            units: ids,
        });
    }
    // Files git listed but whose patch section is missing (output over its
    // cap) still belong to the change. (A set: a change of thousands of
    // files must not compare each with every other.)
    let placed: std::collections::HashSet<String> =
        work.files.iter().map(|w| w.changed.path.clone()).collect();
    for f in &change.files {
        let path = change.path_from_root(&f.path).to_string();
        if !placed.contains(&f.path) {
            work.files.push(FileWork {
                path,
                changed: f.clone(),
                header: String::new(),
                units: Vec::new(),
            });
        }
    }
    let mut todo = Vec::new();
    for (id, u) in work.units.iter().enumerate() {
        let hit = match (cache, &u.key) {
            (Some((c, _)), Some(k)) => c.load(k),
            _ => None,
        };
        match hit {
            Some(hit) => {
                work.cached_cost_usd = if work.cached.is_empty() {
                    hit.cost_usd
                } else {
                    crit_core::usage::add_cost(work.cached_cost_usd, hit.cost_usd)
                };
                work.cached.push(id);
            }
            None => todo.push(id),
        }
    }
    let mut parts = pack(&work, &todo, limits.part_bytes);
    if parts.len() > limits.max_parts {
        work.over = parts.split_off(limits.max_parts);
    }
    work.parts = parts;
    work
}

/// Pieces of at most `budget` bytes: a file's units to review together,
/// split at hunk boundaries when the file alone is too big.
fn pack(work: &Work, todo: &[usize], budget: usize) -> Vec<Vec<usize>> {
    let mut pending = vec![false; work.units.len()];
    for &u in todo {
        if let Some(p) = pending.get_mut(u) {
            *p = true;
        }
    }
    let mut pieces: Vec<(Piece, Vec<usize>)> = Vec::new();
    for f in &work.files {
        let mut run: Vec<usize> = Vec::new();
        let mut size = f.header.len();
        for &u in f
            .units
            .iter()
            .filter(|u| pending.get(**u).copied().unwrap_or(false))
        {
            let bytes = numbered_len(&work.units[u].hunk);
            if !run.is_empty() && size + bytes > budget {
                let id = pieces.len();
                pieces.push((piece(id, &f.path, size), std::mem::take(&mut run)));
                size = f.header.len();
            }
            run.push(u);
            size += bytes;
        }
        if !run.is_empty() {
            let id = pieces.len();
            pieces.push((piece(id, &f.path, size), run));
        }
    }
    let only: Vec<Piece> = pieces.iter().map(|(p, _)| p.clone()).collect();
    chunk::pack(&only, budget)
        .into_iter()
        .map(|ids| {
            ids.into_iter()
                .flat_map(|i| pieces[i].1.iter().copied())
                .collect()
        })
        .collect()
}

/// A file's diff header without its `index <old>..<new>` line: the blob ids
/// tell a reviewer nothing, and a fix anywhere in the file changes them, so
/// they would make the part's cached diff differ from its first byte on a
/// re-review. (A mode is said by its own lines.)
fn without_blob_ids(header: &str) -> String {
    header
        .split_inclusive('\n')
        .filter(|l| !l.starts_with("index "))
        .collect()
}

fn piece(id: usize, path: &str, bytes: usize) -> Piece {
    Piece {
        id,
        path: path.to_string(),
        bytes,
    }
}

fn numbered_len(h: &HunkText) -> usize {
    h.text.len() + 8 * h.text.lines().count()
}

impl Work {
    /// About the bytes of [`Work::text`] of `part`, without building it.
    pub(super) fn part_bytes(&self, part: &[usize]) -> usize {
        let mut headers = std::collections::HashSet::new();
        part.iter()
            .map(|&u| {
                let unit = &self.units[u];
                let header = match headers.insert(unit.file) {
                    true => self.files[unit.file].header.len(),
                    false => 0,
                };
                header + numbered_len(&unit.hunk)
            })
            .sum()
    }

    /// Added lines of the units to review, over every part.
    pub(super) fn added_lines(&self) -> usize {
        self.parts
            .iter()
            .flatten()
            .map(|&u| self.units[u].hunk.hunk.added.len())
            .sum()
    }

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
