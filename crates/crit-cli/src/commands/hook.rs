//! `crit hook claude-code PreToolUse`: hold ExitPlanMode until the plan's
//! approval marker is at least as new as the plan (seed "Re-Review Requirements").

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::anyhow;
use crit_checks::{Freshness, SessionPaths};
use serde_json::{Value, json};

use crate::cli::{CommonArgs, HookAgent, HookArgs};
use crate::exit::{CliError, Code};

pub fn run(common: &CommonArgs, args: &HookArgs) -> Result<Code, CliError> {
    if args.agent == HookAgent::ClaudeCode && !args.args.is_empty() {
        return Err(CliError::usage(anyhow!(
            "crit hook claude-code {}: unexpected arguments `{}` (Claude Code passes the event on stdin)",
            args.event,
            args.args.join(" ")
        )));
    }
    match (args.agent, args.event.as_str()) {
        (HookAgent::ClaudeCode, "PreToolUse") => pre_tool_use(args),
        (HookAgent::ClaudeCode, other) => Err(CliError::usage(anyhow!(
            "crit hook claude-code {other}: unsupported event (supported: PreToolUse)"
        ))),
        (HookAgent::PreCommit, event) => super::pre_commit::run(common.clone(), event, &args.args),
    }
}

fn pre_tool_use(args: &HookArgs) -> Result<Code, CliError> {
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| CliError::usage(anyhow!("reading the hook input from stdin: {e}")))?;
    // Exit 2 on bad input: Claude Code then blocks the tool, so the hook fails closed.
    let event: Value = serde_json::from_str(&input).map_err(|e| {
        CliError::usage(anyhow!(
            "hook input is not JSON ({}:{}): {e}",
            e.line(),
            e.column()
        ))
    })?;
    if event.get("tool_name").and_then(Value::as_str) != Some("ExitPlanMode") {
        return Ok(Code::Ok);
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let plan = args
        .plan
        .clone()
        .or_else(|| plan_from_input(&event))
        .or_else(|| newest_plan(home.as_deref()));
    let Some(plan) = plan else {
        deny(
            "crit: no plan found to verify; review it with `crit plan PATH` (or pass --plan / CRIT_PLAN to the hook)",
        );
        return Ok(Code::Ok);
    };
    let freshness =
        SessionPaths::resolve(&plan, home.as_deref()).and_then(|p| p.verify().map(|f| (p, f)));
    match freshness {
        Ok((_, Freshness::Fresh)) => {}
        Ok((paths, Freshness::Stale)) => deny(&format!(
            "crit: {} changed after it was approved; re-review it with `crit plan {plan}` before leaving plan mode",
            paths.plan.display()
        )),
        Ok((paths, Freshness::Missing)) => deny(&format!(
            "crit: {} has not been approved; review it with `crit plan {plan}` before leaving plan mode",
            paths.plan.display()
        )),
        Err(e) => deny(&format!("crit: cannot verify the plan approval: {e}")),
    }
    Ok(Code::Ok)
}

fn deny(reason: &str) {
    let out = json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    });
    println!("{out}");
}

/// A plan file named in the tool input, if Claude Code sent one.
fn plan_from_input(event: &Value) -> Option<String> {
    let input = event.get("tool_input")?;
    ["planFilePath", "plan_file_path", "planFile", "plan_path"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .map(str::to_string)
}

/// The most recently modified `~/.claude/plans/*.md`.
fn newest_plan(home: Option<&Path>) -> Option<String> {
    let dir = home?.join(".claude").join("plans");
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .filter_map(|p| {
            std::fs::metadata(&p)
                .and_then(|m| m.modified())
                .ok()
                .map(|t| (t, p))
        })
        .max_by_key(|(t, _)| *t)
        .map(|(_, p)| p.display().to_string())
}
