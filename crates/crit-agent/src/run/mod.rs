//! One agent run: a system prompt and a user message, then model turns and tool
//! calls until the model ends its turn, a limit is hit, or the run is cancelled.
//! Limits are enforced here, not by the prompt, and whatever was produced before
//! a limit is kept.

mod answer;
mod cache;
mod execute;
mod spend;
mod stop;
mod task;
mod turns;

use std::sync::Arc;
use std::time::Duration;

use crit_core::Usage;
use crit_llm::{LlmError, StopReason, SystemBlock};
use serde_json::Value;

use crate::hooks::Hooks;
use crate::registry::ToolRegistry;
use crate::structured::StructuredOutput;
use crate::subagent::{SubAgentDef, SubAgentOutcome};

pub use spend::SpendMeter;
pub use turns::run_agent;

/// Everything one run needs besides the model, the tool context and the sink.
#[derive(Debug, Clone)]
pub struct AgentSpec {
    /// The reviewer's name, for transcripts and results.
    pub name: String,
    /// The model id (aliases already resolved).
    pub model: String,
    /// System prompt blocks; mark the last block of the shared prefix as cached.
    pub system: Vec<SystemBlock>,
    /// Text put before `prompt` in the first message and marked as a cache
    /// breakpoint: the work a panel's reviewers share (a diff, the documents),
    /// so each reviewer reads it from the cache the first one wrote. Empty:
    /// the first message is `prompt` alone.
    pub shared_prompt: String,
    /// The user message.
    pub prompt: String,
    pub tools: ToolRegistry,
    /// When set, the run must end with a valid call of the structured-output tool.
    pub output: Option<StructuredOutput>,
    pub limits: RunLimits,
    /// Bounds on one turn's tool calls.
    pub turn_limits: TurnLimits,
    /// What this run, its sub-agents and anything else sharing the meter (the
    /// other reviewers of a panel) have spent: `limits.max_budget_usd` and
    /// `limits.max_tokens` hold against it, so concurrent agents cannot each
    /// spend the whole budget.
    pub spend: Arc<SpendMeter>,
    /// `max_tokens` of each model call.
    pub max_output_tokens: u32,
    /// Agents the model may launch with the `Task` tool (offered only when set).
    pub sub_agents: Vec<SubAgentDef>,
    /// Hooks of this run; sub-agents run them too.
    pub hooks: Hooks,
    /// Mark the conversation for prompt caching on every call (the rolling
    /// breakpoint), so each turn reads the earlier ones from the cache. On by
    /// default; off only to measure what it saves.
    pub cache_conversation: bool,
    /// With `output` set: a final answer given as text that this accepts
    /// ends the run too (a reviewer that answered in another well-formed
    /// contract has answered; nudging it to repeat itself costs a turn).
    pub text_answer: Option<TextAnswer>,
}

/// Which text answers count as final (see [`AgentSpec::text_answer`]).
#[derive(Clone)]
pub struct TextAnswer(pub Arc<dyn Fn(&str) -> bool + Send + Sync>);

impl TextAnswer {
    pub fn accepts(&self, text: &str) -> bool {
        (self.0)(text)
    }
}

impl std::fmt::Debug for TextAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TextAnswer(..)")
    }
}

impl AgentSpec {
    /// A spec with no tools, output schema, limits, sub-agents or hooks.
    pub fn new(
        name: impl Into<String>,
        model: impl Into<String>,
        prompt: impl Into<String>,
    ) -> Self {
        AgentSpec {
            name: name.into(),
            model: model.into(),
            system: Vec::new(),
            shared_prompt: String::new(),
            prompt: prompt.into(),
            tools: ToolRegistry::default(),
            output: None,
            limits: RunLimits::default(),
            turn_limits: TurnLimits::default(),
            spend: Arc::new(SpendMeter::default()),
            max_output_tokens: 8192,
            sub_agents: Vec::new(),
            hooks: Hooks::default(),
            text_answer: None,
            cache_conversation: true,
        }
    }

