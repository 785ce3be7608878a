//! crit inside the real Codex CLI (npm `@openai/codex`, pinned in
//! `.ci/install-test-deps`), run as `codex exec` with a `CODEX_HOME` of the
//! test's own (never the user's) whose `config.toml` points Codex at
//! crit-testkit's fake Responses API server and whose `hooks.json` holds
//! what `crit install codex --user` wrote. crit, in the hooks, reaches the
//! same server's chat completions (`OPENAI_BASE_URL`, `CRIT_MODEL`).
//!
//! - a `!!!` prompt: the review runs in the hook and its result reaches the
//!   model's request; after `crit uninstall codex` the user's `hooks.json`
//!   is back byte for byte and the next `!!!` prompt goes to the model as
//!   typed;
//! - the Stop gate blocks once with the finding, Codex goes on with it, the
//!   model fixes the code, and the second stop passes; a model that never
//!   fixes is sent back `max_rounds` times, then let go, and the audit log
//!   says so;
//! - `crit mcp` registered in `config.toml`: Codex lists its tools and calls
//!   `review_code`: on a path outside the project it is refused with the
//!   reason, on the uncommitted change its findings come back to the model.
//!
//! Codex runs a hook only once the user has trusted it in `/hooks`; these
//! tests stand in for that with `--dangerously-bypass-hook-trust` (the
//! trust itself is `codex_trust_real`'s). Codex's
//! plugin sync and update check are off, so it talks to nothing but the
//! fake server. Without the installed CLI these tests are reported as
//! ignored on a developer machine; under CI they run (see `test_deps`).

use crate::claude_code_hooks_real::crit_dir;
use crate::stop_gate::{EVAL, confirmed, repo};
use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use crit_testkit::prompt_review::VAGUE_REFINED;
use crit_testkit::{FakeServer, RecordedRequest, Reply, Step};
use serde_json::json;

/// A user's own hooks file, which install and uninstall must leave as it was.
const USER_HOOKS: &str = r#"{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "true",
            "timeout": 5
          }
        ]
      }
    ]
  }
}
"#;

/// A project with a change in it, and beside it the Codex home crit was
/// installed into.
pub(crate) struct Setup {
    dir: tempfile::TempDir,
    pub(crate) home: tempfile::TempDir,
}

impl Setup {
    pub(crate) fn new(change: &str) -> Setup {
        let s = Setup::bare(change);
        let out = s.crit(&["install", "codex", "--user"]);
        assert!(out.status.success(), "{}", support::stderr(&out));
        s
    }

