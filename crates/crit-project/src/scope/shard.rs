//! `--shard I/N`: the I-th of N parts of a change, so N CI jobs review a big
//! change in parallel and `crit report merge` folds their results.
//!
//! The split depends only on the change: files sorted by path, then assigned
//! greedily, largest diff first (ties by path), each to the part with the least
//! diff so far (ties to the lowest part). Every job of a matrix computes the
//! same split, every file lands in exactly one part, and the parts carry
//! similar amounts of diff. The patch keeps the sections of the part's files.

use crit_core::shard::Shard;

use super::units::section_owners;
use super::{Change, ChangedFile};

/// The part of each file (0-based), in `files`' order.
pub(super) fn assign(files: &[ChangedFile], count: u32) -> Vec<u32> {
    let count = count.max(1) as usize;
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by(|&a, &b| {
        weight(&files[b])
            .cmp(&weight(&files[a]))
            .then_with(|| files[a].path.cmp(&files[b].path))
    });
    let mut load = vec![0u64; count];
    let mut part = vec![0u32; files.len()];
    for i in order {
        let (lightest, _) = load
            .iter()
            .enumerate()
            .min_by_key(|(k, l)| (**l, *k))
            .unwrap_or((0, &0));
        load[lightest] += weight(&files[i]);
        part[i] = lightest as u32;
    }
    part
}

/// A file's share of the work: its changed lines, and one for being there.
fn weight(f: &ChangedFile) -> u64 {
    u64::from(f.additions) + u64::from(f.deletions) + 1
}

/// Keeps only `shard`'s files in `change`, their patch sections and notes.
pub(super) fn apply(change: &mut Change, shard: Shard) {
    let total = change.files.len();
    let parts = assign(&change.files, shard.count);
    let keep: Vec<bool> = parts.iter().map(|p| *p + 1 == shard.index).collect();
    keep_files(change, &keep);
    change.shard = Some(shard.to_string());
    change.description = format!(
        "{}; shard {shard}: {} of its {total} files (the other files are reviewed separately)",
        change.description,
        change.files.len()
    );
}

/// Keeps the files of `change` whose `keep` is true, with their patch
/// sections and notes.
pub(super) fn keep(change: &mut Change, keep: &[bool]) {
    keep_files(change, keep);
}

fn keep_files(change: &mut Change, keep: &[bool]) {
    let owners = section_owners(change);
    let mut patch = String::new();
    for (range, owner) in owners {
        if owner.is_some_and(|i| keep.get(i).copied().unwrap_or(false))
            && let Some(text) = change.patch.get(range)
        {
            patch.push_str(text);
        }
    }
    let dropped: Vec<String> = change
        .files
        .iter()
        .zip(keep)
        .filter(|(_, k)| !**k)
        .map(|(f, _)| format!("`{}`", f.path))
        .collect();
    change
        .notes
        .retain(|n| !dropped.iter().any(|d| n.contains(d.as_str())));
    let mut k = keep.iter();
    change.files.retain(|_| k.next().copied().unwrap_or(false));
    change.patch = patch;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scope::FileStatus;

    fn file(path: &str, lines: u32) -> ChangedFile {
        ChangedFile {
            path: path.into(),
            old_path: None,
            status: FileStatus::Modified,
            additions: lines,
            deletions: 0,
            binary: false,
            hunks: Vec::new(),
        }
    }

    #[test]
    fn largest_first_to_the_lightest_part() {
        let files = [file("a", 100), file("b", 10), file("c", 60), file("d", 50)];
        // a (101) against c and d (112); b evens out a's side.
        assert_eq!(assign(&files, 2), [0, 0, 1, 1]);
        assert_eq!(assign(&files, 1), [0, 0, 0, 0]);
        // More parts than files: some parts are empty, none gets two.
        assert_eq!(assign(&files, 6), [0, 3, 1, 2]);
    }

    #[test]
    fn ties_are_broken_by_path_so_any_order_gives_the_same_split() {
        let files = [file("x", 5), file("b", 5), file("m", 5)];
        let mut reversed = files.clone();
        reversed.reverse();
        let by_path = |fs: &[ChangedFile], parts: Vec<u32>| {
            let mut v: Vec<(String, u32)> = fs.iter().map(|f| f.path.clone()).zip(parts).collect();
            v.sort();
            v
        };
        assert_eq!(
            by_path(&files, assign(&files, 2)),
            by_path(&reversed, assign(&reversed, 2))
        );
    }
}
