//! crit inside the real GitHub Copilot CLI (npm `@github/copilot`, pinned in
//! `.ci/install-test-deps`), run as `copilot -p` in its documented custom
//! provider mode (`copilot help providers`: `COPILOT_PROVIDER_BASE_URL`,
//! `COPILOT_MODEL`; no GitHub sign-in, `COPILOT_OFFLINE` so it calls
//! nothing else) against crit-testkit's chat completions server, with a
//! `COPILOT_HOME` of the test's own whose `hooks/crit.json` is what `crit
//! install copilot --user` wrote. crit, in the hooks, reaches the same
//! server as the user's settings name it (Copilot CLI passes its hooks no
//! `OPENAI_BASE_URL`, `OPENAI_API_KEY` or `ANTHROPIC_API_KEY`); crit's
//! requests are told from Copilot's by crit's user agent.
//!
//! What Copilot CLI 1.0.102 does with a hook, as these tests found it:
//! `userPromptSubmitted` gets `{"sessionId", "timestamp", "cwd", "prompt"}`
//! and adds a top-level `additionalContext` of its answer to the prompt;
//! `agentStop` gets `{"sessionId", "timestamp", "cwd", "transcriptPath",
//! "stopReason", "stop_hook_active"}` and sends a `{"decision": "block",
//! "reason"}` answer's reason as the next prompt. It keeps only the fields
//! it knows of an answer (its session log, `hook.end`): a stop's
//! `systemMessage` reaches no one, so a let-go is in crit's audit log.
//! The user's hooks (`$COPILOT_HOME/hooks/`) run in every folder; a
//! project's `.github/hooks/` only in a folder the user trusts.
//!
//! - a `!!!` prompt: the review runs in the hook and its result reaches the
//!   model's request; after `crit uninstall copilot` the user's hooks
//!   directory is back byte for byte and the next `!!!` prompt goes to the
//!   model as typed;
//! - the Stop gate blocks once with the finding, Copilot goes on with it,
//!   the model fixes the code, and the second stop passes; a model that
//!   never fixes is sent back `max_rounds` times, then let go, and audited;
//! - a project's hooks run only in a trusted folder;
//! - `crit mcp` registered by `crit install copilot --mcp`: Copilot lists
//!   its tools and calls `review_code`: outside the project it is refused
//!   with the reason, on the uncommitted change its findings reach the model.
//!
//! Without the installed CLI these tests are reported as ignored on a
//! developer machine; under CI they run (see `test_deps`).

use crate::claude_code_hooks_real::crit_dir;
use crate::stop_gate::{EVAL, confirmed, repo};
use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use crit_testkit::prompt_review::VAGUE_REFINED;
use crit_testkit::{FakeServer, RecordedRequest, Reply, Step};
use serde_json::{Value, json};

/// A hook file of the user's own, which install and uninstall leave as it was.
const USER_HOOKS: &str = r#"{
  "version": 1,
  "hooks": {
    "agentStop": [
      {
        "type": "command",
        "bash": "true",
        "timeoutSec": 5
      }
    ]
  }
}
"#;

