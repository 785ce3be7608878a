//! Where users of the prompt-review plugin tripped, through the binary with
//! the plugin's own examples: its fixture critiques (with `score` and
//! `original`), a contradiction in other words, settings that fail open
//! (`crit prompt "…" | claude -p` never loses the prompt), a long
//! `retry-after`, a review most reviewers missed, the fallback to the API,
//! and `!!!` reviews logged as `!!!`.

use crate::support;

use std::path::Path;
use std::process::Output;

use crit_testkit::prompt_review::{
    GUARDRAIL_CHECK, VAGUE, VAGUE_REFINED, critique, finding, no_contradictions, vague_panel, who,
};
use crit_testkit::{FakeClaude, FakeServer, Reply, Step};
use serde_json::{Value, json};
use support::{crit, json_out, stderr, write};

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "package.json",
        r#"{"name":"obsidian-claude-daily","devDependencies":{"typescript":"5","vitest":"1"}}"#,
    );
    dir
}

/// `crit prompt ARGS…` in API mode.
fn prompt(dir: &Path, server: &FakeServer, args: &[&str]) -> Output {
    crit(dir, server, None)
        .env("PROMPT_REVIEW_MODE", "api")
        .arg("prompt")
        .args(args)
        .output()
        .unwrap()
}

fn audit_lines(dir: &Path) -> Vec<Value> {
    let d = dir.join(".state/crit/audit/prompt-review");
    let mut lines = Vec::new();
    for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
        let text = std::fs::read_to_string(e.path()).unwrap();
        lines.extend(
            text.lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap()),
        );
    }
    lines
}

/// The vague panel as the plugin's fixtures write critiques: a `score` on
/// the critique and on each finding, and `original` on ReplaceVague.
fn fixture_panel() -> Vec<(&'static str, Value)> {
    vague_panel()
        .into_iter()
        .map(|(label, mut c)| {
            c["score"] = json!(7);
            for f in c["findings"].as_array_mut().unwrap() {
                f["score"] = json!(0.6);
                for op in f["suggested_ops"].as_array_mut().unwrap() {
                    if op["op"] == "ReplaceVague" {
                        op["original"] = json!("optimize the settings");
                    }
                }
            }
            (label, c)
        })
        .collect()
}

