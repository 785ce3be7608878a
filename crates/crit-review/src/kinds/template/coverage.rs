//! The coverage of a code review over a diff: for every file, how many of
//! its hunks reviewers were shown (and in which parts, and which reviewers
//! finished them), how many came from the cache, and what was left out and
//! why.

use crit_core::{Coverage, FileCoverage, LeftOut, LeftOutCause};

use super::work::Work;
use crit_project::scope::Change;

/// How one part of the work went.
#[derive(Debug, Clone, Default)]
pub(super) struct PartOutcome {
    /// Reviewers that finished it.
    pub done: Vec<String>,
    /// Reviewers that did not, and why.
    pub failed: Vec<(String, String)>,
    /// Not sent at all: why.
    pub skipped: Option<(LeftOutCause, String)>,
}

/// The coverage of `work`, given how each of its parts went (`outcomes[i]`
/// is `work.parts[i]`'s).
pub(super) fn build(
    change: &Change,
    work: &Work,
    outcomes: &[PartOutcome],
    max_parts: usize,
) -> Coverage {
    let mut c = Coverage {
        chunks: u32::try_from(work.parts.len()).unwrap_or(u32::MAX),
        hunks_cached: count(work.cached.len()),
        ..Coverage::default()
    };
    let cached: Vec<usize> = work.cached.iter().map(|(u, _)| *u).collect();
    for (i, f) in work.files.iter().enumerate() {
        let mut fc = FileCoverage {
            path: f.path.clone(),
            hunks: count(f.units.len()),
            hunks_cached: count(f.units.iter().filter(|u| cached.contains(u)).count()),
            ..FileCoverage::default()
        };
        let mut reviewers: Option<Vec<String>> = None;
        for (p, units) in work.parts.iter().enumerate() {
            let mine = units.iter().filter(|u| work.units[**u].file == i).count();
            if mine == 0 {
                continue;
            }
            let outcome = outcomes.get(p).cloned().unwrap_or_default();
            fc.chunks.push(count(p + 1));
            match &outcome.skipped {
                Some((cause, why)) => c.left_out.push(left(&f.path, mine, *cause, why.clone())),
                None => {
                    fc.hunks_shown += count(mine);
                    for (name, why) in &outcome.failed {
                        c.left_out.push(left(
                            &f.path,
                            mine,
                            LeftOutCause::ReviewerFailed,
                            format!("reviewer `{name}` did not finish part {}: {why}", p + 1),
                        ));
                    }
                }
            }
            reviewers = Some(match reviewers {
                None => outcome.done.clone(),
                Some(r) => r.into_iter().filter(|n| outcome.done.contains(n)).collect(),
            });
        }
        fc.reviewers = reviewers.unwrap_or_default();
        let over = work
            .over
            .iter()
            .flatten()
            .filter(|u| work.units[**u].file == i)
            .count();
        if over > 0 {
            c.left_out.push(left(
                &f.path,
                over,
                LeftOutCause::MaxChunks,
                format!("the change needed more than the {max_parts} parts allowed (--max-chunks)"),
            ));
        }
        if f.changed.binary {
            c.left_out.push(left(
                &f.path,
                0,
                LeftOutCause::Binary,
                "a binary file: no text to review".into(),
            ));
        } else if f.units.is_empty() && f.header.is_empty() {
            let quoted = format!("`{}`", f.changed.path);
            let why = change
                .notes
                .iter()
                .find(|n| n.contains(&quoted))
                .cloned()
                .or_else(|| {
                    change
                        .truncated
                        .then(|| "git's diff output was over its size limit".to_string())
                });
            if let Some(why) = why {
                c.left_out
                    .push(left(&f.path, 0, LeftOutCause::TooLarge, why));
            }
        }
        c.hunks_reviewed += fc.hunks_shown;
        c.files.push(fc);
    }
    c.settle();
    c
}

fn left(path: &str, hunks: usize, cause: LeftOutCause, reason: String) -> LeftOut {
    LeftOut {
        path: path.to_string(),
        hunks: count(hunks),
        cause,
        reason,
    }
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
