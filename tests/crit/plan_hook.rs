//! `crit hook claude-code PreToolUse` holds ExitPlanMode until `crit plan`
//! approved the plan as it is now.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn hook(home: &Path, extra: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_crit"))
        .args(["hook", "claude-code", "PreToolUse"])
        .args(extra)
        .env("HOME", home)
        .env_remove("XDG_STATE_HOME")
        .env_remove("CRIT_PLAN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// ExitPlanMode leaving with the plan at `plan`: its path and its text now.
fn leave(plan: &Path) -> String {
    serde_json::json!({
        "hook_event_name": "PreToolUse",
        "session_id": "s",
        "cwd": "/tmp",
        "tool_name": "ExitPlanMode",
        "tool_input": {
            "plan": fs::read_to_string(plan).unwrap_or_default(),
            "planFilePath": plan.display().to_string(),
        },
        "tool_use_id": "toolu_1"
    })
    .to_string()
}

fn event(tool: &str) -> String {
    serde_json::json!({
        "hook_event_name": "PreToolUse",
        "session_id": "s",
        "cwd": "/tmp",
        "tool_name": tool,
        "tool_input": {"plan": "# Plan"},
        "tool_use_id": "toolu_1"
    })
    .to_string()
}

fn decision(o: &Output) -> Option<serde_json::Value> {
    let text = String::from_utf8_lossy(&o.stdout);
    if text.trim().is_empty() {
        None
    } else {
        Some(serde_json::from_str(&text).unwrap())
    }
}

/// `crit plan PATH` with `home` as HOME (no backend: the checks decide).
fn approve(home: &Path, plan: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_crit"))
        .args(["plan", plan.to_str().unwrap()])
        .env("HOME", home)
        .env_remove("XDG_STATE_HOME")
        .env_remove("CRIT_PROVIDER")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("ANTHROPIC_AUTH_TOKEN")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env("PATH", "/nonexistent")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn exit_plan_mode_waits_for_a_fresh_approval() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let plans = home.join(".claude/plans");
    fs::create_dir_all(&plans).unwrap();
    fs::write(
        plans.join("checks.yaml"),
        "checks:\n  - id: no_eval\n    pattern: eval\n    reason: unsafe\n",
    )
    .unwrap();
    let plan = plans.join("my-plan.md");
    fs::write(&plan, "# Plan\n").unwrap();

    // Never approved: denied, with the command to run.
    let o = hook(home, &[], &leave(&plan));
    assert_eq!(o.status.code(), Some(0));
    let d = decision(&o).unwrap();
    assert_eq!(d["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    assert_eq!(d["hookSpecificOutput"]["permissionDecision"], "deny");
    let reason = d["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert!(
        reason.contains("has not been approved") && reason.contains("crit plan"),
        "{reason}"
    );

    // Approved by `crit plan`: no output, the tool runs.
    assert_eq!(approve(home, &plan).status.code(), Some(0));
    let o = hook(home, &[], &leave(&plan));
    assert_eq!((o.status.code(), decision(&o)), (Some(0), None));

    // Edited after approval: denied again.
    fs::write(&plan, "# Plan\n\nOne more step.\n").unwrap();
    let d = decision(&hook(home, &[], &leave(&plan))).unwrap();
    let reason = d["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert!(reason.contains("changed after it was approved"), "{reason}");

    // An explicit --plan wins over the plan the tool input names.
    let session = home.join("session");
    fs::create_dir_all(&session).unwrap();
    fs::write(session.join("plan.md"), "x").unwrap();
    fs::copy(plans.join("checks.yaml"), session.join("checks.yaml")).unwrap();
    assert_eq!(approve(home, &session).status.code(), Some(0));
    let o = hook(
        home,
        &["--plan", session.to_str().unwrap()],
        &leave(&session.join("plan.md")),
    );
    assert_eq!(decision(&o), None);
}

#[test]
fn other_tools_pass_and_bad_input_blocks() {
    let tmp = tempfile::tempdir().unwrap();
    let o = hook(tmp.path(), &[], &event("Read"));
    assert_eq!((o.status.code(), decision(&o)), (Some(0), None));
    // No plan anywhere: ExitPlanMode is denied.
    let d = decision(&hook(tmp.path(), &[], &event("ExitPlanMode"))).unwrap();
    assert_eq!(d["hookSpecificOutput"]["permissionDecision"], "deny");
    // Not JSON: exit 2, which Claude Code treats as a block.
    assert_eq!(hook(tmp.path(), &[], "not json").status.code(), Some(2));
}
