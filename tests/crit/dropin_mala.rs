//! mala's reviewer (the agent SDK reviewer design) run against `crit review
//! code` through crit-testkit, with its own verification scenarios: R1 the
//! empty diff and empty commits (with no backend configured at all), R2
//! `mala.yaml`'s `reviewer_type` and the log lines, R3 the diff and the
//! context file in the user message, R4 the output schema read into mala's
//! `ReviewResult` (`--compat mala`), the exact `parse_error` strings on the
//! text and the structured-output tool paths, R5 the timeout from
//! `agent_sdk_review_timeout`, and the defaults (sonnet, prices).

use crate::support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Output;
use std::time::Duration;

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};
use support::{crit, git, init_repo, json_out, show, stderr, write};
use tempfile::TempDir;

/// `main` has `src/main.py`; `HEAD` (branch `work`) changes line 42.
fn repo() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    let body = |changed: bool| -> String {
        (1..=50)
            .map(|n| match (n, changed) {
                (42, true) => "result = eval(user_input)\n".to_string(),
                _ => format!("line_{n} = {n}\n"),
            })
            .collect()
    };
    write(d, "src/main.py", &body(false));
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    git(d, &["checkout", "-q", "-b", "work"]);
    write(d, "src/main.py", &body(true));
    git(d, &["commit", "-q", "-am", "eval the input"]);
    git(d, &["commit", "-q", "--allow-empty", "-m", "nothing"]);
    dir
}