/// A project with a change in it, and beside it the Copilot home crit was
/// installed into.
struct Setup {
    dir: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Setup {
    fn new(change: &str) -> Setup {
        let s = Setup::bare(change);
        let out = s.crit(&["install", "copilot", "--user"]);
        assert!(out.status.success(), "{}", support::stderr(&out));
        s
    }

    /// The user's own hooks, and nothing of crit's yet.
    fn bare(change: &str) -> Setup {
        let s = Setup {
            dir: repo(change),
            home: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(s.hooks_dir()).unwrap();
        std::fs::write(s.hooks_dir().join("team.json"), USER_HOOKS).unwrap();
        s
    }

    fn project(&self) -> &Path {
        self.dir.path()
    }

    fn copilot_home(&self) -> PathBuf {
        self.home.path().join("copilot-home")
    }

    fn hooks_dir(&self) -> PathBuf {
        self.copilot_home().join("hooks")
    }

    /// The hooks directory's files and their text.
    fn hook_files(&self) -> Vec<(String, String)> {
        let mut files: Vec<(String, String)> = std::fs::read_dir(self.hooks_dir())
            .unwrap()
            .flatten()
            .map(|e| {
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read_to_string(e.path()).unwrap(),
                )
            })
            .collect();
        files.sort();
        files
    }

    fn crit(&self, args: &[&str]) -> Output {
        assert_cmd::Command::cargo_bin("crit")
            .unwrap()
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("COPILOT_HOME", self.copilot_home())
            .env("XDG_STATE_HOME", self.home.path().join("state"))
            .current_dir(self.project())
            .args(args)
            .output()
            .unwrap()
    }

    /// `copilot -p PROMPT` in the project, with `crit` on PATH and `extra`
    /// flags after the prompt.
    fn copilot(&self, server: &FakeServer, prompt: &str, extra: &[&str]) -> Output {
        let path = format!(
            "{}:{}",
            crit_dir().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        // Copilot CLI takes OPENAI_BASE_URL, OPENAI_API_KEY and
        // ANTHROPIC_API_KEY out of its hooks' environment: crit finds the
        // server in the user's own settings.
        let config = self.home.path().join(".config/crit");
        std::fs::create_dir_all(&config).unwrap();
        std::fs::write(
            config.join("config.yaml"),
            format!(
                "provider: openai\nbase_url: {}/v1\nmodel: gpt-testkit\n",
                server.url()
            ),
        )
        .unwrap();
        std::process::Command::new(crate::support::npm_bin("copilot"))
            .args([
                "-p",
                prompt,
                "--allow-all",
                "--no-auto-update",
                "--no-ask-user",
            ])
            .args(extra)
            .env_clear()
            .env("PATH", path)
            .env("HOME", self.home.path())
            .env("COPILOT_HOME", self.copilot_home())
            .env("XDG_STATE_HOME", self.home.path().join("state"))
            .env("XDG_CACHE_HOME", self.home.path().join("cache"))
            .env("COPILOT_PROVIDER_BASE_URL", format!("{}/v1", server.url()))
            .env("COPILOT_MODEL", "gpt-testkit")
            .env("COPILOT_OFFLINE", "true")
            .env("OPENAI_API_KEY", "sk-review-secret-0123456789")
            .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdin(Stdio::null())
            .current_dir(self.project())
            .output()
            .unwrap()
    }

    /// The audit log's lines.
    fn audit(&self) -> String {
        std::fs::read_dir(self.home.path().join("state/crit/audit"))
            .map(|dir| {
                dir.flatten()
                    .map(|e| std::fs::read_to_string(e.path()).unwrap())
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Whether crit sent `r` (its own user agent).
fn from_crit(r: &RecordedRequest) -> bool {
    r.header("user-agent")
        .is_some_and(|ua| ua.starts_with("crit/"))
}

/// Requests Copilot sent.
fn copilot_requests(server: &FakeServer) -> Vec<RecordedRequest> {
    support::chat_requests(server)
        .into_iter()
        .filter(|r| !from_crit(r))
        .collect()
}

/// crit's reviews of the change (the second looks left out).
fn crit_reviews(server: &FakeServer) -> usize {
    support::chat_requests(server)
        .into_iter()
        .filter(from_crit)
        .filter(|r| !r.body.to_string().contains("The finding to check"))
        .count()
}

/// What Copilot sent the model after its instructions: the conversation.
fn conversation(r: &RecordedRequest) -> String {
    let messages = r.body["messages"].as_array().cloned().unwrap_or_default();
    Value::Array(messages.into_iter().skip(1).collect()).to_string()
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "copilot failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        support::stderr(out)
    );
}

#[test]
#[cfg_attr(
    missing_copilot_cli,
    ignore = "the Copilot CLI is not installed: run .ci/install-test-deps"
)]
fn a_bang_prompt_s_review_reaches_copilot_s_model_and_uninstall_restores_the_hooks() {
    let s = Setup::new("def main():\n    return 1\n");
    assert_eq!(
        s.hook_files()
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>(),
        ["crit.json", "team.json"]
    );
    let server = FakeServer::start_blocking();
    support::script_bang_review(&server, []);
    let out = s.copilot(&server, "optimize the settings page!!!", &[]);
    ok(&out);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Proceed with the refined prompt?"),
        "{}",
        support::stderr(&out)
    );
    let reqs = copilot_requests(&server);
    assert_eq!(reqs.len(), 1, "{reqs:?}");
    let body = conversation(&reqs[0]);
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
        support::chat_requests(&server).len(),
        6,
        "the four reviewers and the guardrail check ran in the hook, then Copilot's one request"
    );

    // Uninstalled: the user's hooks as they were, and Copilot hears the prompt as typed.
    let out = s.crit(&["uninstall", "copilot", "--user"]);
    assert!(out.status.success(), "{}", support::stderr(&out));
    assert_eq!(
        s.hook_files(),
        [("team.json".to_string(), USER_HOOKS.to_string())]
    );
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("optimize the settings page!!!").reply(Reply::text("On it.")));
    let out = s.copilot(&server, "optimize the settings page!!!", &[]);
    ok(&out);
    let reqs = support::chat_requests(&server);
    assert_eq!(reqs.len(), 1, "only Copilot's own request: {reqs:#?}");
    assert!(!conversation(&reqs[0]).contains("Prompt Review"));
}

