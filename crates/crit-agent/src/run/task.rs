//! Running one Task call: a sub-agent's own run, on the same backend, writing
//! to the parent's transcript under its own name.

use std::hash::BuildHasher;

use crit_llm::{Model, SystemBlock};
use serde_json::Value;

use super::execute::Exec;
use super::turns::run_boxed;
use super::{AgentSpec, RunLimits, RunStatus};
use crate::hooks::Who;
use crate::input::Input;
use crate::subagent::SubAgentOutcome;
use crate::tool::ToolOutput;

/// What a parent lends its sub-agents.
pub(super) struct TaskCtx<'a> {
    pub model: &'a dyn Model,
    pub parent: &'a AgentSpec,
    /// What is left of the parent's limits when the turn's calls start.
    pub limits: RunLimits,
}

pub(super) async fn run(
    t: &TaskCtx<'_>,
    call_id: &str,
    input: Value,
    ex: &Exec<'_, '_>,
) -> (ToolOutput, Option<SubAgentOutcome>) {
    let parsed = Input::parse(input, &["description", "prompt", "subagent_type"]).and_then(|i| {
        Ok((
            i.req_str("prompt")?,
            i.req_str("subagent_type")?,
            i.opt_str("description")?,
        ))
    });
    let (prompt, kind, _description) = match parsed {
        Ok(p) => p,
        Err(e) => return (ToolOutput::error(e.to_string()), None),
    };
    let defs = &t.parent.sub_agents;
    let Some(def) = defs.iter().find(|d| d.name == kind.trim()) else {
        let known: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
        return (
            ToolOutput::error(format!(
                "Agent type `{kind}` not found. Available agents: {}",
                known.join(", ")
            )),
            None,
        );
    };
    let tools = match crate::subagent::registry_for(def, &t.parent.tools) {
        Ok(tools) => tools,
        Err(e) => {
            return (
                ToolOutput::error(format!("The `{}` agent cannot start: {e}", def.name)),
                None,
            );
        }
    };
    let spec = AgentSpec {
        name: def.name.clone(),
        model: def.model_or(&t.parent.model).to_string(),
        system: vec![SystemBlock::cached(def.system_prompt.clone())],
        shared_prompt: String::new(),
        prompt,
        tools,
        output: None,
        limits: t.limits,
        turn_limits: t.parent.turn_limits,
        // Its spend counts against the parent's budget as it happens.
        spend: t.parent.spend.clone(),
        max_output_tokens: t.parent.max_output_tokens,
        // Depth 1: a sub-agent launches no agents of its own.
        sub_agents: Vec::new(),
        hooks: t.parent.hooks.clone(),
        text_answer: None,
        cache_conversation: t.parent.cache_conversation,
    };
    let who = Who {
        agent_id: Some(agent_id(call_id)),
        agent_type: Some(def.name.clone()),
    };
    let mut sink = ex.sink.handle();
    let out = run_boxed(
        t.model,
        &spec,
        ex.cx,
        &mut sink,
        ex.cancel.clone(),
        who.clone(),
    )
    .await;
    let output = match &out.status {
        RunStatus::Completed if out.final_text.is_empty() => {
            ToolOutput::ok("(the agent finished without a message)")
        }
        RunStatus::Completed => ToolOutput::ok(out.final_text.clone()),
        RunStatus::Incomplete(hit) => ToolOutput::ok(format!(
            "{}\n\n[the agent stopped early: it {hit}]",
            out.all_text.join("\n\n")
        )),
        RunStatus::HookStopped(why) => ToolOutput::ok(format!(
            "{}\n\n[the agent was stopped by a hook: {why}]",
            out.all_text.join("\n\n")
        )),
        RunStatus::Cancelled => ToolOutput::error("The agent was cancelled."),
        RunStatus::Refused(said) => ToolOutput::error(format!(
            "The agent refused the task{}",
            if said.is_empty() {
                ".".to_string()
            } else {
                format!(": {said}")
            }
        )),
        RunStatus::NoValidOutput(m) | RunStatus::AmbiguousOutput(m) => {
            ToolOutput::error(format!("The agent failed: {m}"))
        }
        RunStatus::Failed(e) => ToolOutput::error(format!("The agent failed: {e}")),
    };
    let answer = match &out.status {
        RunStatus::Completed => out.final_text.clone(),
        _ => out.all_text.join("\n\n"),
    };
    let outcome = SubAgentOutcome {
        name: def.name.clone(),
        agent_id: who.agent_id.unwrap_or_default(),
        tool_use_id: call_id.to_string(),
        status: out.status,
        usage: out.usage,
        cost_usd: out.cost_usd,
        unpriced_model: out.unpriced_model.clone(),
        turns: out.turns,
        duration: out.duration,
        answer,
    };
    (output, Some(outcome))
}

/// A fresh id like Claude Code's (`a` and 16 hex digits), unique per launch.
fn agent_id(call_id: &str) -> String {
    let h = std::collections::hash_map::RandomState::new().hash_one(call_id);
    format!("a{h:016x}")
}
