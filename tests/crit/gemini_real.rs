//! crit inside the real Gemini CLI (npm `@google/gemini-cli`, pinned in
//! `.ci/install-test-deps`), run as `gemini -p` with a `HOME` of the test's
//! own (never the user's) whose `.gemini/settings.json` holds what `crit
//! install gemini --user` merged into the user's settings, pointed at
//! crit-testkit's fake Gemini API (`GOOGLE_GEMINI_BASE_URL`, an API key).
//! crit, in the hooks, reaches the same server's chat completions
//! (`OPENAI_BASE_URL`, `CRIT_MODEL`).
//!
//! - a `!!!` prompt: the review runs in the `BeforeAgent` hook and its
//!   result reaches the model's request; after `crit uninstall gemini` the
//!   user's settings are back byte for byte and the next `!!!` prompt goes
//!   to the model as typed;
//! - the `AfterAgent` gate denies once with the finding, Gemini CLI sends it
//!   back as a prompt, the model fixes the code, and the second stop passes;
//!   a model that never fixes is sent back `max_rounds` times, then let go,
//!   and Gemini CLI shows the user crit's message;
//! - `crit mcp` in the settings' `mcpServers`: Gemini CLI lists its tools and
//!   calls `review_code`: on a path outside the project it is refused with
//!   the reason, on the uncommitted change its findings reach the model.
//!
//! The project is a folder the user trusted (`trustedFolders.json`); the
//! model is named (`-m`), so Gemini CLI asks no router model first; its
//! update checks and usage statistics are off, so it talks to nothing but
//! the fake server. Without the installed CLI these tests are reported as
//! ignored on a developer machine; under CI they run (see `test_deps`).

use crate::claude_code_hooks_real::crit_dir;
use crate::stop_gate::{EVAL, confirmed, repo};
use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use crit_testkit::prompt_review::VAGUE_REFINED;
use crit_testkit::{FakeServer, RecordedRequest, Reply, Step};
use serde_json::json;

/// A user's settings (in the keys this Gemini CLI writes, so it has nothing
/// to migrate), which install and uninstall must leave as they were. One
/// attempt per request: an unscripted one fails the test at once.
const USER_SETTINGS: &str = r#"{
  "general": {
    "enableAutoUpdate": false,
    "enableAutoUpdateNotification": false,
    "maxAttempts": 1
  },
  "privacy": {
    "usageStatisticsEnabled": false
  },
  "telemetry": {
    "enabled": false
  },
  "security": {
    "auth": {
      "selectedType": "gemini-api-key"
    }
  }
}
"#;

