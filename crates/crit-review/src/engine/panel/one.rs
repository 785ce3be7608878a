//! One reviewer: on crit's own agent loop when the backend is a model, or
//! handed to an agent backend (Claude Code) that runs its own loop; then its
//! answer read with the output contract. Never panics, never passes by default.

use std::time::{Duration, Instant};

use crit_agent::{AgentSpec, RunStatus, StructuredOutput, ToolContext, ToolRegistry, run_agent};
use crit_core::contract::{Contract, ParseContext};
use crit_core::{ReviewerOutcome, ReviewerStatus, Usage, Verdict};
use crit_llm::{Agent, AgentTask, Backend, LlmError, Model, SystemBlock};
use serde_json::Value;

use super::progress::ProgressEvent;
use super::read::read_answer;
use super::transcript::ReviewerSink;
use super::{FollowUpError, PanelEnv, ReviewerPlan, ReviewerRun};
use crate::engine::prompts::OutputSpec;

/// How a run ended, whichever backend ran it.
#[derive(Debug)]
enum Ending {
    Completed,
    /// A limit ended it (`timeout`, `max_turns`, …) with the limit's words.
    Limit {
        name: String,
        detail: String,
        timed_out: bool,
    },
    Cancelled,
    /// Asked for structured output, never got a valid one.
    NoValidOutput(String),
    /// Several final answers in one turn: none is taken.
    Ambiguous(String),
    /// The model refused; what it said, if anything.
    Refused(String),
    /// What went wrong, and the backend's own error when it was the backend.
    Failed {
        message: String,
        error: Option<LlmError>,
    },
}

impl Ending {
    fn failed(message: impl Into<String>) -> Self {
        Ending::Failed {
            message: message.into(),
            error: None,
        }
    }

    fn backend(error: LlmError) -> Self {
        Ending::Failed {
            message: error.to_string(),
            error: Some(error),
        }
    }
}

/// What came back, before the contract reads it.
#[derive(Debug)]
struct Answer {
    ending: Ending,
    text: String,
    /// Every turn's text, for partial output after a limit.
    all_text: Vec<String>,
    structured: Option<Value>,
    usage: Usage,
    cost_usd: f64,
    /// A model that answered without a known price: the cost is unknown.
    unpriced_model: Option<String>,
    model: String,
    sub_agents: Vec<crit_agent::SubAgentOutcome>,
    /// The last structured answer refused, when none was accepted.
    rejected: Option<crit_agent::RejectedAnswer>,
}

impl Answer {
    /// No output yet (or ever): a run that failed before the model answered.
    fn nothing(ending: Ending, model: &str) -> Answer {
        Answer {
            ending,
            text: String::new(),
            all_text: Vec::new(),
            structured: None,
            usage: Usage::default(),
            cost_usd: 0.0,
            unpriced_model: None,
            model: model.to_string(),
            sub_agents: Vec::new(),
            rejected: None,
        }
    }
}

pub(super) async fn run_reviewer(
    backend: &Backend,
    plan: &ReviewerPlan,
    env: &PanelEnv,
    first_answer: Option<&tokio_util::sync::CancellationToken>,
) -> ReviewerRun {
    let started = Instant::now();
    let model = crit_llm::pricing::resolve_alias(&plan.model);
    if let Some(p) = &env.progress {
        p.event(&ProgressEvent::Started {
            reviewer: plan.name.clone(),
            model: if model.is_empty() {
                backend.model.name().to_string()
            } else {
                model.clone()
            },
        });
    }
    tracing::debug!(reviewer = %plan.name, system = %plan.system, user = %plan.user, "reviewer prompt");
    let answer = match &backend.agent {
        Some(agent) => via_agent(agent.as_ref(), plan, &model, env).await,
        None => via_loop(backend.model.as_ref(), plan, &model, env, first_answer).await,
    };
    tracing::debug!(reviewer = %plan.name, answer = %answer.text, "reviewer answer");
    let run = interpret(plan, answer, env, started.elapsed());
    if let Some(p) = &env.progress {
        p.event(&ProgressEvent::Finished {
            reviewer: plan.name.clone(),
            status: run.outcome.status,
            verdict: run.outcome.verdict,
            findings: run.findings.len(),
            duration_ms: run.outcome.duration_ms,
        });
    }
    run
}

