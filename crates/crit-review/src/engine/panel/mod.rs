//! Running a panel: every reviewer of a review at once, each on crit's agent
//! loop (or on an agent backend such as Claude Code), and the merge of their
//! answers into one [`ReviewResult`].
//!
//! The panel knows nothing of templates, diffs or sessions: callers turn those
//! into [`ReviewerPlan`]s (the prompts are rendered before anything runs), and
//! get back one [`ReviewerRun`] per reviewer, in plan order.

mod aggregate;
mod consensus;
mod follow_up;
mod one;
mod progress;
mod read;
mod start;
mod transcript;

use std::path::PathBuf;
use std::sync::Arc;

use crit_agent::redaction::ToolRedactor;
use crit_agent::{Hooks, McpServer, RunLimits, SpendMeter, SubAgentDef, SubAgentOutcome};
use crit_core::{Finding, ReviewerOutcome};
use crit_llm::Backend;
pub use crit_project::PanelStart;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::engine::prompts::OutputSpec;

pub(crate) use aggregate::distinct as distinct_findings;
pub use aggregate::{aggregate, effective_verdict, merge_parts, unpriced};
pub(crate) use consensus::apply as apply_consensus;
pub use consensus::{Consensus, UnknownConsensus};
pub use follow_up::{FollowUp, FollowUpError};
pub use progress::{NoProgress, Progress, ProgressEvent};
pub(crate) use start::parts_wait;
pub use transcript::SharedTranscript;

/// A reviewer's deadline when nothing sets one (mala's reviewer's 600 s).
pub const DEFAULT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);

/// One reviewer, ready to run: prompts rendered, model and tools chosen.
#[derive(Debug, Clone)]
pub struct ReviewerPlan {
    pub name: String,
    /// The model id or alias; empty means the backend's configured model.
    pub model: String,
    /// The reviewer's own system prompt, its output contract included. With
    /// `shared`, the reviewer's own instructions, sent after the shared work.
    pub system: String,
    pub user: String,
    /// What this reviewer shares with the rest of its panel (and with the
    /// other parts of a split change), sent first so one cache write serves
    /// them all. `None`: `system` is the system prompt, `user` the message.
    pub shared: Option<SharedPrompt>,
    /// Tool names (`Read`, `Grep`, …, MCP tools as `mcp__server__tool`, `Task`).
    pub tools: Vec<String>,
    pub output: OutputSpec,
    pub limits: RunLimits,
    pub max_output_tokens: u32,
    /// Agents it may launch with `Task` (crit's loop only).
    pub sub_agents: Vec<SubAgentDef>,
}

/// The text a panel's reviewers have in common, in request order: the system
/// prompt (then the project conventions, a cache breakpoint), and the work
/// opening the first message (a cache breakpoint). Each reviewer's own
/// instructions follow it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SharedPrompt {
    pub system: String,
    /// The work under review (a diff); may be empty. Cached: the same bytes
    /// from one review of a change to the next where the work is the same
    /// (what the work is, its range and commits, goes in each reviewer's
    /// own text, after it).
    pub work: String,
}

/// What every reviewer of a panel shares.
#[derive(Clone)]
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
    /// The environment the front end read: the Bash tool's programs start
    /// from its `PATH` and `LANG` ([`tool_env`]).
    pub tool_env: Arc<crit_os::env::Env>,
    /// When the later reviewers start: with the first, or once its first
    /// answer has put the shared prefix in the prompt cache.
    pub panel_start: PanelStart,
    /// The project's commands the reviewers' Bash may run besides the
    /// read-only ones (trusted settings' `project_commands`), as words.
    pub project_commands: Arc<Vec<Vec<String>>>,
}

/// What of the front end's environment reaches the tools' programs: `PATH`
/// and `LANG`, nothing else.
pub fn tool_env(env: &crit_os::env::Env) -> Arc<crit_os::env::Env> {
    Arc::new(crit_os::env::Env::from_pairs(
        ["PATH", "LANG"]
            .into_iter()
            .filter_map(|k| env.get(k).map(|v| (k, v))),
    ))
}

impl Default for PanelEnv {
    fn default() -> Self {
        PanelEnv {
            root: PathBuf::new(),
            add_dirs: Vec::new(),
            project_context: String::new(),
            hooks: Hooks::default(),
            mcp: Vec::new(),
            transcript: None,
            progress: None,
            cancel: CancellationToken::new(),
            spend: Arc::default(),
            // What the tools find, the review's writers hide.
            redaction: crate::engine::redaction::tools_redactor(),
            tool_env: Arc::default(),
            project_commands: Arc::default(),
            panel_start: PanelStart::default(),
        }
    }
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
    /// The backend's error, when that is why it failed (a rate limit, say).
    pub failure: Option<crit_llm::LlmError>,
    pub sub_agents: Vec<SubAgentOutcome>,
    /// It answered with structured findings, so crit derives its verdict from
    /// them (its own word stays in `outcome.verdict`).
    pub derived: bool,
    /// What in its answer was not understood and how it was read anyway
    /// (the review's warnings).
    pub notes: Vec<String>,
}

/// Runs every plan concurrently: with N reviewers against a model of latency L
/// the panel takes about L, not N·L. Results come back in plan order.
///
/// A plan that can read the first plan's prompt-cache write (on crit's own
/// loop: the same shared prefix, tools, model and provider, and that prefix
/// at or above the model's cacheable minimum) starts once the first has had
/// its first answer, so it reads the prefix instead of paying to write it
/// again (the panel takes L plus one turn). Any other starts at once: waiting
/// would buy nothing. `env.panel_start` forces either way.
pub async fn run_panel(
    backend: &Backend,
    plans: &[ReviewerPlan],
    env: &PanelEnv,
) -> Vec<ReviewerRun> {
    run_panel_warming(backend, plans, env, &CancellationToken::new()).await
}

/// [`run_panel`], tripping `warmed` once the first plan's first request has
/// been answered (or it ended), for callers that hold other work back until
/// the shared prefix is in the cache.
pub async fn run_panel_warming(
    backend: &Backend,
    plans: &[ReviewerPlan],
    env: &PanelEnv,
    warmed: &CancellationToken,
) -> Vec<ReviewerRun> {
    let waits: Vec<bool> = match plans.first() {
        Some(lead) => plans
            .iter()
            .enumerate()
            .map(|(i, p)| i > 0 && start::waits_for(backend, lead, p, env))
            .collect(),
        None => Vec::new(),
    };
    let runs = plans.iter().enumerate().map(|(i, plan)| {
        let wait = waits.get(i).copied().unwrap_or(false);
        async move {
            if i == 0 {
                let _done = warmed.clone().drop_guard();
                return one::run_reviewer(backend, plan, env, Some(warmed)).await;
            }
            if wait {
                tokio::select! {
                    () = warmed.cancelled() => {}
                    () = env.cancel.cancelled() => {}
                }
            }
            one::run_reviewer(backend, plan, env, None).await
        }
    });
    futures_util::future::join_all(runs).await
}
