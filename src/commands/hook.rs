//! `crit hook AGENT EVENT`: the hooks of Claude Code, Codex CLI and Gemini
//! CLI (the decisions are `crit_claude_code`'s, one gate for every agent;
//! `crit_claude_code::agent` reads and writes each agent's words) and
//! pre-commit's.

use std::path::Path;

use anyhow::anyhow;
use crit_claude_code::agent::{Agent, Event};
use crit_claude_code::plan_gate::{self, PlanGate};

use super::claude_code;
use crate::cli::{CommonArgs, HookAgent, HookArgs};
use crate::exit::{CliError, Code};
use crate::runner;

pub fn run(common: &CommonArgs, args: &HookArgs) -> Result<Code, CliError> {
    let agent = match args.agent {
        HookAgent::PreCommit => {
            return super::pre_commit::run(common.clone(), &args.event, &args.args);
        }
        HookAgent::ClaudeCode => Agent::ClaudeCode,
        HookAgent::Codex => Agent::Codex,
        HookAgent::Gemini => Agent::Gemini,
        HookAgent::Cursor => Agent::Cursor,
        HookAgent::Copilot => Agent::Copilot,
        HookAgent::OpenCode => Agent::OpenCode,
    };
    if !args.args.is_empty() {
        return Err(CliError::usage(anyhow!(
            "crit hook {} {}: unexpected arguments `{}` ({} passes the event on stdin)",
            agent.id(),
            args.event,
            args.args.join(" "),
            agent.name()
        )));
    }
    let Some(event) = agent.event(&args.event) else {
        let names: Vec<&str> = agent.events().iter().map(|(n, _)| *n).collect();
        return Err(CliError::usage(anyhow!(
            "crit hook {} {}: unsupported event (supported: {})",
            agent.id(),
            args.event,
            names.join(", ")
        )));
    };
    match event {
        Event::PreTool => pre_tool_use(common, args),
        Event::Prompt => prompt_submit(common, agent, args.note_only),
        Event::Stop | Event::SubagentStop => stop(common, args, agent),
    }
}

fn pre_tool_use(common: &CommonArgs, args: &HookArgs) -> Result<Code, CliError> {
    // Exit 2 on bad input: Claude Code then blocks the tool, so the hook fails closed.
    let input = crit_core::files::read_capped_from(
        std::io::stdin().lock(),
        Path::new("<stdin>"),
        Default::default(),
    )
    .map_err(|e| CliError::usage(anyhow!("reading the hook input: {e}")))?;
    let gate = PlanGate {
        plan: args.plan.clone(),
        plan_dirs: args.plan_dirs.clone(),
    };
    let out =
        plan_gate::run(&input, &gate, &common.env).map_err(|e| CliError::usage(anyhow!("{e}")))?;
    claude_code::emit(&out);
    Ok(Code::Ok)
}

/// `crit hook AGENT Stop` / `SubagentStop` / `AfterAgent`: the review gate.
/// The agent's deadline ends a review with a signal; the gate then holds.
fn stop(common: &CommonArgs, args: &HookArgs, agent: Agent) -> Result<Code, CliError> {
    runner::init_logging(common);
    let event = args.event.as_str();
    let hook = claude_code::agent_hook_env(common, agent)?;
    let out = match claude_code::read_stdin() {
        Ok(input) => {
            let stop = runner::Stop::new();
            stop.listen()?;
            crit_claude_code::stop::run(&input, event, &hook, args.max_rounds, stop.cancel.clone())
        }
        Err(e) => crit_claude_code::stop::run(
            e.as_bytes(),
            event,
            &hook,
            args.max_rounds,
            Default::default(),
        ),
    };
    claude_code::emit(&out);
    Ok(Code::Ok)
}

/// `crit hook claude-code UserPromptSubmit`: prompt review on `!!!`. It
/// fails open: whatever goes wrong, the user's prompt proceeds.
fn prompt_submit(common: &CommonArgs, agent: Agent, note_only: bool) -> Result<Code, CliError> {
    let input = match claude_code::read_stdin() {
        Ok(i) => i,
        Err(e) => {
            eprintln!(
                "crit: {}; the prompt proceeds unreviewed",
                crate::output::printable(&e.to_string())
            );
            return Ok(Code::Ok);
        }
    };
    // No setting is read, no runtime started, for a prompt without `!!!`:
    // only the review gate's note of the commit the session starts from.
    if note_only || !agent.reviews_prompts() || !crit_claude_code::event::acts_on(&input) {
        if let Ok(hook) = claude_code::agent_hook_env(common, agent) {
            crit_claude_code::prompt_submit::note_session_start(&input, &hook);
        }
        claude_code::emit(&agent.render(Event::Prompt, Default::default()));
        return Ok(Code::Ok);
    }
    runner::init_logging(common);
    let hook = claude_code::agent_hook_env(common, agent)?;
    let stop = runner::Stop::new();
    stop.listen()?;
    let signal = || stop.signal().map(|s| s.name());
    let out = crit_claude_code::prompt_submit::run(&input, &hook, stop.cancel.clone(), &signal);
    claude_code::emit(&out);
    Ok(Code::Ok)
}
