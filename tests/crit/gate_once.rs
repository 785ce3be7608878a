//! The gate is decided once, by the library, at the level the settings
//! resolve (`--fail-on` > the project's config, a laxer one only when
//! trusted > the default); every door reads `passed` and never decides
//! again. A project that asks for `fail_on: p2` (stricter, so it needs no
//! trust) fails a P2 finding at every door: `crit review code --exit-code`,
//! `crit report` and `crit report merge` of the saved result, and Claude
//! Code's Stop gate.

use std::path::Path;

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};

use crate::support::{crit, git, init_repo, json_out, show, write};

/// A repository whose committed `.crit/config.yaml` holds `config`, with an
/// uncommitted division in `src/calc.py`.
fn project(config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, ".gitignore", ".home/\n.state/\n.cache/\n*.json\n");
    if !config.is_empty() {
        write(d, ".crit/config.yaml", config);
    }
    write(d, "src/calc.py", "def div(a, b):\n    return a\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "base"]);
    write(d, "src/calc.py", "def div(a, b):\n    return a / b\n");
    dir
}

/// A reviewer's answer with one P2 finding on the division.
fn p2() -> Reply {
    Reply::json(
        json!({"verdict": "NEEDS_WORK", "summary": "One thing.", "findings": [
            {"file_path": "src/calc.py", "line_start": 2, "line_end": 2, "priority": 2,
             "title": "Division by zero when b is 0",
             "body": "Nothing checks b before dividing.",
             "evidence": "return a / b"}
        ]}),
    )
}

/// The second look, should the review take one: the finding is real.
fn confirmed() -> Step {
    Step::when_contains("The finding to check").reply(Reply::json(
        json!({"outcome": "confirmed", "reason": "b is never checked."}),
    ))
}

fn review(d: &Path, server: &FakeServer, extra: &[&str]) -> (std::process::Output, Value) {
    server.push(p2());
    let out = crit(d, server, None)
        .args([
            "review",
            "code",
            "--uncommitted",
            "--no-cache",
            "--verify",
            "off",
            "--json",
            "--no-log",
        ])
        .args(extra)
        .output()
        .unwrap();
    let r = json_out(&out);
    (out, r)
}

fn report(d: &Path, server: &FakeServer, args: &[&str]) -> std::process::Output {
    crit(d, server, None)
        .arg("report")
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap()
}

#[test]
fn a_stricter_project_gate_fails_a_p2_at_every_door() {
    let dir = project("fail_on: p2\n");
    let d = dir.path();
    let server = FakeServer::start_blocking();

    let (out, r) = review(d, &server, &["--exit-code"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_eq!(r["passed"], false, "{r:#}");
    std::fs::write(d.join("result.json"), &out.stdout).unwrap();

    // No flag at all: the result still says it did not pass, and the exit
    // code is 0 (no gate was asked for).
    let (out, r) = review(d, &server, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(r["passed"], false, "{r:#}");

    let out = report(d, &server, &["result.json", "--exit-code"]);
    assert_eq!(out.status.code(), Some(1), "crit report: {}", show(&out));
    assert_eq!(json_out(&out)["passed"], false);
    let out = report(d, &server, &["merge", "result.json", "--exit-code"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "crit report merge: {}",
        show(&out)
    );

    // An explicit level decides: `--fail-on p1` lets the P2 through.
    let (out, r) = review(d, &server, &["--fail-on", "p1"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(r["passed"], true, "{r:#}");
    let out = report(d, &server, &["result.json", "--fail-on", "p1"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));

    // The Stop gate holds the agent on the same finding.
    server.push(confirmed());
    server.push(p2());
    let event = json!({"hook_event_name": "Stop", "session_id": "s1", "stop_hook_active": false});
    let out = crit(d, &server, None)
        .args(["hook", "claude-code", "Stop"])
        .write_stdin(event.to_string())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", show(&out));
    let answer = json_out(&out);
    assert_eq!(answer["decision"], "block", "{answer:#}");
    assert!(
        answer["reason"]
            .as_str()
            .unwrap()
            .contains("Division by zero"),
        "{answer:#}"
    );
}

#[test]
fn without_the_projects_level_the_default_gate_lets_a_p2_pass() {
    // The same review in a project that asks nothing: the default gate
    // (P1) passes it, at every door. (So the test above fails when the
    // project's level is not read.)
    let dir = project("");
    let d = dir.path();
    let server = FakeServer::start_blocking();
    let (out, r) = review(d, &server, &["--exit-code"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(r["passed"], true, "{r:#}");
    std::fs::write(d.join("result.json"), &out.stdout).unwrap();
    let out = report(d, &server, &["result.json", "--exit-code"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

#[test]
fn report_never_passes_a_result_its_review_failed_without_an_explicit_level() {
    // Saved by a review at `fail_on: p2`; reported where no config says so
    // (a posting job without the checkout's settings): `--exit-code` alone
    // keeps the saved failure.
    let dir = project("fail_on: p2\n");
    let d = dir.path();
    let server = FakeServer::start_blocking();
    let (out, _) = review(d, &server, &[]);
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("result.json"), &out.stdout).unwrap();
    let out = report(elsewhere.path(), &server, &["result.json", "--exit-code"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
}

#[test]
fn the_stop_gate_takes_the_second_look_the_command_takes() {
    // `crit review code --uncommitted` verifies blocking findings; so does
    // the Stop gate: the verifier's request reaches the model.
    let dir = project("");
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(confirmed());
    server.push(Reply::json(
        json!({"verdict": "FAIL", "summary": "One.", "findings": [
            {"file_path": "src/calc.py", "line_start": 2, "line_end": 2, "priority": 1,
             "title": "Division by zero when b is 0", "body": "Nothing checks b.",
             "evidence": "return a / b"}
        ]}),
    ));
    let event = json!({"hook_event_name": "Stop", "session_id": "s2", "stop_hook_active": false});
    let out = crit(d, &server, None)
        .args(["hook", "claude-code", "Stop"])
        .write_stdin(event.to_string())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(json_out(&out)["decision"], "block");
    let asked: Vec<String> = server
        .model_requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    assert_eq!(asked.len(), 2, "the review and its second look");
    assert!(
        asked.iter().any(|b| b.contains("The finding to check")),
        "no second look"
    );
}
