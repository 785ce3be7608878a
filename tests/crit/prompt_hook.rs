//! `crit hook claude-code UserPromptSubmit` through the binary: the
//! prompt-review plugin's manual check verbatim, both modes, every way it
//! fails open (and the audit line saying why), the kill switch, the silent
//! fast path, the user's answer in the audit log, and `crit statusline`.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use crit_testkit::prompt_review::{
    GUARDRAIL_CHECK, VAGUE, VAGUE_REFINED, no_contradictions, vague_panel, who,
};
use crit_testkit::{FakeClaude, FakeServer, Reply, Step};
use serde_json::{Value, json};
use support::{crit, write};

/// The plugin's manual check, verbatim.
const SEED_INPUT: &str = r#"{"prompt":"optimize the settings page!!!"}"#;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "package.json",
        r#"{"name":"obsidian-claude-daily","devDependencies":{"typescript":"5"}}"#,
    );
    dir
}

fn script(server: &FakeServer) {
    for (label, answer) in vague_panel() {
        server
            .push(Step::when_contains(who(label)).reply(Reply::json(answer).usage(700, 120, 0, 0)));
    }
    server.push(Step::when_contains(GUARDRAIL_CHECK).reply(Reply::json(no_contradictions())));
}

/// The hook in API mode, `input` on stdin.
fn hook(dir: &Path, server: &FakeServer, input: &str) -> Output {
    crit(dir, server, None)
        .env("PROMPT_REVIEW_MODE", "api")
        .args(["hook", "claude-code", "UserPromptSubmit"])
        .write_stdin(input)
        .output()
        .unwrap()
}

fn context(out: &Output) -> String {
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            support::stderr(out)
        )
    });
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "UserPromptSubmit");
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string()
}

fn audit_lines(dir: &Path) -> Vec<Value> {
    let d = dir.join(".state/crit/audit/prompt-review");
    let Ok(entries) = std::fs::read_dir(&d) else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    for e in entries.flatten() {
        let text = std::fs::read_to_string(e.path()).unwrap();
        lines.extend(
            text.lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap()),
        );
    }
    lines
}

/// Every file under `dir`, for "nothing was written" checks.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_plugins_manual_check_works_verbatim_in_api_mode() {
    let server = FakeServer::start_blocking();
    script(&server);
    let dir = project();
    let out = hook(dir.path(), &server, SEED_INPUT);
    assert!(out.status.success(), "{}", support::stderr(&out));
    let ctx = context(&out);
    for want in [
        "+-- Prompt Review ",
        "[Security] Added: \"Never commit .env",
        "<diff>\n--- original\n+++ refined\n",
        "-optimize the settings page\n",
        "Proceed with the refined prompt? (yes / no / edit)",
        "Do not act on it yet",
    ] {
        assert!(ctx.contains(want), "missing {want:?} in:\n{ctx}");
    }
    assert!(
        ctx.contains(&format!(
            "<refined_prompt>\n{VAGUE_REFINED}\n</refined_prompt>"
        )),
        "{ctx}"
    );
    // The reviewers saw the prompt without its trigger.
    for r in server.model_requests() {
        assert!(!r.body.to_string().contains("page!!!"), "{}", r.body);
    }
    let lines = audit_lines(dir.path());
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["trigger"], "!!!");
    assert_eq!(lines[0]["outcome"], "reviewed");
    assert_eq!(lines[0]["mode"], "api");
    assert_eq!(
        lines[0]["reviewers_applied"],
        json!(["security", "testing", "domain_sme", "clarity"])
    );
    let raw = serde_json::to_string(&lines).unwrap();
    assert!(
        !raw.contains("settings page"),
        "prompt text in the audit log: {raw}"
    );
}

