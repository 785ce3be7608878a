//! Subscription mode end to end: the `crit` binary drives the real Claude Code
//! CLI (npm `@anthropic-ai/claude-code`, pinned in `.ci/install-test-deps`),
//! which talks to crit-testkit's fake Anthropic server. Each review kind that
//! asks the CLI for structured output sends one of crit's own schemas through
//! `--json-schema`, and the structured answer must land in the result.
//!
//! Without the installed CLI these tests are reported as ignored, with the
//! reason, on a developer machine; under CI (`CI` set) they fail, because CI
//! installs it.

use crate::support;

use std::path::Path;

use assert_cmd::Command;
use crit_testkit::{FakeServer, RecordedRequest, Reply, Step};
use serde_json::{Value, json};
use support::{git, init_repo, json_out, write};

/// `crit` on the claude-code provider, the real CLI pointed at `server`. The
/// CLI uses the fake key it is given (`CRIT_CLAUDE_AUTH=env`): on a user's
/// machine subscription mode removes API keys and the CLI uses the login.
fn crit(dir: &Path, server: &FakeServer, bin: &Path) -> Command {
    let mut c = support::crit(dir, server, None);
    c.env("CRIT_CLAUDE_BIN", bin)
        .env("CRIT_CLAUDE_AUTH", "env")
        .env("CRIT_PROVIDER", "claude-code");
    c
}

/// The schema the CLI offered the model as its StructuredOutput tool.
fn offered_schema(reqs: &[RecordedRequest]) -> Value {
    reqs.iter()
        .flat_map(|r| r.body["tools"].as_array().cloned().unwrap_or_default())
        .find(|t| t["name"] == "StructuredOutput")
        .map(|t| t["input_schema"].clone())
        .expect("the CLI offered no StructuredOutput tool")
}

fn assert_cli_dialect(schema: &Value) {
    let text = schema.to_string();
    assert!(!text.contains("$schema"), "{text}");
    assert!(!text.contains("uint32"), "{text}");
}

#[test]
#[cfg_attr(
    missing_claude_cli,
    ignore = "the Claude Code CLI is not installed: run .ci/install-test-deps"
)]
fn code_review_findings_schema_end_to_end() {
    let bin = crate::support::npm_bin("claude");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, "src/app.py", "def main():\n    return 1\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    write(d, "src/app.py", "def main():\n    return eval(input())\n");
    git(d, &["commit", "-q", "-am", "read input"]);

    let server = FakeServer::start_blocking();
    server.push(
        Step::when_contains("eval(input())").reply(Reply::json(json!({
            "verdict": "FAIL",
            "summary": "Runs user input as code.",
            "findings": [{"file_path": "src/app.py", "line_start": 2, "line_end": 2, "priority": 0,
                          "title": "eval of user input", "body": "Any input runs as Python."}]
        }))),
    );
    let out = crit(d, &server, &bin)
        .args([
            "review",
            "code",
            "--diff",
            "HEAD~1",
            "--json",
            "--no-log",
            "--fail-on",
            "p1",
        ])
        .output()
        .unwrap();
    let result = json_out(&out);
    assert_eq!(result["verdict"], "FAIL", "{result}");
    assert_eq!(result["parse_error"], Value::Null, "{result}");
    assert_eq!(result["findings"][0]["title"], "eval of user input");
    assert_eq!(result["findings"][0]["location"]["path"], "src/app.py");
    assert_eq!(out.status.code(), Some(1), "the P0 fails the gate");
    assert_cli_dialect(&offered_schema(&server.model_requests()));
}

