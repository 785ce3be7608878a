//! The real Claude Code CLI (npm `@anthropic-ai/claude-code`, pinned in
//! `.ci/install-test-deps`) driven through crit's claude-code backend against
//! crit-testkit's fake Anthropic server: a plain answer, a structured answer, an
//! API error. The CLI never reaches the network: `ANTHROPIC_BASE_URL` points at
//! the fake and non-essential traffic is off.
//!
//! Without the installed CLI these tests are reported as ignored, with the
//! reason, on a developer machine; under CI (`CI` set) they fail, because CI
//! installs it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Duration;

use crit_llm::{Agent, AgentTask, ClaudeAuth, ClaudeCode, ClaudeCodeConfig, Env, LlmError};
use crit_testkit::{FakeServer, Reply, Step};
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// The pinned CLI. The tests that call this are ignored where it is missing
/// (see `.ci/test_deps_cfg.rs`); under CI they run, and this fails saying how
/// to install it.
fn claude_bin() -> PathBuf {
    let bin = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../.test-deps/npm/node_modules/.bin/claude");
    assert!(
        bin.exists(),
        "{} is missing: run .ci/install-test-deps",
        bin.display()
    );
    bin
}

fn backend(bin: PathBuf, server: &FakeServer, home: &std::path::Path) -> ClaudeCode {
    let env = Env::from_pairs([
        ("PATH", std::env::var("PATH").unwrap_or_default()),
        ("HOME", home.display().to_string()),
        ("ANTHROPIC_BASE_URL", server.url()),
        ("ANTHROPIC_API_KEY", "sk-ant-fake-for-tests".to_string()),
        ("DISABLE_AUTOUPDATER", "1".to_string()),
    ]);
    let mut c = ClaudeCodeConfig::new(bin, env);
    // The API key is the fake server's; in subscription mode crit would remove it.
    c.auth = ClaudeAuth::Environment;
    c.timeout = Duration::from_secs(60);
    c.cwd = Some(home.to_path_buf());
    ClaudeCode::new(c)
}

fn task(prompt: &str) -> AgentTask {
    AgentTask {
        prompt: prompt.into(),
        system_prompt: Some("You are a terse reviewer.".into()),
        model: Some("sonnet".into()),
        tools: Some(vec![]),
        max_turns: Some(3),
        ..AgentTask::default()
    }
}

#[tokio::test]
#[cfg_attr(
    missing_claude_cli,
    ignore = "the Claude Code CLI is not installed: run .ci/install-test-deps"
)]
async fn plain_answer() {
    let bin = claude_bin();
    let home = tempfile::tempdir().unwrap();
    let server = FakeServer::start().await;
    server.push(
        Step::when_contains("Say hello to the reviewer")
            .reply(Reply::text("Hello from the fake model.").usage(120, 8, 0, 0)),
    );
    let out = backend(bin, &server, home.path())
        .run(&task("Say hello to the reviewer"), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(out.text, "Hello from the fake model.");
    assert_eq!(out.incomplete, None);
    assert_eq!(out.usage.output_tokens, 8);
    let reqs = server.model_requests();
    let req = reqs
        .iter()
        .find(|r| r.body.to_string().contains("Say hello to the reviewer"))
        .unwrap();
    assert_eq!(req.path, "/v1/messages");
    assert_eq!(req.body["model"], "claude-sonnet-5-5");
    assert!(req.body.to_string().contains("You are a terse reviewer."));
    assert!(req.body.get("temperature").is_none());
}

#[tokio::test]
#[cfg_attr(
    missing_claude_cli,
    ignore = "the Claude Code CLI is not installed: run .ci/install-test-deps"
)]
async fn structured_answer() {
    let bin = claude_bin();
    let home = tempfile::tempdir().unwrap();
    let server = FakeServer::start().await;
    server.push(
        Step::when_contains("Return the verdict")
            .reply(Reply::json(json!({"verdict": "PASS", "findings": []}))),
    );
    let mut t = task("Return the verdict");
    t.json_schema = Some(json!({
        "type": "object",
        "properties": {"verdict": {"type": "string"}, "findings": {"type": "array"}},
        "required": ["verdict", "findings"]
    }));
    let out = backend(bin, &server, home.path())
        .run(&t, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(
        out.structured_output,
        Some(json!({"verdict": "PASS", "findings": []}))
    );
    let reqs = server.model_requests();
    let offered = reqs.iter().any(|r| {
        r.body["tools"]
            .as_array()
            .is_some_and(|ts| ts.iter().any(|t| t["name"] == "StructuredOutput"))
    });
    assert!(
        offered,
        "the CLI offers its StructuredOutput tool for --json-schema"
    );
}

#[tokio::test]
#[cfg_attr(
    missing_claude_cli,
    ignore = "the Claude Code CLI is not installed: run .ci/install-test-deps"
)]
async fn api_error_is_a_typed_error() {
    let bin = claude_bin();
    let home = tempfile::tempdir().unwrap();
    let server = FakeServer::start().await;
    for _ in 0..4 {
        server.push(
            Step::when_contains("Review this").reply(
                Reply::api_error(401, "authentication_error", "invalid x-api-key")
                    .with_header("x-should-retry", "false"),
            ),
        );
    }
    let err = backend(bin, &server, home.path())
        .run(&task("Review this"), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Auth { .. }), "{err:?}");
    assert!(!err.to_string().contains("sk-ant-fake-for-tests"));
}
