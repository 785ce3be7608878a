//! The review gate's everyday path in every agent: blocks with the findings, passes the fix and clean trees, counts subagents apart, reviews commits, logs without content.

use super::*;
use crate::support;

use crit_testkit::{FakeServer, Step};
use serde_json::{Value, json};
use support::{crit, git, write};

#[test]
fn a_failing_review_blocks_with_the_findings_then_the_fix_passes() {
    every_agent(a_failing_review_blocks_with_the_findings_then_the_fix_passes_in_each_agent);
}

fn a_failing_review_blocks_with_the_findings_then_the_fix_passes_in_each_agent() {
    let dir = repo(EVAL);
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("eval(input())").reply(p0()));
    server.push(confirmed());
    let out = stop(d, &server, &event(Some("s1"), false), &[]);
    let block = decision(&out).expect("no block");
    assert!(holds(&block), "{block}");
    let reason = block[agent().reason].as_str().unwrap();
    assert!(
        reason.contains("- src/app.py:2 [P0] eval of user input. Fix: Any input runs as Python."),
        "{reason}"
    );
    assert!(reason.contains("1 blocking finding"), "{reason}");
    // What crit sent was the uncommitted change.
    assert!(
        server.model_requests()[0]
            .body
            .to_string()
            .contains("return eval(input())")
    );

    // The agent fixes it and stops again: reviewed again, passes.
    write(
        d,
        "src/app.py",
        "import ast\ndef main():\n    return ast.literal_eval(input())\n",
    );
    server.push(Step::when_contains("literal_eval").reply(pass()));
    let out = stop(d, &server, &event(Some("s1"), true), &[]);
    assert_eq!(decision(&out), None, "{}", support::stderr(&out));
    assert_eq!(reviews(&server), 2);
}

#[test]
fn nothing_to_review_passes_at_once() {
    every_agent(nothing_to_review_passes_at_once_in_each_agent);
}

fn nothing_to_review_passes_at_once_in_each_agent() {
    let server = FakeServer::start_blocking();
    // A clean tree.
    let dir = repo("def main():\n    return 1\n");
    assert_eq!(
        decision(&stop(dir.path(), &server, &event(Some("s"), false), &[])),
        None
    );
    // Not a git repository.
    let plain = tempfile::tempdir().unwrap();
    write(plain.path(), "notes.md", "hello\n");
    let out = stop(plain.path(), &server, &event(Some("s"), false), &[]);
    assert_eq!(decision(&out), None);
    assert!(out.stderr.is_empty(), "{}", support::stderr(&out));
    // A passing review: remembered, so the next stop does not ask again.
    let dir = repo("def main():\n    return 2\n");
    server.push(pass());
    assert_eq!(
        decision(&stop(dir.path(), &server, &event(Some("s"), false), &[])),
        None
    );
    assert_eq!(
        decision(&stop(dir.path(), &server, &event(Some("s"), false), &[])),
        None
    );
    assert_eq!(reviews(&server), 1);
}

#[test]
fn subagent_stop_is_the_same_gate_counted_per_subagent() {
    agents_with(
        &["claude-code", "codex"],
        subagent_stop_is_the_same_gate_counted_per_subagent_in_each_agent,
    );
}

fn subagent_stop_is_the_same_gate_counted_per_subagent_in_each_agent() {
    let dir = repo(EVAL);
    let d = dir.path();
    let server = FakeServer::start_blocking();
    for _ in 0..4 {
        server.push(p0());
        server.push(confirmed());
    }
    let sub = |agent: &str, active: bool| {
        json!({"hook_event_name": "SubagentStop", "session_id": "s", "agent_id": agent,
               "agent_type": "general-purpose", "stop_hook_active": active})
        .to_string()
    };
    for sub_id in ["a1", "a2"] {
        let out = crit(d, &server, None)
            .args(["hook", agent().id, "SubagentStop", "--no-log"])
            .write_stdin(sub(sub_id, false))
            .output()
            .unwrap();
        assert!(holds(&decision(&out).unwrap()), "{sub_id}");
    }
    assert_eq!(reviews(&server), 2);
}

#[test]
fn the_audit_log_records_the_gates_review_without_content() {
    every_agent(the_audit_log_records_the_gates_review_without_content_in_each_agent);
}

