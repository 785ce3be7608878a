//! Several results folded into one: the shards of a change reviewed by a CI
//! matrix, or reviews of one pull request by separate jobs.
//!
//! Findings are deduplicated by fingerprint (the most severe copy stays);
//! usage and cost add up; the verdict is recomputed as a panel's is
//! ([`Verdict::combine`]); the result passes only if every part passed. Shards
//! must be complete: a merge that lacks one is `INCOMPLETE`, because the files
//! of the missing part were never reviewed. Merging is idempotent: a part given
//! twice counts once, and merging a merged result alone changes nothing.

use std::collections::{BTreeMap, BTreeSet};

use crate::shard::{self, ShardSet};
use crate::{FailOn, Finding, ReviewResult, Verdict};

/// Why results cannot be merged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    #[error("nothing to merge: give at least one result")]
    Empty,
    #[error("{name}: `{INPUT}: {value}` is not a shard: {why}", INPUT = shard::INPUT_KEY)]
    BadShard {
        name: String,
        value: String,
        why: shard::ShardParseError,
    },
    #[error(
        "{a} covers shards {a_set} and {b} covers {b_set}: shards of different splits cannot be merged; merge the results of one `--shard I/N` matrix"
    )]
    DifferentSplits {
        a: String,
        a_set: String,
        b: String,
        b_set: String,
    },
    #[error(
        "shard {index}/{count} is in both {a} and {b} with different results (a retried job?); keep one of them"
    )]
    Overlap {
        index: u32,
        count: u32,
        a: String,
        b: String,
    },
}

/// One result to merge and a name for it in messages (its file).
#[derive(Debug, Clone)]
pub struct Part {
    pub name: String,
    pub result: ReviewResult,
}