/// crit's review of the change: a P1 on the `eval` line, or a pass once fixed.
fn review_steps(server: &FakeServer) {
    server.push(confirmed());
    // Told apart by the code they carry (the fixed one first: its diff
    // shows the removed line too).
    server.push(Step::when_contains("return int(input())").reply(Reply::json(support::pass())));
    server.push(Step::when_contains("return eval(input())").reply(Reply::json(json!({
        "verdict": "FAIL", "summary": "Runs user input as code.",
        "findings": [{"file_path": "src/app.py", "line_start": 2, "line_end": 2, "priority": 1,
                      "title": "eval of user input", "body": "Any input runs as Python. Parse it with int()."}]}))));
}

#[test]
#[cfg_attr(
    missing_copilot_cli,
    ignore = "the Copilot CLI is not installed: run .ci/install-test-deps"
)]
fn copilot_s_stop_is_blocked_with_the_finding_and_the_second_stop_after_the_fix_passes() {
    let s = Setup::new(EVAL);
    let p = s.project();
    let server = FakeServer::start_blocking();
    review_steps(&server);
    // Copilot's model: told of the finding, it fixes the line, then says so.
    server.push(
        Step::when_contains("eval of user input. Fix: Any input runs as Python.").reply(
            Reply::tool_use(
                "bash",
                json!({"command": "sed -i 's/eval(input())/int(input())/' src/app.py",
                       "description": "Parse the input as a number"}),
            ),
        ),
    );
    server.push(Step::when_contains("finish the task").reply(Reply::text("Done.")));
    server.push(Reply::text("Fixed."));
    let out = s.copilot(&server, "finish the task", &[]);
    ok(&out);
    assert_eq!(
        std::fs::read_to_string(p.join("src/app.py")).unwrap(),
        "def main():\n    return int(input())\n"
    );
    assert_eq!(crit_reviews(&server), 2, "one review per stop");
    let reqs = copilot_requests(&server);
    let texts: Vec<String> = reqs.iter().map(conversation).collect();
    assert_eq!(reqs.len(), 3, "{texts:#?}");
    assert!(
        texts[1].contains("src/app.py:2 [P1] eval of user input. Fix: Any input runs as Python."),
        "{}",
        texts[1]
    );
    assert_eq!(server.remaining_steps(), 0);
    assert!(String::from_utf8_lossy(&out.stdout).contains("Fixed."));
}

