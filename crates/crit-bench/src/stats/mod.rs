//! `crit stats`: the history of every review kind, from the audit logs —
//! reviews per kind and outcome, gate failures, findings by severity, how
//! often refined prompts were accepted (per reviewer), tokens and cost per
//! day, duration percentiles, and the rules and fingerprints that come back
//! most. The logs hold no content, and neither does this.

pub mod days;
pub mod read;
mod render;

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

pub use days::Period;
pub use read::{Line, Reading, Sources, read};
pub use render::terminal;

/// How many rules and fingerprints are listed.
pub const TOP: usize = 10;

/// Everything `crit stats` shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stats {
    pub since: String,
    pub until: String,
    /// The days of the period, oldest first; every per-day list follows them.
    pub days: Vec<String>,
    pub reviews: usize,
    pub kinds: Vec<KindStats>,
    pub acceptance: Vec<Acceptance>,
    pub per_day: Vec<DayStats>,
    pub top_rules: Vec<Count>,
    pub top_fingerprints: Vec<Count>,
    /// Lines that were not audit lines.
    pub skipped_lines: usize,
}

/// One review kind: `code`, `arch`, `run`, `plan`, `prompt`, …
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KindStats {
    pub kind: String,
    pub reviews: usize,
    /// Verdicts (`PASS`, `FAIL`, …), or for prompts the outcome (`approved`, …).
    pub outcomes: BTreeMap<String, usize>,
    /// Reviews that did not pass their gate (prompt reviews have none).
    pub gate_failures: usize,
    /// Findings per severity (`P0` … `P3`, `info`).
    pub findings: BTreeMap<String, usize>,
    pub findings_total: usize,
    pub duration_p50_ms: u64,
    pub duration_p95_ms: u64,
    pub per_day: Vec<usize>,
    /// Why prompt reviews failed open, by reason.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub failures: BTreeMap<String, usize>,
}

/// How often a reviewer's changes were taken.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Acceptance {
    pub reviewer: String,
    pub approved: usize,
    pub edited: usize,
    pub rejected: usize,
    /// (approved + edited) / answered.
    pub rate: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DayStats {
    pub date: String,
    pub reviews: usize,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: f64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Count {
    pub name: String,
    pub count: usize,
}

/// The prompt-review plugin's severities on crit's scale.
fn prompt_severity(s: &str) -> &'static str {
    match s {
        "blocker" => "P0",
        "major" => "P1",
        "minor" => "P2",
        _ => "P3",
    }
}

#[derive(Default)]
struct KindAcc {
    reviews: usize,
    outcomes: BTreeMap<String, usize>,
    gate_failures: usize,
    findings: BTreeMap<String, usize>,
    findings_total: usize,
    durations: Vec<u64>,
    per_day: BTreeMap<u64, usize>,
    failures: BTreeMap<String, usize>,
}