#[test]
fn subscription_mode_tells_claude_to_run_prompt_review_on_the_stripped_prompt() {
    let server = FakeServer::start_blocking();
    let dir = project();
    let fake = FakeClaude::new().write(dir.path().join(".bin"));
    for (plugin, command) in [(false, "/prompt-review"), (true, "/crit:prompt-review")] {
        let mut c = crit(dir.path(), &server, None);
        c.env("CRIT_CLAUDE_BIN", &fake)
            .env_remove("ANTHROPIC_API_KEY")
            .args(["hook", "claude-code", "UserPromptSubmit"])
            .write_stdin(r#"{"prompt":"optimize the settings page !!!  \n","session_id":"s-1"}"#);
        if plugin {
            c.env("CLAUDE_PLUGIN_ROOT", dir.path());
        }
        let out = c.output().unwrap();
        assert!(out.status.success(), "{}", support::stderr(&out));
        let ctx = context(&out);
        assert!(ctx.contains(&format!("run the {command} command")), "{ctx}");
        assert!(
            ctx.contains(&format!("<prompt>\n{VAGUE}\n</prompt>")),
            "{ctx}"
        );
        assert!(ctx.contains("Proceed with the refined prompt? (yes / no / edit)"));
    }
    // Nothing ran here: the review runs in Claude's session.
    assert!(FakeClaude::invocations(dir.path().join(".bin")).is_empty());
    assert!(server.model_requests().is_empty());
}

#[test]
fn a_prompt_without_the_trigger_passes_at_once_reading_nothing() {
    let server = FakeServer::start_blocking();
    let dir = project();
    // Broken settings everywhere: a prompt without the trigger never reads them.
    write(dir.path(), ".crit/prompt-review.yaml", "mode: [unclosed\n");
    write(dir.path(), ".crit/config.yaml", "provider: {{{\n");
    write(
        dir.path(),
        ".home/.claude/plugins/prompt-review/config.json",
        "{not json",
    );
    let before = files_under(dir.path());
    for input in [
        r#"{"prompt":"optimize the settings page"}"#,
        r#"{"prompt":"wow!!"}"#,
        r#"{"prompt":"!!! first"}"#,
        r#"{"prompt":"mid !!! dle"}"#,
        r#"{"prompt":"!!!"}"#,
        r#"{"prompt":""}"#,
        r#"{"hook_event_name":"UserPromptSubmit","session_id":"s","cwd":"/nonexistent","prompt":"read notes","extra":{"nested":[1,2]}}"#,
        r#"{}"#,
    ] {
        let out = hook(dir.path(), &server, input);
        assert_eq!(out.status.code(), Some(0), "{input}");
        assert!(
            out.stdout.is_empty(),
            "{input}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(out.stderr.is_empty(), "{input}: {}", support::stderr(&out));
    }
    assert!(server.requests().is_empty());
    assert_eq!(
        files_under(dir.path()),
        before,
        "the fast path wrote a file"
    );

    // With the trigger, the same broken settings make the review fail open.
    let out = hook(dir.path(), &server, SEED_INPUT);
    assert_eq!(out.status.code(), Some(0));
    assert!(context(&out).contains("could not run"));
    assert_eq!(audit_lines(dir.path())[0]["failure"], "settings");
}

#[test]
fn every_failure_fails_open_and_the_audit_line_says_why() {
    struct Case {
        name: &'static str,
        failure: &'static str,
        setup: fn(&FakeServer),
        env: &'static [(&'static str, &'static str)],
    }
    let cases = [
        Case {
            name: "no backend",
            failure: "no_backend",
            setup: |_| {},
            env: &[
                ("ANTHROPIC_API_KEY", ""),
                ("CRIT_CLAUDE_BIN", "/nonexistent/claude"),
            ],
        },
        Case {
            name: "deadline",
            failure: "deadline",
            setup: |s| {
                for _ in 0..6 {
                    s.push(Reply::text("late").delay(Duration::from_secs(10)));
                }
            },
            env: &[("PROMPT_REVIEW_TIMEOUT", "300")],
        },
        Case {
            name: "every reviewer fails",
            failure: "reviewers_unavailable",
            setup: |s| {
                for _ in 0..12 {
                    s.push(Reply::text("not json at all"));
                }
            },
            env: &[],
        },
        Case {
            name: "rate limited",
            failure: "rate_limited",
            setup: |s| {
                for _ in 0..24 {
                    s.push(Reply::api_error(429, "rate_limit_error", "slow down"));
                }
            },
            env: &[],
        },
    ];
    for case in cases {
        let server = FakeServer::start_blocking();
        (case.setup)(&server);
        let dir = project();
        let mut c = crit(dir.path(), &server, None);
        c.env("PROMPT_REVIEW_MODE", "api");
        for (k, v) in case.env {
            if v.is_empty() {
                c.env_remove(k);
            } else {
                c.env(k, v);
            }
        }
        let out = c
            .args(["hook", "claude-code", "UserPromptSubmit"])
            .write_stdin(SEED_INPUT)
            .output()
            .unwrap();
        let name = case.name;
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name}: {}",
            support::stderr(&out)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let msg = v["systemMessage"].as_str().unwrap_or_default();
        assert!(
            msg.contains("prompt review could not run")
                && msg.ends_with("the original prompt proceeds"),
            "{name}: {v}"
        );
        assert!(
            context(&out).contains("carry out the prompt as written"),
            "{name}"
        );
        assert!(
            support::stderr(&out).contains("the original prompt proceeds"),
            "{name}"
        );
        let lines = audit_lines(dir.path());
        assert_eq!(lines.len(), 1, "{name}: {lines:?}");
        assert_eq!(lines[0]["outcome"], "failed_open", "{name}");
        assert_eq!(lines[0]["failure"], case.failure, "{name}: {}", lines[0]);
    }
}

#[test]
fn input_that_is_not_an_event_fails_open() {
    let server = FakeServer::start_blocking();
    let dir = project();
    for input in ["", "not json", "[1,2]", r#"{"prompt": 42}"#, "\u{0}\u{1}"] {
        let out = hook(dir.path(), &server, input);
        assert_eq!(out.status.code(), Some(0), "{input:?}");
        assert!(out.stdout.is_empty(), "{input:?}");
        assert!(
            support::stderr(&out).contains("the prompt proceeds unreviewed"),
            "{input:?}: {}",
            support::stderr(&out)
        );
    }
    assert!(server.requests().is_empty());
}

#[test]
fn the_kill_switch_turns_the_trigger_off() {
    let server = FakeServer::start_blocking();
    script(&server);
    let dir = project();
    for off in ["false", "0", "off", "FALSE"] {
        let out = crit(dir.path(), &server, None)
            .env("PROMPT_REVIEW_MODE", "api")
            .env("PROMPT_REVIEW_ENABLED", off)
            .args(["hook", "claude-code", "UserPromptSubmit"])
            .write_stdin(SEED_INPUT)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{off}");
    }
    assert!(server.requests().is_empty());
    assert!(audit_lines(dir.path()).is_empty());
}

#[test]
fn the_users_answer_is_recorded_once_and_stats_count_it() {
    let server = FakeServer::start_blocking();
    script(&server);
    let dir = project();
    let out = hook(
        dir.path(),
        &server,
        r#"{"prompt":"optimize the settings page!!!","session_id":"sess-1"}"#,
    );
    assert!(out.status.success());
    // An answer in another session, or a new request, is not an answer.
    for input in [
        r#"{"prompt":"yes","session_id":"other"}"#,
        r#"{"prompt":"yes please, and also add tests","session_id":"sess-1"}"#,
    ] {
        let out = hook(dir.path(), &server, input);
        assert!(out.stdout.is_empty() && out.stderr.is_empty());
    }
    assert_eq!(audit_lines(dir.path()).len(), 1);
    let out = hook(
        dir.path(),
        &server,
        r#"{"prompt":"Yes","session_id":"sess-1"}"#,
    );
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
    // Answered once: a second "yes" changes nothing.
    hook(
        dir.path(),
        &server,
        r#"{"prompt":"yes","session_id":"sess-1"}"#,
    );
    let lines = audit_lines(dir.path());
    assert_eq!(lines.len(), 2, "{lines:?}");
    let decision = lines.iter().find(|l| l.get("decision").is_some()).unwrap();
    assert_eq!(decision["decision"], "approved");
    assert_eq!(
        decision["original_prompt_hash"],
        lines[0]["original_prompt_hash"]
    );

    let out = crit(dir.path(), &server, None)
        .args(["stats", "--json"])
        .output()
        .unwrap();
    let stats = support::json_out(&out);
    let prompt = stats["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kind"] == "prompt")
        .unwrap();
    assert_eq!(prompt["outcomes"], json!({"approved": 1}));
    let security = stats["acceptance"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["reviewer"] == "security")
        .unwrap();
    assert_eq!(security["approved"], 1);
    assert_eq!(security["rate"], 1.0);
}

