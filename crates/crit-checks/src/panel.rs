//! The LLM side of a plan review, as the rule engine sees it (expert-review's
//! reviewer panel). Once the deterministic checks approve a plan, the panel
//! is asked, and every member must approve before the `.approved` marker is
//! written. crit-checks runs no model itself: the caller supplies the panel
//! (crit-review's, on a model backend), or none.

use std::path::Path;

use crit_core::{ReviewResult, Verdict};

use crate::state::{Persona, Reviewers};

/// What the panel is given.
#[derive(Debug)]
pub struct PanelRequest<'a> {
    pub plan_path: &'a Path,
    pub plan: &'a str,
    /// As context.yaml resolved them; `defaulted` means AUTO-SELECT may pick.
    pub reviewers: &'a Reviewers,
    pub project_root: &'a Path,
}

/// What the panel decided.
#[derive(Debug, Clone)]
pub enum PanelVote {
    /// It did not run (no backend, …): the checks alone decide, and the output says why.
    NotRun(String),
    Ran {
        /// Who reviewed (AUTO-SELECT's pick, or context.yaml's panel).
        panel: Vec<Persona>,
        /// Every member approved.
        approved: bool,
        /// The members' merged result: findings, per-member outcomes, usage, cost.
        result: Box<ReviewResult>,
        /// Notes for the output (AUTO-SELECT's reason, or why it fell back).
        notes: Vec<String>,
        /// AUTO-SELECT chose `panel`: it is written back to the plan's
        /// context file, as expert-review does, so the next run keeps it.
        auto_selected: bool,
        /// Each member's own verdict and summary, in panel order: what the
        /// persona said, shown in its voice.
        summaries: Vec<MemberSummary>,
    },
}

/// What one member of the panel concluded, in its own words.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MemberSummary {
    pub name: String,
    pub verdict: Verdict,
    pub summary: String,
}

/// What a persona is asked to put in its own words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VoiceKind {
    /// A check needs the user's judgement (expert-review's ASKING).
    Question,
    /// A `reject_if_persists` check's pattern survived its fix.
    Rejection,
}

/// A check's question or rejection, for the persona to explain.
#[derive(Debug, Clone)]
pub struct VoiceRequest<'a> {
    pub kind: VoiceKind,
    /// The persona the checks speak for.
    pub persona: &'a str,
    pub check_id: &'a str,
    pub pattern: &'a str,
    pub reason: &'a str,
    pub line: u32,
    pub line_text: &'a str,
    pub plan_path: &'a Path,
    pub project_root: &'a Path,
}

/// Why the persona could not word a check's question or rejection (crit's
/// own words stand, with a warning).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VoiceError {
    /// The persona's prompt could not be put together.
    #[error("{0}")]
    Prompt(String),
    #[error("no answer")]
    NoAnswer,
    /// The model's run failed, or its answer did not parse.
    #[error("{0}")]
    Failed(String),
    #[error("its answer held no words")]
    NoWords,
}

/// The panel of a plan review.
pub trait Panel {
    fn review(&mut self, request: &PanelRequest<'_>) -> PanelVote;

    /// The persona's own words on why a check's finding matters
    /// (expert-review's "Persona Usage"): `None` when no model can speak for
    /// it (crit's words stand), `Some(Err(why))` when it could not.
    fn voice(&mut self, _request: &VoiceRequest<'_>) -> Option<Result<String, VoiceError>> {
        None
    }

    /// Why this panel cannot run at all (no model backend), known before
    /// anything is asked; `None` for a panel that can.
    fn unavailable(&self) -> Option<String> {
        None
    }
}

/// No panel: the reason goes in the output.
#[derive(Debug, Clone)]
pub struct NoPanel(pub String);

impl Panel for NoPanel {
    fn review(&mut self, _request: &PanelRequest<'_>) -> PanelVote {
        PanelVote::NotRun(self.0.clone())
    }

    fn unavailable(&self) -> Option<String> {
        Some(self.0.clone())
    }
}
