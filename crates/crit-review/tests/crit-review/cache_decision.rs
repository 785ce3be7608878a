//! Which hunks a finished review lets the cache keep, as a property over
//! generated multi-part changes and reviewer answers: a hunk any finding of
//! the review pointed into (its file, however the finding spells it, or a
//! directory above it; a finding with no file points anywhere) is never
//! kept, since the cache keeps no findings to bring back with it; nor is a
//! hunk of a part that did not pass cleanly. A part whose reviewer reported
//! something outside its own files keeps nothing. And a clean review keeps
//! every hunk that has a key, so the property cannot hold by keeping nothing.

use crit_review::review::{PartHunk, ReviewFinding, ReviewedPart, hunks_to_store};
use proptest::prelude::*;

/// Files of the generated changes; two share a name in different
/// directories, one sits in a directory findings may name.
const FILES: [&str; 5] = [
    "src/a.rs",
    "lib/a.rs",
    "src/auth/token.rs",
    "b.py",
    "docs/B.md",
];
/// Directories a finding may name.
const DIRS: [&str; 2] = ["src/auth", "docs"];

#[derive(Debug, Clone)]
struct GenHunk {
    file: usize,
    keyed: bool,
    tainted: bool,
}

#[derive(Debug, Clone)]
struct GenPart {
    passed: bool,
    hunks: Vec<GenHunk>,
}

/// Where a generated finding points, before it is spelled.
#[derive(Debug, Clone)]
enum Target {
    File(usize),
    Dir(usize),
    /// A file no part holds.
    Outside,
    /// No location at all.
    Nowhere,
}

#[derive(Debug, Clone)]
struct GenFinding {
    /// `Some(i)`: a reviewer of part `i` (taken modulo the parts); `None`:
    /// a check's or crit's own.
    part: Option<usize>,
    target: Target,
    /// How the path is written (see [`spell`]).
    spelling: u8,
}

/// `path` as a reviewer might write it.
fn spell(path: &str, how: u8) -> String {
    match how % 9 {
        0 => path.to_string(),
        1 => format!("./{path}"),
        2 => format!("b/{path}"),
        3 => path.to_uppercase(),
        4 => match path.rsplit_once('/') {
            Some((dir, name)) => format!("{dir}/x/../{name}"),
            None => format!("x/../{path}"),
        },
        5 => format!("/home/dev/project/{path}"),
        6 => format!("{path}:12"),
        7 => path.replace('/', "\\"),
        _ => format!("{path}/"),
    }
}

fn part() -> impl Strategy<Value = GenPart> {
    let hunk = (
        0..FILES.len(),
        prop::bool::weighted(0.9),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(file, keyed, tainted)| GenHunk {
            file,
            keyed,
            tainted,
        });
    (prop::bool::weighted(0.8), prop::collection::vec(hunk, 1..6))
        .prop_map(|(passed, hunks)| GenPart { passed, hunks })
}

fn finding() -> impl Strategy<Value = GenFinding> {
    let target = prop_oneof![
        6 => (0..FILES.len()).prop_map(Target::File),
        1 => (0..DIRS.len()).prop_map(Target::Dir),
        1 => Just(Target::Outside),
        1 => Just(Target::Nowhere),
    ];
    (prop::option::of(0..4usize), target, 0..9u8).prop_map(|(part, target, spelling)| GenFinding {
        part,
        target,
        spelling,
    })
}

/// Whether a finding aimed at `target` points into `file`, decided from
/// what the generator meant, not from how the path was spelled.
fn points_into(target: &Target, file: &str) -> bool {
    match target {
        Target::File(f) => FILES[*f] == file,
        Target::Dir(d) => file.starts_with(&format!("{}/", DIRS[*d])),
        Target::Outside => false,
        Target::Nowhere => true,
    }
}