/// The system prompt as blocks: the panel's shared system prompt (or, for a
/// plan that shares none, the reviewer's own), then the project's
/// conventions; the last block ends the cached prefix.
pub(super) fn system_blocks(plan: &ReviewerPlan, env: &PanelEnv) -> Vec<SystemBlock> {
    let own = match &plan.shared {
        Some(shared) => shared.system.clone(),
        None => plan.system.clone(),
    };
    let mut blocks = vec![SystemBlock::new(own)];
    if !env.project_context.trim().is_empty() {
        blocks.push(SystemBlock::new(env.project_context.clone()));
    }
    if let Some(last) = blocks.last_mut() {
        last.cache = true;
    }
    blocks
}

/// The first message: the shared work (its own cached block, when there is
/// one), then the reviewer's own instructions and request.
pub(super) fn first_message(plan: &ReviewerPlan) -> (String, String) {
    match &plan.shared {
        Some(shared) => {
            let own = [plan.system.trim(), plan.user.trim()]
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join("\n\n");
            (shared.work.clone(), own)
        }
        None => (String::new(), plan.user.clone()),
    }
}

/// crit's review rules, given to every sub-agent a reviewer launches with
/// Task, whatever its own prompt says: the scale and exclusions the
/// orchestrator is told to apply, and that what it reads is data.
const SUB_AGENT_RULES: &str = include_str!("../../../prompts/sub_agent.md");

fn with_review_rules(mut def: crit_agent::SubAgentDef) -> crit_agent::SubAgentDef {
    def.system_prompt = format!(
        "{}\n\n{}",
        def.system_prompt.trim_end(),
        SUB_AGENT_RULES.trim_end()
    );
    def
}

/// The JSON Schema the answer must match, when the contract has one.
pub(super) fn answer_schema(output: &OutputSpec) -> Option<Value> {
    match output {
        OutputSpec::Contract(Contract::FindingsJson) => {
            Some(crit_core::schema::findings_contract())
        }
        OutputSpec::Contract(Contract::Markdown | Contract::StatusLine) => None,
        OutputSpec::Schema(s) => Some(s.clone()),
    }
}

/// The tools `plan` is given on crit's loop (`Task` is added by the loop).
pub(super) fn tools_of(
    plan: &ReviewerPlan,
    env: &PanelEnv,
) -> Result<ToolRegistry, crit_agent::RegistryError> {
    let mut available = ToolRegistry::builtin();
    for server in &env.mcp {
        server.add_to(&mut available);
    }
    let wanted: Vec<&str> = plan
        .tools
        .iter()
        .map(String::as_str)
        .filter(|t| *t != crit_agent::subagent::TASK_TOOL)
        .collect();
    available.select(&wanted)
}

async fn via_loop(
    model_api: &dyn Model,
    plan: &ReviewerPlan,
    model: &str,
    env: &PanelEnv,
    first_answer: Option<&tokio_util::sync::CancellationToken>,
) -> Answer {
    let failed = |message: String| Answer::nothing(Ending::failed(message), model);
    let cx = match ToolContext::new(&env.root, &env.add_dirs) {
        Ok(mut cx) => {
            cx.redaction = env.redaction.clone();
            cx.with_cancel(env.cancel.child_token())
                .with_env(std::sync::Arc::clone(&env.tool_env))
                .with_project_commands(std::sync::Arc::clone(&env.project_commands))
        }
        Err(e) => {
            return failed(format!(
                "cannot use {} as the project root: {e}",
                env.root.display()
            ));
        }
    };
    let tools = match tools_of(plan, env) {
        Ok(t) => t,
        Err(e) => return failed(e.to_string()),
    };
    let (work, own) = first_message(plan);
    let mut spec = AgentSpec::new(plan.name.clone(), model, own);
    spec.shared_prompt = work;
    spec.system = system_blocks(plan, env);
    spec.tools = tools;
    spec.limits = plan.limits;
    spec.spend = env.spend.clone();
    spec.max_output_tokens = plan.max_output_tokens;
    spec.hooks = env.hooks.clone();
    if plan
        .tools
        .iter()
        .any(|t| t == crit_agent::subagent::TASK_TOOL)
    {
        spec.sub_agents = plan
            .sub_agents
            .iter()
            .cloned()
            .map(with_review_rules)
            .collect();
    }
    // Schemas are checked where they are read (templates, configurations)
    // or written by crit; compiling waits for the first answer.
    spec.output = answer_schema(&plan.output).map(StructuredOutput::deferred);
    spec.text_answer = text_answer(&plan.output);
    let mut sink = ReviewerSink {
        reviewer: plan.name.clone(),
        transcript: env.transcript.clone(),
        progress: env.progress.clone(),
        first_answer: first_answer.cloned(),
    };
    let out = run_agent(model_api, &spec, &cx, &mut sink, env.cancel.child_token()).await;
    let ending = match out.status {
        RunStatus::Completed => Ending::Completed,
        RunStatus::Incomplete(limit) => Ending::Limit {
            name: limit.name().to_string(),
            detail: limit.to_string(),
            timed_out: matches!(limit, crit_agent::LimitHit::Timeout(_)),
        },
        RunStatus::Cancelled => Ending::Cancelled,
        RunStatus::NoValidOutput(m) => Ending::NoValidOutput(m),
        RunStatus::Failed(e) => Ending::backend(e),
        RunStatus::HookStopped(m) => Ending::failed(format!("a hook stopped the review: {m}")),
        RunStatus::Refused(said) => Ending::Refused(said),
        RunStatus::AmbiguousOutput(m) => Ending::Ambiguous(m),
    };
    Answer {
        ending,
        text: out.final_text,
        all_text: out.all_text,
        structured: out.structured,
        usage: out.usage,
        cost_usd: out.cost_usd,
        unpriced_model: out.unpriced_model,
        model: out.model,
        sub_agents: out.sub_agents,
        rejected: out.rejected_answer,
    }
}

