//! The coverage of a code review over a diff, counted in the added lines its
//! reviewers received: for every file, how many of its hunks and added lines
//! reviewers were shown (and in which parts, and which reviewers finished
//! them), how many came from the cache, and what was left out and why —
//! binary content, lines a redaction hid, parts over `--max-chunks` or the
//! budget, a reviewer that did not finish. An added line that is in none of
//! these is still a gap (`not_sent`): nothing passes unseen.

use crit_core::{Coverage, FileCoverage, LeftOut, LeftOutCause};

use super::work::Work;
use crate::engine::redaction::Removed;
use crit_project::scope::{Change, FileStatus};

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
/// is `work.parts[i]`'s) and what redaction hid (`removed`).
pub(super) fn build(
    change: &Change,
    work: &Work,
    outcomes: &[PartOutcome],
    removed: &[Removed],
    max_parts: usize,
) -> Coverage {
    let mut c = Coverage {
        chunks: count(work.parts.len()),
        hunks_cached: count(work.cached.len()),
        cached_cost_usd: work.cached_cost_usd.filter(|_| !work.cached.is_empty()),
        ..Coverage::default()
    };
    let cached: std::collections::HashSet<usize> = work.cached.iter().copied().collect();
    let added = |u: usize| count(work.units[u].hunk.hunk.added.len());
    for (i, f) in work.files.iter().enumerate() {
        let mut fc = FileCoverage {
            path: f.path.clone(),
            hunks: count(f.units.len()),
            hunks_cached: count(f.units.iter().filter(|u| cached.contains(u)).count()),
            lines_added: f.units.iter().map(|u| added(*u)).sum(),
            ..FileCoverage::default()
        };
        let from_cache: u32 = f
            .units
            .iter()
            .filter(|u| cached.contains(u))
            .map(|u| added(*u))
            .sum();
        // Added lines sent in this run to parts every reviewer finished.
        let mut received: u32 = 0;
        let mut gaps: Vec<LeftOut> = Vec::new();
        let mut reviewers: Option<Vec<String>> = None;
        for (p, units) in work.parts.iter().enumerate() {
            let mine: Vec<usize> = units
                .iter()
                .copied()
                .filter(|u| work.units[*u].file == i)
                .collect();
            if mine.is_empty() {
                continue;
            }
            let lines: u32 = mine.iter().map(|u| added(*u)).sum();
            let outcome = outcomes.get(p).cloned().unwrap_or_default();
            fc.chunks.push(count(p + 1));
            match &outcome.skipped {
                Some((cause, why)) => gaps.push(left(&f.path, mine.len(), lines, *cause, why)),
                None => {
                    // Reviewed means a reviewer finished it: one that failed
                    // read nothing a result can stand on.
                    if !outcome.done.is_empty() {
                        fc.hunks_shown += count(mine.len());
                    }
                    match outcome.failed.is_empty() {
                        true => received += lines,
                        false => {
                            for (name, why) in &outcome.failed {
                                let why = format!(
                                    "reviewer `{name}` did not finish part {}: {why}",
                                    p + 1
                                );
                                gaps.push(left(
                                    &f.path,
                                    mine.len(),
                                    lines,
                                    LeftOutCause::ReviewerFailed,
                                    &why,
                                ));
                            }
                        }
                    }
                }
            }
            reviewers = Some(match reviewers {
                None => outcome.done.clone(),
                Some(r) => r.into_iter().filter(|n| outcome.done.contains(n)).collect(),
            });
        }
        fc.reviewers = reviewers.unwrap_or_default();
        let over: Vec<usize> = work
            .over
            .iter()
            .flatten()
            .copied()
            .filter(|u| work.units[*u].file == i)
            .collect();
        if !over.is_empty() {
            let why =
                format!("the change needed more than the {max_parts} parts allowed (--max-chunks)");
            let lines = over.iter().map(|u| added(*u)).sum();
            gaps.push(left(
                &f.path,
                over.len(),
                lines,
                LeftOutCause::MaxChunks,
                &why,
            ));
        }
        // What redaction hid of the lines reviewers were sent.
        let mut hidden: Vec<u32> = removed
            .iter()
            .filter(|r| r.context == "the change" && r.path.as_deref() == Some(f.path.as_str()))
            .filter_map(|r| r.hid_code.as_ref())
            .flatten()
            .copied()
            .collect();
        hidden.sort_unstable();
        hidden.dedup();
        if !hidden.is_empty() {
            let n = count(hidden.len());
            received = received.saturating_sub(n);
            let why = format!(
                "a redaction hid more than a credential on {}",
                line_list(&hidden)
            );
            gaps.push(left(&f.path, 0, n, LeftOutCause::Redacted, &why));
        }
        if f.changed.binary && f.changed.status != FileStatus::Deleted {
            fc.lines_added = fc.lines_added.max(f.changed.additions);
            let why = "binary content: no reviewer read it".to_string();
            gaps.push(left(
                &f.path,
                0,
                f.changed.additions,
                LeftOutCause::Binary,
                &why,
            ));
        } else if f.units.is_empty() && f.header.is_empty() {
            fc.lines_added = fc.lines_added.max(f.changed.additions);
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
                let n = f.changed.additions;
                gaps.push(left(&f.path, 0, n, LeftOutCause::TooLarge, &why));
            }
        }
        let accounted = gaps
            .iter()
            .map(|g| g.lines)
            .sum::<u32>()
            .saturating_add(received)
            .saturating_add(from_cache);
        if gaps.is_empty() && accounted < fc.lines_added {
            let why = "no reviewer was sent these lines".to_string();
            let n = fc.lines_added - accounted;
            gaps.push(left(&f.path, 0, n, LeftOutCause::NotSent, &why));
        }
        fc.lines_reviewed = received.saturating_add(from_cache).min(fc.lines_added);
        c.lines_added += fc.lines_added;
        c.lines_reviewed += received;
        c.lines_cached += from_cache;
        c.hunks_reviewed += fc.hunks_shown;
        c.left_out.extend(gaps);
        c.files.push(fc);
    }
    c.settle();
    c
}

