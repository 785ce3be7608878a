//! The plan-check state machine (expert-review's "State Machine"): CHECKING → FIXING /
//! ASKING → APPROVED / REJECTED / INCOMPLETE, with its limits. SETUP and ERROR
//! live in [`crate::session`]; this module is pure: files are written through
//! [`Store`], questions go through [`Asker`].

use std::ops::Range;

use crate::change::Change;
use crate::check::Check;
use crate::error::CheckError;
use crate::fix;
use crate::matcher::CheckSet;
use crate::origin::LineOrigins;
use crate::state::{HistoryEntry, State};
use crate::text::Lines;

/// Expert-review's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Edits before INCOMPLETE (expert-review: 10).
    pub max_edits: u32,
    /// Fix attempts per check before ASKING (expert-review: 3).
    pub max_retries: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_edits: 10,
            max_retries: 3,
        }
    }
}

/// Where the machine's writes go.
pub trait Store {
    fn save_state(&mut self, state: &State) -> Result<(), CheckError>;
    fn save_plan(&mut self, plan: &str) -> Result<(), CheckError>;
}

/// A question for the user (expert-review's "ASKING State").
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Question {
    pub check_id: String,
    pub pattern: String,
    pub reason: String,
    /// The persona asking.
    pub persona: String,
    /// 1-based line of the first hit in plan.md, and that line's text.
    pub line: u32,
    pub line_text: String,
    /// `[Checks for {persona}]: Pattern '{pattern}' found. {reason}` plus
    /// context: the checks' words, in no persona's voice (no model wrote them).
    pub text: String,
    /// Expert-review's header and option labels.
    pub header: &'static str,
    pub options: [AnswerOption; 2],
}

/// One of expert-review's offered answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct AnswerOption {
    pub label: &'static str,
    pub description: &'static str,
}

/// Expert-review's answers: approve this instance, abort, or free replacement text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Approve,
    Abort,
    Replace(String),
}

impl Answer {
    /// `approve`, `abort`, expert-review's option labels, or anything else as text.
    pub fn parse(s: &str) -> Answer {
        match s.trim().to_lowercase().as_str() {
            "approve" | "approve this instance" => Answer::Approve,
            "abort" | "abort review" => Answer::Abort,
            _ => Answer::Replace(s.to_string()),
        }
    }
}

/// Who answers questions. `None` means nobody can answer now: the run stops
/// with the question pending.
pub trait Asker {
    fn ask(&mut self, question: &Question) -> Option<Answer>;

    /// The ids of answers given up front that no question took.
    fn unused(&self) -> Vec<String> {
        Vec::new()
    }

    /// An answer to `check_id` was given up front: the question is answered
    /// without being shown.
    fn has_answer(&self, _check_id: &str) -> bool {
        false
    }

    /// The checks this run has, by id: answers given under another name
    /// (`anti_pattern_1` for the only `user_anti_pattern_1`) are matched to
    /// theirs, each said in the returned notes.
    fn resolve_ids(&mut self, _known: &[String]) -> Vec<String> {
        Vec::new()
    }
}

/// Why a run ended INCOMPLETE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Incomplete {
    /// `edits >= 10`.
    EditLimit,
    /// The user chose "Abort review".
    UserAborted,
    /// ASKING with nobody to answer: the question waits for the next run.
    AwaitingAnswer(Box<Question>),
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Approved,
    /// A `reject_if_persists` check matched again after a fix.
    Rejected {
        check: String,
        pattern: String,
        reason: String,
        line: u32,
    },
    Incomplete(Incomplete),
}

/// A check that still fails when the run ends.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Unresolved {
    pub check_id: String,
    pub pattern: String,
    pub reason: String,
    pub line: u32,
}

/// A state the machine passed through, for tests and `-v` traces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Checking,
    Fixing,
    Asking,
    Approved,
    Rejected,
    Incomplete,
}

/// Everything a run produced.
#[derive(Debug, Clone)]
pub struct Run {
    pub outcome: Outcome,
    pub state: State,
    pub plan: String,
    pub unresolved: Vec<Unresolved>,
    pub steps: Vec<Step>,
    /// What each edit of this run changed in the plan's text (earlier runs'
    /// edits are in `state.history` only).
    pub changes: Vec<Change>,
}

