//! Backend selection as data, with provenance, and the doctor probe.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use std::path::{Path, PathBuf};
use std::time::Duration;

use crit_llm::{
    BackendConfig, ClaudeAuth, Env, LlmError, Provider, Selection, Source, Sourced, doctor,
};
use crit_testkit::{FakeClaude, FakeServer, Reply};
use tokio_util::sync::CancellationToken;

fn fake_claude_dir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let bin = FakeClaude::new()
        .emit_init()
        .emit_result(FakeClaude::success_result("OK"))
        .write(dir.path());
    (dir, bin)
}

fn resolve(env: &Env) -> Result<Selection, LlmError> {
    Selection::resolve(&BackendConfig::default(), env)
}

#[test]
fn auto_selection_table() {
    let (dir, _bin) = fake_claude_dir();
    let path = dir.path().display().to_string();
    type Case<'a> = (Vec<(&'a str, &'a str)>, Provider, &'a str);
    let cases: Vec<Case> = vec![
        (
            vec![("ANTHROPIC_API_KEY", "k")],
            Provider::Anthropic,
            "auto: ANTHROPIC_API_KEY is set",
        ),
        (
            vec![("ANTHROPIC_AUTH_TOKEN", "t")],
            Provider::Anthropic,
            "auto: ANTHROPIC_AUTH_TOKEN is set",
        ),
        (
            vec![
                ("ANTHROPIC_API_KEY", "k"),
                ("OPENAI_BASE_URL", "http://localhost:11434/v1"),
                ("PATH", &path),
            ],
            Provider::Anthropic,
            "auto: ANTHROPIC_API_KEY is set",
        ),
        (
            vec![
                ("OPENAI_BASE_URL", "http://localhost:11434/v1"),
                ("CRIT_MODEL", "qwen3:8b"),
                ("PATH", &path),
            ],
            Provider::OpenAi,
            "auto: OPENAI_BASE_URL is set",
        ),
        (
            vec![("PATH", &path)],
            Provider::ClaudeCode,
            "auto: found Claude Code at",
        ),
        (
            vec![
                ("ANTHROPIC_API_KEY", "k"),
                ("CRIT_PROVIDER", "claude-code"),
                ("PATH", &path),
            ],
            Provider::ClaudeCode,
            "env CRIT_PROVIDER",
        ),
        // A blank key does not count.
        (
            vec![("ANTHROPIC_API_KEY", "  "), ("PATH", &path)],
            Provider::ClaudeCode,
            "auto: found",
        ),
    ];
    for (vars, provider, source) in cases {
        let sel = resolve(&Env::from_pairs(vars.clone())).unwrap();
        assert_eq!(sel.provider.value, provider, "{vars:?}");
        assert!(
            sel.provider.source.to_string().starts_with(source),
            "{vars:?}: {}",
            sel.provider.source
        );
    }
}

#[test]
fn explicit_values_win_and_say_where_they_came_from() {
    let env = Env::from_pairs([
        ("ANTHROPIC_API_KEY", "sk-ant-secret-value"),
        ("ANTHROPIC_BASE_URL", "http://from-env"),
        ("CRIT_MODEL", "haiku"),
    ]);
    let config = BackendConfig {
        provider: Some(Sourced::explicit(Provider::Anthropic, "--provider")),
        model: Some(Sourced::explicit("sonnet".into(), ".crit/config.yaml")),
        ..BackendConfig::default()
    };
    let sel = Selection::resolve(&config, &env).unwrap();
    let rows = sel.rows();
    let get = |k: &str| rows.iter().find(|r| r.key == k).unwrap().clone();
    assert_eq!(get("provider").source, "--provider");
    assert_eq!(get("model").value, "sonnet → claude-sonnet-5-5");
    assert_eq!(get("model").source, ".crit/config.yaml");
    assert_eq!(get("base_url").value, "http://from-env");
    assert_eq!(get("base_url").source, "env ANTHROPIC_BASE_URL");
    assert_eq!(get("credential").value, "x-api-key");
    assert_eq!(get("credential").source, "env ANTHROPIC_API_KEY");
    let shown = format!("{rows:?} {sel:?}");
    assert!(!shown.contains("secret-value"), "{shown}");
    // Defaults are labelled as such.
    let sel = resolve(&Env::from_pairs([("ANTHROPIC_AUTH_TOKEN", "t")])).unwrap();
    assert_eq!(sel.model.unwrap().source, Source::Default);
    assert_eq!(sel.credential.unwrap().value, "bearer");
}

#[test]
fn nothing_configured_names_every_fix() {
    let err = resolve(&Env::from_pairs([("PATH", "/nonexistent")])).unwrap_err();
    assert_eq!(err, LlmError::NoBackend);
    let msg = err.to_string();
    for fix in [
        "ANTHROPIC_API_KEY",
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
        "Claude Code",
        "--provider replay --cassettes DIR",
    ] {
        assert!(msg.contains(fix), "{fix} missing from: {msg}");
    }
    assert!(!err.is_retryable());
}

