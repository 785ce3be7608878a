//! crit in Codex CLI and Gemini CLI through the binary: `crit install codex`
//! and `crit install gemini` merge crit's hooks into the agent's own file
//! and uninstall gives it back byte for byte; `crit hook codex|gemini EVENT`
//! answers in the shape each agent documents.
//!
//! The shapes are written here from the agents' own sources, not copied:
//! Codex CLI's hook output schemas (`codex-rs/hooks/schema/generated/
//! stop.command.output.schema.json`, `user-prompt-submit.command.output.
//! schema.json`: no keys beside `continue`, `decision` (only `"block"`),
//! `reason` (not blank when blocking), `stopReason`, `suppressOutput`,
//! `systemMessage`, and `hookSpecificOutput` naming its event), and Gemini
//! CLI's `docs/hooks/reference.md` (`AfterAgent`: `decision` `"deny"` with a
//! `reason` sends the reason back as a new prompt; `BeforeAgent`:
//! `hookSpecificOutput.additionalContext`; timeouts in milliseconds).
//! The real CLIs run these hooks against crit-testkit's Responses API and
//! Gemini API stand-ins in `codex_real` and `gemini_real`.

use crate::install_claude::{read, run, stdout};
use crate::stop_gate::{EVAL, confirmed, repo};
use crate::support;

use std::path::Path;
use std::process::Output;

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};
use support::write;

/// A user's Codex hooks: one of their own under an event crit uses.
const CODEX_HOOKS: &str = r#"{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done",
            "timeout": 5
          }
        ]
      }
    ]
  }
}
"#;

/// A user's Gemini settings: keys crit does not know, four-space indent.
const GEMINI_SETTINGS: &str = r#"{
    "theme": "GitHub",
    "hooksConfig": {
        "notifications": false
    },
    "hooks": {
        "BeforeTool": [
            {
                "matcher": "write_file",
                "hooks": [
                    {
                        "type": "command",
                        "command": "./guard.sh",
                        "timeout": 5000
                    }
                ]
            }
        ]
    }
}
"#;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    dir
}

#[test]
fn install_merges_each_agent_s_hooks_and_uninstall_restores_byte_for_byte() {
    for (agent, file, original, prompt, stop, timeout) in [
        (
            "codex",
            ".codex/hooks.json",
            CODEX_HOOKS,
            "UserPromptSubmit",
            "Stop",
            360,
        ),
        (
            "gemini",
            ".gemini/settings.json",
            GEMINI_SETTINGS,
            "BeforeAgent",
            "AfterAgent",
            360_000,
        ),
    ] {
        let dir = project();
        let d = dir.path();
        write(d, file, original);
        let dry = run(d, &["install", agent, "--dry-run"]);
        assert!(
            stdout(&dry).contains(&format!("crit hook {agent} {stop}")),
            "{}",
            stdout(&dry)
        );
        assert_eq!(read(d, file), original);

        let out = run(d, &["install", agent]);
        let text = stdout(&out);
        assert!(
            text.starts_with(&format!("{file}: added {prompt} hook, {stop} hook\n")),
            "{text}"
        );
        assert!(
            text.contains("wired stop-gate: the review gate when the agent stops\n"),
            "{text}"
        );
        assert!(text.contains("trust"), "{text}");
        let v: Value = serde_json::from_str(&read(d, file)).unwrap();
        let groups = v["hooks"][stop].as_array().unwrap();
        let ours = groups.last().unwrap();
        assert_eq!(
            ours,
            &json!({"hooks": [{"type": "command", "command": format!("crit hook {agent} {stop}"), "timeout": timeout}]})
        );
        assert_eq!(
            v["hooks"][prompt][0]["hooks"][0]["command"],
            format!("crit hook {agent} {prompt}")
        );
        // A second install changes nothing.
        let installed = read(d, file);
        let again = run(d, &["install", agent]);
        assert!(
            stdout(&again).contains("crit's hooks are already there"),
            "{}",
            stdout(&again)
        );
        assert_eq!(read(d, file), installed);

        let out = run(d, &["uninstall", agent]);
        assert_eq!(
            stdout(&out),
            format!("{file}: removed {prompt} hook, {stop} hook\n")
        );
        assert_eq!(read(d, file), original, "{agent}");
        assert!(!d.join(file).with_file_name("crit-install.json").exists());
    }
}