/// crit with no backend at all: no API key, no `claude` on PATH.
fn bare_crit(d: &Path) -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("crit").unwrap();
    c.env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", d.join(".home"))
        .env("XDG_STATE_HOME", d.join(".state"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .current_dir(d);
    c
}

fn code(d: &Path, server: &FakeServer, args: &[&str]) -> Output {
    // Each test reviews the same change more than once: no hunk cache.
    crit(d, server, None)
        .args(["review", "code", "--no-cache"])
        .args(args)
        .output()
        .unwrap()
}

/// R4's example answer.
fn r4_answer() -> Value {
    json!({"verdict": "FAIL", "findings": [{"file_path": "src/main.py", "line_start": 42, "line_end": 42,
        "priority": 1, "title": "[P1] Issue", "body": "Details"}]})
}

#[test]
fn r1_an_empty_diff_passes_without_any_backend() {
    let dir = repo();
    let d = dir.path();
    let head = String::from_utf8(
        std::process::Command::new("git")
            .args(["rev-parse", "HEAD"])
            .current_dir(d)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    for args in [vec!["--diff", "HEAD..HEAD"], vec!["--commit", head.trim()]] {
        let out = bare_crit(d)
            .args(["review", "code", "--compat", "mala"])
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        let r = json_out(&out);
        assert_eq!(
            r,
            json!({"passed": true, "issues": [], "parse_error": null, "fatal_error": false,
                "review_log_path": r["review_log_path"].clone()})
        );
    }
}

#[test]
fn with_no_backend_json_still_prints_a_review_result() {
    let dir = repo();
    let d = dir.path();
    let out = bare_crit(d)
        .args(["review", "code", "--diff", "main..HEAD", "--json"])
        .output()
        .unwrap();
    // No backend configured is the user's to fix: exit 2, the result still printed.
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let r = json_out(&out);
    assert_eq!(r["verdict"], "ERROR");
    assert_eq!(r["fatal_error"], true);
    assert_eq!(r["passed"], false);
    assert!(
        r["parse_error"]
            .as_str()
            .unwrap()
            .contains("ANTHROPIC_API_KEY"),
        "{r}"
    );
    let out = bare_crit(d)
        .args(["review", "code", "--diff", "main..HEAD", "--compat", "mala"])
        .output()
        .unwrap();
    let r = json_out(&out);
    assert_eq!(r["fatal_error"], true);
    assert_eq!(r["passed"], false);
}

#[test]
fn r2_r3_r4_the_default_reviewer_logs_reads_the_diff_and_context_and_answers_in_malas_shape() {
    let dir = repo();
    let d = dir.path();
    write(d, "ctx.md", "CTX-MARKER: the task was to read user input.");
    let server = FakeServer::start_blocking();
    server.push(Reply::json(r4_answer()));
    let out = code(
        d,
        &server,
        &[
            "--diff",
            "main..HEAD",
            "--context",
            "ctx.md",
            "--compat",
            "mala",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let log = stderr(&out);
    assert!(
        log.contains("Initializing code reviewer: agent-sdk"),
        "{log}"
    );
    assert!(
        log.contains("Starting review for main..HEAD with agent-sdk"),
        "{log}"
    );
    let r = json_out(&out);
    assert_eq!(r["passed"], false);
    assert_eq!(r["parse_error"], Value::Null);
    assert_eq!(r["fatal_error"], false);
    assert_eq!(
        r["issues"],
        json!([{"file": "src/main.py", "line_start": 42, "line_end": 42, "priority": 1,
            "title": "[P1] Issue", "body": "Details", "reviewer": "agent-sdk"}])
    );
    assert!(r["review_log_path"].is_string());
    // R3: the diff and the context file are in the user message.
    let req = &server.model_requests()[0];
    let user = req.body["messages"][0].to_string();
    assert!(user.contains("result = eval(user_input)"), "{user}");
    assert!(user.contains("CTX-MARKER"), "{user}");
    // mala's default model for the reviewer: sonnet.
    assert_eq!(req.body["model"], "claude-sonnet-5-5");
}

#[test]
fn r2_mala_yaml_picks_the_reviewer_model_timeout_and_cerberus() {
    let dir = repo();
    let d = dir.path();
    write(
        d,
        "mala.yaml",
        "beads_dir: .beads\nagent_sdk_reviewer_model: opus\nagent_sdk_review_timeout: 1\n",
    );
    let server = FakeServer::start_blocking();
    server.push(Reply::json(json!({"verdict": "PASS", "findings": []})));
    let out = code(d, &server, &["--diff", "main..HEAD", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(server.model_requests()[0].body["model"], "claude-opus-5-5");

    // R5: the timeout ends a slow review: parse_error "timeout", not fatal.
    server.push(Reply::text("still thinking").stall_after_bytes(50, Duration::from_secs(30)));
    let started = std::time::Instant::now();
    let out = code(d, &server, &["--diff", "main..HEAD", "--compat", "mala"]);
    assert!(started.elapsed() < Duration::from_secs(20));
    let r = json_out(&out);
    assert_eq!(r["parse_error"], "timeout", "{r}");
    assert_eq!(r["fatal_error"], false);
    assert_eq!(r["passed"], false);

    // reviewer_type: cerberus runs the external reviewer once trusted.
    let gate = d.join("review-gate");
    std::fs::write(
        &gate,
        "#!/bin/sh\necho '{\"verdict\": \"PASS\", \"findings\": []}'\n",
    )
    .unwrap();
    std::fs::set_permissions(&gate, std::fs::Permissions::from_mode(0o755)).unwrap();
    write(d, "mala.yaml", "reviewer_type: cerberus\n");
    write(
        d,
        ".crit/config.yaml",
        &format!("command: [{}, --json]\n", gate.display()),
    );
    let untrusted = code(d, &server, &["--diff", "main..HEAD", "--compat", "mala"]);
    assert!(stderr(&untrusted).contains("Initializing code reviewer: agent-sdk"));
    crit(d, &server, None)
        .args(["trust", "--yes"])
        .assert()
        .success();
    let out = code(d, &server, &["--diff", "main..HEAD", "--compat", "mala"]);
    let log = stderr(&out);
    assert!(
        log.contains("Initializing code reviewer: cerberus"),
        "{log}"
    );
    assert!(
        log.contains("Starting review for main..HEAD with cerberus"),
        "{log}"
    );
    assert_eq!(json_out(&out)["passed"], true);
}

/// mala's log lines are for mala's users (`--compat mala`): everyone else's
/// `crit review code` prints none of them, whichever reviewer runs.
#[test]
fn malas_instrumentation_only_with_compat_mala() {
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    for args in [&["--json"][..], &[][..], &["--format", "markdown"][..]] {
        server.push(Reply::json(r4_answer()));
        let out = code(d, &server, &[&["--diff", "main..HEAD"][..], args].concat());
        let log = stderr(&out);
        assert!(
            !log.contains("Initializing code reviewer"),
            "{args:?}: {log}"
        );
        assert!(!log.contains("Starting review for"), "{args:?}: {log}");
        if args == ["--json"] {
            // crit's own JSON keeps crit's reviewer names.
            assert_eq!(json_out(&out)["findings"][0]["reviewer"], "code");
        }
    }
    // `-q` silences them for mala's users too.
    server.push(Reply::json(r4_answer()));
    let out = code(
        d,
        &server,
        &["--diff", "main..HEAD", "--compat", "mala", "-q"],
    );
    assert!(!stderr(&out).contains("Initializing code reviewer"));
    assert_eq!(json_out(&out)["issues"][0]["reviewer"], "agent-sdk");
}

/// Runs a review whose model answers `replies` and returns mala's JSON.
fn mala_json(replies: Vec<Reply>) -> Value {
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    for r in replies {
        server.push(Step::reply(r));
    }
    let out = code(d, &server, &["--diff", "main..HEAD", "--compat", "mala"]);
    json_out(&out)
}

#[test]
fn r4_the_exact_parse_errors_on_the_text_path() {
    for (text, want) in [
        (
            r#"{"verdict": "MAYBE", "findings": []}"#,
            "invalid verdict: MAYBE",
        ),
        (r#"{"findings": []}"#, "missing field: verdict"),
        (
            r#"{"verdict": "FAIL", "findings": [{"file_path": "a.py", "line_start": 1, "line_end": 1, "priority": 1, "body": "x"}]}"#,
            "missing field: title",
        ),
    ] {
        // Text answers never call the tool: the loop reminds once, then reads them.
        let r = mala_json(vec![Reply::text(text), Reply::text(text)]);
        assert_eq!(r["parse_error"], want, "{text}");
        assert_eq!(r["passed"], false);
        assert_eq!(r["fatal_error"], false);
    }
    let r = mala_json(vec![
        Reply::text("{\"verdict\": "),
        Reply::text("{\"verdict\": "),
    ]);
    assert!(
        r["parse_error"]
            .as_str()
            .unwrap()
            .starts_with("invalid json: "),
        "{r}"
    );
}

#[test]
fn r4_the_exact_parse_errors_on_the_structured_output_tool_path() {
    for (input, want) in [
        (
            json!({"verdict": "MAYBE", "findings": []}),
            "invalid verdict: MAYBE",
        ),
        (json!({"findings": []}), "missing field: verdict"),
    ] {
        let tool = || Reply::tool_use("StructuredOutput", input.clone());
        let r = mala_json(vec![tool(), tool(), tool(), tool()]);
        assert_eq!(r["parse_error"], want, "{input}");
        assert_eq!(r["passed"], false);
        assert_eq!(r["fatal_error"], false);
    }
    let raw = || Reply::tool_use_raw("StructuredOutput", "{\"verdict\": \"PASS\", ");
    let r = mala_json(vec![raw(), raw(), raw(), raw()]);
    let e = r["parse_error"].as_str().unwrap();
    assert!(e.starts_with("invalid json: "), "{e}");
    assert_ne!(e, "invalid json: empty output");
}

#[test]
fn a_review_templates_markdown_answer_is_read_not_refused() {
    let md = "## Summary\nCONCERNS: one thing to tidy.\n\n## Findings\n\n### [CONCERN] eval of input\nsrc/main.py:42 evaluates user input.\n";
    let r = mala_json(vec![Reply::text(md)]);
    assert_eq!(r["parse_error"], Value::Null, "{r}");
    assert_eq!(r["issues"][0]["line_start"], 42);
    assert_eq!(r["issues"][0]["priority"], 2);
}

#[test]
fn an_unknown_model_costs_null_with_one_warning() {
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(
        Reply::tool_use("Read", json!({"file_path": "src/main.py"})).model("claude-mystery-9"),
    );
    server.push(Reply::json(json!({"verdict": "PASS", "findings": []})).model("claude-mystery-9"));
    let out = code(
        d,
        &server,
        &[
            "--diff",
            "main..HEAD",
            "--model",
            "claude-mystery-9",
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r = json_out(&out);
    assert_eq!(r["cost_usd"], Value::Null, "{r}");
    let warnings = r["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].as_str().unwrap().contains("claude-mystery-9"));
    // Warned once, not once per model call (the estimate before the first
    // request says the cost is unknown too).
    assert_eq!(
        stderr(&out)
            .matches("warning: model `claude-mystery-9` has no known price")
            .count(),
        1,
        "{}",
        stderr(&out)
    );
    // The price of a model crit knows is never null.
    server.push(Reply::json(json!({"verdict": "PASS", "findings": []})));
    let out = code(d, &server, &["--diff", "main..HEAD", "--json"]);
    assert!(json_out(&out)["cost_usd"].as_f64().unwrap() > 0.0);
}

/// mala's contract has `line_end ≥ line_start`; an answer that breaks it is
/// reported as mala reports a bad field, through either path.
#[test]
fn an_inverted_line_range_is_a_parse_error_as_mala_reports_it() {
    let answer = json!({"verdict": "FAIL", "findings": [{"file_path": "src/main.py", "line_start": 6,
        "line_end": 4, "priority": 1, "title": "[P1] Issue", "body": "Details"}]});
    let want = "invalid field: line_end: expected at least line_start (6), got 4";
    let text = answer.to_string();
    let r = mala_json(vec![Reply::text(&text), Reply::text(&text)]);
    assert_eq!(r["parse_error"], want, "{r}");
    assert_eq!(
        (r["passed"].as_bool(), r["fatal_error"].as_bool()),
        (Some(false), Some(false))
    );
    let tool = || Reply::tool_use("StructuredOutput", answer.clone());
    let r = mala_json(vec![tool(), tool(), tool(), tool()]);
    assert_eq!(r["parse_error"], want, "{r}");
    assert_eq!(r["passed"], false);
}

/// `reviewer_type: cerberus` with no program to run says what it needs (a
/// `command:` and `crit trust`) and the command to run, where it fails.
#[test]
fn cerberus_without_a_command_says_what_it_needs_and_what_to_run() {
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    write(d, "mala.yaml", "reviewer_type: cerberus\n");
    // Untrusted, crit's agent reviews and the warning names the command to run.
    server.push(Reply::json(json!({"verdict": "PASS", "findings": []})));
    let out = code(d, &server, &["--diff", "main..HEAD", "--compat", "mala"]);
    let log = stderr(&out);
    assert!(
        log.contains("ignoring `reviewer_type` from mala.yaml:1 (not trusted): run `crit trust`"),
        "{log}"
    );
    crit(d, &server, None)
        .args(["trust", "--yes"])
        .assert()
        .success();
    let asked = server.model_requests().len();
    let out = code(d, &server, &["--diff", "main..HEAD", "--compat", "mala"]);
    let r = json_out(&out);
    let e = r["parse_error"].as_str().unwrap();
    assert!(e.contains("`reviewer_type: cerberus`"), "{e}");
    assert!(
        e.contains(
            "name it as `command:` in .crit/config.yaml, e.g. `command: [review-gate, --json]`"
        ),
        "{e}"
    );
    assert!(e.ends_with("Run: crit trust"), "{e}");
    assert_eq!(r["passed"], false);
    assert_eq!(server.model_requests().len(), asked);
    // The terminal report says it too.
    let out = code(d, &server, &["--diff", "main..HEAD"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Run: crit trust"),
        "{}",
        show(&out)
    );
}