fn the_audit_log_records_the_gates_review_without_content_in_each_agent() {
    let dir = repo(EVAL);
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(p0());
    server.push(confirmed());
    let out = crit(d, &server, None)
        .args(["hook", agent().id, agent().stop])
        .write_stdin(event(Some("s"), false))
        .output()
        .unwrap();
    assert!(decision(&out).is_some());
    let audit = std::fs::read_dir(d.join(".state/crit/audit"))
        .unwrap()
        .flatten()
        .find(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .unwrap()
        .path();
    let text = std::fs::read_to_string(audit).unwrap();
    let line: Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(line["review"], "code");
    assert_eq!(line["passed"], false);
    assert_eq!(line["findings"]["P0"], 1);
    assert_eq!(line["fingerprints"].as_array().unwrap().len(), 1);
    for leak in ["eval", "app.py", "literal"] {
        assert!(!text.contains(leak), "{leak} in the audit log: {text}");
    }
}

/// What the agent commits between stops is reviewed at the next stop, as
/// if it were still uncommitted: committing is no way past the gate.
#[test]
fn committed_work_is_reviewed_at_the_next_stop() {
    every_agent(committed_work_is_reviewed_at_the_next_stop_in_each_agent);
}

fn committed_work_is_reviewed_at_the_next_stop_in_each_agent() {
    let dir = repo(EVAL);
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("return eval(input())").reply(p0()));
    server.push(confirmed());
    blocked(&stop(d, &server, &event(Some("s"), false), &[]));
    // The fix, committed: reviewed (against where the gate blocked), passes.
    write(
        d,
        "src/app.py",
        "import ast\ndef main():\n    return ast.literal_eval(input())\n",
    );
    git(d, &["commit", "-q", "-am", "fix"]);
    server.push(Step::when_contains("literal_eval").reply(pass()));
    let out = stop(d, &server, &event(Some("s"), true), &[]);
    assert_eq!(decision(&out), None, "{}", support::stderr(&out));
    assert_eq!(reviews(&server), 2);
    // A later turn: the agent commits a backdoor and stops with a clean tree.
    write(
        d,
        "src/app.py",
        "def main():\n    return eval(input()) or 1\n",
    );
    git(d, &["commit", "-q", "-am", "shortcut"]);
    server.push(Step::when_contains("eval(input()) or 1").reply(p0()));
    server.push(confirmed());
    let reason = blocked(&stop(d, &server, &event(Some("s"), false), &[]));
    assert!(reason.contains("eval of user input"), "{reason}");
    assert_eq!(reviews(&server), 3);
}

#[test]
fn an_event_it_cannot_read_is_still_reviewed() {
    every_agent(an_event_it_cannot_read_is_still_reviewed_in_each_agent);
}

fn an_event_it_cannot_read_is_still_reviewed_in_each_agent() {
    let dir = repo(EVAL);
    let d = dir.path();
    let server = FakeServer::start_blocking();
    for _ in 0..4 {
        server.push(p0());
        server.push(confirmed());
    }
    // A field of the wrong type costs only that field; input that is not an
    // event at all still gets its review: either way the failing change is
    // sent back, never let through.
    for input in [
        r#"{"session_id": "s", "cwd": 7, "hook_event_name": "Stop", "stop_hook_active": "no"}"#,
        r#"{"session_id": 12, "hook_event_name": ["Stop"]}"#,
        "not json at all",
        "[1, 2]",
    ] {
        let out = stop(d, &server, input, &[]);
        let reason = blocked(&out);
        assert!(reason.contains("eval"), "{input}: {reason}");
    }
}

/// What the agent commits before the gate has ever decided in a session is
/// reviewed at the first stop: the session's first prompt notes HEAD (from
/// the git directory's files, with no git process and no output), and the
/// first stop reviews what was committed since with what is not.
#[test]
fn committed_before_the_first_stop_is_reviewed() {
    every_agent(committed_before_the_first_stop_is_reviewed_in_each_agent);
}

fn committed_before_the_first_stop_is_reviewed_in_each_agent() {
    let dir = repo("def main():\n    return 1\n");
    let d = dir.path();
    let server = FakeServer::start_blocking();
    let prompt = json!({"hook_event_name": agent().prompt, "session_id": "first",
        "prompt": "tidy up main", "transcript_path": "/nonexistent.jsonl"});
    let out = crit(d, &server, None)
        .args(["hook", agent().id, agent().prompt])
        .write_stdin(prompt.to_string())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    assert_eq!(
        decision(&out),
        // Cursor waits for every prompt's answer: it goes on.
        (agent().id == "cursor").then(|| json!({"continue": true}))
    );
    assert!(server.model_requests().is_empty());
    // The agent commits the backdoor and stops with a clean tree.
    write(d, "src/app.py", EVAL);
    git(d, &["commit", "-q", "-am", "shortcut"]);
    server.push(Step::when_contains("return eval(input())").reply(p0()));
    server.push(confirmed());
    let reason = blocked(&stop(d, &server, &event(Some("first"), false), &[]));
    assert!(reason.contains("eval of user input"), "{reason}");
    // A session that never prompted (no note) is as before: a clean tree
    // has nothing uncommitted to review.
    let out = stop(d, &server, &event(Some("other"), false), &[]);
    assert_eq!(decision(&out), None, "{}", support::stderr(&out));
    assert_eq!(reviews(&server), 1);
}
