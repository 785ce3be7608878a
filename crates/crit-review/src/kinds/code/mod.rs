//! Code review for pipelines (mala's reviewer): the [`CodeReviewer`] an orchestrator
//! calls after every agent session, with two implementations — crit's own
//! agent reviewer ([`AgentReviewer`]) and an external reviewer program
//! ([`CommandReviewer`], mala's Cerberus `review-gate`). Both return PASS without
//! any work when the change is empty, and both fail closed.

mod agent;
mod command;

use std::path::PathBuf;
use std::time::Duration;

use crit_core::ReviewResult;
use futures_util::future::BoxFuture;

pub use agent::AgentReviewer;
pub use command::CommandReviewer;

use crit_project::scope::{self, Scope};

pub use crate::engine::panel::DEFAULT_TIMEOUT;

/// One code review: a range, or commits, with optional notes from the author.
#[derive(Debug, Clone, Default)]
pub struct CodeReviewRequest {
    /// `A..B`, `A...B`, or a ref to diff the working tree against.
    pub diff_range: Option<String>,
    /// Reviewed as their own changes; used when `diff_range` is `None`.
    pub commit_shas: Vec<String>,
    pub context_file: Option<PathBuf>,
    /// `None`: the agent reviewer's configured timeout (`review.timeout`),
    /// else [`DEFAULT_TIMEOUT`].
    pub timeout: Option<Duration>,
    /// The caller's session id (e.g. the Claude session that wrote the code), for the logs.
    pub session_id: Option<String>,
}

impl CodeReviewRequest {
    /// The scope this request names.
    pub fn scope(&self) -> Result<Scope, scope::ScopeError> {
        Scope::from_options(self.diff_range.as_deref(), &self.commit_shas, false, &[])
    }

    pub fn timeout(&self) -> Duration {
        self.timeout.unwrap_or(DEFAULT_TIMEOUT)
    }

    /// What the logs call it: the range, or the commits.
    pub fn describe(&self) -> String {
        match &self.diff_range {
            Some(r) => r.clone(),
            None => self.commit_shas.join(", "),
        }
    }
}

/// Reviews a change and says whether it may go on. Never errors: whatever
/// goes wrong is in the result (`parse_error`, `fatal_error`), and never passes.
pub trait CodeReviewer: Send + Sync {
    /// `agent` or `command`, as in the config and the logs.
    fn kind(&self) -> &'static str;

    fn review<'a>(&'a self, req: &'a CodeReviewRequest) -> BoxFuture<'a, ReviewResult>;

    /// Whether this reviewer runs even where reviews are switched off
    /// (mala's R7). Neither of crit's does.
    fn overrides_disabled_setting(&self) -> bool {
        false
    }
}

/// PASS with no findings, for an empty change.
pub(crate) fn empty_pass(req: &CodeReviewRequest) -> ReviewResult {
    let mut r = ReviewResult::new("code", crit_core::Verdict::Pass);
    r.summary = format!("No changes in {}: nothing to review.", req.describe());
    r
}

/// A request that names no valid change: not a crash, a failed result.
pub(crate) fn bad_request(error: impl std::fmt::Display) -> ReviewResult {
    ReviewResult::fatal("code", error.to_string())
}
