//! What a panel reports while it works, for a progress display: which
//! reviewer, which turn, tokens so far. The CLI draws it on stderr; a library
//! user may log it or ignore it.

use crit_core::{ReviewerStatus, Verdict};

/// One thing that happened in a running panel.
#[derive(Debug, Clone, PartialEq)]
pub enum ProgressEvent {
    Started {
        reviewer: String,
        model: String,
    },
    /// A model turn ended; `tools` are the calls it made (empty: it answered).
    /// `agent` differs from `reviewer` for a sub-agent launched with Task.
    Turn {
        reviewer: String,
        agent: String,
        turn: u32,
        tools: Vec<String>,
    },
    /// Running totals of one reviewer.
    Usage {
        reviewer: String,
        tokens: u64,
        cost_usd: f64,
    },
    Finished {
        reviewer: String,
        status: ReviewerStatus,
        verdict: Verdict,
        findings: usize,
        duration_ms: u64,
    },
    /// A change split into parts: how many of its `total` parts are built,
    /// sent and answered, and what the whole review spent so far. Sent once
    /// the first part is built and once as each part is answered.
    Parts {
        total: usize,
        built: usize,
        sent: usize,
        answered: usize,
        tokens: u64,
        cost_usd: f64,
    },
    /// What a check did, in words (the verifier's decision on a finding).
    Note {
        reviewer: String,
        text: String,
    },
}

/// Receives progress events. Called from the reviewers' tasks: keep it quick.
pub trait Progress: Send + Sync {
    fn event(&self, event: &ProgressEvent);
}

/// Ignores everything.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn event(&self, _event: &ProgressEvent) {}
}
