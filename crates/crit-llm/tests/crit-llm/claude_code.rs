//! The Claude Code backend against the scripted fake `claude`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use std::path::Path;
use std::time::{Duration, Instant};

use crit_llm::{
    Agent, AgentProgress, AgentTask, ClaudeAuth, ClaudeCode, ClaudeCodeConfig, Env, LlmError,
    Model, ModelRequest, OutputSchema,
};
use crit_testkit::FakeClaude;
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn env() -> Env {
    Env::from_pairs([
        ("PATH", "/usr/bin:/bin"),
        ("HOME", "/tmp"),
        ("ANTHROPIC_API_KEY", "sk-ant-must-not-leak"),
        ("ANTHROPIC_AUTH_TOKEN", "tok-must-not-leak"),
        ("CLAUDECODE", "1"),
    ])
}

fn backend(bin: &Path, auth: ClaudeAuth, timeout: Duration) -> ClaudeCode {
    let mut c = ClaudeCodeConfig::new(bin, env());
    c.auth = auth;
    c.timeout = timeout;
    ClaudeCode::new(c)
}

fn task() -> AgentTask {
    AgentTask {
        prompt: "Review the diff.\nLine two.".into(),
        system_prompt: Some("You are a strict reviewer.".into()),
        model: Some("sonnet".into()),
        tools: Some(vec!["Read".into(), "Grep".into(), "Glob".into()]),
        allowed_tools: vec!["Read".into(), "Grep".into(), "Glob".into()],
        max_turns: Some(8),
        json_schema: Some(
            json!({"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}),
        ),
        ..AgentTask::default()
    }
}

#[tokio::test]
async fn argv_stdin_and_env_in_subscription_mode() {
    let dir = tempfile::tempdir().unwrap();
    let bin = FakeClaude::new()
        .emit_init()
        .emit_tool_use("Read", json!({"file_path": "a.rs"}))
        .emit_result(FakeClaude::structured_result(json!({"ok": true})))
        .write(dir.path());
    let cc = backend(&bin, ClaudeAuth::Subscription, Duration::from_secs(20));
    let mut progress = Vec::new();
    let out = cc
        .run_with_progress(&task(), CancellationToken::new(), &mut |p| progress.push(p))
        .await
        .unwrap();
    assert_eq!(
        progress,
        vec![
            AgentProgress::Started {
                model: "claude-opus-5-5".into()
            },
            AgentProgress::ToolUse {
                name: "Read".into(),
                input: json!({"file_path": "a.rs"})
            },
        ]
    );
    assert_eq!(out.structured_output, Some(json!({"ok": true})));
    assert_eq!(out.num_turns, 2);
    assert_eq!(out.usage.input_tokens, 100);
    assert_eq!(out.usage.output_tokens, 20);
    assert!((out.cost.usd - 0.0009).abs() < 1e-12);
    assert_eq!(out.model.as_deref(), Some("claude-opus-5-5"));
    assert_eq!(out.transcript.len(), 1);
    assert!(out.incomplete.is_none());

    let inv = &FakeClaude::invocations(dir.path())[0];
    assert_eq!(inv.stdin, "Review the diff.\nLine two.");
    assert!(inv.has_arg("-p"));
    assert!(inv.has_arg("--verbose"));
    assert!(inv.has_arg("--no-session-persistence"));
    assert_eq!(inv.arg_value("--output-format"), Some("stream-json"));
    assert_eq!(
        inv.arg_value("--settings"),
        Some(r#"{"disableAllHooks":true}"#)
    );
    assert_eq!(
        inv.arg_value("--system-prompt"),
        Some("You are a strict reviewer.")
    );
    assert_eq!(inv.arg_value("--tools"), Some("Read,Grep,Glob"));
    assert_eq!(inv.arg_value("--allowedTools"), Some("Read,Grep,Glob"));
    assert_eq!(inv.arg_value("--model"), Some("sonnet"));
    assert_eq!(inv.arg_value("--max-turns"), Some("8"));
    let schema: serde_json::Value =
        serde_json::from_str(inv.arg_value("--json-schema").unwrap()).unwrap();
    assert_eq!(schema["required"], json!(["ok"]));
    // The prompt is never on the command line.
    assert!(!inv.argv.iter().any(|a| a.contains("Review the diff")));

    assert_eq!(inv.env.get("ANTHROPIC_API_KEY"), None);
    assert_eq!(inv.env.get("ANTHROPIC_AUTH_TOKEN"), None);
    assert_eq!(
        inv.env
            .get("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC")
            .map(String::as_str),
        Some("1")
    );
    assert_eq!(
        inv.env.get("CLAUDE_CODE_MAX_RETRIES").map(String::as_str),
        Some("2")
    );
}

#[tokio::test]
async fn environment_mode_passes_the_key_through() {
    let dir = tempfile::tempdir().unwrap();
    let bin = FakeClaude::new()
        .emit_result(FakeClaude::success_result("fine"))
        .write(dir.path());
    let cc = backend(&bin, ClaudeAuth::Environment, Duration::from_secs(20));
    let mut t = task();
    t.json_schema = None;
    let out = cc.run(&t, CancellationToken::new()).await.unwrap();
    assert_eq!(out.text, "fine");
    let inv = &FakeClaude::invocations(dir.path())[0];
    assert_eq!(
        inv.env.get("ANTHROPIC_API_KEY").map(String::as_str),
        Some("sk-ant-must-not-leak")
    );
}

#[tokio::test]
async fn is_error_with_success_subtype_is_a_typed_error() {
    for (status, message) in [
        (401u16, "Invalid API key · Fix external API key"),
        (529, "API Error: 529 Overloaded."),
        (429, "API Error: Request rejected (429) · rate limited"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let bin = FakeClaude::new()
            .emit_init()
            .emit_result(FakeClaude::api_error_result(status, message))
            .exit_code(1)
            .write(dir.path());
        let err = backend(&bin, ClaudeAuth::Subscription, Duration::from_secs(20))
            .run(&task(), CancellationToken::new())
            .await
            .unwrap_err();
        let ok = match status {
            401 => matches!(err, LlmError::Auth { .. }),
            529 => matches!(err, LlmError::Overloaded { .. }),
            _ => matches!(err, LlmError::RateLimited { .. }),
        };
        assert!(ok, "{status}: {err:?}");
    }
}

#[tokio::test]
async fn max_turns_is_incomplete_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let bin = FakeClaude::new()
        .emit_result(FakeClaude::max_turns_result(1))
        .exit_code(1)
        .write(dir.path());
    let out = backend(&bin, ClaudeAuth::Subscription, Duration::from_secs(20))
        .run(&task(), CancellationToken::new())
        .await
        .unwrap();
    let why = out.incomplete.unwrap();
    assert_eq!(why.limit(), "error_max_turns");
    assert_eq!(why.errors, ["Reached maximum number of turns (1)"]);
    assert!(why.to_string().starts_with("error_max_turns: "), "{why}");
}

#[tokio::test]
async fn missing_structured_output_is_a_parse_error() {
    let dir = tempfile::tempdir().unwrap();
    let bin = FakeClaude::new()
        .emit_result(FakeClaude::success_result("I think it is fine."))
        .write(dir.path());
    let err = backend(&bin, ClaudeAuth::Subscription, Duration::from_secs(20))
        .run(&task(), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Parse { .. }), "{err:?}");
}

#[tokio::test]
async fn crash_without_result_reports_stderr_without_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let bin = FakeClaude::new()
        .emit_stderr("fatal: boom with sk-ant-must-not-leak")
        .exit_code(3)
        .write(dir.path());
    let err = backend(&bin, ClaudeAuth::Subscription, Duration::from_secs(20))
        .run(&task(), CancellationToken::new())
        .await
        .unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, LlmError::Agent { .. }), "{err:?}");
    assert!(msg.contains("fatal: boom"), "{msg}");
    assert!(!msg.contains("must-not-leak"), "{msg}");
}

