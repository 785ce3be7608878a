//! `crit review code` as a pipeline runs it (seed 003): which reviewer the
//! config picks and what it logs, the external reviewer command, the noise
//! flags, and a JSON result a pipeline can gate on. A real git repository,
//! crit-testkit's fake Anthropic server, scripted reviewer programs.

use crate::support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use crit_testkit::{FakeServer, Reply};
use serde_json::{Value, json};
use support::{crit, git, init_repo, json_out, write};
use tempfile::TempDir;

fn lines(replaced: &[(u32, &str)]) -> String {
    (1..=10)
        .map(|n| match replaced.iter().find(|(at, _)| *at == n) {
            Some((_, t)) => format!("{t}\n"),
            None => format!("line {n}\n"),
        })
        .collect()
}

/// `main` has `src/app.py` (ten lines); `HEAD` changes line 5.
fn repo() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, "src/app.py", &lines(&[]));
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    git(d, &["checkout", "-q", "-b", "work"]);
    write(d, "src/app.py", &lines(&[(5, "x = eval(input())")]));
    git(d, &["commit", "-q", "-am", "read input"]);
    dir
}

fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn finding(line: u32, priority: u8, title: &str) -> Value {
    json!({"file_path": "src/app.py", "line_start": line, "line_end": line,
        "priority": priority, "title": title, "body": "Why it matters."})
}