/// Drive CHECKING / FIXING / ASKING until a verdict.
pub fn run(
    checks: &CheckSet,
    mut plan: String,
    mut state: State,
    persona: &str,
    limits: Limits,
    store: &mut dyn Store,
    asker: &mut dyn Asker,
) -> Result<Run, CheckError> {
    let mut steps = Vec::new();
    let mut changes = Vec::new();
    // Edits are reported at their line in the plan as this run found it.
    let mut origins = LineOrigins::new(&plan);
    let outcome = loop {
        steps.push(Step::Checking);
        let scan = checks.scan(&plan);
        let Some((index, hits)) = scan.first_failure(|c| state.is_approved(&c.id)) else {
            steps.push(Step::Approved);
            break Outcome::Approved;
        };
        drop(scan);
        let check = &checks.checks()[index];
        let retries = state.retries_of(&check.id);
        let line = Lines::new(&plan).number_of(hits[0].start);
        if check.reject_if_persists && retries >= 1 {
            steps.push(Step::Rejected);
            break Outcome::Rejected {
                check: check.id.clone(),
                pattern: check.pattern.clone(),
                reason: check.reason.clone(),
                line,
            };
        }
        // The edit limit holds across runs: state.yaml keeps the count, and
        // no edit is made past it.
        let at_limit = state.edits >= limits.max_edits;
        let edit = if retries >= limits.max_retries || at_limit {
            None
        } else {
            check
                .fix
                .as_ref()
                .and_then(|action| fix::apply(&plan, action, &hits))
        };
        match edit {
            Some(edit) => {
                steps.push(Step::Fixing);
                state.edits += 1;
                *state.retries.entry(check.id.clone()).or_insert(0) += 1;
                state.history.push(HistoryEntry {
                    check: check.id.clone(),
                    fix: edit.description,
                    line: origins.original(edit.line),
                });
                origins.follow(&plan, &edit.text);
                changes.extend(Change::between(state.history.len() - 1, &plan, &edit.text));
                store.save_state(&state)?;
                plan = edit.text;
                store.save_plan(&plan)?;
                if state.edits >= limits.max_edits {
                    steps.push(Step::Incomplete);
                    break Outcome::Incomplete(Incomplete::EditLimit);
                }
            }
            None if at_limit && check.fix.is_some() && retries < limits.max_retries => {
                steps.push(Step::Incomplete);
                break Outcome::Incomplete(Incomplete::EditLimit);
            }
            None => {
                steps.push(Step::Asking);
                let question = question(check, &plan, &hits, persona);
                match asker.ask(&question) {
                    None => {
                        steps.push(Step::Incomplete);
                        break Outcome::Incomplete(Incomplete::AwaitingAnswer(Box::new(question)));
                    }
                    Some(Answer::Abort) => {
                        steps.push(Step::Incomplete);
                        break Outcome::Incomplete(Incomplete::UserAborted);
                    }
                    Some(Answer::Approve) => {
                        state.approved.push(check.id.clone());
                        store.save_state(&state)?;
                    }
                    Some(Answer::Replace(_)) if at_limit => {
                        steps.push(Step::Incomplete);
                        break Outcome::Incomplete(Incomplete::EditLimit);
                    }
                    Some(Answer::Replace(text)) => {
                        let edit = fix::replace_line(&plan, hits[0].clone(), &text);
                        state.edits += 1;
                        state.history.push(HistoryEntry {
                            check: check.id.clone(),
                            fix: edit.description,
                            line: origins.original(edit.line),
                        });
                        origins.follow(&plan, &edit.text);
                        changes.extend(Change::between(state.history.len() - 1, &plan, &edit.text));
                        store.save_state(&state)?;
                        plan = edit.text;
                        store.save_plan(&plan)?;
                        if state.edits >= limits.max_edits {
                            steps.push(Step::Incomplete);
                            break Outcome::Incomplete(Incomplete::EditLimit);
                        }
                    }
                }
            }
        }
    };
    let unresolved = match outcome {
        Outcome::Approved => Vec::new(),
        _ => unresolved(checks, &plan, &state),
    };
    Ok(Run {
        outcome,
        state,
        plan,
        unresolved,
        steps,
        changes,
    })
}

/// Every check that still fails, in load order.
pub fn unresolved(checks: &CheckSet, plan: &str, state: &State) -> Vec<Unresolved> {
    let lines = Lines::new(plan);
    checks
        .scan(plan)
        .failures(|c| state.is_approved(&c.id))
        .into_iter()
        .map(|(i, hits)| {
            let c = &checks.checks()[i];
            Unresolved {
                check_id: c.id.clone(),
                pattern: c.pattern.clone(),
                reason: c.reason.clone(),
                line: lines.number_of(hits[0].start),
            }
        })
        .collect()
}

/// Expert-review's question for `persona`, with the line it is about. The
/// checks ask it, not a model: it says so rather than speak as the persona.
fn question(check: &Check, plan: &str, hits: &[Range<usize>], persona: &str) -> Question {
    let lines = Lines::new(plan);
    let first = hits[0].start;
    let line = lines.number_of(first);
    let line_text = plan[lines.range(plan, lines.index_of(first))]
        .trim()
        .to_string();
    let mut text = format!("[Checks for {persona}]: Pattern '{}' found.", check.pattern);
    let reason = check.reason.trim();
    if !reason.is_empty() {
        text.push(' ');
        text.push_str(reason);
        if !reason.ends_with(['.', '!', '?']) {
            text.push('.');
        }
    }
    text.push_str(&format!(" It appears on line {line}: \"{line_text}\"."));
    if hits.len() > 1 {
        text.push_str(&format!(
            " ({} occurrences; a reply of your own replaces line {line}.)",
            hits.len()
        ));
    }
    Question {
        check_id: check.id.clone(),
        pattern: check.pattern.clone(),
        reason: check.reason.clone(),
        persona: persona.to_string(),
        line,
        line_text,
        text,
        header: "Review",
        options: [
            AnswerOption {
                label: "Approve this instance",
                description: "Mark this check as approved for this plan",
            },
            AnswerOption {
                label: "Abort review",
                description: "Stop review with INCOMPLETE status",
            },
        ],
    }
}

#[cfg(test)]
#[path = "machine_tests.rs"]
mod tests;