#[tokio::test]
async fn a_hang_kills_the_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let bin = FakeClaude::new()
        .emit_init()
        .sleep_secs(60)
        .emit_result(FakeClaude::success_result("too late"))
        .write(dir.path());
    let started = Instant::now();
    let err = backend(&bin, ClaudeAuth::Subscription, Duration::from_millis(700))
        .run(&task(), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Timeout { .. }), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(10));
    let inv = &FakeClaude::invocations(dir.path())[0];
    assert!(inv.grandchild_pid.is_some());
    // SIGKILL is delivered at once, but give the kernel a moment to reap.
    for _ in 0..50 {
        if !inv.grandchild_alive() && !inv.pid.is_some_and(crit_testkit::pid_alive) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!inv.grandchild_alive(), "the sleep grandchild survived");
    assert!(!inv.completed);
}

#[tokio::test]
async fn cancel_kills_the_group_too() {
    let dir = tempfile::tempdir().unwrap();
    let bin = FakeClaude::new().sleep_secs(60).write(dir.path());
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(400)).await;
        c2.cancel();
    });
    let started = Instant::now();
    let err = backend(&bin, ClaudeAuth::Subscription, Duration::from_secs(30))
        .run(&task(), cancel)
        .await
        .unwrap_err();
    assert_eq!(err, LlmError::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(10));
    let inv = &FakeClaude::invocations(dir.path())[0];
    for _ in 0..50 {
        if !inv.grandchild_alive() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!inv.grandchild_alive());
}

