//! crit inside the real Claude Code CLI (npm `@anthropic-ai/claude-code`,
//! pinned in `.ci/install-test-deps`), run with `--settings` holding the
//! hooks `crit install claude-code` writes, against crit-testkit's fake
//! Anthropic server (which answers both Claude's requests and crit's):
//!
//! - a `!!!` prompt: the hook's context reaches the model's request (both
//!   modes); a plain prompt reaches it untouched;
//! - the Stop gate blocks once with the findings, the model is re-prompted
//!   with them, fixes the code, and the second stop passes;
//! - a hook that crashes, or that Claude Code kills at its timeout, lets the
//!   prompt proceed;
//! - the repository's plugin directory loads with `--plugin-dir`.
//!
//! Without the installed CLI these tests are reported as ignored, with the
//! reason, on a developer machine; under CI (`CI` set) they fail, because CI
//! installs it.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use crit_testkit::prompt_review::{
    GUARDRAIL_CHECK, VAGUE_REFINED, no_contradictions, vague_panel, who,
};
use crit_testkit::{FakeServer, RecordedRequest, Reply, Step};
use serde_json::{Value, json};
use support::{git, init_repo, write};

pub(crate) fn crit_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_crit"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A project (a git repository) and, beside it, crit's home with the
/// settings `crit install claude-code --user` wrote there.
struct Setup {
    tmp: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let tmp = tempfile::tempdir().unwrap();
        let s = Setup { tmp };
        let p = s.project();
        std::fs::create_dir_all(&p).unwrap();
        init_repo(&p);
        write(&p, "src/app.py", "def main():\n    return 1\n");
        write(&p, "notes.md", "alpha\nbeta\n");
        git(&p, &["add", "-A"]);
        git(&p, &["commit", "-q", "-m", "base"]);
        let out = assert_cmd::Command::cargo_bin("crit")
            .unwrap()
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", s.crit_home())
            .current_dir(&p)
            .args(["install", "claude-code", "--user"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", support::stderr(&out));
        s
    }

    fn project(&self) -> PathBuf {
        self.tmp.path().join("project")
    }

    fn crit_home(&self) -> PathBuf {
        self.tmp.path().join("crit-home")
    }

    /// The settings file crit install wrote.
    fn settings(&self) -> PathBuf {
        self.crit_home().join(".claude/settings.json")
    }

    /// `claude -p PROMPT --settings <crit's settings>` in the project, with
    /// `crit` on PATH, pointed at `server`.
    fn claude(&self, server: &FakeServer, prompt: &str, env: &[(&str, &str)]) -> Output {
        self.claude_with(
            server,
            prompt,
            env,
            &["--settings", &self.settings().display().to_string()],
            None,
        )
    }

    fn claude_with(
        &self,
        server: &FakeServer,
        prompt: &str,
        env: &[(&str, &str)],
        extra: &[&str],
        path_first: Option<&Path>,
    ) -> Output {
        let path = std::env::var("PATH").unwrap_or_default();
        let path = match path_first {
            Some(p) => format!("{}:{}:{path}", p.display(), crit_dir().display()),
            None => format!("{}:{path}", crit_dir().display()),
        };
        let home = self.tmp.path().join("claude-home");
        std::fs::create_dir_all(&home).unwrap();
        let mut c = std::process::Command::new(crate::support::npm_bin("claude"));
        c.args(["-p", "--output-format", "stream-json", "--verbose"])
            .args(extra)
            .args(["--allowedTools", "Bash", "--", prompt])
            .env_clear()
            .env("PATH", path)
            .env("HOME", &home)
            .env("XDG_STATE_HOME", self.tmp.path().join("state"))
            .env("ANTHROPIC_API_KEY", "sk-ant-review-secret-0123456789")
            .env("ANTHROPIC_BASE_URL", server.url())
            .env("DISABLE_AUTOUPDATER", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            // crit's subscription mode finds the CLI here, as on a user's machine.
            .env("CRIT_CLAUDE_BIN", crate::support::npm_bin("claude"))
            .current_dir(self.project());
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().unwrap()
    }
}

/// The CLI's final `result` event.
pub(crate) fn result(out: &Output) -> Value {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "result")
        .unwrap_or_else(|| {
            panic!(
                "no result event:\n{}\n{}",
                String::from_utf8_lossy(&out.stdout),
                support::stderr(out)
            )
        })
}

/// Requests Claude Code sent (crit's own reviewer requests left out).
fn claude_requests(server: &FakeServer) -> Vec<RecordedRequest> {
    server
        .model_requests()
        .into_iter()
        .filter(|r| !is_crit(r))
        .collect()
}

/// A request crit made (a prompt reviewer or the code reviewer).
fn is_crit(r: &RecordedRequest) -> bool {
    let b = r.body.to_string();
    is_second_look(r)
        || b.contains("You are a senior engineer reviewing code")
        || b.contains(GUARDRAIL_CHECK)
        || vague_panel()
            .iter()
            .any(|(label, _)| b.contains(&who(label)))
}

/// The verifier's second look at a blocking finding (crit's, as in `crit
/// review code --uncommitted`).
fn is_second_look(r: &RecordedRequest) -> bool {
    r.body.to_string().contains("The finding to check")
}

fn text_of(r: &RecordedRequest) -> String {
    r.body.to_string()
}

#[test]
#[cfg_attr(
    missing_claude_cli,
    ignore = "the Claude Code CLI is not installed: run .ci/install-test-deps"
)]
fn a_bang_prompt_s_context_reaches_the_model_and_a_plain_prompt_is_untouched() {
    let s = Setup::new();
    // Subscription mode (the default): Claude is told to run /prompt-review.
    let server = FakeServer::start_blocking();
    server.push(
        Step::when_contains("run the /prompt-review command").reply(Reply::text("Reviewing.")),
    );
    let out = s.claude(&server, "optimize the settings page!!!", &[]);
    assert_eq!(result(&out)["is_error"], false, "{}", support::stderr(&out));
    let reqs = claude_requests(&server);
    assert_eq!(reqs.len(), 1, "{reqs:?}");
    let body = text_of(&reqs[0]);
    assert!(
        body.contains("<prompt>\\noptimize the settings page\\n</prompt>"),
        "{body}"
    );
    assert!(body.contains("Proceed with the refined prompt? (yes / no / edit)"));

    // A plain prompt: no hook output, the prompt as typed.
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("read notes").reply(Reply::text("alpha, beta")));
    let out = s.claude(&server, "read notes", &[]);
    assert_eq!(
        result(&out)["result"],
        "alpha, beta",
        "{}",
        support::stderr(&out)
    );
    let reqs = claude_requests(&server);
    assert_eq!(reqs.len(), 1);
    let body = text_of(&reqs[0]);
    for said in [
        "crit prompt review",
        "crit reviewed",
        "`!!!`",
        "hook additional context",
    ] {
        assert!(!body.contains(said), "crit's hook said something: {body}");
    }
    let messages = reqs[0].body["messages"].as_array().unwrap().clone();
    let typed = messages.iter().filter(|m| m["role"] == "user").any(|m| {
        m["content"] == "read notes"
            || m["content"]
                .as_array()
                .is_some_and(|parts| parts.iter().any(|p| p["text"] == "read notes"))
    });
    assert!(typed, "{messages:?}");
}

