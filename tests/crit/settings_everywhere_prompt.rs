//! Prompt review, every door: `crit prompt`, Claude Code's `!!!` hook and a
//! library caller, in the same trusted project, ask the model the project's
//! prompt-review settings name, keep to its budget (`max_reviewers_per_call`)
//! and record the same review in the audit log.

use std::path::Path;
use std::time::SystemTime;

use crit_os::Env;
use crit_project::{Explicit, Project};
use crit_prompt::settings::PromptSettings;
use crit_prompt::{PromptOptions, PromptRequest, audit};
use crit_testkit::prompt_review::{GUARDRAIL_CHECK, VAGUE, no_contradictions, vague_panel, who};
use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};

use crate::support::{crit, git, init_repo, write};

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, ".gitignore", ".home/\n.state/\n");
    write(
        d,
        "package.json",
        r#"{"name":"obsidian-claude-daily","devDependencies":{"typescript":"5"}}"#,
    );
    // Which model runs is the user's to trust: `crit trust` below.
    write(
        d,
        ".crit/prompt-review.yaml",
        "models:\n  reviewer: claude-opus-4-1\nbudget:\n  max_reviewers_per_call: 2\n",
    );
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "base"]);
    dir
}

fn script(server: &FakeServer) {
    for (label, answer) in vague_panel() {
        server
            .push(Step::when_contains(who(label)).reply(Reply::json(answer).usage(700, 120, 0, 0)));
    }
    server.push(Step::when_contains(GUARDRAIL_CHECK).reply(Reply::json(no_contradictions())));
}

/// The reviewers' models asked, and the audit line's account of the review.
fn seen(d: &Path, server: &FakeServer) -> Value {
    let mut models: Vec<String> = server
        .model_requests()
        .iter()
        .filter(|q| !q.body.to_string().contains(GUARDRAIL_CHECK))
        .map(|q| q.body["model"].as_str().unwrap_or_default().to_string())
        .collect();
    models.sort();
    models.dedup();
    let dir = d.join(".state/crit/audit/prompt-review");
    let mut lines: Vec<Value> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flat_map(|f| {
            std::fs::read_to_string(f.unwrap().path())
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(lines.len(), 1, "{lines:?}");
    let line = lines.remove(0);
    json!({
        "models": models,
        "mode": line["mode"],
        "reviewers_active": line["reviewers_active"],
        "findings_count": line["findings_count"],
        "outcome": line["outcome"],
    })
}

/// A library caller: crit-project opened as a front end opens it, in the
/// environment the binary ran in, the options made from its settings, the
/// review run and its audit line written.
fn library(d: &Path, server: &FakeServer) {
    let env = Env::from_pairs([
        ("HOME", d.join(".home").display().to_string()),
        ("XDG_STATE_HOME", d.join(".state").display().to_string()),
        (
            "ANTHROPIC_API_KEY",
            "sk-ant-review-secret-0123456789".into(),
        ),
        ("ANTHROPIC_BASE_URL", server.url()),
        ("PATH", std::env::var("PATH").unwrap_or_default()),
        ("PROMPT_REVIEW_MODE", "api".into()),
    ]);
    let project = Project::open(d, Explicit::default(), env).unwrap();
    let settings = PromptSettings::of(&project).unwrap();
    assert!(settings.enabled() && settings.logs());
    let opts = PromptOptions::from_settings(&settings, true);
    let req = PromptRequest {
        prompt: VAGUE.into(),
        root: project.root().to_path_buf(),
        cwd: project.root().to_path_buf(),
        trigger: "library".into(),
        source: None,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut review = runtime.block_on(crit_prompt::review(&req, &opts));
    review.decide(None);
    let dir = audit::dir(project.env()).unwrap();
    audit::append(&dir, &review, SystemTime::now()).unwrap();
}

#[test]
fn prompt_review_agrees_in_the_cli_the_hook_and_the_library() {
    let dir = project();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    let out = crit(d, &server, None)
        .args(["trust", "--yes"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", crate::support::stderr(&out));

    script(&server);
    let out = crit(d, &server, None)
        .env("PROMPT_REVIEW_MODE", "api")
        .args(["prompt", "--json", VAGUE])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    let cli = seen(d, &server);
    // The hook would answer from the review's cache: asked again instead.
    let cache = d.join(".home/.cache");
    assert!(cache.exists(), "the prompt review's cache moved");
    std::fs::remove_dir_all(cache).unwrap();

    let server = FakeServer::start_blocking();
    script(&server);
    let out = crit(d, &server, None)
        .env("PROMPT_REVIEW_MODE", "api")
        .args(["hook", "claude-code", "UserPromptSubmit"])
        .write_stdin(json!({"prompt": format!("{VAGUE}!!!")}).to_string())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    let hook = seen(d, &server);
    std::fs::remove_dir_all(d.join(".home/.cache")).unwrap();

    let server = FakeServer::start_blocking();
    script(&server);
    library(d, &server);
    let lib = seen(d, &server);

    assert_eq!(cli, hook, "crit prompt, then the !!! hook");
    assert_eq!(cli, lib, "crit prompt, then a library caller");
    assert_eq!(cli["models"], json!(["claude-opus-4-1"]), "{cli}");
    assert_eq!(cli["outcome"], "reviewed", "{cli}");
    // The budget's cap on reviewers, at every door.
    assert_eq!(
        cli["reviewers_active"].as_array().map(Vec::len),
        Some(2),
        "{cli}"
    );
}
