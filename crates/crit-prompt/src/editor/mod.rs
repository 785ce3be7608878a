//! The editor: merges the reviewers' critiques into one refined prompt, in plain
//! code rather than a model call, so the same critiques always give the same
//! prompt (in any order, byte for byte) and every change can be traced to the
//! reviewer who proposed it.
//!
//! Validate → dedupe → detect conflicts → order → apply:
//!
//! 1. **Validate.** An op its reviewer may not use, a severity it may not give
//!    (security: blocker or major only), an empty or oversized value: dropped,
//!    with the reason.
//! 2. **Dedupe** on (op, target, normalised value): the most severe copy is kept
//!    (then the reviewer first in the priority order, then the most confident).
//! 3. **Conflicts.** An add and a `RemoveConstraint` of the same text; a
//!    prohibition ("Never commit .env") against an op that asks for what it
//!    forbids; two reviewers' ops about one subject (a file, path, secret,
//!    command or URL), one forbidding it and one asking for it, in whatever
//!    words (`subject`); two replacements of the same text. The security reviewer wins
//!    every conflict; otherwise the reviewer first in the priority order wins,
//!    unless the other's finding is more severe, or neither is in the order, or
//!    one reviewer contradicts itself: then it is a true contradiction, neither
//!    op applies, and it is reported as a REVIEWER DISAGREEMENT.
//! 4. **Order** by the priority order (`editor.priority_order`), then severity,
//!    then the op's own text: a total order, so input order never matters.
//! 5. **Apply.** Only what was proposed. `ReplaceVague` replaces its
//!    `original` (else its evidence) where it occurs (whitespace and letter
//!    case aside); evidence whose words are all in the prompt but not as one
//!    phrase becomes a clarification, and a target the prompt does not have is
//!    not applied; `RemoveConstraint` removes the constraint its text is in
//!    (the sentence, or the clause of a sentence of several) and nothing else
//!    is ever removed; `RefactorStructure` puts a prompt with no sections of
//!    its own under `## Task` and `## Constraints`, every word kept;
//!    additions go under named sections (Context,
//!    Constraints, Guardrails, Acceptance criteria, …), into the prompt's own
//!    section of that name when it has one. An addition already in the prompt is
//!    not repeated. Nothing applied: the prompt comes back untouched.
//!
//! Pure: no I/O, no clock, no randomness.

mod apply;
mod merge;
mod restructure;
mod subject;
pub(crate) mod text;

use serde::{Deserialize, Serialize};

use super::critique::{Critique, OpKind, Rules, Severity, Target};

/// The reviewer whose guardrails win every conflict.
pub const SECURITY: &str = "security";

/// More added text than this is not a refinement of a prompt; the editor
/// refuses, and the raw critiques are shown instead.
pub const MAX_ADDED_BYTES: usize = 64 * 1024;

/// What the editor works on.
#[derive(Debug, Clone, Copy)]
pub struct EditorInput<'a> {
    pub prompt: &'a str,
    pub critiques: &'a [Critique],
    /// The rules of the reviewers that answered (a critique from anyone else is dropped).
    pub rules: &'a [Rules],
    /// Reviewer names, first wins (`editor.priority_order`).
    pub priority_order: &'a [String],
}

/// One op as a reviewer proposed it, with the finding behind it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Proposal {
    pub reviewer: String,
    /// The finding's id, as the reviewer gave it.
    pub finding: String,
    pub severity: Severity,
    pub confidence: f64,
    pub issue: String,
    pub evidence: String,
    pub op: OpKind,
    pub target: Target,
    pub value: String,
    /// `ReplaceVague`: the exact text it replaces, when the reviewer gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original: Option<String>,
}

/// What applying a proposal did to the prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    /// `text` added under the section `section`.
    Added { section: String, text: String },
    /// `from` (as it was in the prompt) replaced by `to`.
    Replaced { from: String, to: String },
    /// `text` removed from the prompt.
    Removed { text: String },
    /// A vague phrase that does not occur verbatim, clarified in its own section.
    Clarified { evidence: String, text: String },
    /// The prompt put under these sections, every word kept.
    Restructured { sections: Vec<String> },
}