#[test]
#[cfg_attr(
    missing_claude_cli,
    ignore = "the Claude Code CLI is not installed: run .ci/install-test-deps"
)]
fn in_api_mode_the_review_runs_in_the_hook_and_its_result_reaches_the_model() {
    let s = Setup::new();
    let server = FakeServer::start_blocking();
    for (label, answer) in vague_panel() {
        server.push(Step::when_contains(who(label)).reply(Reply::json(answer)));
    }
    server.push(Step::when_contains(GUARDRAIL_CHECK).reply(Reply::json(no_contradictions())));
    server.push(
        Step::when_contains("Proceed with the refined prompt? (yes / no / edit)").reply(
            Reply::text("Here is the review. Proceed with the refined prompt? (yes / no / edit)"),
        ),
    );
    let out = s.claude(
        &server,
        "optimize the settings page!!!",
        &[
            ("PROMPT_REVIEW_MODE", "api"),
            ("PROMPT_REVIEW_TIMEOUT", "60000"),
        ],
    );
    assert_eq!(result(&out)["is_error"], false, "{}", support::stderr(&out));
    let reqs = claude_requests(&server);
    assert_eq!(reqs.len(), 1, "{reqs:?}");
    let body: String = serde_json::from_value::<Value>(reqs[0].body.clone())
        .map(|v| v.to_string())
        .unwrap();
    for want in [
        "+-- Prompt Review ",
        "<diff>",
        "-optimize the settings page",
    ] {
        assert!(body.contains(want), "missing {want:?} in {body}");
    }
    let refined = serde_json::to_string(VAGUE_REFINED).unwrap();
    assert!(
        body.contains(refined.trim_matches('"')),
        "the refined prompt is not in the request: {body}"
    );
    assert_eq!(
        server
            .model_requests()
            .iter()
            .filter(|r| is_crit(r))
            .count(),
        5,
        "the four reviewers and the guardrail check ran in the hook"
    );
}

