//! Validate, dedupe, settle conflicts, order: everything before the text is
//! touched. Every step works on a canonically sorted list, so the order the
//! critiques arrived in never shows in the result.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use super::subject::{Stance, stance};
use super::text::{contains_run, normalize, prohibited, words};
use super::{Conflict, Deduplicated, Disagreement, Dropped, Edit, EditorInput, Proposal, SECURITY};
use crate::critique::{MAX_VALUE_CHARS, OpKind, Target};

/// A proposal and its reviewer's place in the priority order.
#[derive(Debug, Clone)]
pub(super) struct Candidate {
    pub proposal: Proposal,
    pub rank: Option<usize>,
}

fn rank_of(reviewer: &str, order: &[String]) -> Option<usize> {
    order.iter().position(|r| r == reviewer)
}

/// The total order every list is kept in: priority order (reviewers not in it
/// last, by name), severity, then the op's own fields.
fn canonical(a: &Proposal, b: &Proposal, order: &[String]) -> Ordering {
    ranked(
        a,
        rank_of(&a.reviewer, order),
        b,
        rank_of(&b.reviewer, order),
    )
}

fn ranked(a: &Proposal, ra: Option<usize>, b: &Proposal, rb: Option<usize>) -> Ordering {
    ra.unwrap_or(usize::MAX)
        .cmp(&rb.unwrap_or(usize::MAX))
        .then_with(|| a.reviewer.cmp(&b.reviewer))
        .then_with(|| a.severity.cmp(&b.severity))
        .then_with(|| a.op.cmp(&b.op))
        .then_with(|| a.target.cmp(&b.target))
        .then_with(|| a.value.cmp(&b.value))
        .then_with(|| a.evidence.cmp(&b.evidence))
        .then_with(|| a.finding.cmp(&b.finding))
        .then_with(|| a.issue.cmp(&b.issue))
        .then_with(|| b.confidence.total_cmp(&a.confidence))
}

fn order_of(a: &Candidate, b: &Candidate) -> Ordering {
    ranked(&a.proposal, a.rank, &b.proposal, b.rank)
}

