//! `crit install claude-code --only …` / `--skip …` through the binary: only
//! the pieces asked for are wired, install says which, the review gate
//! without the prompt review still notes the session's start, and uninstall
//! gives the settings back byte for byte.

use crate::install_claude::{read, run, stdout};
use crate::support;

use serde_json::{Value, json};
use support::write;

const MINE: &str = "{\n    \"model\": \"opus\"\n}\n";

fn settings(d: &std::path::Path) -> Value {
    serde_json::from_str(&read(d, ".claude/settings.json")).unwrap()
}

#[test]
fn only_the_prompt_review_is_wired_and_uninstall_restores_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join(".git")).unwrap();
    write(d, ".claude/settings.json", MINE);
    let out = run(d, &["install", "claude-code", "--only", "prompt-review"]);
    let text = stdout(&out);
    assert!(
        text.contains("wired prompt-review: the prompt review on a prompt ending in `!!!`\n"),
        "{text}"
    );
    assert!(
        text.contains("not wired: stop-gate, plan-gate, agent, statusline\n"),
        "{text}"
    );
    assert!(text.contains("--skip NAME"), "{text}");
    let v = settings(d);
    assert_eq!(
        v["hooks"],
        json!({"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "crit hook claude-code UserPromptSubmit", "timeout": 60}]}]})
    );
    assert_eq!(
        v["permissions"]["allow"],
        json!(["Skill(prompt-review)", "Bash(crit prompt:*)"])
    );
    assert!(v.get("statusLine").is_none());
    assert!(d.join(".claude/commands/prompt-review.md").exists());
    assert!(!d.join(".claude/commands/crit-review.md").exists());
    assert!(!d.join(".claude/agents").exists());
    run(d, &["uninstall", "claude-code"]);
    assert_eq!(read(d, ".claude/settings.json"), MINE);
    assert!(!d.join(".claude/commands").exists());
}

#[test]
fn skipping_the_prompt_review_keeps_the_gate_s_session_note() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join(".git")).unwrap();
    write(d, ".claude/settings.json", MINE);
    let out = run(
        d,
        &[
            "install",
            "claude-code",
            "--skip",
            "prompt-review,statusline",
        ],
    );
    assert!(
        stdout(&out).contains("not wired: prompt-review, statusline\n"),
        "{}",
        stdout(&out)
    );
    let v = settings(d);
    let hooks = v["hooks"].as_object().unwrap();
    let mut events: Vec<&String> = hooks.keys().collect();
    events.sort();
    assert_eq!(events, ["PreToolUse", "Stop", "UserPromptSubmit"]);
    assert_eq!(
        v["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"],
        "crit hook claude-code UserPromptSubmit --note-only"
    );
    assert_eq!(
        v["permissions"]["allow"],
        json!(["Skill(crit-review)", "Bash(crit plan:*)"])
    );
    assert!(!d.join(".claude/commands/prompt-review.md").exists());

    // The hook it wires reviews no prompt, even one ending in `!!!`: it exits
    // 0 with nothing on stdout (no backend is set up here; a review would
    // say it could not run).
    let out = crate::install_claude::crit(d)
        .args(["hook", "claude-code", "UserPromptSubmit", "--note-only"])
        .write_stdin(r#"{"session_id":"s1","prompt":"optimize the settings page!!!"}"#)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", support::stderr(&out));
    assert_eq!(stdout(&out), "");
    let out = crate::install_claude::crit(d)
        .args(["hook", "claude-code", "UserPromptSubmit"])
        .write_stdin(r#"{"session_id":"s1","prompt":"optimize the settings page!!!"}"#)
        .output()
        .unwrap();
    // Without the flag the same prompt gets an answer (the review, or why
    // it could not run): the flag is what keeps it quiet.
    assert!(
        stdout(&out).contains("additionalContext"),
        "{}",
        stdout(&out)
    );

    run(d, &["uninstall", "claude-code"]);
    assert_eq!(read(d, ".claude/settings.json"), MINE);
}

#[test]
fn nothing_left_to_install_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join(".git")).unwrap();
    let out = crate::install_claude::crit(d)
        .args([
            "install",
            "claude-code",
            "--only",
            "agent",
            "--skip",
            "agent",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        support::stderr(&out).contains("leave nothing to install"),
        "{}",
        support::stderr(&out)
    );
    assert!(!d.join(".claude").exists());
}