#[test]
#[cfg_attr(
    missing_claude_cli,
    ignore = "the Claude Code CLI is not installed: run .ci/install-test-deps"
)]
fn the_stop_gate_blocks_once_the_model_fixes_and_the_second_stop_passes() {
    let s = Setup::new();
    let p = s.project();
    write(&p, "src/app.py", "def main():\n    return eval(input())\n");
    let server = FakeServer::start_blocking();
    // The second look crit takes at the blocking finding: it holds.
    server.push(
        Step::when_contains("The finding to check").reply(Reply::json(
            json!({"outcome": "confirmed", "reason": "input() reaches eval."}),
        )),
    );
    // crit's reviews, told apart by the code they carry (the fixed one first:
    // its diff shows the removed line too).
    server.push(Step::when_contains("return int(input())").reply(Reply::json(support::pass())));
    server.push(Step::when_contains("return eval(input())").reply(Reply::json(json!({
        "verdict": "FAIL", "summary": "Runs user input as code.",
        "findings": [{"file_path": "src/app.py", "line_start": 2, "line_end": 2, "priority": 0,
                      "title": "eval of user input", "body": "Any input runs as Python. Parse it with int()."}]}))));
    // Claude: re-prompted with the findings, it fixes the line.
    server.push(Step::when_contains("Stop hook feedback").reply(Reply::tool_use(
        "Bash",
        json!({"command": "sed -i 's/eval(input())/int(input())/' src/app.py", "description": "fix"}),
    )));
    server.push(Step::when_contains("finish the task").reply(Reply::text("Done.")));
    server.push(Step::reply(Reply::text("Fixed.")));
    let out = s.claude(&server, "finish the task", &[]);
    let r = result(&out);
    assert_eq!(r["is_error"], false, "{r}\n{}", support::stderr(&out));
    assert_eq!(r["result"], "Fixed.", "{r}");
    assert_eq!(
        std::fs::read_to_string(p.join("src/app.py")).unwrap(),
        "def main():\n    return int(input())\n"
    );
    let crit_reviews = server
        .model_requests()
        .into_iter()
        .filter(|r| is_crit(r) && !is_second_look(r))
        .count();
    assert_eq!(crit_reviews, 2, "one review per stop");
    let second_looks = server
        .model_requests()
        .into_iter()
        .filter(is_second_look)
        .count();
    assert_eq!(second_looks, 1, "the blocking finding's second look");
    let reqs = claude_requests(&server);
    assert_eq!(
        reqs.len(),
        3,
        "{:#?}",
        reqs.iter().map(text_of).collect::<Vec<_>>()
    );
    let feedback = text_of(&reqs[1]);
    assert!(feedback.contains("Stop hook feedback"), "{feedback}");
    assert!(
        feedback.contains("src/app.py:2 [P0] eval of user input. Fix: Any input runs as Python."),
        "{feedback}"
    );
    assert_eq!(server.remaining_steps(), 0);
}