/// Read-only git commands Claude Code may run for a reviewer: its Bash is a
/// shell, so crit pre-approves only these and `-p` mode denies everything else.
const CLAUDE_CODE_BASH: [&str; 6] = [
    "Bash(git diff:*)",
    "Bash(git log:*)",
    "Bash(git show:*)",
    "Bash(git status:*)",
    "Bash(git blame:*)",
    "Bash(git ls-files:*)",
];

async fn via_agent(agent: &dyn Agent, plan: &ReviewerPlan, model: &str, env: &PanelEnv) -> Answer {
    let system = system_blocks(plan, env)
        .into_iter()
        .map(|b| b.text)
        .collect::<Vec<_>>()
        .join("\n\n");
    let mut allowed = Vec::new();
    for t in plan.tools.iter().filter(|t| t.as_str() != "Task") {
        if t == "Bash" {
            allowed.extend(CLAUDE_CODE_BASH.iter().map(|s| s.to_string()));
        } else {
            allowed.push(t.clone());
        }
    }
    let (work, own) = first_message(plan);
    let task = AgentTask {
        prompt: [work.trim(), own.trim()]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("\n\n"),
        system_prompt: Some(system),
        model: (!model.is_empty()).then(|| model.to_string()),
        tools: Some(
            plan.tools
                .iter()
                .filter(|t| t.as_str() != "Task")
                .cloned()
                .collect(),
        ),
        allowed_tools: allowed,
        max_turns: plan.limits.max_turns,
        max_budget_usd: plan.limits.max_budget_usd,
        json_schema: answer_schema(&plan.output),
        add_dirs: env.add_dirs.clone(),
        cwd: Some(env.root.clone()),
    };
    let cancel = env.cancel.child_token();
    let run = agent.run(&task, cancel.clone());
    let result = match plan.limits.timeout {
        // Dropping the future on timeout kills the CLI's process group.
        Some(limit) => match tokio::time::timeout(limit, run).await {
            Ok(r) => Some(r),
            Err(_) => {
                cancel.cancel();
                None
            }
        },
        None => Some(run.await),
    };
    let mut answer = Answer::nothing(Ending::Completed, model);
    match result {
        None => {
            let limit = plan.limits.timeout.unwrap_or_default();
            answer.ending = Ending::Limit {
                name: "timeout".into(),
                detail: format!("timed out after {}s", limit.as_secs_f64()),
                timed_out: true,
            };
        }
        Some(Err(e)) if env.cancel.is_cancelled() => {
            answer.ending = Ending::Cancelled;
            answer.text = e.to_string();
        }
        Some(Err(e)) => answer.ending = Ending::backend(e),
        Some(Ok(out)) => {
            answer.ending = match &out.incomplete {
                _ if out.stop_reason == Some(crit_llm::StopReason::Refusal) => {
                    Ending::Refused(out.text.trim().to_string())
                }
                Some(why) => Ending::Limit {
                    name: why.limit().to_string(),
                    detail: why.to_string(),
                    timed_out: false,
                },
                None => Ending::Completed,
            };
            if let Some(t) = &env.transcript {
                for line in &out.transcript {
                    t.record_raw(&plan.name, line);
                }
            }
            answer.all_text = vec![out.text.clone()];
            answer.text = out.text;
            answer.structured = out.structured_output;
            answer.usage = out.usage;
            answer.cost_usd = out.cost.usd;
            if !out.cost.priced && !out.usage.is_zero() {
                answer.unpriced_model =
                    Some(out.model.clone().unwrap_or_else(|| model.to_string()));
            }
            if let Some(m) = out.model {
                answer.model = m;
            }
        }
    }
    answer
}