    /// The first user message: the shared work (cache breakpoints), then the
    /// run's own prompt.
    pub(crate) fn first_message(&self) -> crit_llm::Message {
        if self.shared_prompt.is_empty() {
            return crit_llm::Message::user_text(self.prompt.clone());
        }
        let mut content: Vec<crit_llm::Block> = split_work(&self.shared_prompt)
            .into_iter()
            .map(|w| crit_llm::Block::cached_text(w.to_string()))
            .collect();
        content.push(crit_llm::Block::text(self.prompt.clone()));
        crit_llm::Message {
            role: crit_llm::Role::User,
            content,
        }
    }
}

/// Bytes of shared work before it is cut into a second cached block.
const WORK_BLOCK_BYTES: usize = 48 * 1024;

/// Big shared work in two blocks, each a cache breakpoint: a later review
/// whose work changed after the first block (a fix in the part's later
/// hunks) still reads the first from the prompt cache. The cut is the first
/// line end at or past [`WORK_BLOCK_BYTES`], found from the start: an edit
/// after it never moves it, so the first block stays byte for byte the same.
fn split_work(work: &str) -> Vec<&str> {
    // A newline byte is always a character boundary.
    let cut = work
        .as_bytes()
        .get(WORK_BLOCK_BYTES..)
        .and_then(|rest| rest.iter().position(|b| *b == b'\n'))
        .map(|i| WORK_BLOCK_BYTES + i + 1)
        .filter(|&at| at < work.len());
    match cut {
        Some(at) => vec![&work[..at], &work[at..]],
        None => vec![work],
    }
}

/// Limits the loop enforces. `None` means no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RunLimits {
    pub max_turns: Option<u32>,
    pub timeout: Option<Duration>,
    /// Total tokens (input, cached and output) across all turns.
    pub max_tokens: Option<u64>,
    pub max_budget_usd: Option<f64>,
}

/// Bounds on one turn: a model that asks for thousands of tool calls at once
/// gets the first `max_tool_calls` run and an error for the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnLimits {
    /// Tool calls run per turn; the calls past it are answered with an error.
    pub max_tool_calls: usize,
    /// Read-only calls (Task included) running at the same time.
    pub concurrency: usize,
    /// After a cancel or the deadline, how long the turn's calls get to stop
    /// (and kill their process groups) before they are dropped.
    pub wind_down: Duration,
}

impl Default for TurnLimits {
    fn default() -> Self {
        TurnLimits {
            max_tool_calls: 64,
            concurrency: 8,
            wind_down: Duration::from_secs(5),
        }
    }
}

/// Which limit ended a run.
#[derive(Debug, Clone, PartialEq)]
pub enum LimitHit {
    MaxTurns(u32),
    Timeout(Duration),
    Tokens { used: u64, limit: u64 },
    Budget { spent_usd: f64, limit_usd: f64 },
}

impl LimitHit {
    pub fn name(&self) -> &'static str {
        match self {
            LimitHit::MaxTurns(_) => "max_turns",
            LimitHit::Timeout(_) => "timeout",
            LimitHit::Tokens { .. } => "max_tokens",
            LimitHit::Budget { .. } => "max_budget_usd",
        }
    }
}

impl std::fmt::Display for LimitHit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LimitHit::MaxTurns(n) => write!(f, "reached the maximum of {n} turns"),
            LimitHit::Timeout(d) => write!(f, "timed out after {}s", d.as_secs_f64()),
            LimitHit::Tokens { used, limit } => {
                write!(f, "used {used} tokens, over the budget of {limit}")
            }
            LimitHit::Budget {
                spent_usd,
                limit_usd,
            } => {
                write!(
                    f,
                    "spent ${spent_usd:.4}, over the budget of ${limit_usd:.4}"
                )
            }
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum RunStatus {
    /// The model ended its turn (with valid structured output, when one was asked).
    Completed,
    /// A limit ended it; partial output is kept.
    Incomplete(LimitHit),
    /// The caller cancelled it (Ctrl-C).
    Cancelled,
    /// Structured output was asked for and never came valid.
    NoValidOutput(String),
    /// The backend failed (auth, rate limits, network, …): a fatal error, typed
    /// so callers tell a rate limit (and its retry-after) from the rest.
    Failed(LlmError),
    /// A hook ended the run (`continue: false`), with its `stopReason`.
    HookStopped(String),
    /// The model refused (`stop_reason: refusal`, OpenAI's `content_filter`);
    /// what it said, if anything. Whatever else the turn held is not taken.
    Refused(String),
    /// The model gave several final answers in one turn: none is taken.
    AmbiguousOutput(String),
}

