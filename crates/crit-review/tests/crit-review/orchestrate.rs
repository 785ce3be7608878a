//! `crit run`'s library API against crit-testkit: an orchestrator delegating
//! to sub-agents in parallel, structured output against a schema, Reldo's own
//! config, an MCP server from config, and a timeout that keeps partial output.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crit_core::{ReviewerStatus, Verdict};
use crit_llm::{Anthropic, AnthropicAuth, AnthropicConfig, Backend, RetryPolicy, Secret};
use crit_review::orchestrate::{Crit, RunConfig};
use crit_testkit::{FakeServer, Reply, Step};
use serde_json::json;
use tempfile::TempDir;

const BACKEND: &str = "You are BACKEND-SUB.";
const ARCH: &str = "You are ARCH-SUB.";

fn backend(server: &FakeServer) -> Backend {
    let mut c = AnthropicConfig::new(
        server.url(),
        AnthropicAuth::ApiKey(Secret::new("sk-ant-test")),
    );
    c.retry = RetryPolicy {
        max_attempts: 1,
        ..RetryPolicy::default()
    };
    Backend {
        model: Arc::new(Anthropic::new(c).unwrap()),
        agent: None,
    }
}

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A project with Reldo's example config (PRD FR4), its prompt files, and code.
fn reldo_project(extra: &str) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "app/Models/User.php",
        "<?php\nclass User { public $password; }\n",
    );
    write(
        d,
        ".claude/reldo/orchestrator.md",
        "# Code Review Orchestrator\nYou are the ORCHESTRATOR.\n",
    );
    write(d, ".claude/reldo/agents/backend-reviewer.md", BACKEND);
    write(d, ".claude/reldo/agents/architecture-reviewer.md", ARCH);
    write(
        d,
        ".claude/reldo.json",
        &format!(
            r#"{{
  "prompt": ".claude/reldo/orchestrator.md",
  "allowed_tools": ["Read", "Glob", "Grep", "Bash", "Task"{extra_tools}],
  "agents": {{
    "backend-reviewer": {{
      "description": "Reviews PHP/Laravel code for conventions and patterns",
      "prompt": ".claude/reldo/agents/backend-reviewer.md",
      "tools": ["Read", "Glob", "Grep", "Bash"]
    }},
    "architecture-reviewer": {{
      "description": "Reviews code for architectural patterns and cross-cutting concerns",
      "prompt": ".claude/reldo/agents/architecture-reviewer.md",
      "tools": ["Read", "Glob", "Grep"]
    }}
  }},
  "output_schema": {{
    "type": "object",
    "properties": {{
      "passed": {{ "type": "boolean" }},
      "reviewers": {{ "type": "object", "additionalProperties": {{ "type": "boolean" }} }},
      "violations": {{
        "type": "array",
        "items": {{
          "type": "object",
          "properties": {{
            "file": {{ "type": "string" }},
            "line": {{ "type": "number" }},
            "message": {{ "type": "string" }},
            "reviewer": {{ "type": "string" }}
          }}
        }}
      }}
    }},
    "required": ["passed"]
  }},
  "cwd": "${{cwd}}",
  "timeout_seconds": 180,
  "model": "claude-sonnet-4-20250514"{extra}
}}"#,
            extra_tools = if extra.is_empty() {
                ""
            } else {
                r#", "kb__lookup""#
            },
        ),
    );
    dir
}

fn crit_for(dir: &Path, server: &FakeServer) -> Crit {
    let state = dir.join(".state");
    let config =
        RunConfig::load(&dir.join(".claude/reldo.json"), dir, &crit_os::Env::new()).unwrap();
    let mut env = crit_os::Env::new().with("XDG_STATE_HOME", state.display().to_string());
    if let Ok(path) = std::env::var("PATH") {
        env.set("PATH", path);
    }
    Crit::new(config, env).with_backend(backend(server), "claude-sonnet-5-5")
}

fn task(kind: &str, prompt: &str) -> (&'static str, serde_json::Value) {
    (
        "Task",
        json!({"description": format!("{kind} review"), "prompt": prompt, "subagent_type": kind}),
    )
}