/// The files the user's `ignore` globs left out of `change`, listed in the
/// result's coverage (made for a review that had none, such as a change
/// nothing is left of): each named, none a gap.
pub(crate) fn add_ignored(result: &mut crit_core::ReviewResult, change: Option<&Change>) {
    let Some(change) = change.filter(|c| !c.ignored.is_empty()) else {
        return;
    };
    let c = result.coverage.get_or_insert_with(Coverage::default);
    for i in &change.ignored {
        let why = format!("ignored: matches `{}` of your ignore settings", i.glob);
        c.left_out.push(LeftOut {
            path: i.path.clone(),
            hunks: i.hunks,
            lines: i.additions,
            cause: LeftOutCause::Ignored,
            reason: why,
        });
    }
    c.settle();
}

/// Files git hid from the change (see [`Change::hidden`]): each listed as
/// not sent, a gap that holds the gate.
pub(crate) fn add_hidden(result: &mut crit_core::ReviewResult, change: Option<&Change>) {
    let Some(change) = change.filter(|c| !c.hidden.is_empty()) else {
        return;
    };
    let c = result.coverage.get_or_insert_with(Coverage::default);
    for h in &change.hidden {
        c.left_out.push(LeftOut {
            path: h.path.clone(),
            hunks: 0,
            lines: 0,
            cause: LeftOutCause::NotSent,
            reason: h.reason.clone(),
        });
    }
    c.settle();
}

/// `lines 4–6, 9`: new-file line numbers, runs joined.
fn line_list(lines: &[u32]) -> String {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for &n in lines {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == n => *end = n,
            _ => runs.push((n, n)),
        }
    }
    let parts: Vec<String> = runs
        .iter()
        .map(|(a, b)| match a == b {
            true => a.to_string(),
            false => format!("{a}–{b}"),
        })
        .collect();
    let word = if lines.len() == 1 { "line" } else { "lines" };
    format!("added {word} {}", parts.join(", "))
}

fn left(path: &str, hunks: usize, lines: u32, cause: LeftOutCause, reason: &str) -> LeftOut {
    LeftOut {
        path: path.to_string(),
        hunks: count(hunks),
        lines,
        cause,
        reason: reason.to_string(),
    }
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
