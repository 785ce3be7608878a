//! `crit hook claude-code PreToolUse`: hold ExitPlanMode until `crit plan`
//! approved the plan as it is now (expert-review's "Re-Review Requirements"). The
//! approval marker is sealed and recomputed here (see crit-checks'
//! `approval`), and the model does not choose which plan is checked: a plan
//! file named in the tool input counts only inside the configured plan
//! directories.

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use crit_checks::{Freshness, Options};
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
        (HookAgent::ClaudeCode, "UserPromptSubmit") => {
            super::claude_code::prompt_submit::run(common)
        }
        (HookAgent::ClaudeCode, event @ ("Stop" | "SubagentStop")) => {
            super::claude_code::stop::run(common, args, event)
        }
        (HookAgent::ClaudeCode, other) => Err(CliError::usage(anyhow!(
            "crit hook claude-code {other}: unsupported event (supported: UserPromptSubmit, Stop, SubagentStop, PreToolUse)"
        ))),
        (HookAgent::PreCommit, event) => super::pre_commit::run(common.clone(), event, &args.args),
    }
}

fn pre_tool_use(args: &HookArgs) -> Result<Code, CliError> {
    // Exit 2 on bad input: Claude Code then blocks the tool, so the hook fails closed.
    let input = crit_core::files::read_capped_from(
        std::io::stdin().lock(),
        Path::new("<stdin>"),
        Default::default(),
    )
    .map_err(|e| CliError::usage(anyhow!("reading the hook input: {e}")))?;
    let event: Value = serde_json::from_slice(&input).map_err(|e| {
        CliError::usage(anyhow!(
            "hook input is not JSON ({}:{}): {e}",
            e.line(),
            e.column()
        ))
    })?;
    if event.get("tool_name").and_then(Value::as_str) != Some("ExitPlanMode") {
        return Ok(Code::Ok);
    }
    let options = Options::default();
    let dirs = plan_dirs(args, options.home.as_deref());
    let plan = match (&args.plan, plan_from_input(&event)) {
        (Some(p), _) => p.clone(),
        (None, Some(named)) => match inside(&named, &dirs) {
            Some(p) => p.display().to_string(),
            None => {
                deny(&format!(
                    "crit: {named} is not inside the plan directories this hook checks ({}); keep plans there, or configure the hook with --plan-dir",
                    list(&dirs)
                ));
                return Ok(Code::Ok);
            }
        },
        (None, None) => match newest_plan(&dirs) {
            Some(p) => p.display().to_string(),
            None => {
                deny(
                    "crit: no plan found to verify; review it with `crit plan PATH` (or pass --plan / CRIT_PLAN to the hook)",
                );
                return Ok(Code::Ok);
            }
        },
    };
    match crit_checks::verify(&plan, &options) {
        Ok((_, Freshness::Fresh)) => {}
        Ok((paths, freshness)) => deny(&format!(
            "crit: {}; review it with `crit plan {plan}` before leaving plan mode",
            why_not(freshness, &paths.plan)
        )),
        Err(e) => deny(&format!("crit: cannot verify the plan approval: {e}")),
    }
    Ok(Code::Ok)
}

/// Why an approval does not hold, in a few words.
pub fn why_not(freshness: Freshness, plan: &Path) -> String {
    let plan = plan.display();
    match freshness {
        Freshness::Fresh => format!("{plan} is approved"),
        Freshness::Stale => format!("{plan} changed after it was approved"),
        Freshness::ChecksChanged => {
            format!("the checks (or the approvals in state.yaml) changed after {plan} was approved")
        }
        Freshness::Missing => format!("{plan} has not been approved"),
        Freshness::Unsealed => format!(
            "the approval marker of {plan} was not written by `crit plan` (it was created, copied or edited by hand)"
        ),
        Freshness::StateEdited => format!(
            "state.yaml next to {plan} was changed outside `crit plan`, so its approval cannot be trusted"
        ),
    }
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

/// The plan directories: `--plan-dir`s, else `~/.claude/plans`.
fn plan_dirs(args: &HookArgs, home: Option<&Path>) -> Vec<PathBuf> {
    if !args.plan_dirs.is_empty() {
        return args.plan_dirs.clone();
    }
    home.map(|h| vec![h.join(".claude").join("plans")])
        .unwrap_or_default()
}

fn list(dirs: &[PathBuf]) -> String {
    if dirs.is_empty() {
        return "none: HOME is not set".into();
    }
    dirs.iter()
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `named`, resolved (`..` and symlinks), when it is a file inside one of `dirs`.
fn inside(named: &str, dirs: &[PathBuf]) -> Option<PathBuf> {
    let real = std::fs::canonicalize(named).ok().filter(|p| p.is_file())?;
    dirs.iter()
        .filter_map(|d| std::fs::canonicalize(d).ok())
        .any(|d| real.starts_with(d))
        .then_some(real)
}

/// A plan file named in the tool input, if Claude Code sent one.
fn plan_from_input(event: &Value) -> Option<String> {
    let input = event.get("tool_input")?;
    ["planFilePath", "plan_file_path", "planFile", "plan_path"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .map(str::to_string)
}

/// The most recently modified `*.md` in the plan directories.
fn newest_plan(dirs: &[PathBuf]) -> Option<PathBuf> {
    dirs.iter()
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md") && p.is_file())
        .filter_map(|p| {
            std::fs::metadata(&p)
                .and_then(|m| m.modified())
                .ok()
                .map(|t| (t, p))
        })
        .max_by_key(|(t, _)| *t)
        .map(|(_, p)| p)
}