/// Every op of every critique as a proposal; those that break their
/// reviewer's rules go to `dropped`.
pub(super) fn validate(input: &EditorInput<'_>, dropped: &mut Vec<Dropped>) -> Vec<Candidate> {
    let mut out = Vec::new();
    for critique in input.critiques.iter().filter(|c| !c.no_issues) {
        let rules = input
            .rules
            .iter()
            .find(|r| r.reviewer == critique.reviewer_role);
        for finding in &critique.findings {
            for op in &finding.suggested_ops {
                let proposal = Proposal {
                    reviewer: critique.reviewer_role.clone(),
                    finding: finding.id.clone(),
                    severity: finding.severity,
                    confidence: if finding.confidence.is_finite() {
                        finding.confidence.clamp(0.0, 1.0)
                    } else {
                        0.0
                    },
                    issue: finding.issue.clone(),
                    evidence: finding.evidence.trim().to_string(),
                    op: op.op,
                    target: op.target,
                    value: op.value.trim().to_string(),
                    original: op
                        .original
                        .as_deref()
                        .map(str::trim)
                        .filter(|o| !o.is_empty())
                        .map(str::to_string),
                };
                let why = match rules {
                    None => Some(format!(
                        "no reviewer named `{}` took part in this review",
                        critique.reviewer_role
                    )),
                    Some(r) if !r.ops.contains(&op.op) => Some(format!(
                        "{} may not propose {} (it may use {})",
                        r.reviewer,
                        op.op,
                        r.ops
                            .iter()
                            .map(|o| o.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
                    Some(r) if !r.severities.contains(&finding.severity) => Some(format!(
                        "{} findings are {} only; this one is {}",
                        r.reviewer,
                        r.severities
                            .iter()
                            .map(|s| s.as_str())
                            .collect::<Vec<_>>()
                            .join(" or "),
                        finding.severity
                    )),
                    Some(_) if proposal.value.is_empty() => Some("its value is empty".into()),
                    Some(_) if proposal.value.chars().count() > MAX_VALUE_CHARS => Some(format!(
                        "its value is longer than {MAX_VALUE_CHARS} characters"
                    )),
                    Some(_) => None,
                };
                match why {
                    Some(why) => dropped.push(Dropped { proposal, why }),
                    None => out.push(Candidate {
                        rank: rank_of(&proposal.reviewer, input.priority_order),
                        proposal,
                    }),
                }
            }
        }
    }
    out.sort_by(order_of);
    out
}

/// One copy of each (op, target, normalised value): the most severe, then the
/// one whose reviewer comes first, then the most confident.
pub(super) fn dedupe(
    candidates: Vec<Candidate>,
    deduplicated: &mut Vec<Deduplicated>,
) -> Vec<Candidate> {
    let mut groups: BTreeMap<(OpKind, Target, String), Vec<Candidate>> = BTreeMap::new();
    // `candidates` is sorted, so each group is too; the sort below only breaks
    // the ties that matter here.
    for c in candidates {
        let key = (
            c.proposal.op,
            c.proposal.target,
            normalize(&c.proposal.value),
        );
        groups.entry(key).or_default().push(c);
    }
    let mut kept = Vec::new();
    for (_, mut group) in groups {
        group.sort_by(|a, b| {
            a.proposal
                .severity
                .cmp(&b.proposal.severity)
                .then_with(|| {
                    a.rank
                        .unwrap_or(usize::MAX)
                        .cmp(&b.rank.unwrap_or(usize::MAX))
                })
                .then_with(|| b.proposal.confidence.total_cmp(&a.proposal.confidence))
        });
        let mut it = group.into_iter();
        let Some(best) = it.next() else { continue };
        let by = format!("{}/{}", best.proposal.reviewer, best.proposal.finding);
        deduplicated.extend(it.map(|c| Deduplicated {
            proposal: c.proposal,
            kept: by.clone(),
        }));
        kept.push(best);
    }
    kept.sort_by(order_of);
    kept
}

/// Settles every pair of proposals that cannot both apply, in canonical order.
pub(super) fn resolve_conflicts(
    candidates: Vec<Candidate>,
    conflicts: &mut Vec<Conflict>,
    disagreements: &mut Vec<Disagreement>,
) -> Vec<Candidate> {
    let mut alive = vec![true; candidates.len()];
    let facts: Vec<Facts> = candidates.iter().map(|c| Facts::of(&c.proposal)).collect();
    for i in 0..candidates.len() {
        for j in i + 1..candidates.len() {
            if !alive[i] {
                break;
            }
            if !alive[j] {
                continue;
            }
            let (a, b) = (&candidates[i], &candidates[j]);
            let Some(about) = conflict((&a.proposal, &facts[i]), (&b.proposal, &facts[j])) else {
                continue;
            };
            match settle(a, b) {
                Settled::First(why) => {
                    alive[j] = false;
                    conflicts.push(Conflict {
                        winner: a.proposal.clone(),
                        loser: b.proposal.clone(),
                        why: format!("{about}; {why}"),
                    });
                }
                Settled::Second(why) => {
                    alive[i] = false;
                    conflicts.push(Conflict {
                        winner: b.proposal.clone(),
                        loser: a.proposal.clone(),
                        why: format!("{about}; {why}"),
                    });
                }
                Settled::Neither(why) => {
                    alive[i] = false;
                    alive[j] = false;
                    disagreements.push(Disagreement {
                        first: a.proposal.clone(),
                        second: b.proposal.clone(),
                        about: format!("{about}; {why}"),
                    });
                }
            }
        }
    }
    candidates
        .into_iter()
        .zip(alive)
        .filter_map(|(c, keep)| keep.then_some(c))
        .collect()
}

/// What the conflict checks compare, worked out once per proposal.
struct Facts {
    value: String,
    evidence: String,
    words: Vec<String>,
    /// What it forbids, when it is a prohibition.
    forbids: Vec<Vec<String>>,
    /// The subjects it forbids and asks for (not for a removal, whose text
    /// is what goes).
    stance: Stance,
}

impl Facts {
    fn of(p: &Proposal) -> Facts {
        Facts {
            value: normalize(&p.value),
            evidence: normalize(&p.original.clone().unwrap_or_else(|| p.evidence.clone())),
            words: words(&p.value),
            forbids: prohibited(&p.value),
            stance: match p.op {
                OpKind::RemoveConstraint => Stance::default(),
                _ => stance(&p.value),
            },
        }
    }
}

/// What two proposals contradict each other about, if they do.
fn conflict(a: (&Proposal, &Facts), b: (&Proposal, &Facts)) -> Option<String> {
    for ((x, fx), (y, fy)) in [(a, b), (b, a)] {
        if x.op == OpKind::RemoveConstraint && y.op != OpKind::RemoveConstraint {
            let touched =
                fy.value == fx.value || (y.op == OpKind::ReplaceVague && fy.evidence == fx.value);
            if touched {
                return Some(format!(
                    "{} removes \"{}\" while {} {} it",
                    x.reviewer,
                    x.value,
                    y.reviewer,
                    if y.op == OpKind::ReplaceVague {
                        "rewrites"
                    } else {
                        "adds"
                    }
                ));
            }
        }
        if x.op != OpKind::RemoveConstraint
            && y.op != OpKind::RemoveConstraint
            && fy.forbids.is_empty()
            && fx.forbids.iter().any(|f| contains_run(&fy.words, f))
        {
            return Some(format!(
                "{} says \"{}\" while {} asks for \"{}\"",
                x.reviewer, x.value, y.reviewer, y.value
            ));
        }
    }
    // One subject, one reviewer forbidding it and another asking for it.
    if a.0.reviewer != b.0.reviewer {
        for ((x, fx), (y, fy)) in [(a, b), (b, a)] {
            if let Some(subject) = fx.stance.against(&fy.stance) {
                return Some(format!(
                    "{} forbids {subject} (\"{}\") while {} asks for it (\"{}\")",
                    x.reviewer, x.value, y.reviewer, y.value
                ));
            }
        }
    }
    let (pa, fa) = a;
    let (pb, fb) = b;
    let same_evidence = !fa.evidence.is_empty() && fa.evidence == fb.evidence;
    if pa.op == OpKind::ReplaceVague && pb.op == OpKind::ReplaceVague && same_evidence {
        return Some(format!(
            "{} and {} rewrite \"{}\" differently",
            pa.reviewer, pb.reviewer, pa.evidence
        ));
    }
    None
}

enum Settled {
    First(String),
    Second(String),
    Neither(String),
}

/// Security wins every conflict; otherwise the reviewer first in the priority
/// order, unless the other's finding is more severe. No order between them, or
/// one reviewer against itself: a true contradiction.
fn settle(a: &Candidate, b: &Candidate) -> Settled {
    let (pa, pb) = (&a.proposal, &b.proposal);
    if pa.reviewer == pb.reviewer {
        return Settled::Neither(format!("{} proposes both", pa.reviewer));
    }
    match (pa.reviewer == SECURITY, pb.reviewer == SECURITY) {
        (true, false) => return Settled::First("security wins every conflict".into()),
        (false, true) => return Settled::Second("security wins every conflict".into()),
        _ => {}
    }
    let (Some(ra), Some(rb)) = (a.rank, b.rank) else {
        return Settled::Neither(format!(
            "the priority order does not rank {} against {}",
            pa.reviewer, pb.reviewer
        ));
    };
    let (winner, loser, first) = if ra < rb {
        (pa, pb, true)
    } else {
        (pb, pa, false)
    };
    if loser.severity < winner.severity {
        return Settled::Neither(format!(
            "{} comes first in the priority order, but {}'s finding is more severe ({} against {})",
            winner.reviewer, loser.reviewer, loser.severity, winner.severity
        ));
    }
    let why = format!(
        "{} comes before {} in the priority order",
        winner.reviewer, loser.reviewer
    );
    if first {
        Settled::First(why)
    } else {
        Settled::Second(why)
    }
}

/// The reports in canonical order too, so they compare byte for byte.
pub(super) fn sort_reports(edit: &mut Edit, order: &[String]) {
    edit.dropped
        .sort_by(|a, b| canonical(&a.proposal, &b.proposal, order).then_with(|| a.why.cmp(&b.why)));
    edit.deduplicated.sort_by(|a, b| {
        canonical(&a.proposal, &b.proposal, order).then_with(|| a.kept.cmp(&b.kept))
    });
    edit.conflicts.sort_by(|a, b| {
        canonical(&a.winner, &b.winner, order).then_with(|| canonical(&a.loser, &b.loser, order))
    });
    edit.disagreements.sort_by(|a, b| {
        canonical(&a.first, &b.first, order).then_with(|| canonical(&a.second, &b.second, order))
    });
}
