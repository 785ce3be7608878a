//! What a commit or a push would take that the working tree no longer
//! shows. A review of the working tree sees the files as they are; an agent
//! can commit (or stage) a line and then take it out of the working tree
//! only, and `git push` (or `git commit`) still takes it. Each file of the
//! committed or staged change that adds a line the working tree's change
//! does not add joins the change as it was committed or staged, with a note
//! saying so; a file whose lines the working tree still shows costs nothing.

use std::collections::HashMap;

use super::Change;
use super::compute::merge_into;
use super::parse::parse_patch;

/// Where lines the working tree lacks can still be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Layer {
    /// In the index: what `git commit` takes.
    Staged,
    /// In the commits since the base: what `git push` takes.
    Committed,
}

impl Layer {
    /// Its name, and what takes its lines.
    fn words(self) -> (&'static str, &'static str) {
        match self {
            Layer::Staged => ("staged", "git commit"),
            Layer::Committed => ("committed", "git push"),
        }
    }
}

/// Joins to `change` (the working tree's) each file of each layer with an
/// added line `change` does not add.
pub(super) fn add(change: &mut Change, layers: Vec<(Layer, Change)>) {
    for (layer, mut other) in layers {
        // Measured against the change as it grows: a line the staged layer
        // brought in is not sent again for the committed one.
        let shown = added_by_path(change);
        let files = std::mem::take(&mut other.files);
        let sections = sections_by_file(&other.patch, files.len());
        let mut keep = Vec::new();
        let mut patch = String::new();
        for (i, file) in files.into_iter().enumerate() {
            let text = sections.as_ref().and_then(|s| s.get(i)).copied();
            let lacking = match (text, &shown) {
                (Some(text), Some(shown)) => {
                    !contains_all(shown.get(file.path.as_str()), &added_lines(text))
                }
                // Not matched to its text: kept whole, never dropped unread.
                _ => true,
            };
            if lacking && (file.additions > 0 || file.binary) {
                if let Some(text) = text {
                    patch.push_str(text);
                }
                keep.push(file);
            }
        }
        if keep.is_empty() {
            continue;
        }
        if sections.is_none() {
            patch.clone_from(&other.patch);
        }
        let paths: Vec<&str> = keep.iter().map(|f| f.path.as_str()).collect();
        let (name, taker) = layer.words();
        change.notes.push(format!(
            "lines {name} (what `{taker}` takes) that the working tree no longer has, shown as they were {name}: {}",
            paths.join(", ")
        ));
        other.files = keep;
        other.patch = patch;
        merge_into(change, other);
    }
}

/// Each file's section of `patch`, in the order of its `files` files;
/// `None` when the two do not line up one to one (then nothing may be
/// judged by text).
fn sections_by_file(patch: &str, files: usize) -> Option<Vec<&str>> {
    let sections = parse_patch(patch);
    if sections.len() != files {
        return None;
    }
    sections
        .iter()
        .map(|s| patch.get(s.range.clone()))
        .collect()
}

/// The lines each file of `change` adds, by path; `None` when its patch
/// and files do not line up.
fn added_by_path(change: &Change) -> Option<HashMap<&str, Vec<&str>>> {
    let sections = sections_by_file(&change.patch, change.files.len())?;
    let mut out: HashMap<&str, Vec<&str>> = HashMap::new();
    for (file, text) in change.files.iter().zip(sections) {
        out.entry(file.path.as_str())
            .or_default()
            .extend(added_lines(text));
    }
    Some(out)
}

/// The added lines of one file's section (after its first hunk header).
fn added_lines(section: &str) -> Vec<&str> {
    section
        .lines()
        .skip_while(|l| !l.starts_with("@@"))
        .filter_map(|l| l.strip_prefix('+'))
        .collect()
}

/// Every line of `wanted`, as often as it occurs, is in `have`.
fn contains_all(have: Option<&Vec<&str>>, wanted: &[&str]) -> bool {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for l in have.into_iter().flatten() {
        *counts.entry(l).or_default() += 1;
    }
    wanted.iter().all(|l| match counts.get_mut(l) {
        Some(n) if *n > 0 => {
            *n -= 1;
            true
        }
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_counted_as_often_as_they_occur() {
        let have = vec!["a", "b"];
        assert!(contains_all(Some(&have), &["a", "b"]));
        assert!(!contains_all(Some(&have), &["a", "a"]));
        assert!(!contains_all(None, &["a"]));
        assert!(contains_all(None, &[]));
    }

    #[test]
    fn added_lines_start_after_the_first_hunk() {
        let section = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1,2 @@\n-old\n+new\n+++plus\n";
        assert_eq!(added_lines(section), vec!["new", "++plus"]);
    }
}
