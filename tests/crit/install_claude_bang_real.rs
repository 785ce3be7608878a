//! The `!!!` hand-off after `crit install claude-code`, on the real Claude
//! Code CLI at the pinned version and at an older one (both from npm, see
//! `.ci/install-test-deps`): the `UserPromptSubmit` hook hands the prompt to
//! `/prompt-review`, whose `crit prompt` Bash call runs with no permission
//! denial (install grants `Bash(crit prompt:*)` itself: not every version
//! honours a skill's `allowed-tools`), and its review runs in subscription
//! mode through the same CLI, against crit-testkit's fake server.
//!
//! Without an installed CLI its test is reported as ignored, with the
//! reason, on a developer machine; under CI (`CI` set) it fails, because CI
//! installs both.

use crate::claude_code_hooks_real::{crit_dir, result};
use crate::support;

use std::path::{Path, PathBuf};

use crit_testkit::prompt_review::{GUARDRAIL_CHECK, no_contradictions, vague_panel, who};
use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};
use support::{git, init_repo, write};

/// The CLI installed under `.test-deps/DIR`.
fn cli(dir: &str) -> PathBuf {
    let bin = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(".test-deps")
        .join(dir)
        .join("node_modules/.bin/claude");
    assert!(
        bin.exists(),
        "{} is missing: run .ci/install-test-deps",
        bin.display()
    );
    bin
}

/// The scripted model: the hook's hand-off is followed with the skill, the
/// skill with its `crit prompt`, whose reviewers answer as the panel.
fn server() -> FakeServer {
    let server = FakeServer::start_blocking();
    for (label, answer) in vague_panel() {
        server.push(Step::when_contains(who(label)).reply(Reply::json(answer)));
    }
    server.push(Step::when_contains(GUARDRAIL_CHECK).reply(Reply::json(no_contradictions())));
    server.push(
        Step::when_contains("run the /prompt-review command").reply(Reply::tool_use(
            "Skill",
            json!({"skill": "prompt-review", "args": "optimize the settings page"}),
        )),
    );
    server.push(Step::reply(Reply::tool_use(
        "Bash",
        json!({"command": "crit prompt --format markdown - <<'CRIT_PROMPT_END'\noptimize the settings page\nCRIT_PROMPT_END",
               "description": "Review the prompt with crit"}),
    )));
    server.push(Step::reply(Reply::text(
        "Proceed with the refined prompt? (yes / no / edit)",
    )));
    server
}

/// `!!!` through `claude` at `bin`, after `crit install claude-code --user`:
/// the tools refused, and each tool result's text.
fn bang_after_install(bin: &Path) -> (Vec<Value>, Vec<String>) {
    let tmp = tempfile::tempdir().unwrap();
    let (home, project) = (tmp.path().join("home"), tmp.path().join("project"));
    std::fs::create_dir_all(&project).unwrap();
    init_repo(&project);
    write(&project, "README.md", "A project.\n");
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-q", "-m", "base"]);
    let path = format!(
        "{}:{}",
        crit_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = assert_cmd::Command::cargo_bin("crit")
        .unwrap()
        .env_clear()
        .env("PATH", &path)
        .env("HOME", &home)
        .current_dir(&project)
        .args(["install", "claude-code", "--user"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", support::stderr(&out));
    let server = server();
    let out = std::process::Command::new(bin)
        .args(["-p", "--output-format", "stream-json", "--verbose"])
        .args([
            "--no-session-persistence",
            "--",
            "optimize the settings page!!!",
        ])
        .env_clear()
        .env("PATH", &path)
        .env("HOME", &home)
        .env("XDG_STATE_HOME", tmp.path().join("state"))
        .env("ANTHROPIC_API_KEY", "sk-ant-install-0123456789abcdef")
        .env("ANTHROPIC_BASE_URL", server.url())
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        // Subscription mode, on this same CLI: the review runs in Claude's
        // session, through the slash command, as a subscriber's does.
        .env("CRIT_CLAUDE_BIN", bin)
        .env("CRIT_CLAUDE_AUTH", "env")
        .env("PROMPT_REVIEW_TIMEOUT", "120000")
        .current_dir(&project)
        .output()
        .unwrap();
    let _ = result(&out);
    let events: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let end = events
        .iter()
        .find(|e| e["type"] == "result")
        .unwrap_or_else(|| panic!("no result event: {}", support::stderr(&out)));
    let denied = end["permission_denials"].as_array().unwrap().clone();
    let results = events
        .iter()
        .filter(|e| e["type"] == "user")
        .filter_map(|e| e["message"]["content"].as_array())
        .flatten()
        .filter(|c| c["type"] == "tool_result")
        .map(|c| match &c["content"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect();
    (denied, results)
}

fn the_bang_hand_off_reaches_crit_prompt(dir: &str) {
    let bin = cli(dir);
    let (denied, results) = bang_after_install(&bin);
    let version = std::process::Command::new(&bin)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    assert!(denied.is_empty(), "{version}: {denied:#?}\n{results:#?}");
    assert!(
        results
            .iter()
            .any(|r| r.contains("Launching skill: prompt-review")),
        "{version}: {results:#?}"
    );
    assert!(
        results
            .iter()
            .any(|r| r.starts_with("## Prompt review") && r.contains("### Refined prompt")),
        "{version}: crit prompt did not run: {results:#?}"
    );
}

#[test]
#[cfg_attr(
    missing_claude_cli,
    ignore = "the Claude Code CLI is not installed: run .ci/install-test-deps"
)]
fn the_bang_hand_off_runs_crit_prompt_on_the_pinned_claude_code() {
    the_bang_hand_off_reaches_crit_prompt("npm");
}

#[test]
#[cfg_attr(
    missing_claude_cli_older,
    ignore = "the older Claude Code CLI is not installed: run .ci/install-test-deps"
)]
fn the_bang_hand_off_runs_crit_prompt_on_an_older_claude_code() {
    the_bang_hand_off_reaches_crit_prompt("npm-older");
}