/// A proposal and what it changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Applied {
    #[serde(flatten)]
    pub proposal: Proposal,
    pub change: Change,
}

/// A proposal that was not applied, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dropped {
    #[serde(flatten)]
    pub proposal: Proposal,
    pub why: String,
}

/// A proposal left out because another reviewer proposed the same edit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Deduplicated {
    #[serde(flatten)]
    pub proposal: Proposal,
    /// The reviewer and finding whose copy was kept.
    pub kept: String,
}

/// Two proposals that cannot both apply, settled by the priority rules.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conflict {
    pub winner: Proposal,
    pub loser: Proposal,
    pub why: String,
}

/// Two proposals that contradict each other with no rule to settle it: neither
/// applies, and a person should decide.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Disagreement {
    pub first: Proposal,
    pub second: Proposal,
    pub about: String,
}

/// The editor's result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Edit {
    /// The refined prompt; the original, byte for byte, when nothing applied.
    pub refined: String,
    /// In the order they were applied.
    pub applied: Vec<Applied>,
    pub deduplicated: Vec<Deduplicated>,
    pub dropped: Vec<Dropped>,
    pub conflicts: Vec<Conflict>,
    pub disagreements: Vec<Disagreement>,
}

impl Edit {
    /// True when the refined prompt differs from the original.
    pub fn changed(&self) -> bool {
        !self.applied.is_empty()
    }
}

/// Why the editor gave up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditorError {
    #[error("the reviewers proposed {added} bytes of additions; the editor takes at most {limit}")]
    TooLarge { added: usize, limit: usize },
}

/// Merge `input.critiques` into a refined prompt.
pub fn edit(input: &EditorInput<'_>) -> Result<Edit, EditorError> {
    let mut edit = Edit::default();
    let candidates = merge::validate(input, &mut edit.dropped);
    let candidates = merge::dedupe(candidates, &mut edit.deduplicated);
    let candidates =
        merge::resolve_conflicts(candidates, &mut edit.conflicts, &mut edit.disagreements);
    let added: usize = candidates
        .iter()
        .filter(|c| c.proposal.op.adds())
        .map(|c| c.proposal.value.len())
        .sum();
    if added > MAX_ADDED_BYTES {
        return Err(EditorError::TooLarge {
            added,
            limit: MAX_ADDED_BYTES,
        });
    }
    let proposals: Vec<Proposal> = candidates.into_iter().map(|c| c.proposal).collect();
    let (refined, applied, not_applied) = apply::apply(input.prompt, proposals);
    edit.refined = if applied.is_empty() {
        input.prompt.to_string()
    } else {
        refined
    };
    edit.applied = applied;
    edit.dropped.extend(not_applied);
    merge::sort_reports(&mut edit, input.priority_order);
    Ok(edit)
}

/// The edit again without the proposals a Security guardrail overrides
/// (found by meaning, in `guardrails`), each reported as a conflict the
/// guardrail won.
pub fn edit_overriding(
    input: &EditorInput<'_>,
    overridden: Vec<Conflict>,
) -> Result<Edit, EditorError> {
    let critiques: Vec<Critique> = input
        .critiques
        .iter()
        .map(|c| {
            let mut c = c.clone();
            let role = c.reviewer_role.clone();
            for f in &mut c.findings {
                f.suggested_ops.retain(|op| {
                    !overridden.iter().any(|o| {
                        o.loser.reviewer == role
                            && o.loser.finding == f.id
                            && o.loser.op == op.op
                            && o.loser.value == op.value.trim()
                    })
                });
            }
            c
        })
        .collect();
    let mut out = edit(&EditorInput {
        critiques: &critiques,
        ..*input
    })?;
    out.conflicts.extend(overridden);
    merge::sort_reports(&mut out, input.priority_order);
    Ok(out)
}