    /// The user's own hooks file, and nothing of crit's yet.
    pub(crate) fn bare(change: &str) -> Setup {
        let s = Setup {
            dir: repo(change),
            home: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(s.codex_home()).unwrap();
        std::fs::write(s.hooks(), USER_HOOKS).unwrap();
        s
    }

    pub(crate) fn project(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn codex_home(&self) -> PathBuf {
        self.home.path().join("codex-home")
    }

    pub(crate) fn hooks(&self) -> PathBuf {
        self.codex_home().join("hooks.json")
    }

    pub(crate) fn crit(&self, args: &[&str]) -> Output {
        assert_cmd::Command::cargo_bin("crit")
            .unwrap()
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("CODEX_HOME", self.codex_home())
            .current_dir(self.project())
            .args(args)
            .output()
            .unwrap()
    }

    /// Codex's configuration: the fake server as its model provider, nothing
    /// that reaches the network, and `extra` TOML after it.
    pub(crate) fn configure(&self, server: &FakeServer, extra: &str) {
        let config = format!(
            r#"model = "gpt-testkit"
model_provider = "testkit"
check_for_update_on_startup = false

[model_providers.testkit]
name = "crit-testkit"
base_url = "{url}/v1"
env_key = "OPENAI_API_KEY"
wire_api = "responses"
# An unscripted request fails the test at once instead of being retried.
request_max_retries = 0
stream_max_retries = 0

[features]
plugins = false
remote_plugin = false

[analytics]
enabled = false
{extra}"#,
            url = server.url()
        );
        std::fs::write(self.codex_home().join("config.toml"), config).unwrap();
    }

    /// `codex exec PROMPT` in the project, with `crit` on PATH.
    fn codex(&self, server: &FakeServer, prompt: &str) -> Output {
        self.configure(server, "");
        self.codex_configured(server, prompt)
    }

    fn codex_configured(&self, server: &FakeServer, prompt: &str) -> Output {
        self.exec(server, prompt, true)
    }

    /// `codex exec PROMPT` as configured, with Codex's trust of hooks
    /// bypassed or not.
    pub(crate) fn exec(&self, server: &FakeServer, prompt: &str, bypass: bool) -> Output {
        let path = format!(
            "{}:{}",
            crit_dir().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        std::process::Command::new(crate::support::npm_bin("codex"))
            .arg("exec")
            .args(bypass.then_some("--dangerously-bypass-hook-trust"))
            .args(["--sandbox", "danger-full-access", "--", prompt])
            .env_clear()
            .env("PATH", path)
            .env("HOME", self.home.path())
            .env("CODEX_HOME", self.codex_home())
            .env("XDG_STATE_HOME", self.home.path().join("state"))
            .env("OPENAI_API_KEY", "sk-review-secret-0123456789")
            .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
            .env("CRIT_MODEL", "gpt-testkit")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdin(Stdio::null())
            .current_dir(self.project())
            .output()
            .unwrap()
    }
}

/// Requests Codex sent (crit's own go to chat completions).
pub(crate) fn codex_requests(server: &FakeServer) -> Vec<RecordedRequest> {
    server
        .model_requests()
        .into_iter()
        .filter(|r| r.path.ends_with("/responses"))
        .collect()
}

/// What Codex sent the model after its instructions: the conversation.
pub(crate) fn conversation(r: &RecordedRequest) -> String {
    r.body["input"].to_string()
}

pub(crate) fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "codex failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        support::stderr(out)
    );
}

#[test]
#[cfg_attr(
    missing_codex_cli,
    ignore = "the Codex CLI is not installed: run .ci/install-test-deps"
)]
fn a_bang_prompt_s_review_reaches_codex_s_model_and_uninstall_restores_the_hooks() {
    let s = Setup::new("def main():\n    return 1\n");
    let server = FakeServer::start_blocking();
    support::script_bang_review(&server, []);
    let out = s.codex(&server, "optimize the settings page!!!");
    ok(&out);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Proceed with the refined prompt?"),
        "{}",
        support::stderr(&out)
    );
    let reqs = codex_requests(&server);
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
        5,
        "the four reviewers and the guardrail check ran in the hook"
    );

    // Uninstalled: the user's file as it was, and Codex hears the prompt as typed.
    let out = s.crit(&["uninstall", "codex", "--user"]);
    assert!(out.status.success(), "{}", support::stderr(&out));
    assert_eq!(std::fs::read_to_string(s.hooks()).unwrap(), USER_HOOKS);
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("optimize the settings page!!!").reply(Reply::text("On it.")));
    let out = s.codex(&server, "optimize the settings page!!!");
    ok(&out);
    assert_eq!(support::chat_requests(&server).len(), 0);
    let reqs = codex_requests(&server);
    assert_eq!(reqs.len(), 1);
    assert!(!conversation(&reqs[0]).contains("Prompt Review"));
}