#[tokio::test]
async fn the_orchestrator_delegates_in_parallel_and_everything_rolls_up() {
    let dir = reldo_project("");
    let server = FakeServer::start().await;
    server.push(Step::reply(
        Reply::tool_uses(vec![
            task("backend-reviewer", "Review app/Models/User.php"),
            task("architecture-reviewer", "Review app/Models/User.php"),
        ])
        .usage(1000, 100, 0, 0),
    ));
    server.push(
        Step::when_contains(BACKEND).reply(
            Reply::text("STATUS: FAIL\n- app/Models/User.php:2 password is public")
                .usage(400, 40, 0, 0)
                .delay(Duration::from_millis(400)),
        ),
    );
    server.push(
        Step::when_contains(ARCH).reply(
            Reply::text("STATUS: PASS")
                .usage(300, 30, 0, 0)
                .delay(Duration::from_millis(400)),
        ),
    );
    server.push(Step::when_contains("ORCHESTRATOR").reply(
        Reply::json(json!({"passed": false, "reviewers": {"backend-reviewer": false, "architecture-reviewer": true},
            "violations": [{"file": "app/Models/User.php", "line": 2, "message": "password is public", "reviewer": "backend-reviewer"}]}))
        .usage(2000, 80, 0, 0),
    ));
    let result = crit_for(dir.path(), &server)
        .review("Review app/Models/User.php. Context: added registration.")
        .await
        .unwrap();

    let reqs = server.model_requests();
    let sub: Vec<_> = reqs
        .iter()
        .filter(|r| r.body["system"].to_string().contains("-SUB."))
        .collect();
    assert_eq!(sub.len(), 2);
    assert!(
        sub[0].overlaps(sub[1]),
        "the sub-agents ran one after the other"
    );

    assert_eq!(result.review, "run");
    assert_eq!(result.verdict, Verdict::Fail, "`passed: false` decides");
    assert!(!result.passed);
    let s = result.structured_output.as_ref().unwrap();
    assert_eq!(s["violations"][0]["reviewer"], "backend-reviewer");
    // Usage of the orchestrator and both sub-agents, once each.
    assert_eq!(result.usage.input_tokens, 1000 + 400 + 300 + 2000);
    assert_eq!(result.usage.output_tokens, 100 + 40 + 30 + 80);
    let names: Vec<&str> = result.reviewers.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        ["orchestrator", "backend-reviewer", "architecture-reviewer"]
    );
    let be = &result.reviewers[1];
    assert_eq!(be.status, ReviewerStatus::Completed);
    assert_eq!(be.usage.input_tokens, 400);
    // Reldo's example model has its list price.
    assert!(result.cost_usd.unwrap() > 0.0, "{:?}", result.cost_usd);

    // The model named in Reldo's config is the one asked for.
    assert_eq!(reqs[0].body["model"], "claude-sonnet-4-20250514");
    // The session: prompt and config recorded, result saved.
    let session = Path::new(result.session_log_path.as_deref().unwrap());
    let meta = std::fs::read_to_string(session.join("session.json")).unwrap();
    assert!(meta.contains("Context: added registration."));
    assert!(meta.contains("backend-reviewer"));
    assert!(session.join("result.json").is_file());
}

#[tokio::test]
async fn an_answer_off_the_schema_is_sent_back_and_the_fixed_one_lands() {
    let dir = reldo_project("");
    let server = FakeServer::start().await;
    server.push(Step::reply(Reply::json(json!({"reviewers": {}}))));
    server.push(Step::reply(Reply::json(
        json!({"passed": true, "reviewers": {}, "violations": []}),
    )));
    let result = crit_for(dir.path(), &server)
        .review("Review everything")
        .await
        .unwrap();
    assert_eq!(result.verdict, Verdict::Pass);
    assert!(result.passed);
    let second = &server.model_requests()[1];
    assert!(
        second.body["messages"].to_string().contains("passed"),
        "the validation error naming `passed` went back to the model"
    );
}

#[tokio::test]
async fn an_answer_that_never_fits_the_schema_fails() {
    let dir = reldo_project("");
    let server = FakeServer::start().await;
    for _ in 0..5 {
        server.push(Step::reply(Reply::json(json!({"verdict": "whatever"}))));
    }
    let result = crit_for(dir.path(), &server)
        .review("Review everything")
        .await
        .unwrap();
    assert!(!result.passed);
    assert!(result.parse_error.is_some());
    assert_ne!(result.verdict, Verdict::Pass);
}

#[tokio::test]
async fn a_timeout_ends_the_run_incomplete_with_its_partial_output() {
    let dir = reldo_project("");
    let d = dir.path();
    let json = std::fs::read_to_string(d.join(".claude/reldo.json")).unwrap();
    write(
        d,
        ".claude/reldo.json",
        &json.replace("\"timeout_seconds\": 180", "\"timeout_seconds\": 1"),
    );
    let server = FakeServer::start().await;
    server.push(Step::reply(
        Reply::text("Looking at User.php first.")
            .then_tool_use("Read", json!({"file_path": "app/Models/User.php"})),
    ));
    server.push(Step::reply(
        Reply::text("still going").stall_after_bytes(100, Duration::from_secs(30)),
    ));
    let started = std::time::Instant::now();
    let result = crit_for(d, &server)
        .review("Review everything")
        .await
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(result.verdict, Verdict::Incomplete);
    assert_eq!(result.parse_error.as_deref(), Some("timeout"));
    assert!(!result.passed);
    assert!(
        result.raw_output.contains("Looking at User.php first."),
        "{}",
        result.raw_output
    );
}