#[test]
#[cfg_attr(
    missing_claude_cli,
    ignore = "the Claude Code CLI is not installed: run .ci/install-test-deps"
)]
fn a_crashing_or_killed_hook_lets_the_prompt_proceed() {
    let s = Setup::new();
    // crit dies of SIGSEGV while it handles the event.
    let bin = s.tmp.path().join("crashing-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let wrapper = bin.join("crit");
    let ran = s.tmp.path().join("hook-ran");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\ntouch '{}'\n\"{}\" \"$@\" >/dev/null\nkill -SEGV $$\n",
            ran.display(),
            env!("CARGO_BIN_EXE_crit")
        ),
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let server = FakeServer::start_blocking();
    server
        .push(Step::when_contains("optimize the settings page").reply(Reply::text("Optimizing.")));
    let settings = s.settings().display().to_string();
    let out = s.claude_with(
        &server,
        "optimize the settings page!!!",
        &[],
        &["--settings", &settings],
        Some(&bin),
    );
    assert_eq!(
        result(&out)["result"],
        "Optimizing.",
        "{}",
        support::stderr(&out)
    );
    assert!(ran.exists(), "the hook did not run");
    let reqs = claude_requests(&server);
    assert_eq!(reqs.len(), 1);
    assert!(!text_of(&reqs[0]).contains("crit prompt review"));
    assert!(text_of(&reqs[0]).contains("optimize the settings page!!!"));

    // Claude Code kills the hook at its timeout (here 2 s; the reviewers
    // take 30): the prompt proceeds as typed.
    let mut settings: Value =
        serde_json::from_str(&std::fs::read_to_string(s.settings()).unwrap()).unwrap();
    settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["timeout"] = json!(2);
    let short = s.tmp.path().join("short-timeout.json");
    std::fs::write(&short, settings.to_string()).unwrap();
    let server = FakeServer::start_blocking();
    for (label, answer) in vague_panel() {
        server.push(
            Step::when_contains(who(label))
                .reply(Reply::json(answer).delay(Duration::from_secs(30))),
        );
    }
    server
        .push(Step::when_contains("optimize the settings page").reply(Reply::text("Optimizing.")));
    let started = std::time::Instant::now();
    let out = s.claude_with(
        &server,
        "optimize the settings page!!!",
        &[
            ("PROMPT_REVIEW_MODE", "api"),
            ("PROMPT_REVIEW_TIMEOUT", "60000"),
        ],
        &["--settings", &short.display().to_string()],
        None,
    );
    assert_eq!(
        result(&out)["result"],
        "Optimizing.",
        "{}",
        support::stderr(&out)
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "the hook was not cut off"
    );
    // The review had started when the hook was told to stop; crit stopped it
    // and said why in the status line and the audit log.
    let sessions = s.tmp.path().join("state/crit/claude-code/sessions");
    let status = std::fs::read_dir(&sessions)
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().ends_with(".status.json"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .unwrap();
    assert!(
        status.contains("\"failed\":\"stopped by SIG") && status.contains("hook timeout"),
        "{status}"
    );
    let audit = std::fs::read_dir(s.tmp.path().join("state/crit/audit/prompt-review"))
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect::<String>();
    assert!(audit.contains("\"failure\":\"deadline\""), "{audit}");
    let reqs = claude_requests(&server);
    assert_eq!(reqs.len(), 1);
    assert!(!text_of(&reqs[0]).contains("crit prompt review"));
}

#[test]
#[cfg_attr(
    missing_claude_cli,
    ignore = "the Claude Code CLI is not installed: run .ci/install-test-deps"
)]
fn the_repository_s_plugin_loads_with_plugin_dir() {
    let s = Setup::new();
    let plugin = Path::new(env!("CARGO_MANIFEST_DIR")).join("claude-plugin");
    let server = FakeServer::start_blocking();
    server.push(
        Step::when_contains("run the /crit:prompt-review command").reply(Reply::text("Reviewing.")),
    );
    let out = s.claude_with(
        &server,
        "optimize the settings page!!!",
        &[],
        &["--plugin-dir", &plugin.display().to_string()],
        None,
    );
    assert_eq!(result(&out)["is_error"], false, "{}", support::stderr(&out));
    let reqs = claude_requests(&server);
    assert_eq!(reqs.len(), 1, "the plugin's hook gave no context");
    let body = text_of(&reqs[0]);
    // Its commands are offered to the model, namespaced by the plugin.
    assert!(body.contains("crit:prompt-review"), "{body}");
    assert!(body.contains("crit:crit-review"), "{body}");
    // And its agent, namespaced too.
    assert!(body.contains("crit:expert-review"), "{body}");
}