struct Setup {
    dir: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Setup {
    fn new(change: &str) -> Setup {
        let s = Setup {
            dir: repo(change),
            home: tempfile::tempdir().unwrap(),
        };
        let gemini = s.home.path().join(".gemini");
        std::fs::create_dir_all(&gemini).unwrap();
        std::fs::write(s.settings(), USER_SETTINGS).unwrap();
        let trusted = json!({ s.project().display().to_string(): "TRUST_FOLDER" });
        std::fs::write(gemini.join("trustedFolders.json"), trusted.to_string()).unwrap();
        let out = s.crit(&["install", "gemini", "--user"]);
        assert!(out.status.success(), "{}", support::stderr(&out));
        s
    }

    fn project(&self) -> &Path {
        self.dir.path()
    }

    fn settings(&self) -> PathBuf {
        self.home.path().join(".gemini/settings.json")
    }

    fn crit(&self, args: &[&str]) -> Output {
        assert_cmd::Command::cargo_bin("crit")
            .unwrap()
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .current_dir(self.project())
            .args(args)
            .output()
            .unwrap()
    }

    /// `gemini -p PROMPT` in the project, with `crit` on PATH.
    fn gemini(&self, server: &FakeServer, prompt: &str) -> Output {
        let path = format!(
            "{}:{}",
            crit_dir().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        std::process::Command::new(crate::support::npm_bin("gemini"))
            .args([
                "-m",
                "gemini-2.5-pro",
                "--approval-mode",
                "yolo",
                "-p",
                prompt,
            ])
            .env_clear()
            .env("PATH", path)
            .env("HOME", self.home.path())
            .env("XDG_STATE_HOME", self.home.path().join("state"))
            .env("GEMINI_API_KEY", "gemini-review-secret-0123456789")
            .env("GOOGLE_GEMINI_BASE_URL", server.url())
            .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
            .env("CRIT_MODEL", "gpt-testkit")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdin(Stdio::null())
            .current_dir(self.project())
            .output()
            .unwrap()
    }
}

/// Requests Gemini CLI sent (crit's own go to chat completions).
fn gemini_requests(server: &FakeServer) -> Vec<RecordedRequest> {
    server
        .model_requests()
        .into_iter()
        .filter(|r| r.path.contains("/models/"))
        .collect()
}

fn conversation(r: &RecordedRequest) -> String {
    r.body["contents"].to_string()
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "gemini failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        support::stderr(out)
    );
}

#[test]
#[cfg_attr(
    missing_gemini_cli,
    ignore = "the Gemini CLI is not installed: run .ci/install-test-deps"
)]
fn a_bang_prompt_s_review_reaches_gemini_s_model_and_uninstall_restores_the_settings() {
    let s = Setup::new("def main():\n    return 1\n");
    let server = FakeServer::start_blocking();
    support::script_bang_review(&server, []);
    let out = s.gemini(&server, "optimize the settings page!!!");
    ok(&out);
    let reqs = gemini_requests(&server);
    assert_eq!(reqs.len(), 1, "{reqs:#?}");
    assert!(
        reqs[0]
            .path
            .ends_with("/gemini-2.5-pro:streamGenerateContent")
    );
    assert_eq!(reqs[0].query.as_deref(), Some("alt=sse"));
    let body = conversation(&reqs[0]);
    // Gemini CLI hands a hook's context to the model inside `<hook_context>`,
    // with `<` and `>` escaped so the context cannot close that tag.
    assert!(
        body.contains("<hook_context>crit reviewed this prompt"),
        "{body}"
    );
    for want in [
        "+-- Prompt Review ",
        "&lt;diff&gt;",
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
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Proceed with the refined prompt?"),
        "{}",
        support::stderr(&out)
    );

    let out = s.crit(&["uninstall", "gemini", "--user"]);
    assert!(out.status.success(), "{}", support::stderr(&out));
    assert_eq!(
        std::fs::read_to_string(s.settings()).unwrap(),
        USER_SETTINGS
    );
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("optimize the settings page!!!").reply(Reply::text("On it.")));
    let out = s.gemini(&server, "optimize the settings page!!!");
    ok(&out);
    assert_eq!(support::chat_requests(&server).len(), 0);
    let reqs = gemini_requests(&server);
    assert_eq!(reqs.len(), 1);
    assert!(!conversation(&reqs[0]).contains("Prompt Review"));
}

