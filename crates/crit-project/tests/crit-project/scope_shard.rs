//! `ScopeOptions::shard` on real repositories: every kind of change splits
//! into parts that cover each file exactly once with its own patch section
//! (renames, quoted names, untracked and binary files included), the split is
//! chosen before the patch is cut, and a survey has nothing to split.

use crate::scope_support;

use std::collections::BTreeSet;

use crit_core::shard::Shard;
use crit_project::scope::{Change, Scope, ScopeError, ScopeOptions, compute, parse_patch};
use scope_support::{Repo, diff, lines, run};

fn sharded(repo: &Repo, scope: &Scope, index: u32, count: u32, cap: usize) -> Change {
    let opts = ScopeOptions {
        shard: Some(Shard { index, count }),
        max_patch_bytes: cap,
        ..ScopeOptions::default()
    };
    compute(&repo.root, scope, &opts).unwrap()
}

/// A branch touching many kinds of file: sizes from 1 to 300 lines, a rename,
/// a deletion, a name git quotes, a binary file.
fn busy_repo() -> Repo {
    let repo = Repo::new();
    for i in 0..12 {
        repo.write(&format!("src/m{i:02}.rs"), lines(5));
    }
    repo.write("old name.txt", lines(30));
    repo.write("gone.rs", lines(4));
    repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "work"]);
    for i in 0..12u32 {
        repo.write(&format!("src/m{i:02}.rs"), lines(5 + (i * 37) % 300));
    }
    repo.git(&["mv", "old name.txt", "new \"name\".txt"]);
    repo.remove("gone.rs");
    repo.write("bin.dat", [0u8, 1, 2, 0, 255]);
    repo.commit("work");
    repo
}

/// The file each patch section is for, from its `+++`/`Binary`/header line.
fn section_files(c: &Change) -> Vec<String> {
    parse_patch(&c.patch)
        .iter()
        .map(|s| c.patch[s.range.clone()].lines().next().unwrap().to_string())
        .collect()
}

#[test]
fn shards_partition_the_files_and_their_patch_sections() {
    let repo = busy_repo();
    let scope = diff("main");
    let whole = run(&repo, &scope);
    let all: BTreeSet<String> = whole.paths().into_iter().map(String::from).collect();
    assert_eq!(all.len(), 14, "{all:?}");
    for count in [1, 2, 3, 4, 7, 14, 20] {
        let mut seen: Vec<String> = Vec::new();
        let mut headers: Vec<String> = Vec::new();
        for index in 1..=count {
            let c = sharded(&repo, &scope, index, count, usize::MAX);
            assert_eq!(
                c.shard.as_deref(),
                Some(format!("{index}/{count}").as_str())
            );
            assert_eq!(
                section_files(&c).len(),
                c.files.len(),
                "{count}: one section per file"
            );
            for f in &c.files {
                assert!(
                    c.patch
                        .contains(&format!("b/{}", f.path.replace('"', "\\\""))),
                    "{count}/{index}: no section for {}",
                    f.path
                );
            }
            seen.extend(c.paths().into_iter().map(String::from));
            headers.extend(section_files(&c));
        }
        let once: BTreeSet<String> = seen.iter().cloned().collect();
        assert_eq!(seen.len(), all.len(), "{count}: no file twice");
        assert_eq!(once, all, "{count}: every file");
        let whole_headers: BTreeSet<String> = section_files(&whole).into_iter().collect();
        assert_eq!(headers.into_iter().collect::<BTreeSet<_>>(), whole_headers);
    }
}

#[test]
fn the_split_is_the_same_every_run_and_balanced_by_diff_size() {
    let repo = busy_repo();
    let scope = diff("main");
    let first: Vec<Vec<String>> = (1..=3)
        .map(|i| {
            sharded(&repo, &scope, i, 3, usize::MAX)
                .paths()
                .into_iter()
                .map(String::from)
                .collect()
        })
        .collect();
    for _ in 0..3 {
        let again: Vec<Vec<String>> = (1..=3)
            .map(|i| {
                sharded(&repo, &scope, i, 3, usize::MAX)
                    .paths()
                    .into_iter()
                    .map(String::from)
                    .collect()
            })
            .collect();
        assert_eq!(again, first);
    }
    let loads: Vec<u64> = (1..=3)
        .map(|i| {
            sharded(&repo, &scope, i, 3, usize::MAX)
                .files
                .iter()
                .map(|f| u64::from(f.additions + f.deletions) + 1)
                .sum()
        })
        .collect();
    let (min, max) = (loads.iter().min().unwrap(), loads.iter().max().unwrap());
    // Greedy largest-first is within the largest file of even.
    assert!(max - min <= 300, "{loads:?}");
}

#[test]
fn the_shard_is_chosen_before_the_patch_is_cut() {
    let repo = busy_repo();
    let scope = diff("main");
    let cap = 2_000;
    let whole = compute(
        &repo.root,
        &scope,
        &ScopeOptions {
            max_patch_bytes: cap,
            ..ScopeOptions::default()
        },
    )
    .unwrap();
    assert!(whole.truncated);
    // Every shard shows its own first files, not the leftovers of a cut patch.
    for i in 1..=4 {
        let c = sharded(&repo, &scope, i, 4, cap);
        assert!(!section_files(&c).is_empty(), "shard {i} shows a diff");
        assert!(c.patch.len() <= cap);
    }
}

#[test]
fn uncommitted_files_and_selections_split_too() {
    let repo = busy_repo();
    repo.write("src/m00.rs", lines(9));
    repo.write("untracked.rs", lines(50));
    let all = run(&repo, &Scope::Uncommitted);
    let mut seen = BTreeSet::new();
    for i in 1..=2 {
        let c = sharded(&repo, &Scope::Uncommitted, i, 2, usize::MAX);
        assert_eq!(section_files(&c).len(), c.files.len());
        seen.extend(c.paths().into_iter().map(String::from));
    }
    assert_eq!(seen.len(), all.files.len());
    let files = Scope::Files(vec!["src/**".into()]);
    let parts: Vec<Change> = (1..=5)
        .map(|i| sharded(&repo, &files, i, 5, usize::MAX))
        .collect();
    assert_eq!(parts.iter().map(|c| c.files.len()).sum::<usize>(), 12);
    assert!(
        parts.iter().all(|c| c.files.len() >= 2),
        "equal weights split evenly"
    );
    assert!(
        parts[0]
            .description
            .contains("shard 1/5: 3 of its 12 files"),
        "{}",
        parts[0].description
    );
}

#[test]
fn a_survey_has_nothing_to_split() {
    let repo = busy_repo();
    let opts = ScopeOptions {
        shard: Some(Shard { index: 1, count: 2 }),
        ..ScopeOptions::default()
    };
    let err = compute(&repo.root, &Scope::Survey, &opts).unwrap_err();
    assert!(
        matches!(err, ScopeError::ShardWithoutChange { .. }),
        "{err}"
    );
}
