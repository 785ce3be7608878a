//! The team's word on crit's findings, from the feedback log
//! (`audit/feedback/*.jsonl`): 👍/👎 reactions on crit's comments, replies
//! that disputed a finding and how the re-check ended, threads resolved with
//! the flagged lines left as they were, suppressions.
//!
//! precision = (👍 + disputes kept) / (👍 + disputes kept + 👎 + disputes
//! dismissed), per reviewer, rule and severity: a dispute the re-check kept
//! found no proof against the finding, one it dismissed was proved wrong.
//! Resolved threads and suppressions are counted beside it, not in it (the
//! team may have let a right finding go).
//!
//! A person's reaction on a finding counts once, their last; the same
//! dispute, thread or suppression recorded again (a later run seeing it
//! again) counts once.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Serialize;

use crate::stats::days::{self, Period};
use crit_review::session::{Feedback, FeedbackKind, FeedbackOutcome, read_feedback};

/// Feedback events by what they said.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Said {
    pub up: usize,
    pub down: usize,
    pub disputes_kept: usize,
    pub disputes_dismissed: usize,
    pub resolved_unchanged: usize,
    pub suppressed: usize,
    /// (up + disputes_kept) / (up + disputes_kept + down +
    /// disputes_dismissed); `null` when none of those.
    pub precision: Option<f64>,
}

impl Said {
    fn add(&mut self, f: &Feedback) {
        match (f.kind, f.outcome) {
            (FeedbackKind::Reaction, FeedbackOutcome::Up) => self.up += 1,
            (FeedbackKind::Reaction, FeedbackOutcome::Down) => self.down += 1,
            (FeedbackKind::Dispute, FeedbackOutcome::Kept) => self.disputes_kept += 1,
            (FeedbackKind::Dispute, FeedbackOutcome::Dismissed) => self.disputes_dismissed += 1,
            (FeedbackKind::ResolvedUnchanged, _) => self.resolved_unchanged += 1,
            (FeedbackKind::Suppression, _) => self.suppressed += 1,
            // A reaction or dispute with an outcome it cannot have says nothing.
            _ => {}
        }
        let right = self.up + self.disputes_kept;
        let known = right + self.down + self.disputes_dismissed;
        self.precision = (known > 0).then(|| right as f64 / known as f64);
    }
}

/// One reviewer, rule or severity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SaidGroup {
    pub name: String,
    #[serde(flatten)]
    pub said: Said,
}

/// What the feedback log says about one project's findings.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FeedbackMined {
    /// Events counted (after duplicates were folded).
    pub events: usize,
    /// Distinct findings they were about.
    pub findings: usize,
    pub overall: Said,
    pub by_reviewer: Vec<SaidGroup>,
    pub by_rule: Vec<SaidGroup>,
    pub by_severity: Vec<SaidGroup>,
    /// Lines that were not feedback.
    pub skipped_lines: usize,
}

/// The feedback in `dir` over `period` about the project whose root hashes
/// to `repo` (a line that names no project counts for every project).
pub fn mine_feedback(dir: &Path, period: &Period, repo: &str) -> FeedbackMined {
    let (lines, skipped_lines) = read_feedback(dir);
    let events = counted(lines, period, repo);
    let mut out = FeedbackMined {
        skipped_lines,
        events: events.len(),
        findings: events
            .iter()
            .map(|f| f.fingerprint.as_str())
            .collect::<BTreeSet<_>>()
            .len(),
        ..FeedbackMined::default()
    };
    let mut by: [BTreeMap<String, Said>; 3] = Default::default();
    for f in &events {
        out.overall.add(f);
        let reviewer = match f.reviewer.as_str() {
            "" => "(unnamed)".to_string(),
            r => r.to_string(),
        };
        by[0].entry(reviewer).or_default().add(f);
        if let Some(rule) = &f.rule {
            by[1].entry(rule.clone()).or_default().add(f);
        }
        by[2].entry(f.severity.clone()).or_default().add(f);
    }
    let [r, u, s] = by.map(|m| {
        m.into_iter()
            .map(|(name, said)| SaidGroup { name, said })
            .collect()
    });
    out.by_reviewer = r;
    out.by_rule = u;
    out.by_severity = s;
    out
}