/// Folds `parts` into one result (see the module docs).
pub fn merge(parts: Vec<Part>) -> Result<ReviewResult, MergeError> {
    let parts = distinct(parts);
    if parts.is_empty() {
        return Err(MergeError::Empty);
    }
    let coverage = coverage(&parts)?;
    let missing = coverage.as_ref().map(ShardSet::missing).unwrap_or_default();
    if let [only] = parts.as_slice() {
        let mut r = only.result.clone();
        if let Some(set) = coverage.as_ref().filter(|_| !missing.is_empty()) {
            incomplete(&mut r, set, &missing);
            r.passed = false;
        }
        return Ok(r);
    }
    let results: Vec<&ReviewResult> = parts.iter().map(|p| &p.result).collect();
    let labels: Vec<String> = parts.iter().map(label).collect();
    let first = results[0];
    let mut merged = ReviewResult::new(
        review_name(&results),
        Verdict::combine(results.iter().map(|r| r.verdict)),
    );
    merged.schema_version = first.schema_version;
    merged.findings = findings(&results);
    let kept: BTreeSet<&str> = merged.findings.iter().map(|f| f.id.as_str()).collect();
    let mut seen = BTreeSet::new();
    merged.dismissed = results
        .iter()
        .flat_map(|r| r.dismissed.iter())
        // Dismissed by one shard (outside its files), counted by another.
        .filter(|d| !kept.contains(d.finding.id.as_str()))
        .filter(|d| seen.insert((d.finding.id.clone(), d.cause.clone())))
        .cloned()
        .collect();
    for r in &results {
        merged.reviewers.extend(r.reviewers.iter().cloned());
        merged.usage += r.usage;
        merged.cost_usd = crate::usage::add_cost(merged.cost_usd, r.cost_usd);
        for (k, v) in &r.inputs {
            merged.inputs.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    // The parts ran side by side: the merge took as long as the slowest.
    merged.duration_ms = results.iter().map(|r| r.duration_ms).max().unwrap_or(0);
    merged.started_at = results.iter().filter_map(|r| r.started_at.clone()).min();
    merged.summary = labelled(&results, &labels, |r| &r.summary);
    merged.raw_output = labelled(&results, &labels, |r| &r.raw_output);
    merged.parse_error = parse_error(&results, &labels);
    merged.fatal_error = results.iter().any(|r| r.fatal_error);
    merged.session_log_path = same(results.iter().map(|r| r.session_log_path.clone()));
    merged.structured_output = structured(&results);
    merged.verdict_from_findings = results.iter().all(|r| r.verdict_from_findings);
    let floors: Vec<Verdict> = results.iter().filter_map(|r| r.verdict_floor).collect();
    merged.verdict_floor = (!floors.is_empty()).then(|| Verdict::combine(floors));
    merged.coverage = merged_coverage(&results);
    if let Some(set) = &coverage {
        merged
            .inputs
            .insert(shard::INPUT_KEY.into(), set.to_string());
        if !missing.is_empty() {
            incomplete(&mut merged, set, &missing);
        }
    }
    merged.passed =
        results.iter().all(|r| r.passed) && missing.is_empty() && FailOn::Never.passes(&merged);
    Ok(merged)
}

/// The shards' coverages together: every file each part saw, every gap.
fn merged_coverage(results: &[&ReviewResult]) -> Option<crate::Coverage> {
    let all: Vec<&crate::Coverage> = results.iter().filter_map(|r| r.coverage.as_ref()).collect();
    if all.is_empty() {
        return None;
    }
    let mut c = crate::Coverage {
        partial_allowed: all.iter().all(|c| c.partial_allowed),
        ..crate::Coverage::default()
    };
    for part in &all {
        c.chunks += part.chunks;
        c.hunks_cached += part.hunks_cached;
        c.hunks_reviewed += part.hunks_reviewed;
        c.lines_added += part.lines_added;
        c.lines_reviewed += part.lines_reviewed;
        c.lines_cached += part.lines_cached;
        c.files.extend(part.files.iter().cloned());
        c.left_out.extend(part.left_out.iter().cloned());
    }
    // Unknown when any result with cached hunks does not know its share.
    let saved: Vec<Option<f64>> = all
        .iter()
        .filter(|c| c.hunks_cached > 0)
        .map(|c| c.cached_cost_usd)
        .collect();
    if !saved.is_empty() {
        c.cached_cost_usd = saved.into_iter().try_fold(0.0, |s, x| Some(s + x?));
    }
    c.settle();
    Some(c)
}

/// Drops exact repeats (the same file given twice), keeping the first.
fn distinct(parts: Vec<Part>) -> Vec<Part> {
    let mut out: Vec<Part> = Vec::new();
    for mut p in parts {
        p.result.fill_missing_ids();
        if !out.iter().any(|o| o.result == p.result) {
            out.push(p);
        }
    }
    out
}

/// The shards the parts cover together, or `None` when none is a shard.
fn coverage(parts: &[Part]) -> Result<Option<ShardSet>, MergeError> {
    let mut total: Option<(ShardSet, BTreeMap<u32, String>)> = None;
    for p in parts {
        let Some(value) = p.result.inputs.get(shard::INPUT_KEY) else {
            continue;
        };
        let set: ShardSet = value.parse().map_err(|why| MergeError::BadShard {
            name: p.name.clone(),
            value: value.clone(),
            why,
        })?;
        let (acc, owners) = total.get_or_insert_with(|| {
            (
                ShardSet {
                    indices: BTreeSet::new(),
                    count: set.count,
                },
                BTreeMap::new(),
            )
        });
        if acc.count != set.count {
            let a = owners.values().next().cloned().unwrap_or_default();
            return Err(MergeError::DifferentSplits {
                a,
                a_set: acc.to_string(),
                b: p.name.clone(),
                b_set: set.to_string(),
            });
        }
        for i in set.indices {
            if let Some(a) = owners.insert(i, p.name.clone()) {
                return Err(MergeError::Overlap {
                    index: i,
                    count: set.count,
                    a,
                    b: p.name.clone(),
                });
            }
            acc.indices.insert(i);
        }
    }
    Ok(total.map(|(set, _)| set))
}

/// A merge without every shard: the missing files were not reviewed, so the
/// result cannot pass, whatever the others found.
fn incomplete(merged: &mut ReviewResult, set: &ShardSet, missing: &[u32]) {
    merged.verdict = Verdict::combine([merged.verdict, Verdict::Incomplete]);
    let list: Vec<String> = missing
        .iter()
        .map(|i| format!("{i}/{}", set.count))
        .collect();
    let note = format!(
        "Missing shard(s) {}: the files in them were not reviewed.",
        list.join(", ")
    );
    merged.summary = match merged.summary.is_empty() {
        true => note,
        false => format!("{note}\n\n{}", merged.summary),
    };
}

/// Each fingerprint once, its most severe copy (the first among equals).
fn findings(results: &[&ReviewResult]) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    let mut at: BTreeMap<String, usize> = BTreeMap::new();
    for f in results.iter().flat_map(|r| r.findings.iter()) {
        match at.get(&f.id) {
            Some(&i) if f.severity < out[i].severity => out[i] = f.clone(),
            Some(_) => {}
            None => {
                at.insert(f.id.clone(), out.len());
                out.push(f.clone());
            }
        }
    }
    out
}

fn review_name(results: &[&ReviewResult]) -> String {
    let mut names: Vec<&str> = Vec::new();
    for r in results {
        if !names.contains(&r.review.as_str()) {
            names.push(&r.review);
        }
    }
    names.join("+")
}

/// `shard 2/4`, else the part's name.
fn label(p: &Part) -> String {
    match p.result.inputs.get(shard::INPUT_KEY) {
        Some(s) => format!("shard {s}"),
        None => p.name.clone(),
    }
}

fn labelled(
    results: &[&ReviewResult],
    labels: &[String],
    text: impl Fn(&ReviewResult) -> &str,
) -> String {
    results
        .iter()
        .zip(labels)
        .filter(|(r, _)| !text(r).trim().is_empty())
        .map(|(r, l)| format!("[{l}] {}", text(r).trim()))
        .collect::<Vec<_>>()
        .join("\n\n")
}

fn parse_error(results: &[&ReviewResult], labels: &[String]) -> Option<String> {
    let errors: Vec<String> = results
        .iter()
        .zip(labels)
        .filter_map(|(r, l)| Some(format!("{l}: {}", r.parse_error.as_deref()?)))
        .collect();
    (!errors.is_empty()).then(|| errors.join("; "))
}

/// One answer in a caller's schema as is; several different ones as a list.
fn structured(results: &[&ReviewResult]) -> Option<serde_json::Value> {
    let all: Vec<serde_json::Value> = results
        .iter()
        .filter_map(|r| r.structured_output.clone())
        .collect();
    match same(all.iter().cloned().map(Some)) {
        Some(one) => Some(one),
        None if all.is_empty() => None,
        None => Some(serde_json::Value::Array(all)),
    }
}

/// The value when every part that has one agrees; `None` otherwise.
fn same<T: PartialEq>(values: impl Iterator<Item = Option<T>>) -> Option<T> {
    let mut found: Option<T> = None;
    for v in values.flatten() {
        match &found {
            None => found = Some(v),
            Some(f) if *f == v => {}
            Some(_) => return None,
        }
    }
    found
}
