//! crit inside the real OpenCode (npm `opencode-ai`, pinned in
//! `.ci/install-test-deps`), with a home of the test's own whose
//! configuration (`OPENCODE_CONFIG_CONTENT`) points OpenCode at
//! crit-testkit's chat completions stand-in as an OpenAI-compatible provider
//! (bundled in OpenCode: nothing is fetched), and the plugin `crit install
//! opencode` wrote. crit, in the plugin, reaches the same server.
//!
//! - a `!!!` prompt (`opencode run`): the review runs in the plugin's
//!   `chat.message` hook and its result reaches the model's request;
//!   after `crit uninstall opencode` the user's `opencode.json` is back byte
//!   for byte and the plugin is gone;
//! - the review gate (`opencode serve`, driven by `opencode run --attach`):
//!   at the end of the turn the plugin's gate holds with the finding, which
//!   goes back as the next prompt; the model fixes the code and the second
//!   end of turn passes;
//! - `crit mcp` registered in `opencode.json`: OpenCode lists its tools and
//!   calls `review_code`: on a path outside the project it is refused with
//!   the reason, on the uncommitted change its findings reach the model.
//!
//! OpenCode installs its plugin package into each config directory at start
//! (from the npm registry); the test stubs that install as done (the
//! `package.json`/lock pair OpenCode checks), so nothing leaves the machine.
//! Without the installed CLI these tests are reported as ignored on a
//! developer machine; under CI they run (see `test_deps`).

use crate::claude_code_hooks_real::crit_dir;
use crate::stop_gate::{EVAL, confirmed, repo};
use crate::support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use crit_testkit::prompt_review::VAGUE_REFINED;
use crit_testkit::{FakeServer, RecordedRequest, Reply, Step};
use serde_json::json;

/// A user's own `opencode.json`, which install and uninstall must leave as it was.
const USER_CONFIG: &str = r#"{
    "$schema": "https://opencode.ai/config.json",
    "instructions": ["CONTRIBUTING.md"]
}
"#;

/// What OpenCode checks before it installs its plugin package into a
/// config directory: with these it installs nothing.
fn stub_plugin_package(dir: &Path) {
    std::fs::create_dir_all(dir.join("node_modules")).unwrap();
    let dep = json!({"@opencode-ai/plugin": "1.18.33"});
    support::write(
        dir,
        "package.json",
        &json!({"dependencies": dep}).to_string(),
    );
    support::write(
        dir,
        "package-lock.json",
        &json!({"packages": {"": {"dependencies": dep}}}).to_string(),
    );
    support::write(
        dir,
        ".gitignore",
        "node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore\n",
    );
}

struct Setup {
    dir: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Setup {
    fn new(change: &str, install: &[&str]) -> Setup {
        let s = Setup {
            dir: repo(change),
            home: tempfile::tempdir().unwrap(),
        };
        std::fs::write(s.project().join("opencode.json"), USER_CONFIG).unwrap();
        // A project OpenCode has run in: its `.opencode/.gitignore` (which
        // ignores itself) committed, as crit's install says to do.
        stub_plugin_package(&s.project().join(".opencode"));
        support::git(s.project(), &["add", "opencode.json"]);
        support::git(s.project(), &["add", "-f", ".opencode/.gitignore"]);
        support::git(s.project(), &["commit", "-q", "-m", "opencode"]);
        stub_plugin_package(&s.home.path().join(".config/opencode"));
        let mut args = vec!["install", "opencode"];
        args.extend_from_slice(install);
        let out = s.crit(&args);
        assert!(out.status.success(), "{}", support::stderr(&out));
        s
    }

    fn project(&self) -> &Path {
        self.dir.path()
    }

    fn crit(&self, args: &[&str]) -> Output {
        assert_cmd::Command::cargo_bin("crit")
            .unwrap()
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("XDG_STATE_HOME", self.home.path().join("state"))
            .current_dir(self.project())
            .args(args)
            .output()
            .unwrap()
    }

    /// OpenCode's command in the project: the fake server as its only
    /// provider, every tool allowed, nothing that reaches the network.
    fn opencode(&self, server: &FakeServer) -> std::process::Command {
        let h = self.home.path();
        let config = json!({
            "provider": {"testkit": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "crit-testkit",
                "options": {"baseURL": format!("{}/v1", server.url()), "apiKey": "sk-oc"},
                "models": {"gpt-testkit": {"name": "gpt-testkit"}},
            }},
            "model": "testkit/gpt-testkit",
            "small_model": "testkit/gpt-testkit",
            "permission": {"bash": "allow", "edit": "allow"},
            "autoupdate": false,
            "share": "disabled",
        });
        let path = format!(
            "{}:{}",
            crit_dir().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut c = std::process::Command::new(crate::support::npm_bin("opencode"));
        c.env_clear()
            .env("PATH", path)
            .env("HOME", h)
            .env("XDG_CONFIG_HOME", h.join(".config"))
            .env("XDG_DATA_HOME", h.join(".local/share"))
            .env("XDG_CACHE_HOME", h.join(".cache"))
            .env("XDG_STATE_HOME", h.join("state"))
            .env("OPENCODE_CONFIG_CONTENT", config.to_string())
            .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
            .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
            .env("OPENCODE_DISABLE_LSP_DOWNLOAD", "1")
            .env("OPENCODE_DISABLE_DEFAULT_PLUGINS", "1")
            .env("OPENCODE_DISABLE_CLAUDE_CODE", "1")
            .env("npm_config_registry", "http://127.0.0.1:9/")
            .env("OPENAI_API_KEY", "sk-review-secret-0123456789")
            .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
            .env("CRIT_MODEL", "gpt-testkit")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdin(Stdio::null())
            .current_dir(self.project());
        c
    }

    /// `opencode run PROMPT`, the prompt as separate words (`run` quotes a
    /// word with a space in it).
    fn run(&self, server: &FakeServer, prompt: &str) -> Output {
        self.opencode(server)
            .arg("run")
            .args(prompt.split_whitespace())
            .output()
            .unwrap()
    }
}

/// OpenCode's own requests (crit's carry no OpenCode system prompt).
fn opencode_requests(server: &FakeServer) -> Vec<RecordedRequest> {
    support::chat_requests(server)
        .into_iter()
        .filter(|r| r.body.to_string().contains("You are OpenCode"))
        .collect()
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "opencode failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        support::stderr(out)
    );
}

