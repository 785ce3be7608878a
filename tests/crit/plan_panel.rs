//! `crit plan` with a model backend: after the checks approve, the persona
//! panel reviews the plan concurrently and all must approve before the
//! marker is written; AUTO-SELECT picks a panel with a cheap model.

use std::path::Path;
use std::process::Output;

use assert_cmd::Command;
use crit_testkit::{FakeServer, Reply, Step};
use serde_json::json;

const PLAN: &str = "# Plan: cache user profiles\n\n1. Add a `ProfileCache` in front of `ProfileStore::get`.\n2. Invalidate on update and logout.\n3. Ship behind a flag.\n";
const PANEL: &str = "reviewer_personas:\n  - name: \"Dr. Ada Cache\"\n    domain: \"caching\"\n    focus: [\"invalidation\"]\n  - name: \"Claude\"\n    domain: \"anti-pattern detection\"\n    focus: [\"CLAUDE.md violations\"]\n";

fn session(context: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("plan.md"), PLAN).unwrap();
    if let Some(c) = context {
        std::fs::write(dir.path().join("context.yaml"), c).unwrap();
    }
    // One check that passes, so the checks approve and the panel is asked.
    std::fs::write(
        dir.path().join("checks.yaml"),
        "checks:\n  - id: no_eval\n    pattern: \"eval(\"\n    reason: \"eval runs arbitrary code\"\n",
    )
    .unwrap();
    dir
}

pub(super) fn crit(dir: &Path, server: &FakeServer) -> Command {
    let mut c = Command::cargo_bin("crit").unwrap();
    c.env_clear()
        .env("PATH", "/nonexistent")
        .env("HOME", dir.join(".home"))
        .env("ANTHROPIC_API_KEY", "sk-ant-plan-0123456789abcdef")
        .env("ANTHROPIC_BASE_URL", server.url())
        .current_dir(dir);
    c
}

fn run(dir: &Path, server: &FakeServer) -> Output {
    crit(dir, server)
        .args(["plan", ".", "--non-interactive"])
        .output()
        .unwrap()
}

fn pass() -> Reply {
    Reply::json(json!({"verdict": "PASS", "summary": "Sound.", "findings": []}))
        .delay(std::time::Duration::from_millis(300))
}

#[test]
fn every_member_approves_then_the_marker_is_written() {
    let dir = session(Some(PANEL));
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("You are Dr. Ada Cache").reply(pass()));
    server.push(Step::when_contains("You are Claude").reply(pass()));
    let out = run(dir.path(), &server);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.starts_with("APPROVED\n"), "{text}");
    assert!(
        text.contains("Panel: approved by Dr. Ada Cache, Claude"),
        "{text}"
    );
    assert!(
        dir.path().join("plan.md.approved").exists() || dir.path().join("plan.approved").exists()
    );
    let reqs = server.model_requests();
    assert_eq!(reqs.len(), 2);
    assert!(
        reqs[0].overlaps(&reqs[1]),
        "the panel ran one member after the other"
    );
    let user = reqs[0].body["messages"][0].to_string();
    assert!(
        user.contains("1 | # Plan: cache user profiles"),
        "the plan, numbered: {user}"
    );
    let ada = reqs
        .iter()
        .find(|r| {
            r.body["system"]
                .to_string()
                .contains("You are Dr. Ada Cache")
        })
        .unwrap();
    let system = ada.body["system"][0]["text"].as_str().unwrap();
    let user = ada.body["messages"][0]["content"][0]["text"]
        .as_str()
        .unwrap();
    insta::assert_snapshot!("persona_request", format!("{system}\n--- user ---\n{user}"));
}