#[test]
fn a_fresh_install_is_taken_out_entirely_and_only_wires_what_the_agent_has() {
    for (agent, dir_name) in [("codex", ".codex"), ("gemini", ".gemini")] {
        let dir = project();
        let d = dir.path();
        let out = run(
            d,
            &["install", agent, "--only", "stop-gate,plan-gate,statusline"],
        );
        let text = stdout(&out);
        assert!(
            text.contains("has no place for plan-gate, statusline: left out"),
            "{text}"
        );
        let file = d.join(dir_name).join(if agent == "codex" {
            "hooks.json"
        } else {
            "settings.json"
        });
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        // The gate alone still notes the session's start, reviewing no prompt.
        let note = v["hooks"]
            .as_object()
            .unwrap()
            .values()
            .flat_map(|g| g.as_array().unwrap())
            .any(|g| {
                g["hooks"][0]["command"]
                    .as_str()
                    .unwrap()
                    .ends_with("--note-only")
            });
        assert!(note, "{v}");
        run(d, &["uninstall", agent]);
        assert!(!d.join(dir_name).exists(), "{agent}");
    }
}

#[test]
fn codex_user_scope_is_codex_home() {
    let dir = project();
    let d = dir.path();
    let home = d.join("codex-home");
    let out = crate::install_claude::crit(d)
        .env("CODEX_HOME", &home)
        .args(["install", "codex", "--user"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", support::stderr(&out));
    assert!(home.join("hooks.json").exists());
    assert!(!d.join(".codex").exists());
    let out = crate::install_claude::crit(d)
        .env("CODEX_HOME", &home)
        .args(["uninstall", "codex", "--user"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", support::stderr(&out));
    assert!(!home.join("hooks.json").exists());
}

/// The keys Codex CLI's hook output schemas allow.
const CODEX_KEYS: [&str; 7] = [
    "continue",
    "decision",
    "reason",
    "stopReason",
    "suppressOutput",
    "systemMessage",
    "hookSpecificOutput",
];

fn answer(o: &Output) -> Value {
    assert_eq!(o.status.code(), Some(0), "{}", support::stderr(o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

fn fits_codex(v: &Value, event: &str) {
    let o = v.as_object().unwrap();
    for k in o.keys() {
        assert!(CODEX_KEYS.contains(&k.as_str()), "{k} in {v}");
    }
    if let Some(d) = o.get("decision") {
        assert_eq!(d, "block", "{v}");
        assert!(
            o["reason"].as_str().is_some_and(|r| !r.trim().is_empty()),
            "{v}"
        );
    }
    if let Some(s) = o.get("hookSpecificOutput") {
        assert_eq!(s["hookEventName"], event, "{v}");
    }
}

fn hook(d: &Path, server: &FakeServer, agent: &str, event: &str, input: &Value) -> Output {
    support::crit(d, server, None)
        .args(["hook", agent, event, "--no-log"])
        .write_stdin(input.to_string())
        .output()
        .unwrap()
}

fn p1() -> Reply {
    Reply::json(
        json!({"verdict": "FAIL", "summary": "Runs user input as code.", "findings": [
        {"file_path": "src/app.py", "line_start": 2, "line_end": 2, "priority": 1,
         "title": "eval of user input", "body": "Any input runs as Python. Use ast.literal_eval."}]}),
    )
}

#[test]
fn each_agent_s_answers_fit_its_documented_shape() {
    // Codex: its Stop input (all the fields its schema requires), a block.
    let dir = repo(EVAL);
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("eval(input())").reply(p1()));
    server.push(confirmed());
    let codex_stop = json!({"session_id": "019a-c", "turn_id": "t1", "transcript_path": null,
        "cwd": d, "hook_event_name": "Stop", "model": "gpt-5", "permission_mode": "default",
        "stop_hook_active": false, "last_assistant_message": "Done."});
    let v = answer(&hook(d, &server, "codex", "Stop", &codex_stop));
    fits_codex(&v, "Stop");
    assert_eq!(v["decision"], "block");
    assert!(
        v["reason"]
            .as_str()
            .unwrap()
            .contains("[P1] eval of user input"),
        "{v}"
    );
    // Its prompt hook: context in its own words.
    let codex_prompt = json!({"session_id": "019a-c", "turn_id": "t2", "transcript_path": null,
        "cwd": d, "hook_event_name": "UserPromptSubmit", "model": "gpt-5",
        "permission_mode": "default", "prompt": "optimize the settings page!!!"});
    let v = answer(&hook(
        d,
        &server,
        "codex",
        "UserPromptSubmit",
        &codex_prompt,
    ));
    fits_codex(&v, "UserPromptSubmit");
    assert!(
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .is_some(),
        "{v}"
    );

    // Gemini: AfterAgent denies with the finding; the retry (stop_hook_active)
    // after the fix is let through.
    let dir = repo(EVAL);
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("eval(input())").reply(p1()));
    server.push(confirmed());
    let after = |active: bool| {
        json!({"session_id": "g-1", "transcript_path": "/nonexistent.json",
        "cwd": d, "hook_event_name": "AfterAgent", "timestamp": "2026-11-28T21:00:00Z",
        "prompt": "add a calculator", "prompt_response": "Done.", "stop_hook_active": active})
    };
    let out = support::crit(d, &server, None)
        .env("GEMINI_PROJECT_DIR", d)
        .args(["hook", "gemini", "AfterAgent", "--no-log"])
        .write_stdin(after(false).to_string())
        .output()
        .unwrap();
    let v = answer(&out);
    assert_eq!(v["decision"], "deny", "{v}");
    assert!(
        v["reason"]
            .as_str()
            .unwrap()
            .contains("[P1] eval of user input"),
        "{v}"
    );
    write(
        d,
        "src/app.py",
        "import ast\ndef main():\n    return ast.literal_eval(input())\n",
    );
    server.push(Step::when_contains("literal_eval").reply(Reply::json(support::pass())));
    let out = hook(d, &server, "gemini", "AfterAgent", &after(true));
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    assert_eq!(stdout(&out), "", "{}", support::stderr(&out));
    // BeforeAgent: context under Gemini's event name.
    let before = json!({"session_id": "g-1", "transcript_path": "/nonexistent.json", "cwd": d,
        "hook_event_name": "BeforeAgent", "timestamp": "2026-11-28T21:00:00Z",
        "prompt": "optimize the settings page!!!"});
    let v = answer(&hook(d, &server, "gemini", "BeforeAgent", &before));
    assert_eq!(
        v["hookSpecificOutput"]["hookEventName"], "BeforeAgent",
        "{v}"
    );
    assert!(v.get("decision").is_none(), "{v}");
}

#[test]
fn an_event_the_agent_does_not_have_is_refused() {
    let dir = project();
    let d = dir.path();
    for (agent, event, supported) in [
        ("gemini", "Stop", "BeforeAgent, AfterAgent"),
        (
            "codex",
            "PreToolUse",
            "UserPromptSubmit, Stop, SubagentStop",
        ),
    ] {
        let out = crate::install_claude::crit(d)
            .args(["hook", agent, event])
            .write_stdin("{}")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(
            support::stderr(&out).contains(supported),
            "{}",
            support::stderr(&out)
        );
    }
}