#[tokio::test]
async fn as_a_model_one_prompt_no_tools() {
    let dir = tempfile::tempdir().unwrap();
    let bin = FakeClaude::new()
        .emit_result(FakeClaude::structured_result(json!({"verdict": "PASS"})))
        .write(dir.path());
    let cc = backend(&bin, ClaudeAuth::Subscription, Duration::from_secs(20));
    let mut req = ModelRequest::new("opus", 100)
        .system("sys one")
        .system("sys two")
        .user("check this");
    req.output_schema = Some(OutputSchema {
        name: "r".into(),
        schema: json!({"type":"object"}),
    });
    let r = cc.complete(&req, CancellationToken::new()).await.unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&r.text()).unwrap(),
        json!({"verdict": "PASS"})
    );
    assert!(r.cost.priced);
    let inv = &FakeClaude::invocations(dir.path())[0];
    assert_eq!(inv.stdin, "check this");
    assert_eq!(inv.arg_value("--tools"), Some(""));
    assert_eq!(inv.arg_value("--system-prompt"), Some("sys one\n\nsys two"));
    assert!(Model::capabilities(&cc).runs_own_loop);
}

#[tokio::test]
async fn missing_binary_is_a_clear_error() {
    let cc = backend(
        Path::new("/nonexistent/claude"),
        ClaudeAuth::Subscription,
        Duration::from_secs(5),
    );
    let err = cc.run(&task(), CancellationToken::new()).await.unwrap_err();
    assert!(err.to_string().contains("/nonexistent/claude"), "{err}");
}

#[tokio::test]
async fn output_past_the_response_cap_stops_the_run_and_its_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let bin = FakeClaude::new()
        .emit_init()
        .emit_assistant_text("x".repeat(4096))
        .sleep_secs(1000)
        .emit_result(FakeClaude::structured_result(json!({"ok": true})))
        .write(dir.path());
    let mut c = ClaudeCodeConfig::new(&bin, env());
    c.timeout = Duration::from_secs(60);
    c.limits.max_bytes = 2048;
    let err = ClaudeCode::new(c)
        .run(&task(), CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(err, LlmError::ResponseTooLarge { limit: 2048 });
    let run = &FakeClaude::invocations(dir.path())[0];
    // The sleeping grandchild went with the group.
    let deadline = Instant::now() + Duration::from_secs(10);
    while run.grandchild_alive() {
        assert!(Instant::now() < deadline, "the grandchild still runs");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// claude's answer when it has no login.
fn not_logged_in() -> serde_json::Value {
    json!({"type": "result", "subtype": "success", "is_error": true, "api_error_status": null,
           "result": "Not logged in · Please run /login"})
}

#[tokio::test]
async fn not_logged_in_with_a_withheld_key_says_crit_withheld_it_and_how_to_use_it() {
    let dir = tempfile::tempdir().unwrap();
    let bin = FakeClaude::new()
        .emit_init()
        .emit_result(not_logged_in())
        .exit_code(1)
        .write(dir.path());
    let err = backend(&bin, ClaudeAuth::Subscription, Duration::from_secs(20))
        .run(&task(), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Auth { .. }), "{err:?}");
    let text = err.to_string();
    for want in [
        "Not logged in",
        "crit withheld ANTHROPIC_API_KEY and ANTHROPIC_AUTH_TOKEN from claude on purpose",
        "CRIT_CLAUDE_AUTH=api-key",
        "--provider anthropic",
    ] {
        assert!(text.contains(want), "{want}: {text}");
    }
    assert!(!text.contains("sk-ant-must-not-leak"), "{text}");
    // No key to withhold, or the key passed on: claude's own words only.
    let mut c = ClaudeCodeConfig::new(&bin, Env::from_pairs([("PATH", "/usr/bin:/bin")]));
    c.timeout = Duration::from_secs(20);
    let err = ClaudeCode::new(c)
        .run(&task(), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(!err.to_string().contains("withheld"), "{err}");
    let err = backend(&bin, ClaudeAuth::Environment, Duration::from_secs(20))
        .run(&task(), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(!err.to_string().contains("withheld"), "{err}");
}
