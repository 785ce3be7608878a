//! `crit doctor` end to end: the binary against crit-testkit's fake servers.

use assert_cmd::Command;
use crit_testkit::{FakeServer, Reply, Step};
use predicates::prelude::*;
use serde_json::json;

/// `crit` with a clean, hermetic environment: no credentials, no claude on PATH.
fn crit() -> Command {
    let mut c = Command::cargo_bin("crit").unwrap();
    c.env_clear()
        .env("PATH", "/nonexistent")
        .env("HOME", std::env::temp_dir());
    c
}

#[test]
fn reports_selection_latency_tokens_and_cost() {
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::text("OK").usage(14, 2, 3, 5)));
    let out = crit()
        .args(["doctor", "--model", "sonnet"])
        .env("ANTHROPIC_API_KEY", "sk-ant-doctor-secret")
        .env("ANTHROPIC_BASE_URL", server.url())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("provider"), "{stdout}");
    assert!(stdout.contains("anthropic"), "{stdout}");
    assert!(stdout.contains("(--model)"), "{stdout}");
    assert!(stdout.contains("ANTHROPIC_API_KEY"), "{stdout}");
    assert!(stdout.contains("claude-sonnet-5-5"), "{stdout}");
    assert!(stdout.contains("22 in / 2 out tokens"), "{stdout}");
    // Where caching starts for the model (models.json), and what this request cached.
    assert!(
        stdout.contains("cache       prefixes from 4096 tokens are cached on claude-sonnet-5-5; this request read 5 and wrote 3 cached tokens"),
        "{stdout}"
    );
    assert!(stdout.contains("reply       OK"), "{stdout}");
    assert!(stdout.contains("\nsandbox     "), "{stdout}");
    assert_sandbox_line(&stdout);
    assert!(
        !stdout.contains("sk-ant-doctor-secret"),
        "the key never shows"
    );
    let req = &server.model_requests()[0];
    assert_eq!(req.header("x-api-key"), Some("sk-ant-doctor-secret"));
    assert_eq!(req.body["max_tokens"], 16);
}

#[test]
fn a_bad_key_fails_fast_with_a_diagnosis() {
    let server = FakeServer::start_blocking();
    for _ in 0..3 {
        server.push(Step::reply(Reply::api_error(
            401,
            "authentication_error",
            "invalid x-api-key",
        )));
    }
    crit()
        .args(["doctor"])
        .env("ANTHROPIC_API_KEY", "sk-ant-bad")
        .env("ANTHROPIC_BASE_URL", server.url())
        .assert()
        .code(3)
        .stdout(predicate::str::contains(
            "request     failed: authentication failed (401): invalid x-api-key",
        ))
        .stdout(predicate::str::contains("diagnosis   check the API key"));
    assert_eq!(server.model_requests().len(), 1, "no retries on 401");
}

#[test]
fn openai_compatible_server_and_json_output() {
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::text("OK").usage(9, 1, 0, 0)));
    let out = crit()
        .args(["doctor", "--json", "--model", "qwen3:8b"])
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["ok"], true);
    assert_eq!(v["report"]["backend"], "openai");
    assert_eq!(v["report"]["usage"]["input_tokens"], 9);
    assert_eq!(server.model_requests()[0].path, "/v1/chat/completions");
    assert_eq!(
        v["sandbox"]["active"],
        v["sandbox"]["landlock_abi"].is_u64()
    );
    if std::env::var("CI").as_deref() == Ok("true") {
        assert_eq!(v["sandbox"]["active"], true, "{v}");
    }
    assert_eq!(server.model_requests()[0].body["model"], json!("qwen3:8b"));
}

#[test]
fn nothing_configured_names_every_fix_and_exits_2() {
    crit()
        .arg("doctor")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no model backend is configured"))
        .stderr(predicate::str::contains("ANTHROPIC_API_KEY"))
        .stderr(predicate::str::contains("OPENAI_BASE_URL"))
        .stderr(predicate::str::contains("Claude Code"))
        .stderr(predicate::str::contains(
            "--provider replay --cassettes DIR",
        ));
}

/// The sandbox line says whether Landlock is active; under CI=true it must be
/// (the machines crit is tested on have it).
fn assert_sandbox_line(stdout: &str) {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("sandbox"))
        .unwrap_or_default();
    let active = line.contains("active (Landlock ABI");
    assert!(
        active || line.contains("not active"),
        "no sandbox status: {stdout}"
    );
    if std::env::var("CI").as_deref() == Ok("true") {
        assert!(
            active,
            "the kernel sandbox is required under CI=true: {line}"
        );
    } else if !active {
        eprintln!("notice: kernel sandbox not active here: {line}");
    }
}
