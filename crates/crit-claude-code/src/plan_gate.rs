//! `crit hook claude-code PreToolUse`: hold `ExitPlanMode` until `crit plan`
//! approved the plan as it is now (expert-review's "Re-Review Requirements").
//! The approval marker is sealed and recomputed here (see crit-checks'
//! `approval`), and the plan is bound twice: the file the tool input names
//! must be inside the configured plan directories and approved as it is on
//! disk, and the plan text the agent submits (`tool_input.plan`) must be that
//! file's text. No named plan, or a different text, is denied with the reason:
//! the model never chooses which plan is checked, nor swaps the text it
//! leaves plan mode with.

use std::path::{Path, PathBuf};

use crit_checks::{Freshness, Options};
use crit_llm::Env;
use serde_json::{Value, json};

use crate::HookOutput;

/// Where plans are and which one, as the hook was configured.
#[derive(Debug, Clone, Default)]
pub struct PlanGate {
    /// `--plan`: the one plan to check, whatever the tool input names.
    pub plan: Option<String>,
    /// `--plan-dir`: where plans may be (default `~/.claude/plans`).
    pub plan_dirs: Vec<PathBuf>,
}

/// The hook's input is not the JSON Claude Code sends.
#[derive(Debug, thiserror::Error)]
#[error("hook input is not JSON ({}:{}): {source}", source.line(), source.column())]
pub struct BadInput {
    #[source]
    pub source: serde_json::Error,
}

/// The hook's answer to one PreToolUse event. Bad input is an error: the
/// binary exits 2 on it, and Claude Code then blocks the tool (fail closed).
pub fn run(input: &[u8], gate: &PlanGate, env: &Env) -> Result<HookOutput, BadInput> {
    let event: Value = serde_json::from_slice(input).map_err(|source| BadInput { source })?;
    if event.get("tool_name").and_then(Value::as_str) != Some("ExitPlanMode") {
        return Ok(HookOutput::default());
    }
    let options = Options {
        home: env.get("HOME").filter(|h| !h.is_empty()).map(PathBuf::from),
        state_dir: crit_os::dirs::state_dir(env),
        ..Options::default()
    };
    let dirs = plan_dirs(gate, options.home.as_deref());
    let plan = match (&gate.plan, plan_from_input(&event)) {
        (Some(p), _) => p.clone(),
        (None, Some(named)) => match inside(&named, &dirs) {
            Some(p) => p.display().to_string(),
            None => {
                return Ok(deny(&format!(
                    "crit: {named} is not inside the plan directories this hook checks ({}); keep plans there, or configure the hook with --plan-dir",
                    list(&dirs)
                )));
            }
        },
        (None, None) => {
            return Ok(deny(
                "crit: the tool input names no plan file, so there is no approved plan to check it against; review the plan with `crit plan PATH` and leave plan mode with that file (or configure the hook with --plan)",
            ));
        }
    };
    let paths = match crit_checks::verify(&plan, &options) {
        Ok((paths, Freshness::Fresh)) => paths,
        Ok((paths, freshness)) => {
            return Ok(deny(&format!(
                "crit: {}; review it with `crit plan {plan}` before leaving plan mode",
                why_not(freshness, &paths.plan)
            )));
        }
        Err(e) => return Ok(deny(&format!("crit: cannot verify the plan approval: {e}"))),
    };
    // The approval holds for the file; the agent must leave with its text.
    let Some(submitted) = event
        .get("tool_input")
        .and_then(|i| i.get("plan"))
        .and_then(Value::as_str)
    else {
        return Ok(deny(&format!(
            "crit: the tool input carries no plan text to check against the approved {}",
            paths.plan.display()
        )));
    };
    let approved = match crit_core::files::read_to_string(&paths.plan) {
        Ok(t) => t,
        Err(e) => {
            return Ok(deny(&format!(
                "crit: cannot read the approved plan {}: {e}",
                paths.plan.display()
            )));
        }
    };
    if !same_text(submitted, &approved) {
        return Ok(deny(&format!(
            "crit: the plan you are leaving plan mode with is not the text of the approved {}; leave with that plan as it is, or review the new one with `crit plan`",
            paths.plan.display()
        )));
    }
    Ok(HookOutput::default())
}

/// The same plan, up to line endings and white space at its end (Claude
/// Code may trim the text it sends).
fn same_text(submitted: &str, approved: &str) -> bool {
    let norm = |t: &str| t.replace("\r\n", "\n").trim_end().to_string();
    norm(submitted) == norm(approved)
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

fn deny(reason: &str) -> HookOutput {
    HookOutput::json(json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }))
}

/// The plan directories: `--plan-dir`s, else `~/.claude/plans`.
fn plan_dirs(gate: &PlanGate, home: Option<&Path>) -> Vec<PathBuf> {
    if !gate.plan_dirs.is_empty() {
        return gate.plan_dirs.clone();
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