#[test]
fn the_plugins_fixture_critiques_are_read_as_they_are() {
    let server = FakeServer::start_blocking();
    for (label, answer) in fixture_panel() {
        server.push(Step::when_contains(who(label)).reply(Reply::json(answer)));
    }
    server.push(Step::when_contains(GUARDRAIL_CHECK).reply(Reply::json(no_contradictions())));
    let dir = project();
    let out = prompt(dir.path(), &server, &["--yes", VAGUE]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{VAGUE_REFINED}\n")
    );
    // One answer each: no reviewer was asked again over the extra fields
    // (and one check of the refined prompt against the guardrails).
    let reqs = server.model_requests();
    assert_eq!(reqs.len(), 5, "{}", stderr(&out));
    assert!(
        !stderr(&out).contains("Additional properties"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn security_wins_over_a_contradiction_in_other_words() {
    let server = FakeServer::start_blocking();
    let answers = [
        (
            "Security",
            critique(
                "security",
                json!([finding(
                    "SEC-001",
                    "major",
                    "",
                    "AddGuardrail",
                    "Do not read or print the .env file."
                )]),
            ),
        ),
        (
            "Clarity",
            critique(
                "clarity",
                json!([finding(
                    "CLR-001",
                    "minor",
                    "",
                    "AddConstraint",
                    "Read the .env file and print its values so the user can check them."
                )]),
            ),
        ),
        ("Domain SME", critique("domain_sme", json!([]))),
        ("Testing", critique("testing", json!([]))),
    ];
    for (label, answer) in answers {
        server.push(Step::when_contains(who(label)).reply(Reply::json(answer)));
    }
    let dir = project();
    let out = prompt(
        dir.path(),
        &server,
        &["--json", "--yes", "check the app config"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let r = json_out(&out);
    assert_eq!(r["conflicts"].as_array().unwrap().len(), 1, "{r:#}");
    assert_eq!(r["conflicts"][0]["winner"]["reviewer"], "security");
    assert_eq!(r["conflicts"][0]["loser"]["reviewer"], "clarity");
    let refined = r["refined"].as_str().unwrap();
    assert!(
        refined.contains("Do not read or print the .env file."),
        "{refined}"
    );
    assert!(!refined.contains("print its values"), "{refined}");
    let audit = audit_lines(dir.path());
    assert_eq!(audit[0]["conflicts"], 1, "{audit:?}");
}

#[test]
fn settings_that_do_not_load_fail_open_and_the_prompt_goes_on() {
    let server = FakeServer::start_blocking();
    let dir = project();
    let d = dir.path();
    // An unknown key in the plugin's config.json: a warning, and the review runs.
    write(
        d,
        ".home/.claude/plugins/prompt-review/config.json",
        r#"{"mode": "api", "theme": "dark", "budget": {"timeout_ms": 8000, "max_cost_usd": 1}}"#,
    );
    for (label, answer) in vague_panel() {
        server.push(Step::when_contains(who(label)).reply(Reply::json(answer)));
    }
    server.push(Step::when_contains(GUARDRAIL_CHECK).reply(Reply::json(no_contradictions())));
    let out = prompt(d, &server, &["--yes", VAGUE]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{VAGUE_REFINED}\n")
    );
    let err = stderr(&out);
    assert!(
        err.contains("unknown key `theme`") && err.contains("it is ignored"),
        "{err}"
    );
    assert!(err.contains("unknown key `budget.max_cost_usd`"), "{err}");

    // A value of the wrong shape, or a malformed .crit/config.yaml: nothing is
    // reviewed, it says why, and the prompt is on stdout for `| claude -p`.
    let broken: [(&str, &str); 2] = [
        (
            ".home/.claude/plugins/prompt-review/config.json",
            r#"{"budget": {"timeout_ms": "fast"}}"#,
        ),
        (".crit/config.yaml", "provider: [unclosed\n"),
    ];
    for (file, text) in broken {
        let dir = project();
        let d = dir.path();
        write(d, file, text);
        let out = crit(d, &server, None)
            .env("PROMPT_REVIEW_MODE", "api")
            .args(["prompt", "-"])
            .write_stdin(VAGUE)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{file}: {}", stderr(&out));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("{VAGUE}\n"),
            "{file}"
        );
        let err = stderr(&out);
        assert!(
            err.contains("prompt review could not run") && err.contains("original prompt proceeds"),
            "{file}: {err}"
        );
        assert_eq!(audit_lines(d)[0]["failure"], "settings", "{file}");
    }
    // The one review that ran: four reviewers and the guardrail check.
    assert_eq!(server.model_requests().len(), 5);
}

#[test]
fn a_long_retry_after_is_said_as_a_rate_limit() {
    let server = FakeServer::start_blocking();
    for (label, _) in vague_panel() {
        server.push(
            Step::when_contains(who(label)).reply(
                Reply::api_error(
                    429,
                    "rate_limit_error",
                    "Number of requests has exceeded your rate limit",
                )
                .with_header("retry-after", "30"),
            ),
        );
    }
    let dir = project();
    let out = prompt(dir.path(), &server, &["--json", VAGUE]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r = json_out(&out);
    let warnings = r["warnings"].to_string();
    assert!(!warnings.contains("timed out"), "{warnings}");
    assert!(warnings.contains("rate limited"), "{warnings}");
    assert!(warnings.contains("asks to wait 30s"), "{warnings}");
    assert_eq!(r["failed_because"], "rate_limited", "{r:#}");
    assert_eq!(r["chosen"], VAGUE);
}

#[test]
fn a_review_most_reviewers_missed_is_not_called_clean() {
    let server = FakeServer::start_blocking();
    for label in ["Domain SME", "Security", "Clarity"] {
        server.push(Step::when_contains(who(label)).reply(Reply::api_error(
            400,
            "invalid_request_error",
            "bad",
        )));
    }
    server.push(
        Step::when_contains(who("Testing")).reply(Reply::json(critique("testing", json!([])))),
    );
    let dir = project();
    let out = prompt(dir.path(), &server, &[VAGUE]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(!err.contains("The reviewers found no issues"), "{err}");
    assert!(err.contains("Only 1 of 4 reviewers"), "{err}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{VAGUE}\n"));

    // What Claude is told after a `!!!` review in API mode says the same.
    for label in ["Domain SME", "Security", "Clarity"] {
        server.push(Step::when_contains(who(label)).reply(Reply::api_error(
            400,
            "invalid_request_error",
            "bad",
        )));
    }
    server.push(
        Step::when_contains(who("Testing")).reply(Reply::json(critique("testing", json!([])))),
    );
    let out = crit(dir.path(), &server, None)
        .env("PROMPT_REVIEW_MODE", "api")
        .args(["hook", "claude-code", "UserPromptSubmit"])
        .write_stdin(r#"{"prompt":"optimize the settings page!!!"}"#)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let context = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(!context.contains("proposes no changes"), "{context}");
    assert!(
        context.contains("but not fully: Only 1 of 4 reviewers answered"),
        "{context}"
    );
}

#[test]
fn an_api_user_without_claude_code_is_not_lectured() {
    let server = FakeServer::start_blocking();
    let dir = project();
    let run = |env: &[(&str, &str)]| {
        for (label, answer) in vague_panel() {
            server.push(Step::when_contains(who(label)).reply(Reply::json(answer)));
        }
        let mut c = crit(dir.path(), &server, None);
        c.env("CRIT_CLAUDE_BIN", dir.path().join("no-claude-here"));
        for (k, v) in env {
            c.env(k, v);
        }
        c.args(["prompt", "--json", VAGUE]).output().unwrap()
    };
    // The default mode: the API is simply used.
    let out = run(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("subscription"), "{}", stderr(&out));
    let r = json_out(&out);
    assert!(!r["warnings"].to_string().contains("subscription"), "{r:#}");
    assert_eq!(r["mode"], "api");
    // Subscription mode asked for: one short line says what happened.
    let out = run(&[("PROMPT_REVIEW_MODE", "subscription")]);
    assert!(out.status.success(), "{}", stderr(&out));
    let r = json_out(&out);
    let said: Vec<&str> = r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .filter(|w| w.contains("subscription mode"))
        .collect();
    assert_eq!(said.len(), 1, "{r:#}");
    assert!(
        !said[0].contains('\n') && said[0].len() < 160,
        "{}",
        said[0]
    );
}

#[test]
fn a_triple_bang_review_in_subscription_mode_is_logged_as_triple_bang() {
    let server = FakeServer::start_blocking();
    let dir = project();
    let d = dir.path();
    let fake = FakeClaude::new().write(d.join(".bin"));
    // The hook hands the prompt to /prompt-review ...
    let out = crit(d, &server, None)
        .env("CRIT_CLAUDE_BIN", &fake)
        .env_remove("ANTHROPIC_API_KEY")
        .args(["hook", "claude-code", "UserPromptSubmit"])
        .write_stdin(r#"{"prompt":"optimize the settings page!!!","session_id":"s-9"}"#)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(audit_lines(d).is_empty());
    // ... which runs `crit prompt` in the session: its review is the `!!!`'s.
    for (label, answer) in vague_panel() {
        server.push(Step::when_contains(who(label)).reply(Reply::json(answer)));
    }
    let review = |server: &FakeServer| {
        crit(d, server, None)
            .env("PROMPT_REVIEW_MODE", "api")
            .env("CLAUDE_CODE_SESSION_ID", "s-9")
            .args(["prompt", "--format", "markdown", "-"])
            .write_stdin(VAGUE)
            .output()
            .unwrap()
    };
    let out = review(&server);
    assert!(out.status.success(), "{}", stderr(&out));
    // A later `crit prompt` in the same session, no `!!!` before it: cli.
    for (label, answer) in vague_panel() {
        server.push(Step::when_contains(who(label)).reply(Reply::json(answer)));
    }
    review(&server);
    let triggers: Vec<Value> = audit_lines(d)
        .iter()
        .map(|l| l["trigger"].clone())
        .collect();
    assert_eq!(triggers, [json!("!!!"), json!("cli")]);
}