/// The answer read with the reviewer's contract.
fn interpret(plan: &ReviewerPlan, answer: Answer, env: &PanelEnv, took: Duration) -> ReviewerRun {
    let root = env.root.to_string_lossy();
    let cx = ParseContext {
        reviewer: &plan.name,
        root: Some(&root),
    };
    let mut run = ReviewerRun {
        outcome: ReviewerOutcome {
            name: plan.name.clone(),
            status: ReviewerStatus::Completed,
            verdict: Verdict::Unknown,
            model: (!answer.model.is_empty()).then(|| answer.model.clone()),
            findings: 0,
            usage: answer.usage,
            cost_usd: answer.unpriced_model.is_none().then_some(answer.cost_usd),
            duration_ms: u64::try_from(took.as_millis()).unwrap_or(u64::MAX),
            error: None,
        },
        findings: Vec::new(),
        summary: String::new(),
        // An answer given through the structured-output tool has no text: its
        // JSON is the raw answer.
        raw: match (&answer.structured, answer.text.trim().is_empty()) {
            (Some(v), true) => v.to_string(),
            _ => answer.text.clone(),
        },
        structured: None,
        parse_error: None,
        timed_out: false,
        failure: None,
        sub_agents: answer.sub_agents,
        derived: false,
        notes: Vec::new(),
    };
    match answer.ending {
        Ending::Completed => {
            read_answer(&mut run, &plan.output, &answer.text, answer.structured, &cx)
        }
        Ending::NoValidOutput(why) => {
            // A right answer given as text instead of through the tool still counts;
            // anything else fails closed with the loop's reason.
            // Its parse error keeps the contract's words (mala's `missing
            // field: …`), read from the last answer refused when the model
            // kept to the tool; the loop's reason goes with the outcome.
            match (answer.text.trim().is_empty(), answer.rejected) {
                (true, Some(crit_agent::RejectedAnswer::Json(refused))) => {
                    read_answer(&mut run, &plan.output, &refused.to_string(), None, &cx);
                }
                (true, Some(crit_agent::RejectedAnswer::NotJson(not_json))) => {
                    let e = crit_core::contract::ContractError::InvalidJson(not_json);
                    run.outcome.status = ReviewerStatus::ParseError;
                    run.parse_error = Some(e.to_string());
                }
                _ => read_answer(&mut run, &plan.output, &answer.text, None, &cx),
            }
            if run.parse_error.is_some() {
                run.outcome.error = Some(why);
            }
        }
        Ending::Limit {
            name,
            detail,
            timed_out,
        } => {
            let partial = answer.all_text.join("\n\n");
            // Findings written before the limit are kept; the verdict is not a pass.
            if answer.structured.is_some() || !partial.trim().is_empty() {
                read_answer(&mut run, &plan.output, &partial, answer.structured, &cx);
            }
            run.raw = partial;
            run.timed_out = timed_out;
            run.outcome.status = ReviewerStatus::Incomplete;
            run.outcome.verdict = Verdict::Incomplete;
            run.parse_error = Some(if run.timed_out {
                "timeout".to_string()
            } else {
                name
            });
            run.outcome.error = Some(detail);
        }
        Ending::Cancelled => {
            run.outcome.status = ReviewerStatus::Incomplete;
            run.outcome.verdict = Verdict::Incomplete;
            run.parse_error = Some("cancelled".into());
            run.outcome.error = Some("cancelled by the user".into());
        }
        Ending::Ambiguous(message) => {
            // Which answer the model meant is anyone's guess: none counts.
            run.outcome.status = ReviewerStatus::ParseError;
            run.outcome.verdict = Verdict::Unknown;
            run.parse_error = Some(message.clone());
            run.outcome.error = Some(message);
        }
        Ending::Refused(said) => {
            let message = refusal_message(&said);
            run.outcome.status = ReviewerStatus::Failed;
            run.outcome.verdict = Verdict::Error;
            run.parse_error = Some(message.clone());
            run.outcome.error = Some(message);
        }
        Ending::Failed { message, error } => {
            run.failure = error;
            run.outcome.status = ReviewerStatus::Failed;
            run.outcome.verdict = Verdict::Error;
            run.parse_error = Some(message.clone());
            run.outcome.error = Some(message);
        }
    }
    hold_for_sub_agents(&mut run);
    run.outcome.findings = run.findings.len();
    run
}

