//! `crit install claude-code` against the real Claude Code CLI (npm
//! `@anthropic-ai/claude-code`, pinned in `.ci/install-test-deps`) and
//! crit-testkit's fake Anthropic server, with a scripted model that makes
//! the calls crit's own paths make:
//!
//! - what it allows: the `/prompt-review` skill (the `!!!` hook's path in
//!   subscription mode) and the `crit prompt` it runs, and `crit plan` (the
//!   plan gate's path) run with no `permission_denials` after install, and
//!   are refused before it and after uninstall;
//! - what it runs: the CLI's `system/init` lists the `expert-review` agent
//!   after install and not after uninstall, and the original's
//!   `Task(subagent_type="expert-review", …)` runs `crit plan` through it;
//! - a project's rules apply once the folder is trusted, as install says.
//!
//! Without the installed CLI these tests are reported as ignored, with the
//! reason, on a developer machine; under CI (`CI` set) they fail, because CI
//! installs it.

use crate::claude_code_hooks_real::{crit_dir, result};
use crate::support;

use std::path::{Path, PathBuf};
use std::process::Output;

use crit_testkit::prompt_review::{GUARDRAIL_CHECK, no_contradictions, vague_panel, who};
use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};
use support::{git, init_repo, write};

/// The user's own settings before install: rules of their own, two-space
/// indentation.
const USER_SETTINGS: &str = r#"{
  "model": "sonnet",
  "permissions": {
    "allow": [
      "Bash(git status:*)"
    ]
  }
}
"#;

/// A line of the agent's prompt (the subagent's requests carry it).
const AGENT_MARKER: &str = "You run crit's plan review for the agent that called you";

/// The plan crit plan reviews: its checks pass, one persona approves.
const SESSION: &str = "s1";

struct Scene {
    tmp: tempfile::TempDir,
}

impl Scene {
    fn new() -> Scene {
        let s = Scene {
            tmp: tempfile::tempdir().unwrap(),
        };
        let p = s.project();
        std::fs::create_dir_all(&p).unwrap();
        init_repo(&p);
        // A clean work tree: the Stop gate has nothing to review.
        write(&p, "README.md", "A project.\n");
        git(&p, &["add", "-A"]);
        git(&p, &["commit", "-q", "-m", "base"]);
        let session = s.home().join(".claude/sessions").join(SESSION);
        write(
            &session,
            "plan.md",
            "# Plan\n\nCache profiles in ProfileStore and invalidate on write.\n",
        );
        write(
            &session,
            "context.yaml",
            "reviewer_persona: Dr. Ada Cache\n",
        );
        write(
            &session,
            "checks.yaml",
            "checks:\n  - id: no_eval\n    pattern: \"eval(\"\n    reason: \"eval runs arbitrary code\"\n",
        );
        s
    }

    fn home(&self) -> PathBuf {
        self.tmp.path().join("home")
    }

    fn project(&self) -> PathBuf {
        self.tmp.path().join("project")
    }

    fn path(&self) -> String {
        format!(
            "{}:{}",
            crit_dir().display(),
            std::env::var("PATH").unwrap_or_default()
        )
    }

    /// `crit ARGS` as the user runs it, in the project.
    fn crit(&self, args: &[&str]) -> Output {
        let out = assert_cmd::Command::cargo_bin("crit")
            .unwrap()
            .env_clear()
            .env("PATH", self.path())
            .env("HOME", self.home())
            .current_dir(self.project())
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", support::stderr(&out));
        out
    }