/// OpenCode names its session with a small model request first.
fn title_step() -> Step {
    Step::when_contains("You are a title generator").reply(Reply::text("A title"))
}

#[test]
#[cfg_attr(
    missing_opencode_cli,
    ignore = "OpenCode is not installed: run .ci/install-test-deps"
)]
fn a_bang_prompt_s_review_reaches_opencode_s_model_and_uninstall_restores_the_config() {
    // No gate: crit's own MCP entry in opencode.json is a change it would review.
    let s = Setup::new(
        "def main():\n    return 1\n",
        &["--mcp", "--skip", "stop-gate"],
    );
    assert_ne!(
        std::fs::read_to_string(s.project().join("opencode.json")).unwrap(),
        USER_CONFIG
    );
    let server = FakeServer::start_blocking();
    support::script_bang_review(&server, [title_step()]);
    let out = s.run(&server, "optimize the settings page!!!");
    ok(&out);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Proceed with the refined prompt?"),
        "{}",
        support::stderr(&out)
    );
    let reqs = opencode_requests(&server);
    let main: Vec<&RecordedRequest> = reqs
        .iter()
        .filter(|r| !r.body.to_string().contains("title generator"))
        .collect();
    assert_eq!(main.len(), 1, "{reqs:#?}");
    let body = main[0].body["messages"].to_string();
    for want in ["+-- Prompt Review ", "-optimize the settings page"] {
        assert!(body.contains(want), "missing {want:?} in {body}");
    }
    let refined = serde_json::to_string(VAGUE_REFINED).unwrap();
    assert!(
        body.contains(refined.trim_matches('"')),
        "the refined prompt is not in the request: {body}"
    );

    // Uninstalled: the user's file as it was, the plugin gone, and OpenCode
    // hears the prompt as typed.
    let out = s.crit(&["uninstall", "opencode"]);
    assert!(out.status.success(), "{}", support::stderr(&out));
    assert_eq!(
        std::fs::read_to_string(s.project().join("opencode.json")).unwrap(),
        USER_CONFIG
    );
    assert!(!s.project().join(".opencode/plugins").exists());
    let server = FakeServer::start_blocking();
    server.push(title_step());
    server.push(Step::when_contains("optimize the settings page!!!").reply(Reply::text("On it.")));
    let out = s.run(&server, "optimize the settings page!!!");
    ok(&out);
    let reqs = support::chat_requests(&server);
    assert!(
        reqs.iter()
            .all(|r| !r.body.to_string().contains("Prompt Review")),
        "{reqs:#?}"
    );
}