#[test]
#[cfg_attr(
    missing_copilot_cli,
    ignore = "the Copilot CLI is not installed: run .ci/install-test-deps"
)]
fn a_model_that_never_fixes_is_sent_back_max_rounds_times_then_let_go_and_audited() {
    let s = Setup::new(EVAL);
    let server = FakeServer::start_blocking();
    review_steps(&server);
    for i in 0..3 {
        server.push(Reply::text(format!("Done {i}.")));
    }
    let out = s.copilot(&server, "finish the task", &[]);
    ok(&out);
    // Two blocks (the default max_rounds), then the agent may stop; the
    // change did not change, so it was reviewed once.
    assert_eq!(copilot_requests(&server).len(), 3);
    assert_eq!(crit_reviews(&server), 1);
    // The fixed code's step was never asked for.
    assert_eq!(server.remaining_steps(), 1);
    let audit = s.audit();
    let let_go: Vec<&str> = audit
        .lines()
        .filter(|l| l.contains(r#""action":"let_go""#))
        .collect();
    assert_eq!(let_go.len(), 1, "{audit}");
    assert!(
        let_go[0].contains("sent the agent back 2 times this turn (max_rounds 2)"),
        "{audit}"
    );
}

#[test]
#[cfg_attr(
    missing_copilot_cli,
    ignore = "the Copilot CLI is not installed: run .ci/install-test-deps"
)]
fn a_project_s_hooks_run_only_in_a_folder_the_user_trusts() {
    let s = Setup::bare(EVAL);
    let out = s.crit(&["install", "copilot", "--project"]);
    assert!(out.status.success(), "{}", support::stderr(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("only in a folder you trust"), "{said}");
    assert!(s.project().join(".github/hooks/crit.json").exists());
    // Not trusted: Copilot stops without asking crit.
    let server = FakeServer::start_blocking();
    server.push(Reply::text("Done."));
    ok(&s.copilot(&server, "finish the task", &[]));
    assert_eq!(support::chat_requests(&server).len(), 1);
    assert_eq!(server.remaining_steps(), 0);
    // Trusted for this prompt: the gate holds it with the finding.
    let server = FakeServer::start_blocking();
    review_steps(&server);
    for i in 0..3 {
        server.push(Reply::text(format!("Done {i}.")));
    }
    ok(&s.copilot(&server, "finish the task", &["--trust-folder"]));
    let reqs = copilot_requests(&server);
    assert_eq!(reqs.len(), 3);
    assert!(conversation(&reqs[1]).contains("eval of user input"));
}

#[test]
#[cfg_attr(
    missing_copilot_cli,
    ignore = "the Copilot CLI is not installed: run .ci/install-test-deps"
)]
fn copilot_lists_crit_mcp_s_tools_a_call_outside_the_project_is_refused_and_the_findings_reach_the_model()
 {
    let s = Setup::bare(EVAL);
    let out = s.crit(&[
        "install",
        "copilot",
        "--user",
        "--mcp",
        "--only",
        "stop-gate",
    ]);
    assert!(out.status.success(), "{}", support::stderr(&out));
    // Only the MCP server here: the hooks out of the way.
    std::fs::remove_file(s.hooks_dir().join("crit.json")).unwrap();
    let config = std::fs::read_to_string(s.copilot_home().join("mcp-config.json")).unwrap();
    let v: Value = serde_json::from_str(&config).unwrap();
    assert_eq!(
        v,
        json!({"mcpServers": {"crit": {"command": "crit", "args": ["mcp"]}}})
    );
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("eval(input())").reply(Reply::json(json!({
        "verdict": "FAIL", "summary": "Runs user input as code.",
        "findings": [{"file_path": "src/app.py", "line_start": 2, "line_end": 2, "priority": 1,
                      "title": "eval of user input", "body": "Any input runs as Python. Use ast.literal_eval."}]}))));
    server.push(confirmed());
    // A call outside the project first: refused, with the reason.
    server.push(
        Step::when_contains("review my change").reply(Reply::tool_use(
            "crit-review_code",
            json!({"scope": "files", "files": ["../../../../etc/passwd"]}),
        )),
    );
    server.push(
        Step::when_contains("review my change").reply(Reply::tool_use(
            "crit-review_code",
            json!({"scope": "uncommitted"}),
        )),
    );
    server.push(Reply::text("crit found one problem."));
    let out = s.copilot(&server, "review my change", &[]);
    ok(&out);
    let reqs = copilot_requests(&server);
    assert_eq!(reqs.len(), 3, "{reqs:#?}");
    let tools: Vec<String> = reqs[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
        .collect();
    for want in [
        "crit-review_code",
        "crit-check_plan",
        "crit-review_prompt",
        "crit-explain_finding",
    ] {
        assert!(
            tools.iter().any(|t| t == want),
            "{want} not offered: {tools:?}"
        );
    }
    let results = |r: &RecordedRequest| -> Vec<String> {
        r.body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| m["content"].to_string())
            .collect()
    };
    let refused = results(&reqs[1]);
    assert_eq!(refused.len(), 1, "{:#?}", reqs[1].body["messages"]);
    assert!(refused[0].contains("outside the project"), "{}", refused[0]);
    let reviewed = results(&reqs[2]);
    assert_eq!(reviewed.len(), 2, "{:#?}", reqs[2].body["messages"]);
    assert!(
        reviewed[1].contains("eval of user input"),
        "{}",
        reviewed[1]
    );
    assert_eq!(server.remaining_steps(), 0);

    // Uninstall takes the server out: the file was crit's alone.
    let out = s.crit(&["uninstall", "copilot", "--user"]);
    assert!(out.status.success(), "{}", support::stderr(&out));
    assert!(!s.copilot_home().join("mcp-config.json").exists());
}