#[test]
#[cfg_attr(
    missing_gemini_cli,
    ignore = "the Gemini CLI is not installed: run .ci/install-test-deps"
)]
fn gemini_s_stop_is_denied_with_the_finding_and_the_second_stop_after_the_fix_passes() {
    let s = Setup::new(EVAL);
    let p = s.project();
    let server = FakeServer::start_blocking();
    server.push(confirmed());
    server.push(Step::when_contains("return int(input())").reply(Reply::json(support::pass())));
    server.push(Step::when_contains("return eval(input())").reply(Reply::json(json!({
        "verdict": "FAIL", "summary": "Runs user input as code.",
        "findings": [{"file_path": "src/app.py", "line_start": 2, "line_end": 2, "priority": 1,
                      "title": "eval of user input", "body": "Any input runs as Python. Parse it with int()."}]}))));
    server.push(
        Step::when_contains("eval of user input. Fix: Any input runs as Python.").reply(
            Reply::tool_use(
                "run_shell_command",
                json!({"command": "sed -i 's/eval(input())/int(input())/' src/app.py",
                       "description": "fix"}),
            ),
        ),
    );
    server.push(Step::when_contains("finish the task").reply(Reply::text("Done.")));
    server.push(Reply::text("Fixed."));
    let out = s.gemini(&server, "finish the task");
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
    let reqs = gemini_requests(&server);
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
    missing_gemini_cli,
    ignore = "the Gemini CLI is not installed: run .ci/install-test-deps"
)]
fn gemini_lists_crit_mcp_s_tools_a_call_outside_the_project_is_refused_and_the_findings_reach_the_model()
 {
    let s = Setup::new(EVAL);
    let out = s.crit(&["uninstall", "gemini", "--user"]);
    assert!(out.status.success(), "{}", support::stderr(&out));
    let mut settings: serde_json::Value = serde_json::from_str(USER_SETTINGS).unwrap();
    settings["mcpServers"] =
        json!({"crit": {"command": env!("CARGO_BIN_EXE_crit"), "args": ["mcp"]}});
    std::fs::write(s.settings(), settings.to_string()).unwrap();
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("eval(input())").reply(Reply::json(json!({
        "verdict": "FAIL", "summary": "Runs user input as code.",
        "findings": [{"file_path": "src/app.py", "line_start": 2, "line_end": 2, "priority": 1,
                      "title": "eval of user input", "body": "Any input runs as Python. Use ast.literal_eval."}]}))));
    server.push(confirmed());
    for args in [
        json!({"scope": "files", "files": ["../../../../etc/passwd"]}),
        json!({"scope": "uncommitted"}),
    ] {
        server.push(
            Step::when_contains("review my change")
                .reply(Reply::tool_use("mcp_crit_review_code", args)),
        );
    }
    server.push(Reply::text("crit found one problem."));
    let out = s.gemini(&server, "review my change");
    ok(&out);
    let reqs = gemini_requests(&server);
    assert_eq!(reqs.len(), 3, "{reqs:#?}");
    let offered: Vec<&str> = reqs[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["functionDeclarations"].as_array().into_iter().flatten())
        .filter_map(|f| f["name"].as_str())
        .collect();
    for want in [
        "review_code",
        "check_plan",
        "review_prompt",
        "explain_finding",
    ] {
        assert!(
            offered.contains(&format!("mcp_crit_{want}").as_str()),
            "{want} not offered: {offered:?}"
        );
    }
    // What the tool answered, as Gemini CLI hands it back to the model.
    let answered = |r: &RecordedRequest| -> String {
        let last = r.body["contents"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .clone();
        assert!(last.to_string().contains("functionResponse"), "{last}");
        last.to_string()
    };
    assert!(answered(&reqs[1]).contains("outside the project"));
    assert!(answered(&reqs[2]).contains("eval of user input"));
    assert_eq!(server.remaining_steps(), 0);
}

#[test]
#[cfg_attr(
    missing_gemini_cli,
    ignore = "the Gemini CLI is not installed: run .ci/install-test-deps"
)]
fn a_model_that_never_fixes_is_sent_back_max_rounds_times_then_let_go_and_the_user_is_told() {
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
    let out = s.gemini(&server, "finish the task");
    ok(&out);
    // Gemini CLI marks the retries it makes for a denial `stop_hook_active`,
    // so the rounds are counted: two denials (the default max_rounds), then
    // the agent may stop, and Gemini CLI shows the user crit's message.
    assert_eq!(gemini_requests(&server).len(), 3);
    let reviews = support::chat_requests(&server)
        .into_iter()
        .filter(|r| !r.body.to_string().contains("The finding to check"))
        .count();
    assert_eq!(reviews, 1, "the unchanged change is reviewed once");
    assert_eq!(server.remaining_steps(), 0);
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        support::stderr(&out)
    );
    assert!(
        shown.contains("the agent stopped without a passing review: the review gate sent the agent back 2 times this turn (max_rounds 2)"),
        "{shown}"
    );
}