impl RunStatus {
    pub fn name(&self) -> &'static str {
        match self {
            RunStatus::Completed => "completed",
            RunStatus::Incomplete(_) => "incomplete",
            RunStatus::Cancelled => "cancelled",
            RunStatus::NoValidOutput(_) => "no_valid_output",
            RunStatus::Failed(_) => "failed",
            RunStatus::HookStopped(_) => "hook_stopped",
            RunStatus::Refused(_) => "refused",
            RunStatus::AmbiguousOutput(_) => "ambiguous_output",
        }
    }

    /// How the run fell short, in words that follow an agent's name
    /// (`stopped early: it reached the maximum of 4 turns`); `None` when it
    /// completed.
    pub fn shortfall(&self) -> Option<String> {
        Some(match self {
            RunStatus::Completed => return None,
            RunStatus::Incomplete(hit) => format!("stopped early: it {hit}"),
            RunStatus::Cancelled => "was cancelled".into(),
            RunStatus::Failed(m) => format!("failed: {m}"),
            RunStatus::NoValidOutput(m) | RunStatus::AmbiguousOutput(m) => {
                format!("gave no usable answer: {m}")
            }
            RunStatus::HookStopped(m) => format!("was stopped by a hook: {m}"),
            RunStatus::Refused(m) if m.is_empty() => "refused".into(),
            RunStatus::Refused(m) => format!("refused: {m}"),
        })
    }
}

/// The last structured answer refused, when none was accepted.
#[derive(Debug, Clone, PartialEq)]
pub enum RejectedAnswer {
    /// Its JSON (read with the caller's contract, it names what was wrong).
    Json(Value),
    /// Why its input was not JSON.
    NotJson(String),
}

/// What a run produced.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    pub status: RunStatus,
    /// The text of the model's last turn.
    pub final_text: String,
    /// Every turn's text, in order: partial findings survive a limit.
    pub all_text: Vec<String>,
    /// The validated structured output, when one was asked for and given.
    pub structured: Option<Value>,
    /// Usage of the whole run, sub-agents included.
    pub usage: Usage,
    /// Cost of the whole run, sub-agents included, at known prices.
    pub cost_usd: f64,
    /// A model of the run with no known price: `cost_usd` then counts only
    /// the priced calls, and the true cost is unknown.
    pub unpriced_model: Option<String>,
    /// The main agent's turns (each sub-agent's are in `sub_agents`).
    pub turns: u32,
    pub duration: Duration,
    pub last_stop: Option<StopReason>,
    /// The model that answered (as the backend reported it).
    pub model: String,
    /// What each sub-agent launched with `Task` did, in launch order.
    pub sub_agents: Vec<SubAgentOutcome>,
    /// When no valid structured answer came: the last one refused (its
    /// JSON, or why its input was not JSON).
    pub rejected_answer: Option<RejectedAnswer>,
}

#[cfg(test)]
mod split_tests {
    use super::*;

    #[test]
    fn big_work_is_cut_once_where_an_edit_after_it_cannot_move_it() {
        assert_eq!(split_work("small\n"), vec!["small\n"]);
        let line = "é".repeat(40) + "\n";
        let work = line.repeat(2000);
        let blocks = split_work(&work);
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks.concat(), work);
        assert!(blocks[0].len() >= WORK_BLOCK_BYTES && blocks[0].ends_with('\n'));
        // An edit past the cut leaves the first block as it was.
        let mut edited = work.clone();
        edited.replace_range(work.len() - line.len().., "fixed\n");
        assert_eq!(split_work(&edited)[0], blocks[0]);
    }
}