fn answer(verdict: &str, findings: Vec<Value>) -> Reply {
    Reply::json(json!({"verdict": verdict, "summary": "s", "findings": findings}))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn json_result_has_passed_parse_error_and_fatal_error_at_the_top() {
    let dir = repo();
    let d = dir.path();
    write(
        d,
        "notes/ctx.md",
        "Reads the program from stdin on purpose.",
    );
    let server = FakeServer::start_blocking();
    server.push(answer(
        "FAIL",
        vec![finding(5, 0, "[P0] eval of user input")],
    ));
    let out = crit(d, &server, None)
        .args([
            "review",
            "code",
            "--diff",
            "main..HEAD",
            "--context",
            "notes/ctx.md",
            "--json",
        ])
        .output()
        .unwrap();
    let r = json_out(&out);
    assert_eq!(r["passed"], false);
    assert_eq!(r["parse_error"], Value::Null);
    assert_eq!(r["fatal_error"], false);
    assert_eq!(r["findings"][0]["severity"], "P0");
    let user = server.model_requests()[0].body["messages"][0]["content"].to_string();
    assert!(
        user.contains("Reads the program from stdin on purpose."),
        "{user}"
    );
}

#[test]
fn without_config_the_agent_reviewer_runs_in_process() {
    let dir = repo();
    let d = dir.path();
    // A `review-gate` first on PATH: the agent reviewer must not start it.
    let bin = tempfile::tempdir().unwrap();
    let marker = bin.path().join("ran");
    script(
        bin.path(),
        "review-gate",
        &format!("touch '{}'", marker.display()),
    );
    let server = FakeServer::start_blocking();
    server.push(answer("PASS", vec![]));
    let out = crit(d, &server, Some(bin.path()))
        .args(["review", "code", "--diff", "main..HEAD", "--json", "-v"])
        .output()
        .unwrap();
    let r = json_out(&out);
    assert_eq!(r["passed"], true, "{}", stderr(&out));
    assert_eq!(
        server.model_requests().len(),
        1,
        "the review went to the model"
    );
    assert!(!marker.exists(), "the agent reviewer started review-gate");
    // mala's log lines are for mala's users (`--compat mala`) only.
    let log = stderr(&out);
    assert!(!log.contains("Initializing code reviewer"), "{log}");
}

#[test]
fn reviewer_command_in_config_runs_the_program_and_logs_it() {
    let dir = repo();
    let d = dir.path();
    let bin = tempfile::tempdir().unwrap();
    let seen = bin.path().join("seen");
    let prog = script(
        bin.path(),
        "review-gate",
        &format!(
            "echo \"$1 $CRIT_DIFF_RANGE\" > '{}'\necho '{}'\nexit 1",
            seen.display(),
            json!({"verdict": "FAIL", "findings": [finding(5, 1, "[P1] eval of user input")]})
        ),
    );
    write(
        d,
        ".crit/config.yaml",
        &format!(
            "reviewer: command\ncommand: [\"{}\", \"{{diff_range}}\"]\n",
            prog.display()
        ),
    );
    let server = FakeServer::start_blocking();
    // A project setting that runs a program: honoured once trusted.
    crit(d, &server, None)
        .args(["trust", "--yes"])
        .assert()
        .success();
    let out = crit(d, &server, None)
        .args(["review", "code", "--diff", "main..HEAD", "--json", "-v"])
        .output()
        .unwrap();
    let err = stderr(&out);
    // mala's name for the external reviewer.
    assert!(
        err.contains("Initializing code reviewer: cerberus"),
        "{err}"
    );
    assert!(
        err.contains("Starting review for main..HEAD with cerberus"),
        "{err}"
    );
    let r = json_out(&out);
    assert_eq!(r["passed"], false);
    assert_eq!(r["findings"][0]["reviewer"], "review-gate");
    assert_eq!(
        std::fs::read_to_string(&seen).unwrap(),
        "main..HEAD main..HEAD\n"
    );
    assert_eq!(server.requests().len(), 0, "no model was asked");
}

#[test]
fn the_configured_review_timeout_stops_a_hanging_command() {
    let dir = repo();
    let d = dir.path();
    let bin = tempfile::tempdir().unwrap();
    let prog = script(bin.path(), "review-gate", "sleep 60");
    write(
        d,
        ".crit/config.yaml",
        &format!(
            "reviewer: command\ncommand: [\"{}\"]\nreview:\n  timeout: 1\n",
            prog.display()
        ),
    );
    let server = FakeServer::start_blocking();
    crit(d, &server, None)
        .args(["trust", "--yes"])
        .assert()
        .success();
    let started = std::time::Instant::now();
    let out = crit(d, &server, None)
        .args([
            "review",
            "code",
            "--diff",
            "main..HEAD",
            "--json",
            "--exit-code",
        ])
        .output()
        .unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    let r = json_out(&out);
    assert_eq!(r["passed"], false);
    assert_eq!(r["parse_error"], "timeout");
    assert_eq!(r["fatal_error"], false);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}

#[test]
fn filter_added_drops_a_finding_on_an_unchanged_line_and_nofilter_keeps_it() {
    let dir = repo();
    let d = dir.path();
    for (mode, kept) in [("added", 1), ("nofilter", 2)] {
        let server = FakeServer::start_blocking();
        server.push(answer(
            "FAIL",
            vec![
                finding(9, 1, "[P1] old problem"),
                finding(5, 2, "[P2] eval needs a test"),
            ],
        ));
        let out = crit(d, &server, None)
            .args([
                "review",
                "code",
                "--diff",
                "main..HEAD",
                "--filter",
                mode,
                "--json",
            ])
            .output()
            .unwrap();
        let r = json_out(&out);
        assert_eq!(
            r["findings"].as_array().unwrap().len(),
            kept,
            "{mode}: {r:#}"
        );
        if mode == "added" {
            assert_eq!(r["dismissed"][0]["cause"], "outside_change");
            assert_eq!(r["dismissed"][0]["finding"]["title"], "[P1] old problem");
            assert_eq!(r["passed"], true, "only a P2 is left");
        }
    }
}

#[test]
fn max_findings_keeps_the_most_severe() {
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(answer(
        "FAIL",
        vec![
            finding(5, 3, "[P3] name"),
            finding(5, 1, "[P1] eval"),
            finding(5, 2, "[P2] test"),
        ],
    ));
    let out = crit(d, &server, None)
        .args([
            "review",
            "code",
            "--diff",
            "main..HEAD",
            "--max-findings",
            "1",
            "--json",
        ])
        .output()
        .unwrap();
    let r = json_out(&out);
    assert_eq!(r["findings"].as_array().unwrap().len(), 1);
    assert_eq!(r["findings"][0]["title"], "[P1] eval");
    assert_eq!(r["dismissed"].as_array().unwrap().len(), 2);
    assert_eq!(r["dismissed"][0]["cause"], "over_cap");
}

#[test]
fn fail_on_p2_fails_on_a_p2_and_the_default_does_not() {
    let dir = repo();
    let d = dir.path();
    for (flags, code) in [(vec!["--exit-code"], 0), (vec!["--fail-on", "p2"], 1)] {
        let server = FakeServer::start_blocking();
        server.push(answer(
            "NEEDS_WORK",
            vec![finding(5, 2, "[P2] eval needs a test")],
        ));
        let out = crit(d, &server, None)
            .args(["review", "code", "--diff", "main..HEAD", "--json"])
            .args(&flags)
            .output()
            .unwrap();
        let r = json_out(&out);
        assert_eq!(out.status.code(), Some(code), "{flags:?}: {}", stderr(&out));
        assert_eq!(r["passed"], code == 0, "{flags:?}");
    }
}

/// Two commits that change the same file: each commit's hunks reach the
/// model (a path's second section is the same file's, never dropped).
#[test]
fn commits_that_change_the_same_file_are_all_sent() {
    let dir = repo();
    let d = dir.path();
    write(
        d,
        "src/app.py",
        &lines(&[(5, "x = eval(input())"), (9, "os.system(x)")]),
    );
    git(d, &["commit", "-q", "-am", "run it"]);
    let server = FakeServer::start_blocking();
    server.push(answer("PASS", vec![]));
    let out = crit(d, &server, None)
        .args(["review", "code", "--commit", "HEAD~1", "--commit", "HEAD"])
        .args(["--json", "--verify", "off", "--no-cache"])
        .output()
        .unwrap();
    let r = json_out(&out);
    assert_eq!(r["coverage"]["complete"], true, "{}", stderr(&out));
    let sent = server.model_requests()[0].body.to_string();
    assert!(sent.contains("x = eval(input())"), "{sent}");
    assert!(sent.contains("os.system(x)"), "{sent}");
}
