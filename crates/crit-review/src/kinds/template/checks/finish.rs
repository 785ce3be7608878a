//! What happens to a panel's findings before the gate: each is marked inside
//! or outside the change, the team's suppressions and learnings apply, the diff filter and
//! the cap drop what a pipeline asked to drop. Nothing is lost: whatever does
//! not count moves to `dismissed` with the reason.

use std::time::SystemTime;

use crit_core::{Dismissed, FailOn, Finding, ReviewResult, ReviewerStatus, Severity, Verdict};

use crit_project::learnings::Learnings;
use crit_project::scope::{Change, FilterMode};
use crit_project::suppress::Suppressions;

/// The steps after the panel, in order.
#[derive(Debug)]
pub struct Finish<'a> {
    pub change: Option<&'a Change>,
    pub suppressions: &'a Suppressions,
    /// The team's learnings the reviewers were given: a finding that cites
    /// one covering it is dismissed.
    pub learnings: &'a Learnings,
    pub filter: Option<FilterMode>,
    pub max_findings: Option<usize>,
    pub fail_on: FailOn,
    pub now: SystemTime,
    /// Findings dismissed on a dispute in this change's threads, and where
    /// their proofs are checked again (the project root).
    pub disputed: &'a [super::disputed::DisputeDismissal],
    pub root: &'a std::path::Path,
}

impl Finish<'_> {
    pub fn apply(&self, result: &mut ReviewResult) {
        result.fill_missing_ids();
        let dismissed_before = result.dismissed.len();
        if let Some(change) = self.change {
            change.mark(&mut result.findings);
        }
        let applied = self
            .suppressions
            .apply(std::mem::take(&mut result.findings), self.now);
        result.findings = applied.kept;
        for s in applied.suppressed {
            let reason = format!("{} ({}, {})", s.reason, s.author, s.rule);
            result.dismissed.push(Dismissed {
                finding: s.finding,
                cause: "suppressed".into(),
                proof: format!(
                    "matched the suppression `{}` of the project's rules",
                    s.rule
                ),
                reason,
            });
        }
        for e in applied.expired {
            tracing::warn!("suppression no longer applies: {e}");
        }
        crate::engine::learnings::apply_learnings(self.learnings, result);
        if let Some(change) = self.change {
            let files: Vec<String> = change.files.iter().map(|f| f.path.clone()).collect();
            let src = super::evidence::Sources {
                root: self.root,
                patch: &change.patch,
                files: &files,
                conventions: "",
            };
            super::disputed::apply(self.disputed, &src, result);
        }
        if let (Some(change), Some(mode)) = (self.change, self.filter) {
            let (kept, outside): (Vec<Finding>, Vec<Finding>) =
                std::mem::take(&mut result.findings)
                    .into_iter()
                    .partition(|f| inside(change, f, mode));
            result.findings = kept;
            result
                .dismissed
                .extend(outside.into_iter().map(|finding| Dismissed {
                    proof: format!(
                        "{} is not in the change under `--filter {mode}`",
                        finding
                            .location
                            .as_ref()
                            .map(crit_core::Location::display)
                            .unwrap_or_default()
                    ),
                    finding,
                    cause: "outside_change".into(),
                    reason: format!("outside the change (filter: {mode})"),
                }));
        }
        if let Some(cap) = self.max_findings
            && result.findings.len() > cap
        {
            // The most severe first, so the cap drops nits; a finding that
            // fails the gate is never capped away.
            result.findings.sort_by_key(|f| f.severity);
            let blocking = result
                .findings
                .iter()
                .filter(|f| self.fail_on.blocks(f))
                .count();
            let over = result.findings.split_off(cap.max(blocking));
            result
                .dismissed
                .extend(over.into_iter().map(|finding| Dismissed {
                    finding,
                    cause: "over_cap".into(),
                    reason: format!("over the cap of {cap} findings"),
                    proof: format!(
                        "--max-findings {cap}: the findings kept are at least as severe, and none \
                         dropped fails the gate"
                    ),
                }));
        }
        result.verdict = settle(result, result.dismissed.len() > dismissed_before);
        for r in &mut result.reviewers {
            r.findings = result
                .findings
                .iter()
                .filter(|f| f.reviewer == r.name)
                .count();
        }
        result.apply_gate(self.fail_on);
    }
}

/// The verdict of the findings that count. When every reviewer answered
/// with structured findings, crit derives it from them (with any reviewer
/// that did not finish holding it back); otherwise the reviewers' word
/// stands, lowered when findings it spoke of no longer count. crit's own
/// findings (hidden text in the change) count either way, and a reviewer's
/// word its findings never accounted for (`verdict_floor`) is never lowered.
fn settle(result: &ReviewResult, dismissed: bool) -> Verdict {
    let settled = settle_findings(result, dismissed);
    match result.verdict_floor {
        Some(floor) => Verdict::combine([settled, floor]),
        None => settled,
    }
}

fn settle_findings(result: &ReviewResult, dismissed: bool) -> Verdict {
    if result.verdict_from_findings {
        let unfinished = result
            .reviewers
            .iter()
            .filter(|r| {
                !matches!(
                    r.status,
                    ReviewerStatus::Skipped | ReviewerStatus::Completed
                ) && r.verdict.is_inconclusive()
            })
            .map(|r| r.verdict);
        return Verdict::combine(unfinished.chain([Verdict::from_findings(&result.findings)]));
    }
    let said = match dismissed {
        true => settled_verdict(result.verdict, &result.findings),
        false => result.verdict,
    };
    let own: Vec<&Finding> = result
        .findings
        .iter()
        .filter(|f| f.reviewer == "crit")
        .collect();
    match Verdict::from_findings(own) {
        Verdict::Pass => said,
        own => Verdict::combine([said, own]),
    }
}

/// The reviewer's FAIL or NEEDS_WORK spoke of findings some of which no
/// longer count: the verdict is what the remaining ones say, never more
/// severe than the reviewer's own (a dismissed blocker must not keep the gate
/// shut, or a suppression would never stick).
fn settled_verdict(said: Verdict, kept: &[Finding]) -> Verdict {
    let worst = kept
        .iter()
        .map(|f| f.severity)
        .filter(|s| *s != Severity::Info)
        .min();
    let left = match worst {
        Some(s) if s.at_least(Severity::P1) => Verdict::Fail,
        Some(_) => Verdict::Concerns,
        None => Verdict::Pass,
    };
    match (said, left) {
        (Verdict::Fail, l) => l,
        (Verdict::Concerns, Verdict::Pass) => Verdict::Pass,
        (s, _) => s,
    }
}

/// Findings without a file location (a general remark) always stay.
fn inside(change: &Change, f: &Finding, mode: FilterMode) -> bool {
    match &f.location {
        Some(crit_core::Location::File {
            path,
            line_start,
            line_end,
        }) => change.contains(path, *line_start, *line_end, mode),
        _ => true,
    }
}
