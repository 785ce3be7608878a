//! Running a panel: every reviewer of a review at once, each on crit's agent
//! loop (or on an agent backend such as Claude Code), and the merge of their
//! answers into one [`ReviewResult`].
//!
//! The panel knows nothing of templates, diffs or sessions: callers turn those
//! into [`ReviewerPlan`]s (the prompts are rendered before anything runs), and
//! get back one [`ReviewerRun`] per reviewer, in plan order.

mod aggregate;
mod follow_up;
mod one;
mod progress;
mod read;
mod transcript;

use std::path::PathBuf;
use std::sync::Arc;

use crit_agent::redaction::ToolRedactor;
use crit_agent::{Hooks, McpServer, RunLimits, SpendMeter, SubAgentDef, SubAgentOutcome};
use crit_core::{Finding, ReviewerOutcome};
use crit_llm::Backend;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::template::OutputSpec;

pub use aggregate::{aggregate, unpriced};
pub use follow_up::FollowUp;
pub use progress::{NoProgress, Progress, ProgressEvent};
pub use transcript::SharedTranscript;

/// One reviewer, ready to run: prompts rendered, model and tools chosen.
#[derive(Debug, Clone)]
pub struct ReviewerPlan {
    pub name: String,
    /// The model id or alias; empty means the backend's configured model.
    pub model: String,
    /// The reviewer's own system prompt, its output contract included.
    pub system: String,
    pub user: String,
    /// Tool names (`Read`, `Grep`, …, MCP tools as `mcp__server__tool`, `Task`).
    pub tools: Vec<String>,
    pub output: OutputSpec,
    pub limits: RunLimits,
    pub max_output_tokens: u32,
    /// Agents it may launch with `Task` (crit's loop only).
    pub sub_agents: Vec<SubAgentDef>,
}

/// What every reviewer of a panel shares.
#[derive(Clone, Default)]
pub struct PanelEnv {
    /// The project root: file tools are confined to it (plus `add_dirs`).
    pub root: PathBuf,
    pub add_dirs: Vec<PathBuf>,
    /// Project conventions, appended to every system prompt as the cached
    /// shared prefix (identical bytes for every reviewer).
    pub project_context: String,
    pub hooks: Hooks,
    /// Started MCP servers whose tools reviewers may name.
    pub mcp: Vec<Arc<McpServer>>,
    pub transcript: Option<Arc<SharedTranscript>>,
    pub progress: Option<Arc<dyn Progress>>,
    pub cancel: CancellationToken,
    /// What the panel has spent: one budget (`max_budget_usd`, `max_tokens`)
    /// for all its reviewers and their sub-agents together.
    pub spend: Arc<SpendMeter>,
    /// Removes secrets from every reviewer's tool results, and records them
    /// for the review's info findings (one record for the whole panel).
    pub redaction: ToolRedactor,
}

impl std::fmt::Debug for PanelEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PanelEnv")
            .field("root", &self.root)
            .field("add_dirs", &self.add_dirs)
            .field("project_context_bytes", &self.project_context.len())
            .field("hooks", &self.hooks)
            .field("mcp", &self.mcp.len())
            .finish_non_exhaustive()
    }
}

/// What one reviewer did.
#[derive(Debug, Clone)]
pub struct ReviewerRun {
    pub outcome: ReviewerOutcome,
    pub findings: Vec<Finding>,
    pub summary: String,
    /// Its answer as received (every turn's text when a limit cut it short).
    pub raw: String,
    /// The answer in a caller-supplied schema, when one was asked for.
    pub structured: Option<Value>,
    /// Why its answer could not be understood, or why it did not finish.
    pub parse_error: Option<String>,
    /// The wall-clock limit ended it.
    pub timed_out: bool,
    pub sub_agents: Vec<SubAgentOutcome>,
}

/// Runs every plan concurrently: with N reviewers against a model of latency L
/// the panel takes about L, not N·L. Results come back in plan order.
pub async fn run_panel(
    backend: &Backend,
    plans: &[ReviewerPlan],
    env: &PanelEnv,
) -> Vec<ReviewerRun> {
    let runs = plans
        .iter()
        .map(|plan| one::run_reviewer(backend, plan, env));
    futures_util::future::join_all(runs).await
}
