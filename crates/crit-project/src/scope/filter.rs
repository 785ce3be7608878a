//! Findings against the change, with reviewdog's filter modes: is a finding
//! on an added line, inside a hunk, in a changed file, or anywhere.

use std::fmt;
use std::str::FromStr;

use crit_core::{Finding, Location};

use super::files::normalize;
use super::{Change, ChangedFile, FileStatus, Kind, ScopeError};

/// How close to the change a finding must be (reviewdog's `-filter-mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FilterMode {
    /// Its lines overlap a line the change added.
    Added,
    /// Its lines overlap a hunk's new-side range (added or context lines).
    #[default]
    DiffContext,
    /// It is in a changed file.
    File,
    /// Everything passes.
    NoFilter,
}

impl FilterMode {
    pub const NAMES: [&'static str; 4] = ["added", "diff_context", "file", "nofilter"];

    pub fn as_str(self) -> &'static str {
        match self {
            FilterMode::Added => "added",
            FilterMode::DiffContext => "diff_context",
            FilterMode::File => "file",
            FilterMode::NoFilter => "nofilter",
        }
    }
}

impl fmt::Display for FilterMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for FilterMode {
    type Err = ScopeError;

    /// reviewdog's names; `-` for `_` and `no_filter` are accepted too.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().replace('-', "_").as_str() {
            "added" => Ok(FilterMode::Added),
            "diff_context" => Ok(FilterMode::DiffContext),
            "file" => Ok(FilterMode::File),
            "nofilter" | "no_filter" => Ok(FilterMode::NoFilter),
            _ => Err(ScopeError::FilterMode {
                given: s.to_string(),
            }),
        }
    }
}

impl Change {
    /// Is lines `start..=end` of `path` inside the change under `mode`? No
    /// `start` means the file as a whole (inside when the file changed); no
    /// `end` means one line. A survey contains everything; a `--files`
    /// selection contains the paths it matches.
    pub fn contains(
        &self,
        path: &str,
        start: Option<u32>,
        end: Option<u32>,
        mode: FilterMode,
    ) -> bool {
        if mode == FilterMode::NoFilter {
            return true;
        }
        match &self.kind {
            Kind::Survey => true,
            Kind::Files(sel) => sel.matches(path),
            Kind::Diff => {
                let Some(file) = self.file(path) else {
                    return false;
                };
                let Some(start) = start else {
                    return true;
                };
                let end = end.unwrap_or(start).max(start);
                match mode {
                    FilterMode::File | FilterMode::NoFilter => true,
                    FilterMode::Added => file
                        .hunks
                        .iter()
                        .flat_map(|h| &h.added)
                        .any(|l| (start..=end).contains(l)),
                    FilterMode::DiffContext => in_hunks(file, start, end),
                }
            }
        }
    }

    /// Sets `in_change` of every finding with a file location (diff-context
    /// mode); document locations and findings without one get `None`.
    pub fn mark(&self, findings: &mut [Finding]) {
        for f in findings {
            f.in_change = match &f.location {
                Some(Location::File {
                    path,
                    line_start,
                    line_end,
                }) => Some(self.contains(path, *line_start, *line_end, FilterMode::DiffContext)),
                _ => None,
            };
        }
    }

    /// Drops findings outside the change under `mode` and returns how many
    /// went. Findings without a location, or about a document, stay.
    pub fn filter(&self, findings: &mut Vec<Finding>, mode: FilterMode) -> usize {
        let before = findings.len();
        findings.retain(|f| match &f.location {
            Some(Location::File {
                path,
                line_start,
                line_end,
            }) => self.contains(path, *line_start, *line_end, mode),
            _ => true,
        });
        before - findings.len()
    }

    /// The changed file `path` names: from the repository top or from the
    /// project root; a rename also by its old path.
    fn file(&self, path: &str) -> Option<&ChangedFile> {
        let path = normalize(path);
        let from_top = format!("{}{path}", self.prefix);
        let hit = |p: &str| p == path || p == from_top;
        self.files.iter().find(|f| hit(&f.path)).or_else(|| {
            self.files
                .iter()
                .find(|f| f.old_path.as_deref().is_some_and(hit))
        })
    }
}

/// Overlaps a hunk's new-side range. A hunk that only deletes covers the line
/// after which it deleted; a deleted file's lines are the old file's.
fn in_hunks(file: &ChangedFile, start: u32, end: u32) -> bool {
    let deleted = file.status == FileStatus::Deleted;
    file.hunks.iter().any(|h| {
        let (first, count) = if deleted {
            (h.old_start, h.old_lines)
        } else {
            (h.new_start, h.new_lines)
        };
        let first = first.max(1);
        let last = first.saturating_add(count.saturating_sub(1));
        start <= last && end >= first
    })
}