/// A stdio MCP server (newline-delimited JSON-RPC, protocol 2025-06-18) with
/// one tool, `lookup`, in a few lines of Python.
const MCP_SERVER: &str = r#"
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    method = msg.get("method")
    if method == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "kb", "version": "1.0.0"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "lookup", "description": "Look up a project fact",
                             "inputSchema": {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]}}]}
    elif method == "tools/call":
        key = msg["params"]["arguments"]["key"]
        result = {"content": [{"type": "text", "text": "fact-for-" + key}], "isError": False}
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "no such method"}}), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
"#;

#[tokio::test]
async fn an_mcp_server_from_the_config_is_started_and_used() {
    let dir = reldo_project(
        r#", "mcp_servers": { "kb": { "command": "python3", "args": ["${cwd}/kb.py"] } }"#,
    );
    write(dir.path(), "kb.py", MCP_SERVER);
    let server = FakeServer::start().await;
    server.push(Step::reply(Reply::tool_use(
        "mcp__kb__lookup",
        json!({"key": "auth"}),
    )));
    server.push(Step::reply(Reply::json(json!({"passed": true}))));
    let result = crit_for(dir.path(), &server)
        .review("Review auth")
        .await
        .unwrap();
    assert!(result.passed, "{result:#?}");
    let reqs = server.model_requests();
    let tools = reqs[0].body["tools"].to_string();
    assert!(tools.contains("mcp__kb__lookup"), "{tools}");
    assert!(
        reqs[1].body["messages"]
            .to_string()
            .contains("fact-for-auth")
    );
}

#[tokio::test]
async fn a_config_error_names_the_file_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (text, needle) in [
        (r#"{"prompt": "missing.md"}"#, "prompt: prompt file"),
        (
            "{\"prompt\": \"x\",\n  \"timeout_seconds\": }",
            "settings.json:2:",
        ),
    ] {
        write(d, ".reldo/settings.json", text);
        let err = RunConfig::load(&d.join(".reldo/settings.json"), d, &crit_os::Env::new())
            .unwrap_err()
            .to_string();
        assert!(err.contains(needle), "{err} lacks {needle}");
        assert!(err.contains("settings.json"), "{err}");
    }
    // As Reldo: an unknown key, an agent without a description and an unset
    // variable load, with a warning naming each.
    write(
        d,
        ".reldo/settings.json",
        r#"{"prompt": "x", "agentz": {}, "agents": {"a": {"prompt": "p"}},
            "mcp_servers": {"s": {"command": "x", "env": {"T": "${env:NOPE_TOKEN}"}}}}"#,
    );
    let c = RunConfig::load(&d.join(".reldo/settings.json"), d, &crit_os::Env::new()).unwrap();
    let warnings = c.warnings.join("\n");
    assert!(warnings.contains("`agentz`"), "{warnings}");
    assert!(warnings.contains("NOPE_TOKEN"), "{warnings}");
    assert_eq!(c.agents[0].description, "");
    write(
        d,
        ".reldo/settings.json",
        r#"{"prompt": "Review ${env:TEAM} code in ${cwd}", "timeout_seconds": 5}"#,
    );
    let team = crit_os::Env::new().with("TEAM", "core");
    let c = RunConfig::load(&d.join(".reldo/settings.json"), d, &team).unwrap();
    assert_eq!(
        c.prompt.as_deref().unwrap(),
        format!("Review core code in {}", d.display())
    );
    assert_eq!(c.timeout, Duration::from_secs(5));
    assert_eq!(RunConfig::find(d).unwrap(), d.join(".reldo/settings.json"));
}

/// FR9: hooks passed in code see the orchestrator's tool calls.
#[tokio::test]
async fn hooks_given_in_code_see_tool_calls() {
    use crit_agent::hooks::{Hook, HookEvent, HookFuture, HookInput, HookResponse, Hooks};
    use std::sync::Mutex;

    #[derive(Default)]
    struct Audit(Mutex<Vec<String>>);
    impl Hook for Audit {
        fn name(&self) -> &str {
            "audit"
        }
        fn matches(&self, event: HookEvent, _tool: Option<&str>) -> bool {
            event == HookEvent::PostToolUse
        }
        fn run<'a>(
            &'a self,
            input: &'a HookInput,
            _c: &'a tokio_util::sync::CancellationToken,
        ) -> HookFuture<'a> {
            self.0
                .lock()
                .unwrap()
                .push(input.tool_name.clone().unwrap_or_default());
            Box::pin(async { HookResponse::allow() })
        }
    }

    let dir = reldo_project("");
    let server = FakeServer::start().await;
    server.push(Step::reply(Reply::tool_use(
        "Read",
        json!({"file_path": "app/Models/User.php"}),
    )));
    server.push(Step::reply(Reply::json(json!({"passed": true}))));
    let audit = Arc::new(Audit::default());
    let result = crit_for(dir.path(), &server)
        .with_hooks(Hooks::new(vec![audit.clone()]))
        .review("Review the model")
        .await
        .unwrap();
    assert!(result.passed);
    assert_eq!(*audit.0.lock().unwrap(), ["Read"]);
}