fn decide(parts: &[GenPart], findings: &[GenFinding]) -> Vec<(usize, usize)> {
    let keys: Vec<Vec<String>> = parts
        .iter()
        .enumerate()
        .map(|(i, p)| (0..p.hunks.len()).map(|j| format!("k{i}-{j}")).collect())
        .collect();
    let reviewed: Vec<ReviewedPart<'_>> = parts
        .iter()
        .zip(&keys)
        .map(|(p, keys)| ReviewedPart {
            passed: p.passed,
            hunks: p
                .hunks
                .iter()
                .zip(keys)
                .map(|(h, k)| PartHunk {
                    path: FILES[h.file],
                    key: h.keyed.then_some(k.as_str()),
                    tainted: h.tainted,
                })
                .collect(),
        })
        .collect();
    let paths: Vec<Option<String>> = findings
        .iter()
        .map(|f| match f.target {
            Target::File(i) => Some(spell(FILES[i], f.spelling)),
            Target::Dir(i) => Some(spell(DIRS[i], f.spelling)),
            Target::Outside => Some(spell("other/zz.rs", f.spelling)),
            Target::Nowhere => None,
        })
        .collect();
    let as_seen: Vec<ReviewFinding<'_>> = findings
        .iter()
        .zip(&paths)
        .map(|(f, p)| ReviewFinding {
            part: f.part.map(|i| i % parts.len()),
            path: p.as_deref(),
        })
        .collect();
    hunks_to_store(&reviewed, &as_seen)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn a_hunk_any_finding_pointed_into_is_never_kept(
        parts in prop::collection::vec(part(), 1..5),
        findings in prop::collection::vec(finding(), 0..6),
    ) {
        let kept = decide(&parts, &findings);
        let mut seen = std::collections::HashSet::new();
        for &(i, j) in &kept {
            prop_assert!(seen.insert((i, j)), "kept twice: {:?}", (i, j));
            let part = &parts[i];
            let hunk = &part.hunks[j];
            let file = FILES[hunk.file];
            prop_assert!(hunk.keyed, "a hunk without a key kept");
            prop_assert!(part.passed, "a hunk of a part that did not pass kept");
            prop_assert!(part.hunks.iter().all(|h| !h.tainted), "a tainted part kept");
            for f in &findings {
                prop_assert!(
                    !points_into(&f.target, file),
                    "{} kept although {:?} points into it", file, f
                );
            }
        }
    }

    #[test]
    fn a_clean_review_keeps_every_hunk_with_a_key(
        parts in prop::collection::vec(part(), 1..5),
    ) {
        let kept = decide(&parts, &[]);
        for (i, p) in parts.iter().enumerate() {
            let clean = p.passed && p.hunks.iter().all(|h| !h.tainted);
            for (j, h) in p.hunks.iter().enumerate() {
                prop_assert_eq!(kept.contains(&(i, j)), clean && h.keyed);
            }
        }
    }
}

/// The case as a table: part 0 holds `src/auth/token.rs` and
/// passes, part 1's reviewer reports a P0 in it.
#[test]
fn the_other_parts_finding_keeps_the_passing_part_out() {
    let parts = [
        GenPart {
            passed: true,
            hunks: vec![
                GenHunk {
                    file: 2,
                    keyed: true,
                    tainted: false,
                },
                GenHunk {
                    file: 3,
                    keyed: true,
                    tainted: false,
                },
            ],
        },
        GenPart {
            passed: false,
            hunks: vec![GenHunk {
                file: 0,
                keyed: true,
                tainted: false,
            }],
        },
    ];
    let p0 = |spelling| GenFinding {
        part: Some(1),
        target: Target::File(2),
        spelling,
    };
    for spelling in 0..9 {
        // `b.py`, which nothing points into, is still kept.
        assert_eq!(decide(&parts, &[p0(spelling)]), vec![(0, 1)], "{spelling}");
    }
    let nowhere = GenFinding {
        part: Some(1),
        target: Target::Nowhere,
        spelling: 0,
    };
    assert!(decide(&parts, &[nowhere]).is_empty());
    assert_eq!(decide(&parts, &[]), vec![(0, 0), (0, 1)]);
    // Part 0's own reviewer: a nit in its own b.py keeps b.py out; one
    // outside the change, or in another part's file, keeps the part out.
    let own = |target| GenFinding {
        part: Some(0),
        target,
        spelling: 0,
    };
    assert_eq!(decide(&parts, &[own(Target::File(3))]), vec![(0, 0)]);
    assert!(decide(&parts, &[own(Target::Outside)]).is_empty());
    assert!(decide(&parts, &[own(Target::File(0))]).is_empty());
}
