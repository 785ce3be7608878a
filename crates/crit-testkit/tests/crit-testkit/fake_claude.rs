//! The fake `claude` executable: output per `--output-format`, exit codes,
//! recorded invocations, and the grandchild that proves process-group kills.

// Test helpers outside #[test] fns may unwrap too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crit_testkit::{FakeClaude, Invocation, pid_alive};
use serde_json::{Value, json};

fn run(exe: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(exe)
        .args(args)
        .env_remove("ANTHROPIC_AUTH_TOKEN")
        .env("ANTHROPIC_API_KEY", "sk-k")
        .env("CLAUDE_CODE_MAX_RETRIES", "2")
        .env("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn lines(out: &Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn tricky() -> &'static str {
    "it's \"quoted\"\nsecond line $HOME `x` \\ ünï"
}

#[test]
fn stream_json_prints_every_line_and_records_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let exe = FakeClaude::new()
        .emit_init()
        .emit_assistant_text(tricky())
        .emit_tool_use("Read", json!({"file_path": "a.rs"}))
        .emit_result(FakeClaude::success_result("all good"))
        .write(dir.path());
    assert_eq!(exe, dir.path().canonicalize().unwrap().join("claude"));
    let out = run(
        &exe,
        &[
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--model",
            "opus",
        ],
        "the prompt\nwith 'quotes'",
    );
    assert!(out.status.success());
    let ls = lines(&out);
    let types: Vec<&str> = ls.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["system", "assistant", "assistant", "result"]);
    assert_eq!(ls[0]["subtype"], "init");
    assert_eq!(ls[1]["message"]["content"][0]["text"], tricky());
    assert_eq!(ls[2]["message"]["content"][0]["type"], "tool_use");
    assert_eq!(
        ls[2]["message"]["content"][0]["input"],
        json!({"file_path": "a.rs"})
    );
    assert_ne!(ls[1]["message"]["id"], ls[2]["message"]["id"]);
    assert_eq!(ls[3]["result"], "all good");
    assert_eq!(ls[3]["is_error"], false);

    let inv = FakeClaude::invocations(dir.path());
    assert_eq!(inv.len(), 1);
    let i = &inv[0];
    assert_eq!(i.argv[0], "-p");
    assert_eq!(i.arg_value("--model"), Some("opus"));
    assert!(i.has_arg("--verbose"));
    assert_eq!(i.stdin, "the prompt\nwith 'quotes'");
    assert_eq!(
        i.env.get("ANTHROPIC_API_KEY").map(String::as_str),
        Some("sk-k")
    );
    assert_eq!(
        i.env.get("CLAUDE_CODE_MAX_RETRIES").map(String::as_str),
        Some("2")
    );
    assert_eq!(
        i.env.get("ANTHROPIC_BASE_URL").map(String::as_str),
        Some("http://127.0.0.1:9")
    );
    assert!(!i.env.contains_key("ANTHROPIC_AUTH_TOKEN"));
    assert!(i.completed);
    assert!(i.pid.is_some());
}

#[test]
fn json_mode_prints_only_the_result_and_text_mode_its_text() {
    let dir = tempfile::tempdir().unwrap();
    let exe = FakeClaude::new()
        .emit_init()
        .emit_assistant_text("thinking aloud")
        .emit_result(FakeClaude::api_error_result(
            529,
            "API Error: 529 Overloaded",
        ))
        .exit_code(1)
        .write(dir.path());
    let out = run(&exe, &["-p", "--output-format=json"], "");
    assert_eq!(out.status.code(), Some(1));
    let ls = lines(&out);
    assert_eq!(ls.len(), 1);
    let r = &ls[0];
    assert_eq!(r["type"], "result");
    assert_eq!(r["subtype"], "success");
    assert_eq!(r["is_error"], true);
    assert_eq!(r["api_error_status"], 529);
    assert_eq!(r["result"], "API Error: 529 Overloaded");

    let out = run(&exe, &["-p"], "");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "API Error: 529 Overloaded\n"
    );
    assert_eq!(FakeClaude::invocations(dir.path()).len(), 2);
}

#[test]
fn result_helpers_match_the_cli_shapes() {
    let s = FakeClaude::structured_result(json!({"name": "fake", "ok": true}));
    assert_eq!(s["structured_output"], json!({"name": "fake", "ok": true}));
    assert_eq!(s["result"], "{\"name\":\"fake\",\"ok\":true}");
    assert_eq!(s["subtype"], "success");
    assert!(s["usage"]["input_tokens"].is_u64() && s["total_cost_usd"].is_number());

    let m = FakeClaude::max_turns_result(1);
    assert_eq!(m["subtype"], "error_max_turns");
    assert_eq!(m["is_error"], true);
    assert_eq!(m["errors"], json!(["Reached maximum number of turns (1)"]));
    assert!(m.get("result").is_none());

    // In text mode max-turns goes to stderr.
    let dir = tempfile::tempdir().unwrap();
    let exe = FakeClaude::new()
        .emit_result(m)
        .exit_code(1)
        .write(dir.path());
    let out = run(&exe, &["-p", "--output-format", "text"], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("Reached maximum number of turns (1)"));
}

fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn hanging(dir: &Path) -> std::process::Child {
    let exe = FakeClaude::new()
        .emit_init()
        .sleep_secs(30)
        .emit_result(FakeClaude::success_result("never"))
        .write(dir);
    Command::new(exe)
        .args(["-p", "--output-format", "stream-json"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap()
}

fn grandchild(dir: &Path) -> Invocation {
    let mut inv = None;
    wait_for("the grandchild pid", || {
        inv = FakeClaude::invocations(dir)
            .into_iter()
            .next()
            .filter(|i| i.grandchild_pid.is_some());
        inv.is_some()
    });
    inv.unwrap()
}

fn kill(target: &str) {
    let ok = Command::new("kill")
        .args(["-KILL", "--", target])
        .status()
        .unwrap();
    assert!(ok.success(), "kill {target}");
}

#[test]
fn killing_the_process_group_also_ends_the_grandchild() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = hanging(dir.path());
    let inv = grandchild(dir.path());
    assert!(inv.grandchild_alive());
    kill(&format!("-{}", child.id()));
    child.wait().unwrap();
    wait_for("the grandchild to die", || !inv.grandchild_alive());
    let after = &FakeClaude::invocations(dir.path())[0];
    assert!(!after.completed, "a killed run is not marked completed");
}

#[test]
fn killing_only_the_child_leaves_the_grandchild_running() {
    // Proves the fake is a fair test of group kills: a plain kill is not enough.
    let dir = tempfile::tempdir().unwrap();
    let mut child = hanging(dir.path());
    let inv = grandchild(dir.path());
    kill(&child.id().to_string());
    child.wait().unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let pid = inv.grandchild_pid.unwrap();
    assert!(pid_alive(pid), "the orphaned sleep survives a plain kill");
    kill(&pid.to_string());
    wait_for("cleanup", || !pid_alive(pid));
}

#[test]
fn concurrent_runs_get_their_own_records_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let exe = FakeClaude::new()
        .emit_result(FakeClaude::success_result("ok"))
        .write(dir.path());
    let children: Vec<_> = (0..4)
        .map(|n| {
            Command::new(&exe)
                .arg(format!("run-{n}"))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let inv = FakeClaude::invocations(dir.path());
    assert_eq!(inv.len(), 4);
    assert_eq!(
        inv.iter().map(|i| i.index).collect::<Vec<_>>(),
        [0, 1, 2, 3]
    );
    let mut args: Vec<&str> = inv.iter().map(|i| i.argv[0].as_str()).collect();
    args.sort_unstable();
    assert_eq!(args, ["run-0", "run-1", "run-2", "run-3"]);
    assert!(inv.iter().all(|i| i.completed && i.stdin.is_empty()));
    assert!(FakeClaude::invocations(tempfile::tempdir().unwrap().path()).is_empty());
}

#[test]
fn writing_and_running_fakes_from_many_threads_never_hits_text_file_busy() {
    // Another thread's fork can inherit the fd of a file being written and
    // make exec fail with ETXTBSY; the fake is written so that cannot happen.
    let threads: Vec<_> = (0..4)
        .map(|t| {
            std::thread::spawn(move || {
                for n in 0..10 {
                    let dir = tempfile::tempdir().unwrap();
                    let exe = FakeClaude::new()
                        .emit_result(FakeClaude::success_result(format!("{t}-{n}")))
                        .write(dir.path());
                    let out = Command::new(&exe)
                        .stdin(Stdio::null())
                        .output()
                        .unwrap_or_else(|e| panic!("run {}: {e}", exe.display()));
                    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{t}-{n}\n"));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn branches_answer_by_argument() {
    let dir = tempfile::tempdir().unwrap();
    let exe = FakeClaude::new()
        .emit_result(FakeClaude::success_result("default"))
        .when_args_contain(
            "You are the Security reviewer",
            FakeClaude::new()
                .emit_result(FakeClaude::structured_result(json!({"role": "security"}))),
        )
        .when_args_contain(
            "it's 'quoted'",
            FakeClaude::new()
                .emit_result(FakeClaude::api_error_result(429, "slow down"))
                .exit_code(1),
        )
        .write(dir.path());
    let args = |system: &str| {
        vec![
            "-p".to_string(),
            "--output-format".into(),
            "json".into(),
            "--system-prompt".into(),
            system.into(),
        ]
    };
    let call = |system: &str| {
        let a = args(system);
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        run(&exe, &refs, "prompt")
    };
    let out = call("You are the Security reviewer on a panel");
    assert_eq!(
        lines(&out)[0]["structured_output"],
        json!({"role": "security"})
    );
    assert_eq!(out.status.code(), Some(0));
    let out = call("it's 'quoted' here");
    assert_eq!(lines(&out)[0]["api_error_status"], json!(429));
    assert_eq!(out.status.code(), Some(1));
    let out = call("You are the Clarity reviewer");
    assert_eq!(lines(&out)[0]["result"], json!("default"));
    let inv = FakeClaude::invocations(dir.path());
    assert_eq!(inv.len(), 3);
    assert!(inv.iter().all(|i| i.completed));
}