#[test]
#[cfg_attr(
    missing_claude_cli,
    ignore = "the Claude Code CLI is not installed: run .ci/install-test-deps"
)]
fn run_with_reldo_output_schema_end_to_end() {
    let bin = crate::support::npm_bin("claude");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        ".claude/reldo.json",
        &json!({
            "prompt": "You coordinate code reviews. Answer in the requested format.",
            "allowed_tools": ["Read", "Glob", "Grep"],
            "output_schema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {
                    "passed": {"type": "boolean"},
                    "violations": {"type": "array", "items": {"type": "object", "properties": {
                        "file": {"type": "string"}, "line": {"type": "number"}, "message": {"type": "string"}}}}
                },
                "required": ["passed"]
            }
        })
        .to_string(),
    );
    let server = FakeServer::start_blocking();
    let answer = json!({"passed": false, "violations": [{"file": "app/User.php", "line": 12, "message": "raw SQL"}]});
    server.push(Step::when_contains("Review app/User.php").reply(Reply::json(answer.clone())));
    let out = crit(d, &server, &bin)
        .args([
            "run",
            "Review app/User.php",
            "--config",
            ".claude/reldo.json",
            "--json",
            "--exit-code",
            "--no-log",
        ])
        .output()
        .unwrap();
    let result = json_out(&out);
    assert_eq!(result["structured_output"], answer, "{result}");
    assert_eq!(result["passed"], false);
    assert_eq!(out.status.code(), Some(1));
    let schema = offered_schema(&server.model_requests());
    assert_cli_dialect(&schema);
    assert_eq!(schema["required"], json!(["passed"]));
}

#[test]
#[cfg_attr(
    missing_claude_cli,
    ignore = "the Claude Code CLI is not installed: run .ci/install-test-deps"
)]
fn plan_persona_panel_end_to_end() {
    let bin = crate::support::npm_bin("claude");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "plan.md",
        "# Plan: cache user profiles\n\n1. Add a `ProfileCache` in front of `ProfileStore::get`.\n2. Invalidate on update.\n",
    );
    write(
        d,
        "context.yaml",
        "reviewer_personas:\n  - name: \"Dr. Ada Cache\"\n    domain: \"caching\"\n    focus: [\"invalidation\"]\n",
    );
    write(
        d,
        "checks.yaml",
        "checks:\n  - id: no_eval\n    pattern: \"eval(\"\n    reason: \"eval runs arbitrary code\"\n",
    );
    let server = FakeServer::start_blocking();
    server.push(
        Step::when_contains("You are Dr. Ada Cache").reply(Reply::json(
            json!({"verdict": "FAIL", "summary": "Stale reads.", "findings": [
            {"file_path": "plan.md", "line_start": 4, "line_end": 4, "priority": 1,
             "title": "Invalidation misses logout", "body": "Sessions keep stale profiles."}]}),
        )),
    );
    let out = crit(d, &server, &bin)
        .args(["plan", ".", "--non-interactive"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("REJECTED"),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("Invalidation misses logout"), "{text}");
    assert!(!d.join("plan.approved").exists());
    assert_cli_dialect(&offered_schema(&server.model_requests()));
}

#[test]
#[cfg_attr(
    missing_claude_cli,
    ignore = "the Claude Code CLI is not installed: run .ci/install-test-deps"
)]
fn the_schema_crit_was_given_decides_not_the_clis_rewrite() {
    let bin = crate::support::npm_bin("claude");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // `unevaluatedProperties` has no draft-07 equivalent: the CLI checks the
    // answer without it, crit checks it with it.
    write(
        d,
        ".crit/run.yaml",
        &json!({
            "prompt": "You coordinate code reviews.",
            "allowed_tools": ["Read"],
            "output_schema": {
                "type": "object",
                "properties": {"passed": {"type": "boolean"}},
                "required": ["passed"],
                "unevaluatedProperties": false
            }
        })
        .to_string(),
    );
    let server = FakeServer::start_blocking();
    server.push(
        Step::when_contains("Review it")
            .reply(Reply::json(json!({"passed": true, "approve_anyway": true}))),
    );
    let out = crit(d, &server, &bin)
        .args([
            "run",
            "Review it",
            "--config",
            ".crit/run.yaml",
            "--json",
            "--exit-code",
            "--no-log",
        ])
        .output()
        .unwrap();
    let result = json_out(&out);
    assert_eq!(result["verdict"], "UNKNOWN", "{result}");
    let why = result["parse_error"].as_str().unwrap();
    assert!(why.starts_with("schema mismatch: "), "{why}");
    assert!(why.contains("approve_anyway"), "{why}");
    assert_eq!(out.status.code(), Some(1));
}