#[test]
#[cfg_attr(
    missing_codex_cli,
    ignore = "the Codex CLI is not installed: run .ci/install-test-deps"
)]
fn codex_s_stop_is_blocked_with_the_finding_and_the_second_stop_after_the_fix_passes() {
    let s = Setup::new(EVAL);
    let p = s.project();
    let server = FakeServer::start_blocking();
    server.push(confirmed());
    // crit's reviews, told apart by the code they carry (the fixed one first:
    // its diff shows the removed line too).
    server.push(Step::when_contains("return int(input())").reply(Reply::json(support::pass())));
    server.push(Step::when_contains("return eval(input())").reply(Reply::json(json!({
        "verdict": "FAIL", "summary": "Runs user input as code.",
        "findings": [{"file_path": "src/app.py", "line_start": 2, "line_end": 2, "priority": 1,
                      "title": "eval of user input", "body": "Any input runs as Python. Parse it with int()."}]}))));
    // Codex's model: told of the finding, it fixes the line, then says so.
    server.push(
        Step::when_contains("eval of user input. Fix: Any input runs as Python.").reply(
            Reply::tool_use(
                "exec_command",
                json!({"cmd": "sed -i 's/eval(input())/int(input())/' src/app.py"}),
            ),
        ),
    );
    server.push(Step::when_contains("finish the task").reply(Reply::text("Done.")));
    let out = {
        server.push(Reply::text("Fixed."));
        s.codex(&server, "finish the task")
    };
    ok(&out);
    assert_eq!(
        std::fs::read_to_string(p.join("src/app.py")).unwrap(),
        "def main():\n    return int(input())\n"
    );
    let reviews = support::chat_requests(&server)
        .into_iter()
        .filter(|r| !r.body.to_string().contains("The finding to check"))
        .count();
    assert_eq!(reviews, 2, "one review per stop");
    let reqs = codex_requests(&server);
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
    missing_codex_cli,
    ignore = "the Codex CLI is not installed: run .ci/install-test-deps"
)]
fn codex_lists_crit_mcp_s_tools_a_call_outside_the_project_is_refused_and_the_findings_reach_the_model()
 {
    let s = Setup::new(EVAL);
    // Only the MCP server here: the hooks out of the way.
    let out = s.crit(&["uninstall", "codex", "--user"]);
    assert!(out.status.success(), "{}", support::stderr(&out));
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("eval(input())").reply(Reply::json(json!({
        "verdict": "FAIL", "summary": "Runs user input as code.",
        "findings": [{"file_path": "src/app.py", "line_start": 2, "line_end": 2, "priority": 1,
                      "title": "eval of user input", "body": "Any input runs as Python. Use ast.literal_eval."}]}))));
    server.push(confirmed());
    // A call outside the project first: refused, with the reason.
    server.push(
        Step::when_contains("review my change").reply(Reply::tool_use(
            "mcp__crit/review_code",
            json!({"scope": "files", "files": ["../../../../etc/passwd"]}),
        )),
    );
    server.push(
        Step::when_contains("review my change").reply(Reply::tool_use(
            "mcp__crit/review_code",
            json!({"scope": "uncommitted"}),
        )),
    );
    server.push(Reply::text("crit found one problem."));
    s.configure(
        &server,
        &format!(
            "\n[mcp_servers.crit]\ncommand = {:?}\nargs = [\"mcp\"]\n\
             env_vars = [\"OPENAI_BASE_URL\", \"OPENAI_API_KEY\", \"CRIT_MODEL\", \"XDG_STATE_HOME\"]\n\
             default_tools_approval_mode = \"approve\"\n",
            env!("CARGO_BIN_EXE_crit")
        ),
    );
    let out = s.codex_configured(&server, "review my change");
    ok(&out);
    let reqs = codex_requests(&server);
    assert_eq!(reqs.len(), 3, "{reqs:#?}");
    // Codex offers an MCP server's tools inside one `namespace` tool.
    let crit = reqs[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "mcp__crit")
        .unwrap_or_else(|| panic!("no crit tools: {}", reqs[0].body["tools"]));
    assert_eq!(crit["type"], "namespace");
    let tools: Vec<&str> = crit["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for want in [
        "review_code",
        "check_plan",
        "review_prompt",
        "explain_finding",
    ] {
        assert!(tools.contains(&want), "{want} not offered: {tools:?}");
    }
    let outputs = |r: &RecordedRequest| -> Vec<String> {
        r.body["input"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["type"] == "function_call_output")
            .map(|i| i["output"].to_string())
            .collect()
    };
    let refused = outputs(&reqs[1]);
    assert_eq!(refused.len(), 1, "{:#?}", reqs[1].body["input"]);
    assert!(refused[0].contains("outside the project"), "{}", refused[0]);
    let reviewed = outputs(&reqs[2]);
    assert_eq!(reviewed.len(), 2, "{:#?}", reqs[2].body["input"]);
    assert!(
        reviewed[1].contains("eval of user input"),
        "{}",
        reviewed[1]
    );
    assert_eq!(server.remaining_steps(), 0);
}

#[test]
#[cfg_attr(
    missing_codex_cli,
    ignore = "the Codex CLI is not installed: run .ci/install-test-deps"
)]
fn a_model_that_never_fixes_is_sent_back_max_rounds_times_then_let_go_and_audited() {
    let s = Setup::new(EVAL);
    let server = FakeServer::start_blocking();
    server.push(confirmed());
    server.push(Step::when_contains("return eval(input())").reply(Reply::json(json!({
        "verdict": "FAIL", "summary": "Runs user input as code.",
        "findings": [{"file_path": "src/app.py", "line_start": 2, "line_end": 2, "priority": 1,
                      "title": "eval of user input", "body": "Any input runs as Python. Parse it with int()."}]}))));
    for i in 0..3 {
        server.push(Reply::text(format!("Done {i}.")));
    }
    let out = s.codex(&server, "finish the task");
    ok(&out);
    // Codex carries `stop_hook_active` on the stops the gate caused, so the
    // rounds are counted: two blocks (the default max_rounds), then the agent
    // may stop. The change did not change, so it was reviewed once.
    assert_eq!(codex_requests(&server).len(), 3);
    let reviews = support::chat_requests(&server)
        .into_iter()
        .filter(|r| !r.body.to_string().contains("The finding to check"))
        .count();
    assert_eq!(reviews, 1);
    assert_eq!(server.remaining_steps(), 0);
    // `codex exec` prints a hook's event and status only (`hook: Stop
    // Completed`), never what the hook said (`systemMessage`, `stopReason`,
    // stderr alike), so the gate's word that it let go reaches no one there
    // (Codex's TUI shows it); the audit log keeps it.
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        support::stderr(&out)
    );
    assert!(shown.contains("hook: Stop Completed"), "{shown}");
    assert!(!shown.contains("without a passing review"), "{shown}");
    let audit = std::fs::read_dir(s.home.path().join("state/crit/audit"))
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect::<String>();
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