    /// `claude -p` in the project with the user's own settings (no
    /// `--allowedTools`, no `--settings`), pointed at `server`.
    fn claude(&self, server: &FakeServer, prompt: &str) -> Vec<Value> {
        let out = std::process::Command::new(crate::support::npm_bin("claude"))
            .args(["-p", "--output-format", "stream-json", "--verbose"])
            .args(["--no-session-persistence", "--", prompt])
            .env_clear()
            .env("PATH", self.path())
            .env("HOME", self.home())
            .env("XDG_STATE_HOME", self.tmp.path().join("state"))
            .env("ANTHROPIC_API_KEY", "sk-ant-install-0123456789abcdef")
            .env("ANTHROPIC_BASE_URL", server.url())
            .env("DISABLE_AUTOUPDATER", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            // The skill's `crit prompt` reviews in the hook's API mode, on
            // the same fake server.
            .env("PROMPT_REVIEW_MODE", "api")
            .env("PROMPT_REVIEW_TIMEOUT", "60000")
            .current_dir(self.project())
            .output()
            .unwrap();
        let _ = result(&out);
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }
}

/// The scripted model: the skill, the command the skill runs, `crit plan`,
/// then the original's `Task(subagent_type="expert-review", …)`, whose
/// agent runs `crit plan` itself.
fn server() -> FakeServer {
    let server = FakeServer::start_blocking();
    for (label, answer) in vague_panel() {
        server.push(Step::when_contains(who(label)).reply(Reply::json(answer)));
    }
    server.push(Step::when_contains(GUARDRAIL_CHECK).reply(Reply::json(no_contradictions())));
    for _ in 0..2 {
        server.push(
            Step::when_contains("You are Dr. Ada Cache").reply(Reply::json(
                json!({"verdict": "PASS", "summary": "Sound.", "findings": []}),
            )),
        );
    }
    let plan = format!("crit plan --non-interactive --quiet 'session://{SESSION}'");
    server.push(Step::when_contains(AGENT_MARKER).reply(Reply::tool_use(
        "Bash",
        json!({"command": plan, "description": "Review the plan with crit"}),
    )));
    server.push(Step::when_contains(AGENT_MARKER).reply(Reply::text("APPROVED (relayed)")));
    server.push(Step::reply(Reply::tool_use(
        "Skill",
        json!({"skill": "prompt-review", "args": "optimize the settings page"}),
    )));
    server.push(Step::reply(Reply::tool_use(
        "Bash",
        json!({"command": "crit prompt --format markdown - <<'CRIT_PROMPT_END'\noptimize the settings page\nCRIT_PROMPT_END",
               "description": "Review the prompt with crit"}),
    )));
    server.push(Step::reply(Reply::tool_use(
        "Bash",
        json!({"command": plan, "description": "Review the plan with crit"}),
    )));
    server.push(Step::reply(Reply::tool_use(
        "Agent",
        json!({"subagent_type": "expert-review", "description": "Review the plan",
               "prompt": format!("Review: session://{SESSION}"), "run_in_background": false}),
    )));
    server.push(Step::reply(Reply::text("Done.")));
    server
}

/// What one run shows: the tools refused, the agents offered, and each tool
/// result's text (the main thread's and the subagent's).
struct Run {
    denied: Vec<String>,
    agents: Vec<String>,
    results: Vec<String>,
}

fn run(s: &Scene) -> Run {
    let server = server();
    let events = s.claude(&server, "review the prompt and the plan");
    let init = events
        .iter()
        .find(|e| e["type"] == "system" && e["subtype"] == "init")
        .expect("no init event");
    let end = events
        .iter()
        .find(|e| e["type"] == "result")
        .expect("no result event");
    let denied = end["permission_denials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| match d["tool_name"].as_str() {
            Some("Bash") => format!("Bash({})", d["tool_input"]["command"].as_str().unwrap()),
            Some("Skill") => format!("Skill({})", d["tool_input"]["skill"].as_str().unwrap()),
            other => format!("{other:?}"),
        })
        .collect();
    let agents = init["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
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
    Run {
        denied,
        agents,
        results,
    }
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

#[test]
#[cfg_attr(
    missing_claude_cli,
    ignore = "the Claude Code CLI is not installed: run .ci/install-test-deps"
)]
fn install_allows_and_runs_crit_s_paths_and_uninstall_takes_that_back() {
    let s = Scene::new();
    let settings = s.home().join(".claude/settings.json");
    write(&s.home(), ".claude/settings.json", USER_SETTINGS);
    // crit's commands already there, as the plugin or an earlier crit left
    // them, but no rule for them: the user's own, so uninstall keeps them.
    let plugin = Path::new(env!("CARGO_MANIFEST_DIR")).join("claude-plugin");
    for name in ["prompt-review.md", "crit-review.md"] {
        write(
            &s.home(),
            &format!(".claude/commands/{name}"),
            &read(&plugin.join("commands").join(name)),
        );
    }
    let plan = format!("Bash(crit plan --non-interactive --quiet 'session://{SESSION}')");
    let refused = [
        "Skill(prompt-review)".to_string(),
        "Bash(crit prompt --format markdown - <<'CRIT_PROMPT_END'\noptimize the settings page\nCRIT_PROMPT_END)".to_string(),
        plan.clone(),
    ];

    let before = run(&s);
    assert_eq!(before.denied, refused, "{:#?}", before.results);
    assert!(!before.agents.contains(&"expert-review".to_string()));

    s.crit(&["install", "claude-code", "--user"]);
    let after = run(&s);
    assert_eq!(after.denied, Vec::<String>::new(), "{:#?}", after.results);
    assert!(
        after.agents.contains(&"expert-review".to_string()),
        "{:?}",
        after.agents
    );
    let r = &after.results;
    assert!(r[0].contains("Launching skill: prompt-review"), "{r:#?}");
    assert!(
        r[1].starts_with("## Prompt review") && r[1].contains("### Refined prompt"),
        "crit prompt ran: {r:#?}"
    );
    assert!(r[2].starts_with("APPROVED\n"), "crit plan ran: {r:#?}");
    // The subagent ran crit plan (its tool result), and its report came back.
    assert!(
        r.iter().filter(|t| t.starts_with("APPROVED\n")).count() >= 2,
        "expert-review ran crit plan: {r:#?}"
    );
    assert!(r.iter().any(|t| t.contains("APPROVED (relayed)")), "{r:#?}");

    s.crit(&["uninstall", "claude-code", "--user"]);
    assert_eq!(read(&settings), USER_SETTINGS);
    assert!(!s.home().join(".claude/agents").exists());
    let again = run(&s);
    assert_eq!(again.denied, refused, "{:#?}", again.results);
    assert!(!again.agents.contains(&"expert-review".to_string()));
}

/// Claude Code takes a project's permission rules only once its folder is
/// trusted (the interactive trust prompt, recorded in `~/.claude.json`),
/// as `crit install claude-code --project` tells the user.
#[test]
#[cfg_attr(
    missing_claude_cli,
    ignore = "the Claude Code CLI is not installed: run .ci/install-test-deps"
)]
fn a_project_s_rules_apply_once_its_folder_is_trusted() {
    let s = Scene::new();
    let out = s.crit(&["install", "claude-code", "--project"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("once you have trusted its folder"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let untrusted = run(&s);
    assert!(
        untrusted
            .denied
            .contains(&"Skill(prompt-review)".to_string()),
        "{:?}",
        untrusted.denied
    );
    // The agent is the project's: listed whether or not the folder is trusted.
    assert!(untrusted.agents.contains(&"expert-review".to_string()));

    let folder = s.project().canonicalize().unwrap();
    std::fs::write(
        s.home().join(".claude.json"),
        json!({"projects": {folder.display().to_string(): {"hasTrustDialogAccepted": true}}})
            .to_string(),
    )
    .unwrap();
    let trusted = run(&s);
    assert_eq!(
        trusted.denied,
        Vec::<String>::new(),
        "{:#?}",
        trusted.results
    );
}