fn statusline(dir: &Path, server: &FakeServer, session: &str) -> String {
    let out = crit(dir, server, None)
        .arg("statusline")
        .write_stdin(
            json!({"session_id": session, "model": {"display_name": "Opus"},
                   "workspace": {"current_dir": dir, "project_dir": dir}, "cost": {"total_cost_usd": 0.01}})
            .to_string(),
        )
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stderr.is_empty(), "{}", support::stderr(&out));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_status_line_shows_the_review_running_then_done() {
    let server = FakeServer::start_blocking();
    for (label, answer) in vague_panel() {
        server.push(
            Step::when_contains(who(label))
                .reply(Reply::json(answer).delay(Duration::from_secs(3))),
        );
    }
    let dir = project();
    assert_eq!(statusline(dir.path(), &server, "s-9"), "");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_crit"))
        .args(["hook", "claude-code", "UserPromptSubmit"])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir.path().join(".home"))
        .env("XDG_STATE_HOME", dir.path().join(".state"))
        .env("ANTHROPIC_API_KEY", "sk-ant-review-secret-0123456789")
        .env("ANTHROPIC_BASE_URL", server.url())
        .env("PROMPT_REVIEW_MODE", "api")
        .env("PROMPT_REVIEW_TIMEOUT", "60000")
        .current_dir(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(br#"{"prompt":"optimize the settings page!!!","session_id":"s-9"}"#)
            .unwrap();
    }
    // Poll while the reviewers wait on the server.
    let mut seen = Vec::new();
    while child.try_wait().unwrap().is_none() {
        let line = statusline(dir.path(), &server, "s-9");
        if !seen.contains(&line) {
            seen.push(line);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(child.wait().unwrap().success());
    assert!(
        seen.iter()
            .any(|l| l == "Reviewing prompt (4 reviewers)…\n"),
        "{seen:?}"
    );
    assert_eq!(
        statusline(dir.path(), &server, "s-9"),
        "Review complete | 4 findings\n"
    );
    // Another session sees nothing.
    assert_eq!(statusline(dir.path(), &server, "s-10"), "");
}

/// `/prompt-review` runs `crit prompt --format markdown` inside Claude Code:
/// the status line follows it, and the user's answer to Claude's question is
/// recorded for it too.
#[test]
fn crit_prompt_inside_claude_code_feeds_the_status_line_and_records_the_answer() {
    let server = FakeServer::start_blocking();
    script(&server);
    let dir = project();
    let out = crit(dir.path(), &server, None)
        .env("PROMPT_REVIEW_MODE", "api")
        .env("CLAUDE_CODE_SESSION_ID", "s-2")
        .args(["prompt", "--format", "markdown", "-"])
        .write_stdin(VAGUE)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", support::stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("## Prompt review"));
    assert_eq!(
        statusline(dir.path(), &server, "s-2"),
        "Review complete | 4 findings\n"
    );
    let out = hook(dir.path(), &server, r#"{"prompt":"no","session_id":"s-2"}"#);
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
    let lines = audit_lines(dir.path());
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["trigger"], "cli");
    assert_eq!(lines[0]["outcome"], "reviewed");
    assert_eq!(lines[1]["decision"], "rejected");
}