/// The events of the period and project, duplicates folded (a person's
/// reactions on a finding to their last, any other event recorded again to
/// one), in the log's order.
pub(crate) fn counted(lines: Vec<Feedback>, period: &Period, repo: &str) -> Vec<Feedback> {
    let mut reactions: BTreeMap<(String, String), (usize, Feedback)> = BTreeMap::new();
    let mut others: BTreeMap<String, (usize, Feedback)> = BTreeMap::new();
    for (i, f) in lines.into_iter().enumerate() {
        let day = f.ts.get(..10).and_then(days::parse_date);
        if !day.is_some_and(|d| period.contains(d)) {
            continue;
        }
        if f.repo.as_deref().is_some_and(|r| r != repo) {
            continue;
        }
        match f.kind {
            FeedbackKind::Reaction => {
                let who = f.author.clone().unwrap_or_default();
                reactions.insert((f.fingerprint.clone(), who), (i, f));
            }
            _ => {
                let key = serde_json::to_string(&(
                    f.kind,
                    &f.fingerprint,
                    &f.thread,
                    &f.author,
                    (f.kind == FeedbackKind::Dispute).then_some(&f.text),
                ))
                .unwrap_or_default();
                others.entry(key).or_insert((i, f));
            }
        }
    }
    let mut all: Vec<(usize, Feedback)> = reactions
        .into_values()
        .chain(others.into_values())
        .collect();
    all.sort_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, f)| f).collect()
}

/// The report's second table, for people; empty when the log said nothing.
pub fn terminal(m: &FeedbackMined) -> String {
    if m.events == 0 {
        return String::new();
    }
    let mut out = format!(
        "\nFrom the team's feedback: {} event{} on {} finding{}\n\
         precision: (up + disputes kept) / (up + disputes kept + down + disputes dismissed)\n\n",
        m.events,
        if m.events == 1 { "" } else { "s" },
        m.findings,
        if m.findings == 1 { "" } else { "s" },
    );
    let mut rows = vec![
        [
            "",
            "precision",
            "up",
            "down",
            "disputes kept",
            "disputes dismissed",
            "resolved unchanged",
            "suppressed",
        ]
        .map(str::to_string)
        .to_vec(),
    ];
    rows.push(row("all findings", &m.overall));
    for (title, groups) in [
        ("reviewer", &m.by_reviewer),
        ("rule", &m.by_rule),
        ("severity", &m.by_severity),
    ] {
        for g in groups {
            rows.push(row(&format!("{title} {}", g.name), &g.said));
        }
    }
    out.push_str(&crate::render::table(&rows));
    out
}

fn row(name: &str, s: &Said) -> Vec<String> {
    vec![
        crit_core::Printable::line(name, crit_core::Dest::Terminal).into_string(),
        s.precision
            .map_or_else(|| "-".into(), |p| format!("{p:.2}")),
        s.up.to_string(),
        s.down.to_string(),
        s.disputes_kept.to_string(),
        s.disputes_dismissed.to_string(),
        s.resolved_unchanged.to_string(),
        s.suppressed.to_string(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(kind: FeedbackKind, outcome: FeedbackOutcome, author: &str) -> Feedback {
        Feedback {
            ts: "2026-03-01T10:00:00Z".into(),
            kind,
            outcome,
            fingerprint: "0123456789abcdef".into(),
            reviewer: "security".into(),
            rule: None,
            severity: "P1".into(),
            path: None,
            repo: None,
            forge: None,
            thread: None,
            author: Some(author.into()),
            text: String::new(),
        }
    }

    #[test]
    fn a_persons_last_reaction_counts_once() {
        let period = Period {
            since: days::parse_date("2026-02-01").unwrap(),
            until: days::parse_date("2026-03-31").unwrap(),
        };
        let lines = vec![
            event(FeedbackKind::Reaction, FeedbackOutcome::Up, "a"),
            event(FeedbackKind::Reaction, FeedbackOutcome::Down, "a"),
            event(FeedbackKind::Reaction, FeedbackOutcome::Up, "b"),
            event(FeedbackKind::ResolvedUnchanged, FeedbackOutcome::Noted, "b"),
            event(FeedbackKind::ResolvedUnchanged, FeedbackOutcome::Noted, "b"),
        ];
        let got = counted(lines, &period, "x");
        assert_eq!(got.len(), 3);
        let mut s = Said::default();
        got.iter().for_each(|f| s.add(f));
        assert_eq!((s.up, s.down, s.resolved_unchanged), (1, 1, 1));
        assert_eq!(s.precision, Some(0.5));
    }
}