/// For the findings contract: a final answer written as text instead of
/// through the tool counts when it is a well-formed answer in any contract
/// (the JSON itself, or the review templates' markdown).
fn text_answer(output: &OutputSpec) -> Option<crit_agent::TextAnswer> {
    match output {
        OutputSpec::Contract(Contract::FindingsJson) => {
            Some(crit_agent::TextAnswer(std::sync::Arc::new(|text: &str| {
                crit_core::contract::parse_any(
                    Contract::FindingsJson,
                    text,
                    &ParseContext::new("reviewer"),
                )
                .is_ok_and(|p| p.verdict != Verdict::Unknown)
            })))
        }
        _ => None,
    }
}

/// A sub-agent that did not finish leaves a hole in the review that its
/// reviewer's verdict may paper over (`crit run`'s orchestrator saying PASS
/// while its security reviewer failed): the reviewer's verdict is then
/// INCOMPLETE unless it is already worse, and `parse_error` names the
/// sub-agents.
fn hold_for_sub_agents(run: &mut ReviewerRun) {
    let why = run
        .sub_agents
        .iter()
        .filter_map(|s| Some(format!("sub-agent `{}` {}", s.name, s.status.shortfall()?)))
        .collect::<Vec<_>>()
        .join("; ");
    if why.is_empty() {
        return;
    }
    if matches!(run.outcome.verdict, Verdict::Pass | Verdict::Concerns) {
        run.outcome.verdict = Verdict::Incomplete;
        run.outcome.status = ReviewerStatus::Incomplete;
        run.outcome.error = Some(why.clone());
    }
    run.parse_error = Some(match run.parse_error.take() {
        Some(e) => format!("{e}; {why}"),
        None => why,
    });
}

/// A refusal in a few words: what the model said, cut short.
fn refusal_message(said: &str) -> String {
    const KEEP: usize = 300;
    let said = said.trim();
    if said.is_empty() {
        return "the model refused to review (stop_reason: refusal)".into();
    }
    let cut = said
        .char_indices()
        .nth(KEEP)
        .map_or(said, |(i, _)| &said[..i]);
    let more = if cut.len() < said.len() { "…" } else { "" };
    format!("the model refused to review (stop_reason: refusal): {cut}{more}")
}

/// One free-text exchange with a reviewer after its review (follow-up
/// questions): same system prompt, tools and limits, no answer contract.
pub(super) async fn converse(
    backend: &Backend,
    plan: &ReviewerPlan,
    env: &PanelEnv,
    prompt: String,
) -> Result<(String, Usage, f64), FollowUpError> {
    let mut plan = plan.clone();
    plan.user = prompt;
    // The markdown contract has no schema: the answer is read as text.
    plan.output = OutputSpec::Contract(Contract::Markdown);
    let model = crit_llm::pricing::resolve_alias(&plan.model);
    let answer = match &backend.agent {
        Some(agent) => via_agent(agent.as_ref(), &plan, &model, env).await,
        None => via_loop(backend.model.as_ref(), &plan, &model, env, None).await,
    };
    match answer.ending {
        Ending::Completed => Ok((answer.text, answer.usage, answer.cost_usd)),
        Ending::Limit { detail, .. } => Err(FollowUpError::CutShort(detail)),
        Ending::Cancelled => Err(FollowUpError::Cancelled),
        Ending::Refused(said) => Err(FollowUpError::Refused(refusal_message(&said))),
        Ending::NoValidOutput(message) | Ending::Ambiguous(message) => Err(FollowUpError::Failed {
            message,
            error: None,
        }),
        Ending::Failed { message, error } => Err(FollowUpError::Failed { message, error }),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_sub_agent_rules() {
        insta::assert_snapshot!("sub_agent_rules", super::SUB_AGENT_RULES);
    }
}