#[test]
fn one_blocking_finding_rejects_and_no_marker_is_written() {
    let dir = session(Some(PANEL));
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("You are Dr. Ada Cache").reply(Reply::json(json!({
        "verdict": "FAIL", "summary": "Stale reads.",
        "findings": [{"file_path": "plan.md", "line_start": 4, "line_end": 4, "priority": 1,
            "title": "[P1] Invalidation misses writes from other services",
            "body": "ProfileStore is also written by the billing service; its writes never invalidate."}]}))));
    server.push(Step::when_contains("You are Claude").reply(pass()));
    let out = run(dir.path(), &server);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.starts_with("REJECTED\n"), "{text}");
    assert!(text.contains("the review panel did not approve"), "{text}");
    // The title once, without the tag its severity already says.
    assert!(
        text.contains("  - [Dr. Ada Cache] P1 Invalidation misses writes from other services (L4)\n      Why: ProfileStore is also written by the billing service; its writes never invalidate.\n"),
        "{text}"
    );
    // Each member's summary, in its own voice.
    assert!(text.contains("[As Dr. Ada Cache]: Stale reads."), "{text}");
    let markers = std::fs::read_dir(dir.path())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".approved")
        })
        .count();
    assert_eq!(markers, 0, "no approval marker after a rejection");
}

#[test]
fn auto_select_picks_the_panel_with_a_cheap_model() {
    // Neither persona key: AUTO-SELECT's case (seed 004).
    let dir = session(Some("project_root: .\n"));
    std::fs::create_dir_all(dir.path().join(".home/.claude")).unwrap();
    std::fs::write(
        dir.path().join(".home/.claude/reviewers.yaml"),
        "code_technical:\n  - name: \"Kent Beck\"\n    domain: \"testing\"\n",
    )
    .unwrap();
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("Select the review panel").reply(Reply::json(json!({
        "panel": [{"name": "Kent Beck", "domain": "testing", "focus": ["test plan"]},
                  {"name": "Claude", "domain": "anti-pattern detection", "focus": ["CLAUDE.md violations"]}],
        "reason": "A caching change needs a test plan."}))));
    server.push(Step::when_contains("You are Kent Beck").reply(pass()));
    server.push(Step::when_contains("You are Donald Knuth").reply(pass()));
    server.push(Step::when_contains("You are Claude").reply(pass()));
    let out = run(dir.path(), &server);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    // Never a panel of one reviewer: the software table completes it.
    assert!(
        text.contains("Reviewer: Kent Beck, Donald Knuth, Claude\n"),
        "{text}"
    );
    assert!(
        text.contains("AUTO-SELECT picked the panel: A caching change needs a test plan."),
        "{text}"
    );
    let reqs = server.model_requests();
    assert_eq!(
        reqs[0].body["model"], "claude-haiku-5-5",
        "AUTO-SELECT runs on the cheap model"
    );
    assert!(
        reqs[0].body["messages"].to_string().contains("Kent Beck"),
        "the catalogue was sent"
    );
    let prompt = reqs[0].body["messages"][0]["content"][0]["text"]
        .as_str()
        .unwrap();
    // expert-review's PROJECT PATH: context.yaml's `project_root: .`, the
    // session directory itself.
    let root = dir.path();
    assert!(
        prompt.contains(&format!("PROJECT PATH: {}\n", root.display())),
        "{prompt}"
    );
    insta::assert_snapshot!(
        "auto_select_request",
        prompt.replace(&root.display().to_string(), "/PROJECT")
    );
}

#[test]
fn auto_select_falls_back_to_the_default_panel() {
    let dir = session(Some("project_root: .\n"));
    let server = FakeServer::start_blocking();
    server.push(
        Step::when_contains("Select the review panel").reply(Reply::api_error(
            529,
            "overloaded_error",
            "Overloaded",
        )),
    );
    server.push(Step::when_contains("You are Senior Technical Reviewer").reply(pass()));
    server.push(Step::when_contains("You are Claude").reply(pass()));
    let out = run(dir.path(), &server);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("AUTO-SELECT failed"), "{text}");
    assert!(
        text.contains("Panel: approved by Senior Technical Reviewer, Claude"),
        "{text}"
    );
}
