//! Plan review, every door: `crit plan` and a library caller of
//! crit-review's plan kind, in the same project, review with the same
//! settings — the model, the timeout and the budget (`max_budget_usd`) from a trusted
//! `.crit/config.yaml` — and decide `passed` the same way, the command's exit
//! code saying it. (The Python package's `review_plan` is held to the same
//! in crates/crit-py/tests/test_settings_everywhere.py.)

use std::path::Path;

use crit_checks::{AnswerBook, Options};
use crit_llm::Env;
use crit_project::{Explicit, Kind, Project};
use crit_review::plan::{PanelChoice, PlanReview, review_plan};
use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};

use crate::support::{crit, git, init_repo, json_out, write};

const PANEL: &str = "reviewer_personas:\n  - name: \"Dr. Ada Cache\"\n    domain: \"caching\"\n    focus: [\"invalidation\"]\n  - name: \"Claude\"\n    domain: \"anti-pattern detection\"\n    focus: [\"CLAUDE.md violations\"]\n";

/// A trusted project whose config sets the plan panel's model, a one-second
/// timeout and a budget, with a plan whose checks pass.
fn project() -> tempfile::TempDir {
    project_with("model: haiku\ntimeout: 1\nmax_budget_usd: 5\n")
}

fn project_with(config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, ".gitignore", ".home/\n.state/\n");
    write(d, ".crit/config.yaml", config);
    write(
        d,
        "plans/cache/plan.md",
        "# Plan: cache profiles\n\n1. Add a cache.\n2. Invalidate on update.\n",
    );
    write(d, "plans/cache/context.yaml", PANEL);
    write(
        d,
        "plans/cache/checks.yaml",
        "checks:\n  - id: no_eval\n    pattern: \"eval(\"\n    reason: \"eval runs code\"\n",
    );
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "plan"]);
    dir
}

/// Ada finds a blocking flaw; Claude answers after the configured timeout.
fn script(server: &FakeServer) {
    server.push(
        Step::when_contains("You are Dr. Ada Cache").reply(Reply::json(json!({
            "verdict": "FAIL", "summary": "Stale reads.",
            "findings": [{"file_path": "plan.md", "line_start": 4, "line_end": 4, "priority": 1,
                "title": "Invalidation misses other writers",
                "body": "Billing writes profiles too; its writes never invalidate."}]}))),
    );
    server.push(
        Step::when_contains("You are Claude").reply(
            Reply::json(json!({"verdict": "PASS", "summary": "Fine.", "findings": []}))
                .delay(std::time::Duration::from_secs(4)),
        ),
    );
}

/// What must agree: `passed`, each member's status and whether it timed
/// out, the models asked.
fn seen(result: &Value, server: &FakeServer) -> Value {
    let mut members: Vec<Value> = result["reviewers"]
        .as_array()
        .unwrap_or_else(|| panic!("no reviewers: {result}"))
        .iter()
        .map(|r| {
            let error = r["error"].as_str().unwrap_or_default().to_lowercase();
            json!({
                "name": r["name"],
                "status": r["status"],
                "timed_out": error.contains("time"),
                "over_budget": error.contains("budget"),
            })
        })
        .collect();
    members.sort_by_key(|m| m["name"].to_string());
    let models: std::collections::BTreeSet<String> = server
        .model_requests()
        .iter()
        .map(|q| q.body["model"].as_str().unwrap_or_default().to_string())
        .collect();
    json!({"passed": result["passed"], "members": members, "models": models})
}

fn library(d: &Path, server: &FakeServer) -> Value {
    let env = Env::from_pairs([
        ("HOME", d.join(".home").display().to_string()),
        ("XDG_STATE_HOME", d.join(".state").display().to_string()),
        (
            "ANTHROPIC_API_KEY",
            "sk-ant-review-secret-0123456789".into(),
        ),
        ("ANTHROPIC_BASE_URL", server.url()),
        ("PATH", std::env::var("PATH").unwrap_or_default()),
    ]);
    let project = Project::open(d, Explicit::default(), env.clone()).unwrap();
    let settings = project.settings(Kind::Plan).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let target = d.join("plans/cache").display().to_string();
    let options = Options::from_env(&env);
    let req = PlanReview {
        target: &target,
        panel: PanelChoice::Settings(&settings),
        options: &options,
        runtime: runtime.handle().clone(),
        cancel: Default::default(),
        progress: None,
        log: false,
        env: &env,
    };
    let mut book = AnswerBook::parse(&[]).unwrap();
    let outcome = review_plan(req, &mut book);
    runtime.shutdown_background();
    serde_json::to_value(&outcome.result).unwrap()
}

/// `crit plan` in `d` after trusting its config: what it saw, and its result.
fn cli(d: &Path, server: &FakeServer) -> (Value, Value) {
    assert!(
        crit(d, server, None)
            .args(["trust", "--yes"])
            .output()
            .unwrap()
            .status
            .success()
    );
    script(server);
    let out = crit(d, server, None)
        .args(["plan", "plans/cache", "--non-interactive", "--json"])
        .output()
        .unwrap();
    let result = json_out(&out);
    // The exit code says `passed`.
    let code = if result["passed"] == true { 0 } else { 1 };
    assert_eq!(out.status.code(), Some(code), "{result}");
    (seen(&result, server), result)
}

#[test]
fn the_plan_budget_holds_in_the_cli_and_the_library() {
    // A budget of nothing: no reviewer may spend, at either door.
    let dir = project_with("model: haiku\nmax_budget_usd: 0\n");
    let d = dir.path();
    let server = FakeServer::start_blocking();
    let (cli, result) = self::cli(d, &server);
    assert!(server.model_requests().is_empty(), "{result}");

    let server = FakeServer::start_blocking();
    script(&server);
    let lib = seen(&library(d, &server), &server);
    assert!(server.model_requests().is_empty(), "the library spent");
    assert_eq!(cli, lib, "crit plan, then the library");

    // Both personas stop at the budget, incomplete; the deterministic checks
    // cost nothing and run.
    let members = cli["members"].as_array().unwrap();
    assert_eq!(members.len(), 3, "{cli}");
    for m in members {
        let persona = m["name"] != "checks";
        assert_eq!(m["over_budget"], persona, "{cli}");
        let status = if persona { "incomplete" } else { "completed" };
        assert_eq!(m["status"], status, "{cli}");
    }
    assert_ne!(
        cli["passed"], true,
        "a panel that could not spend passes nothing: {cli}"
    );
}

#[test]
fn plan_review_agrees_in_the_cli_and_the_library() {
    let dir = project();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    let (cli, _) = self::cli(d, &server);

    let server = FakeServer::start_blocking();
    script(&server);
    let lib = seen(&library(d, &server), &server);
    assert_eq!(cli, lib, "crit plan, then the library");

    // What both saw: the configured model, the configured one-second
    // timeout (Claude's answer came after it), the blocking finding failing
    // the review.
    assert_eq!(cli["passed"], false, "{cli}");
    assert_eq!(cli["models"], json!(["claude-haiku-5-5"]), "{cli}");
    let claude = cli["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"].as_str().unwrap_or_default().contains("Claude"))
        .unwrap_or_else(|| panic!("{cli}"));
    assert_eq!(claude["timed_out"], true, "{cli}");
}