/// `opencode serve` in the project, and its address.
fn serve(s: &Setup, server: &FakeServer) -> (Child, String) {
    let mut child = s
        .opencode(server)
        .args(["serve", "--port", "0", "--hostname", "127.0.0.1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let mut lines = BufReader::new(out).lines();
    let url = loop {
        let line = lines
            .next()
            .expect("opencode serve ended before it listened")
            .unwrap();
        if let Some(at) = line.find("http://127.0.0.1:") {
            break line[at..].trim().to_string();
        }
    };
    // Keep reading so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    (child, url)
}

#[test]
#[cfg_attr(
    missing_opencode_cli,
    ignore = "OpenCode is not installed: run .ci/install-test-deps"
)]
fn opencode_s_turn_is_held_with_the_finding_and_the_second_end_after_the_fix_passes() {
    let s = Setup::new(EVAL, &[]);
    let p = s.project();
    let server = FakeServer::start_blocking();
    server.push(confirmed());
    server.push(title_step());
    // crit's reviews, told apart by the code they carry (the fixed one first:
    // its diff shows the removed line too).
    server.push(Step::when_contains("return int(input())").reply(Reply::json(support::pass())));
    server.push(Step::when_contains("return eval(input())").reply(Reply::json(json!({
        "verdict": "FAIL", "summary": "Runs user input as code.",
        "findings": [{"file_path": "src/app.py", "line_start": 2, "line_end": 2, "priority": 1,
                      "title": "eval of user input", "body": "Any input runs as Python. Parse it with int()."}]}))));
    // OpenCode's model: told of the finding, it fixes the line, then says so.
    server.push(Step::when_contains("int(input())/").reply(Reply::text("Fixed.")));
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
    let (mut child, url) = serve(&s, &server);
    let out = s
        .opencode(&server)
        .args(["run", "--attach", &url, "finish", "the", "task"])
        .output()
        .unwrap();
    // The held prompt runs in the server after this client is done: wait
    // for the review of the fixed code.
    let deadline = Instant::now() + Duration::from_secs(240);
    let reviewed_fix = |server: &FakeServer| {
        support::chat_requests(server).iter().any(|r| {
            let b = r.body.to_string();
            b.contains("return int(input())") && !b.contains("You are OpenCode")
        })
    };
    while !reviewed_fix(&server) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(500));
    }
    // The pass is answered; give the plugin a moment to read it.
    std::thread::sleep(Duration::from_secs(2));
    let _ = child.kill();
    let _ = child.wait();
    ok(&out);
    assert!(String::from_utf8_lossy(&out.stdout).contains("Done."));
    assert_eq!(
        std::fs::read_to_string(p.join("src/app.py")).unwrap(),
        "def main():\n    return int(input())\n"
    );
    let reviews = support::chat_requests(&server)
        .into_iter()
        .filter(|r| {
            let b = r.body.to_string();
            !b.contains("The finding to check")
                && !b.contains("You are OpenCode")
                && !b.contains("title generator")
        })
        .count();
    assert_eq!(reviews, 2, "one review per end of turn");
    let texts: Vec<String> = opencode_requests(&server)
        .iter()
        .filter(|r| !r.body.to_string().contains("title generator"))
        .map(|r| r.body["messages"].to_string())
        .collect();
    assert_eq!(texts.len(), 3, "{texts:#?}");
    assert!(
        texts[1].contains("src/app.py:2 [P1] eval of user input. Fix: Any input runs as Python."),
        "{}",
        texts[1]
    );
}

#[test]
#[cfg_attr(
    missing_opencode_cli,
    ignore = "OpenCode is not installed: run .ci/install-test-deps"
)]
fn opencode_lists_crit_mcp_s_tools_a_call_outside_the_project_is_refused_and_the_findings_reach_the_model()
 {
    // The MCP server, and no gate at the end of the turn.
    let s = Setup::new(EVAL, &["--mcp", "--only", "prompt-review"]);
    let server = FakeServer::start_blocking();
    server.push(title_step());
    server.push(Step::when_contains("eval(input())").reply(Reply::json(json!({
        "verdict": "FAIL", "summary": "Runs user input as code.",
        "findings": [{"file_path": "src/app.py", "line_start": 2, "line_end": 2, "priority": 1,
                      "title": "eval of user input", "body": "Any input runs as Python. Use ast.literal_eval."}]}))));
    server.push(confirmed());
    server.push(
        Step::when_contains("eval of user input").reply(Reply::text("crit found one problem.")),
    );
    server.push(
        Step::when_contains("outside the project").reply(Reply::tool_use(
            "crit_review_code",
            json!({"scope": "uncommitted"}),
        )),
    );
    // A call outside the project first: refused, with the reason.
    server.push(
        Step::when_contains("review my change").reply(Reply::tool_use(
            "crit_review_code",
            json!({"scope": "files", "files": ["../../../../etc/passwd"]}),
        )),
    );
    let out = s.run(&server, "review my change");
    ok(&out);
    let reqs: Vec<RecordedRequest> = opencode_requests(&server)
        .into_iter()
        .filter(|r| !r.body.to_string().contains("title generator"))
        .collect();
    assert_eq!(reqs.len(), 3, "{reqs:#?}");
    let tools: Vec<String> = reqs[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
        .collect();
    for want in [
        "crit_review_code",
        "crit_check_plan",
        "crit_review_prompt",
        "crit_explain_finding",
    ] {
        assert!(
            tools.iter().any(|t| t == want),
            "{want} not offered: {tools:?}"
        );
    }
    let last = |r: &RecordedRequest| -> String {
        r.body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .rfind(|m| m["role"] == "tool")
            .map(|m| m["content"].to_string())
            .unwrap_or_default()
    };
    assert!(
        last(&reqs[1]).contains("outside the project"),
        "{}",
        last(&reqs[1])
    );
    assert!(
        last(&reqs[2]).contains("eval of user input"),
        "{}",
        last(&reqs[2])
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("crit found one problem."));
    let out = s.crit(&["uninstall", "opencode"]);
    assert!(out.status.success(), "{}", support::stderr(&out));
    assert_eq!(
        std::fs::read_to_string(s.project().join("opencode.json")).unwrap(),
        USER_CONFIG
    );
}