/// Sums up `reading` over `period`.
pub fn compute(reading: &Reading, period: &Period) -> Stats {
    let mut kinds: BTreeMap<String, KindAcc> = BTreeMap::new();
    let mut days: BTreeMap<u64, DayStats> = BTreeMap::new();
    let mut rules: HashMap<&str, usize> = HashMap::new();
    let mut fingerprints: HashMap<&str, usize> = HashMap::new();
    // Prompt reviews waiting for an answer: hash → index in `prompts`.
    let mut awaiting: HashMap<&str, usize> = HashMap::new();
    let mut prompts: Vec<(&read::PromptLine, String)> = Vec::new();
    let mut reviews = 0;
    for line in &reading.lines {
        let Some(day) = line.timestamp().get(..10).and_then(days::parse_date) else {
            continue;
        };
        let d = days.entry(day).or_insert_with(|| DayStats {
            date: days::date(day),
            reviews: 0,
            input_tokens: 0,
            output_tokens: 0,
            cost_usd: 0.0,
        });
        match line {
            Line::Review(l) => {
                reviews += 1;
                d.reviews += 1;
                d.input_tokens += l.tokens.input + l.tokens.cache_read + l.tokens.cache_write;
                d.output_tokens += l.tokens.output;
                d.cost_usd += l.cost_usd;
                let k = kinds.entry(l.review.clone()).or_default();
                k.reviews += 1;
                *k.outcomes.entry(l.verdict.clone()).or_insert(0) += 1;
                k.gate_failures += usize::from(!l.passed);
                for (sev, n) in &l.findings {
                    *k.findings.entry(sev.clone()).or_insert(0) += n;
                    k.findings_total += n;
                }
                k.durations.push(l.duration_ms);
                *k.per_day.entry(day).or_insert(0) += 1;
                for (r, n) in &l.rules {
                    *rules.entry(r).or_insert(0) += n;
                }
                for f in &l.fingerprints {
                    *fingerprints.entry(f).or_insert(0) += 1;
                }
            }
            Line::Prompt(l) => {
                reviews += 1;
                d.reviews += 1;
                d.input_tokens += l.cost.input_tokens;
                d.output_tokens += l.cost.output_tokens;
                d.cost_usd += l.cost.usd;
                let k = kinds.entry("prompt".into()).or_default();
                k.reviews += 1;
                for (sev, n) in &l.findings_by_severity {
                    *k.findings
                        .entry(prompt_severity(sev).to_string())
                        .or_insert(0) += n;
                }
                k.findings_total += l.findings_count;
                k.durations.push(l.duration_ms);
                *k.per_day.entry(day).or_insert(0) += 1;
                if let Some(f) = &l.failure {
                    *k.failures.entry(f.clone()).or_insert(0) += 1;
                }
                if l.outcome == "reviewed" {
                    awaiting.insert(&l.original_prompt_hash, prompts.len());
                }
                prompts.push((l, l.outcome.clone()));
            }
            Line::Decision(l) => {
                if let Some(i) = awaiting.remove(l.original_prompt_hash.as_str()) {
                    prompts[i].1 = l.decision.clone();
                }
            }
        }
    }
    let mut acceptance: BTreeMap<&str, Acceptance> = BTreeMap::new();
    let prompt_kind = kinds.get_mut("prompt");
    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    for (l, outcome) in &prompts {
        *outcomes.entry(outcome.clone()).or_insert(0) += 1;
        if !matches!(outcome.as_str(), "approved" | "edited" | "rejected") {
            continue;
        }
        let who = l.reviewers_applied.as_ref().unwrap_or(&l.reviewers_active);
        for r in who {
            let a = acceptance.entry(r).or_insert_with(|| Acceptance {
                reviewer: r.clone(),
                approved: 0,
                edited: 0,
                rejected: 0,
                rate: 0.0,
            });
            match outcome.as_str() {
                "approved" => a.approved += 1,
                "edited" => a.edited += 1,
                _ => a.rejected += 1,
            }
        }
    }
    if let Some(k) = prompt_kind {
        k.outcomes = outcomes;
    }
    let mut acceptance: Vec<Acceptance> = acceptance
        .into_values()
        .map(|mut a| {
            let answered = a.approved + a.edited + a.rejected;
            a.rate = (a.approved + a.edited) as f64 / answered.max(1) as f64;
            a
        })
        .collect();
    acceptance.sort_by(|a, b| b.rate.total_cmp(&a.rate).then(a.reviewer.cmp(&b.reviewer)));
    Stats {
        since: days::date(period.since),
        until: days::date(period.until),
        days: period.days().map(days::date).collect(),
        reviews,
        kinds: kinds
            .into_iter()
            .map(|(kind, mut k)| {
                k.durations.sort_unstable();
                KindStats {
                    kind,
                    reviews: k.reviews,
                    outcomes: k.outcomes,
                    gate_failures: k.gate_failures,
                    findings: k.findings,
                    findings_total: k.findings_total,
                    duration_p50_ms: percentile(&k.durations, 50),
                    duration_p95_ms: percentile(&k.durations, 95),
                    per_day: period
                        .days()
                        .map(|d| k.per_day.get(&d).copied().unwrap_or(0))
                        .collect(),
                    failures: k.failures,
                }
            })
            .collect(),
        acceptance,
        per_day: period
            .days()
            .map(|d| {
                days.remove(&d).unwrap_or_else(|| DayStats {
                    date: days::date(d),
                    reviews: 0,
                    input_tokens: 0,
                    output_tokens: 0,
                    cost_usd: 0.0,
                })
            })
            .collect(),
        top_rules: top(rules),
        top_fingerprints: top(fingerprints),
        skipped_lines: reading.skipped,
    }
}

/// Nearest-rank percentile of sorted `values` (0 when empty).
pub fn percentile(sorted: &[u64], p: usize) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (p * sorted.len()).div_ceil(100).max(1);
    sorted[rank.min(sorted.len()) - 1]
}

fn top(counts: HashMap<&str, usize>) -> Vec<Count> {
    let mut v: Vec<Count> = counts
        .into_iter()
        .map(|(name, count)| Count {
            name: name.to_string(),
            count,
        })
        .collect();
    v.sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(&b.name)));
    v.truncate(TOP);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<u64> = (1..=20).collect();
        assert_eq!(percentile(&v, 50), 10);
        assert_eq!(percentile(&v, 95), 19);
        assert_eq!(percentile(&[7], 95), 7);
        assert_eq!(percentile(&[], 50), 0);
    }
}
