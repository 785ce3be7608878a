//! Consensus across a panel (Cerberus's idea): reviewers on different models
//! review the same work, and `consensus: any | majority | all` decides which
//! findings survive. Two findings of different reviewers are the same problem
//! when they share a fingerprint, or name the same file with overlapping
//! lines. A surviving finding says who agreed (`agreed_by`); one without
//! enough agreement moves to `dismissed` (cause `no_consensus`).

use std::fmt;
use std::str::FromStr;

use crit_core::{Dismissed, Finding, Location};

/// How many of a panel's reviewers must report a problem for it to count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consensus {
    /// One is enough; duplicates merge and name who agreed.
    Any,
    /// More than half of the reviewers that finished.
    Majority,
    /// Every reviewer that finished.
    All,
}

impl Consensus {
    pub const NAMES: [&'static str; 3] = ["any", "majority", "all"];

    fn needed(self, voters: usize) -> usize {
        match self {
            Consensus::Any => 1,
            Consensus::Majority => voters / 2 + 1,
            Consensus::All => voters.max(1),
        }
    }
}

impl fmt::Display for Consensus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Consensus::Any => "any",
            Consensus::Majority => "majority",
            Consensus::All => "all",
        })
    }
}

/// A consensus mode crit does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown consensus `{given}`: use any, majority or all")]
pub struct UnknownConsensus {
    pub given: String,
}

impl FromStr for Consensus {
    type Err = UnknownConsensus;
    fn from_str(s: &str) -> Result<Self, UnknownConsensus> {
        match s.trim().to_ascii_lowercase().as_str() {
            "any" => Ok(Consensus::Any),
            "majority" => Ok(Consensus::Majority),
            "all" => Ok(Consensus::All),
            other => Err(UnknownConsensus {
                given: other.to_string(),
            }),
        }
    }
}

/// Applies `mode` to the reviewers' findings. `voters`: the reviewers that
/// finished (the ones whose silence counts as disagreement). crit's own
/// findings and cached ones are facts, not votes: they always stay.
pub(crate) fn apply(
    mode: Consensus,
    findings: &mut Vec<Finding>,
    dismissed: &mut Vec<Dismissed>,
    voters: &[String],
) {
    let (facts, votes): (Vec<Finding>, Vec<Finding>) = std::mem::take(findings)
        .into_iter()
        .partition(|f| f.reviewer == "crit" || f.cached);
    let mut groups: Vec<Vec<Finding>> = Vec::new();
    for f in votes {
        match groups.iter_mut().find(|g| {
            g.iter()
                .any(|o| o.reviewer != f.reviewer && same_problem(o, &f))
        }) {
            Some(g) => g.push(f),
            None => groups.push(vec![f]),
        }
    }
    let needed = mode.needed(voters.len());
    *findings = facts;
    for group in groups {
        let mut reporters: Vec<String> = Vec::new();
        for f in &group {
            if !reporters.contains(&f.reviewer) {
                reporters.push(f.reviewer.clone());
            }
        }
        let Some(mut keep) = group.into_iter().min_by_key(|f| f.severity) else {
            continue;
        };
        keep.agreed_by = reporters
            .iter()
            .filter(|r| **r != keep.reviewer)
            .cloned()
            .collect();
        if reporters.len() >= needed {
            findings.push(keep);
        } else {
            let reason = format!(
                "reported by {} of {} reviewers ({}); consensus `{mode}` needs {needed}",
                reporters.len(),
                voters.len(),
                reporters.join(", ")
            );
            dismissed.push(Dismissed {
                finding: keep,
                cause: "no_consensus".into(),
                proof: reason.clone(),
                reason,
            });
        }
    }
}

fn same_problem(a: &Finding, b: &Finding) -> bool {
    if a.id == b.id {
        return true;
    }
    match (&a.location, &b.location) {
        (
            Some(Location::File {
                path: pa,
                line_start: Some(sa),
                line_end: ea,
            }),
            Some(Location::File {
                path: pb,
                line_start: Some(sb),
                line_end: eb,
            }),
        ) => pa == pb && *sa <= eb.unwrap_or(*sb) && *sb <= ea.unwrap_or(*sa),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crit_core::Severity;

    fn f(title: &str, who: &str, line: u32, sev: Severity) -> Finding {
        Finding::new(title, sev, who).with_location(Location::lines("a.rs", line, line + 1))
    }

    #[test]
    fn majority_keeps_what_most_reported_and_names_who_agreed() {
        let voters = ["opus".to_string(), "sonnet".into(), "gpt".into()];
        let all = vec![
            f("Leak on error", "opus", 10, Severity::P1),
            f("Connection not returned", "sonnet", 11, Severity::P0),
            f("Typo", "gpt", 40, Severity::P3),
            Finding::new("Hidden text", Severity::P1, "crit"),
        ];
        let mut findings = all.clone();
        let mut dismissed = Vec::new();
        apply(Consensus::Majority, &mut findings, &mut dismissed, &voters);
        assert_eq!(findings.len(), 2);
        let leak = findings.iter().find(|f| f.reviewer != "crit").unwrap();
        assert_eq!(leak.severity, Severity::P0);
        assert_eq!(leak.agreed_by, ["opus"]);
        assert_eq!(dismissed.len(), 1);
        assert_eq!(dismissed[0].cause, "no_consensus");
        assert!(
            dismissed[0].reason.contains("1 of 3"),
            "{}",
            dismissed[0].reason
        );

        let mut findings = all.clone();
        let mut dismissed = Vec::new();
        apply(Consensus::All, &mut findings, &mut dismissed, &voters);
        assert_eq!(findings.len(), 1, "only crit's own finding");
        let mut findings = all;
        apply(Consensus::Any, &mut findings, &mut Vec::new(), &voters);
        assert_eq!(findings.len(), 3);
    }
}
