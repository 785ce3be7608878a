//! `crit run` and `crit init` end to end: the binary against crit-testkit.

use crate::support;

use std::path::Path;

use assert_cmd::Command;
use crit_testkit::{FakeServer, Reply, Step};
use serde_json::json;
use support::json_out;

fn crit(dir: &Path, server: Option<&FakeServer>) -> Command {
    let mut c = Command::cargo_bin("crit").unwrap();
    c.env_clear()
        .env("PATH", "/nonexistent")
        .env("HOME", dir.join(".home"))
        .env("XDG_STATE_HOME", dir.join(".state"))
        .current_dir(dir);
    if let Some(s) = server {
        c.env("ANTHROPIC_API_KEY", "sk-ant-run-secret-0123456789")
            .env("ANTHROPIC_BASE_URL", s.url());
    }
    c
}

#[test]
fn with_no_config_the_built_in_orchestrator_reviews() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::json(
        json!({"verdict": "PASS", "summary": "Nothing to fix.", "findings": []}),
    )));
    let out = crit(dir.path(), Some(&server))
        .args(["run", "Review the project", "--json", "--exit-code"])
        .output()
        .unwrap();
    let result = json_out(&out);
    assert_eq!(out.status.code(), Some(0), "{result}");
    assert_eq!(result["review"], "run");
    assert_eq!(result["verdict"], "PASS");
    let req = &server.model_requests()[0];
    assert!(
        req.body["system"]
            .to_string()
            .contains("You lead a code review")
    );
    assert_eq!(
        req.body["messages"][0]["content"][0]["text"],
        "Review the project"
    );
}

#[test]
fn without_a_backend_it_says_how_to_get_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = crit(dir.path(), None)
        .args(["run", "Review it"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("ANTHROPIC_API_KEY"), "{err}");
}

#[test]
fn exit_code_follows_passed_and_an_unparseable_answer_fails() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join(".reldo")).unwrap();
    std::fs::write(
        d.join(".reldo/settings.json"),
        r#"{"prompt": "You are the ORCHESTRATOR.", "allowed_tools": ["Read"], "output_schema": {"type": "object", "properties": {"passed": {"type": "boolean"}}, "required": ["passed"]}}"#,
    )
    .unwrap();
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::json(json!({"passed": true}))));
    crit(d, Some(&server))
        .args(["run", "Review", "--exit-code", "-q"])
        .assert()
        .code(0);
    server.push(Step::reply(Reply::json(json!({"passed": false}))));
    crit(d, Some(&server))
        .args(["run", "Review", "--exit-code", "-q"])
        .assert()
        .code(1);
    // "STATUS: PASS" in prose is not a pass: only the schema's `passed` decides.
    for _ in 0..3 {
        server.push(Step::reply(Reply::text("STATUS: PASS")));
    }
    let out = crit(d, Some(&server))
        .args(["run", "Review", "--exit-code", "--json", "--no-log"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let result = json_out(&out);
    assert_eq!(result["passed"], false);
    assert!(result["parse_error"].is_string());
}

#[test]
fn init_writes_a_starter_that_runs_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = crit(d, None).args(["init"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    for f in [
        ".crit/config.yaml",
        ".crit/run.yaml",
        ".crit/prompts/orchestrator.md",
        ".crit/agents/backend-reviewer.md",
        ".crit/agents/frontend-reviewer.md",
        ".crit/agents/architecture-reviewer.md",
    ] {
        assert!(d.join(f).is_file(), "{f}");
        assert!(text.contains(f), "{text}");
    }
    std::fs::write(
        d.join(".crit/run.yaml"),
        std::fs::read_to_string(d.join(".crit/run.yaml")).unwrap() + "\n# mine\n",
    )
    .unwrap();
    // Without --force, nothing is overwritten: a usage error naming the file.
    let again = crit(d, None).args(["init"]).output().unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("run.yaml"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert!(
        std::fs::read_to_string(d.join(".crit/run.yaml"))
            .unwrap()
            .ends_with("# mine\n")
    );

    // The starter config loads, and its three reviewers are offered through Task.
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::json(
        json!({"verdict": "PASS", "summary": "ok", "findings": []}),
    )));
    let out = crit(d, Some(&server))
        .args(["run", "-", "--json"])
        .write_stdin("Review the branch\n")
        .output()
        .unwrap();
    assert_eq!(json_out(&out)["verdict"], "PASS");
    let req = &server.model_requests()[0];
    let task = req.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "Task")
        .unwrap()
        .to_string();
    for name in [
        "backend-reviewer",
        "frontend-reviewer",
        "architecture-reviewer",
    ] {
        assert!(task.contains(name), "{task}");
    }
    // A prompt read from stdin is stripped, as Reldo strips it.
    assert_eq!(
        req.body["messages"][0]["content"][0]["text"],
        "Review the branch"
    );
}