#[test]
fn incomplete_explicit_choices_are_config_errors() {
    let with = |p: Provider| BackendConfig {
        provider: Some(Sourced::explicit(p, "--provider")),
        ..BackendConfig::default()
    };
    let empty = Env::new();
    for (p, needle) in [
        (Provider::Anthropic, "ANTHROPIC_API_KEY"),
        (Provider::Replay, "--cassettes"),
        (Provider::ClaudeCode, "CRIT_CLAUDE_BIN"),
    ] {
        let err = Selection::resolve(&with(p), &empty).unwrap_err();
        assert!(matches!(err, LlmError::Config { .. }), "{p}: {err:?}");
        assert!(err.to_string().contains(needle), "{p}: {err}");
    }
    let err = Selection::resolve(
        &with(Provider::OpenAi),
        &Env::from_pairs([("OPENAI_BASE_URL", "http://x/v1")]),
    )
    .unwrap_err();
    assert!(err.to_string().contains("--model"), "{err}");
    assert!("bogus".parse::<Provider>().is_err());
    assert_eq!(
        "claude-code".parse::<Provider>().unwrap(),
        Provider::ClaudeCode
    );
}

#[test]
fn claude_bin_from_env_and_subscription_default() {
    let (_dir, bin) = fake_claude_dir();
    let env = Env::from_pairs([("CRIT_CLAUDE_BIN", bin.display().to_string())]);
    let sel = resolve(&env).unwrap();
    assert_eq!(sel.provider.value, Provider::ClaudeCode);
    let b = sel.claude_bin.clone().unwrap();
    assert_eq!(b.value, bin);
    assert_eq!(b.source, Source::Env("CRIT_CLAUDE_BIN".into()));
    assert_eq!(
        sel.claude_auth.clone().unwrap().value,
        ClaudeAuth::Subscription
    );
    let backend = sel.build().unwrap();
    assert!(backend.agent.is_some());
    assert!(backend.model.capabilities().runs_own_loop);
    let _ = Path::new("");
}

#[tokio::test]
async fn doctor_reports_latency_usage_cost_and_provenance() {
    let server = FakeServer::start().await;
    server.push(Reply::text("OK").usage(12, 1, 0, 0));
    let env = Env::from_pairs([
        ("ANTHROPIC_API_KEY", "sk-ant-doctor"),
        ("ANTHROPIC_BASE_URL", server.url().as_str()),
    ]);
    let sel = resolve(&env).unwrap();
    let report = doctor(&sel, Duration::from_secs(10), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(report.backend, "anthropic");
    assert_eq!(report.model, "claude-opus-5-5");
    assert_eq!(report.reply, "OK");
    assert_eq!(report.usage.input_tokens, 12);
    assert!(report.cost.priced && report.cost.usd > 0.0);
    assert!(report.latency > Duration::ZERO);
    assert!(
        report
            .selection
            .iter()
            .any(|r| r.key == "provider" && r.source == "auto: ANTHROPIC_API_KEY is set")
    );
    assert_eq!(server.requests()[0].body["max_tokens"], 16);
}

#[tokio::test]
async fn doctor_fails_fast_on_401_without_retrying() {
    let server = FakeServer::start().await;
    // Even a server inviting a retry gets exactly one request.
    server.push(Reply::api_error(
        401,
        "authentication_error",
        "invalid x-api-key",
    ));
    server.push(Reply::api_error(500, "api_error", "x"));
    let env = Env::from_pairs([
        ("ANTHROPIC_API_KEY", "sk-ant-bad"),
        ("ANTHROPIC_BASE_URL", server.url().as_str()),
    ]);
    let sel = resolve(&env).unwrap();
    assert!(sel.retry.max_attempts > 1, "the normal policy retries");
    let err = doctor(&sel, Duration::from_secs(10), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Auth { status: 401, .. }), "{err:?}");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn doctor_through_claude_code() {
    let (dir, bin) = fake_claude_dir();
    // The fake is a sh script: it needs the usual tools on PATH, after itself.
    let env = Env::from_pairs([("PATH", format!("{}:/usr/bin:/bin", dir.path().display()))]);
    let sel = resolve(&env).unwrap();
    let report = doctor(&sel, Duration::from_secs(10), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(report.backend, "claude-code");
    assert_eq!(report.reply, "OK");
    let inv = &FakeClaude::invocations(dir.path())[0];
    assert_eq!(inv.stdin, crit_llm::doctor::PROBE_PROMPT);
    assert!(!inv.has_arg("--model"), "the CLI picks its own default");
    let _ = bin;
}

#[tokio::test]
async fn replay_and_record_are_selectable() {
    let rec = tempfile::tempdir().unwrap();
    let server = FakeServer::start().await;
    server.push(Reply::text("OK"));
    let env = Env::from_pairs([
        ("ANTHROPIC_API_KEY", "sk-ant-x"),
        ("ANTHROPIC_BASE_URL", server.url().as_str()),
        ("CRIT_RECORD", rec.path().display().to_string().as_str()),
    ]);
    let sel = resolve(&env).unwrap();
    let req = crit_llm::ModelRequest::new(sel.request_model(), 16).user("hi");
    let live = sel.build().unwrap();
    let a = live
        .model
        .complete(&req, CancellationToken::new())
        .await
        .unwrap();
    drop(server);
    let config = BackendConfig {
        provider: Some(Sourced::explicit(Provider::Replay, "--provider")),
        cassettes: Some(Sourced::explicit(rec.path().to_path_buf(), "--cassettes")),
        ..BackendConfig::default()
    };
    let sel = Selection::resolve(&config, &Env::new()).unwrap();
    assert_eq!(sel.request_model(), "opus");
    let replayed = sel
        .build()
        .unwrap()
        .model
        .complete(&req, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(replayed, a);
}
