//! Shared by the binary's end-to-end tests: real git repositories with fixed
//! dates, files, the `crit` binary in a hermetic environment pointed at
//! crit-testkit, and the JSON it prints.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use crit_testkit::FakeServer;
use serde_json::Value;

pub fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        // Fixed dates: commit ids, and so the snapshots, are the same every run.
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `git init` on `main` with a committer and no signing.
pub fn init_repo(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.name", "Test"]);
    git(dir, &["config", "user.email", "test@example.com"]);
    git(dir, &["config", "commit.gpgsign", "false"]);
}

pub fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// The binary with a hermetic environment pointed at `server`; `path_first`
/// goes before `PATH`.
pub fn crit(dir: &Path, server: &FakeServer, path_first: Option<&Path>) -> Command {
    let path = std::env::var("PATH").unwrap_or_default();
    let path = match path_first {
        Some(p) => format!("{}:{path}", p.display()),
        None => path,
    };
    let mut c = Command::cargo_bin("crit").unwrap();
    c.env_clear()
        .env("PATH", path)
        .env("HOME", dir.join(".home"))
        .env("XDG_STATE_HOME", dir.join(".state"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("ANTHROPIC_API_KEY", "sk-ant-review-secret-0123456789")
        .env("ANTHROPIC_BASE_URL", server.url())
        .current_dir(dir);
    c
}

/// stdout as JSON, or a panic showing both streams.
pub fn json_out(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

/// Files anywhere under `dir` that look like a temp file crit (or tempfile)
/// left behind.
pub fn temp_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() && !p.is_symlink() {
                if name != ".git" {
                    stack.push(p);
                }
            } else if name.contains(".crit-tmp-")
                || name.starts_with(".plan-seal-")
                || name.starts_with(".tmp")
                || name.contains(".tmp-")
            {
                found.push(p);
            }
        }
    }
    found
}

/// Every `result.json` under `dir/.crit/sessions`, as JSON.
pub fn session_results(dir: &Path) -> Vec<Value> {
    session_dirs(dir)
        .iter()
        .filter_map(|s| std::fs::read(s.join("result.json")).ok())
        .map(|b| serde_json::from_slice(&b).unwrap())
        .collect()
}

/// The session directories under `dir/.crit/sessions`.
pub fn session_dirs(dir: &Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir.join(".crit/sessions")) else {
        return Vec::new();
    };
    let mut v: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    v.sort();
    v
}

/// `crit review arch notes.md --against hld.md --json`, run against [`arch_project`].
pub const ARCH_REVIEW: [&str; 6] = [
    "review",
    "arch",
    "notes.md",
    "--against",
    "hld.md",
    "--json",
];

/// A clean answer in the findings contract.
pub fn pass() -> Value {
    serde_json::json!({"verdict": "PASS", "summary": "Looks fine.", "findings": []})
}

/// A directory with `notes.md` and `hld.md` for [`ARCH_REVIEW`].
pub fn arch_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "notes.md", "# Slice\n\nDrop the users table.\n");
    write(dir.path(), "hld.md", "# HLD\n\nNever lose data.\n");
    dir
}

/// `python3`, or `None` with a notice (a failure under CI, which has it).
pub fn python() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("python3"))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        assert!(std::env::var_os("CI").is_none(), "python3 is missing");
        eprintln!("skipping: python3 is not installed");
    }
    found
}

/// Exit status, stdout and stderr, for an assertion's message.
pub fn show(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A `crit run` config in `dir` (outside the project, so nothing in the
/// checkout decides it): the lead's prompt holds `I-AM-LEAD`, each
/// sub-agent's `I-AM-<NAME>` (upper case), for `Step::when_contains`.
pub fn run_config(dir: &Path, agents: &[&str], max_turns: u32) -> std::path::PathBuf {
    let agents: serde_json::Map<String, Value> = agents
        .iter()
        .map(|a| {
            let prompt = format!("I-AM-{}. Review.", a.to_uppercase());
            (
                a.to_string(),
                serde_json::json!({"description": "Reviews", "prompt": prompt, "tools": ["Read"]}),
            )
        })
        .collect();
    let path = dir.join("run.json");
    let config = serde_json::json!({
        "prompt": "I-AM-LEAD. Delegate, then answer.",
        "allowed_tools": ["Read", "Task"],
        "agents": agents,
        "max_turns": max_turns
    });
    std::fs::write(&path, config.to_string()).unwrap();
    path
}

/// A Task call launching `agent`.
pub fn task(agent: &str) -> (&'static str, Value) {
    (
        "Task",
        serde_json::json!({"description": "review", "prompt": "Review notes.md", "subagent_type": agent}),
    )
}

/// `crit run "Review the slice" --json --exit-code --config CONFIG EXTRA…`
pub fn crit_run(d: &Path, server: &FakeServer, config: &Path, extra: &[&str]) -> Output {
    crit(d, server, None)
        .args([
            "run",
            "Review the slice",
            "--json",
            "--exit-code",
            "--config",
        ])
        .arg(config)
        .args(extra)
        .output()
        .unwrap()
}

pub mod feedback;
pub mod gate;
pub mod review_repo;

/// The requests crit itself sent a fake server (chat completions), beside
/// what an agent's CLI sent it in its own wire format.
pub fn chat_requests(server: &crit_testkit::FakeServer) -> Vec<crit_testkit::RecordedRequest> {
    server
        .model_requests()
        .into_iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .collect()
}

/// A coding agent's CLI as `.ci/install-test-deps` pins it (npm).
pub fn npm_bin(name: &str) -> PathBuf {
    let bin = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(".test-deps/npm/node_modules/.bin")
        .join(name);
    assert!(
        bin.exists(),
        "{} is missing: run .ci/install-test-deps",
        bin.display()
    );
    bin
}

/// What a `!!!` prompt's review asks of the model, scripted: the four
/// reviewers and the guardrail check in crit's hook, then `before_answer`
/// (an agent's own side requests), then the agent's model's answer.
pub fn script_bang_review(
    server: &FakeServer,
    before_answer: impl IntoIterator<Item = crit_testkit::Step>,
) {
    use crit_testkit::prompt_review::{GUARDRAIL_CHECK, no_contradictions, vague_panel, who};
    use crit_testkit::{Reply, Step};
    for (label, answer) in vague_panel() {
        server.push(Step::when_contains(who(label)).reply(Reply::json(answer)));
    }
    server.push(Step::when_contains(GUARDRAIL_CHECK).reply(Reply::json(no_contradictions())));
    for step in before_answer {
        server.push(step);
    }
    server.push(
        Step::when_contains("Proceed with the refined prompt? (yes / no / edit)").reply(
            Reply::text("Here is the review. Proceed with the refined prompt? (yes / no / edit)"),
        ),
    );
}
