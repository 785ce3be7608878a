//! Reldo's own examples and published scenarios, run unchanged against
//! `crit run` through crit-testkit: its init layout and status-line
//! convention under `--exit-code`, the PRD's FR4 config as written (an MCP
//! server that is not installed included), `--json` under `--compat reldo`,
//! `--prompt -`, `--cwd` and a relative `--config`, sessions with Reldo's
//! file names, the config keys Reldo and the Agent SDK document, MCP tools
//! named as Claude Code names them (stdio and HTTP), and totals with the
//! sub-agents' tokens.

use crate::support;

use std::io::BufRead;
use std::path::Path;
use std::process::{Child, Command as StdCommand, Stdio};

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};
use support::{crit, json_out, stderr, write};

/// `crit init --reldo` in a fresh project.
pub(crate) fn reldo_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start_blocking();
    let out = crit(dir.path(), &server, None)
        .args(["init", "--reldo"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    write(dir.path(), "app/Models/User.php", "<?php\nclass User {}\n");
    dir
}

fn run(d: &Path, server: &FakeServer, args: &[&str]) -> std::process::Output {
    crit(d, server, None)
        .arg("run")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn reldo_init_config_status_pass_exits_0_and_no_status_line_exits_1() {
    let dir = reldo_project();
    let d = dir.path();
    for f in [
        ".claude/reldo.json",
        ".claude/reldo/orchestrator.md",
        ".claude/reldo/agents/backend-reviewer.md",
        ".claude/reldo/agents/frontend-reviewer.md",
        ".claude/reldo/agents/architecture-reviewer.md",
        ".reldo/.gitignore",
    ] {
        assert!(d.join(f).is_file(), "{f}");
    }
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::text(
        "All three reviewers passed.\n\nSTATUS: PASS\n",
    )));
    let out = run(
        d,
        &server,
        &["--prompt", "Review app/Models/User.php", "--exit-code"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Reldo's terminal output: the text as written; the summary on stderr.
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "All three reviewers passed.\n\nSTATUS: PASS\n"
    );
    assert!(stderr(&out).contains("PASS"), "{}", stderr(&out));

    // The orchestrator prompt went out as written: nothing appended.
    let req = &server.model_requests()[0];
    let system = req.body["system"][0]["text"].as_str().unwrap();
    assert_eq!(
        system,
        std::fs::read_to_string(d.join(".claude/reldo/orchestrator.md")).unwrap()
    );
    assert!(!req.body["system"].to_string().contains("StructuredOutput"));
    assert!(
        !req.body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "StructuredOutput")
    );

    for (answer, code) in [
        ("The code looks fine to me.", 1),
        ("STATUS: FAIL\n- app/Models/User.php:2 no fillable", 1),
        ("PASS: nothing to fix", 0),
        ("fail: two problems", 1),
        ("PASS: fine\n\nSTATUS: FAIL", 1),
        ("Reviewers said STATUS: PASS but I am unsure.", 1),
    ] {
        server.push(Step::reply(Reply::text(answer)));
        let out = run(d, &server, &["Review it", "--exit-code", "--no-log"]);
        assert_eq!(
            out.status.code(),
            Some(code),
            "{answer:?}: {}",
            stderr(&out)
        );
        if code == 1 && !answer.contains("FAIL") && !answer.starts_with("fail") {
            assert!(stderr(&out).contains("no status"), "{}", stderr(&out));
        }
    }
}

#[test]
fn compat_reldo_prints_reldo_json_keys() {
    let dir = reldo_project();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(Step::reply(
        Reply::text("Looks good.\nSTATUS: PASS").usage(1200, 80, 0, 0),
    ));
    // A Reldo script's `--json` keeps working beside `--compat reldo`.
    let out = run(
        d,
        &server,
        &["--prompt", "Review", "--json", "--compat", "reldo"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let with_json = json_out(&out);
    server.push(Step::reply(
        Reply::text("Looks good.\nSTATUS: PASS").usage(1200, 80, 0, 0),
    ));
    let out = run(d, &server, &["--prompt", "Review", "--compat", "reldo"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json_out(&out);
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&with_json), keys(&v));
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys.len(), 7, "{v}");
    // Reldo's keys, in Reldo's order, as the text a script reads.
    let text = String::from_utf8_lossy(&out.stdout);
    let at: Vec<usize> = [
        "text",
        "structured_output",
        "input_tokens",
        "output_tokens",
        "total_tokens",
        "total_cost_usd",
        "duration_ms",
    ]
    .iter()
    .map(|k| text.find(&format!("\n  \"{k}\": ")).expect(k))
    .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{text}");
    assert_eq!(v["text"], "Looks good.\nSTATUS: PASS");
    assert_eq!(v["input_tokens"], 1200);
    assert_eq!(v["output_tokens"], 80);
    assert_eq!(v["total_tokens"], 1280);
    assert_eq!(v["structured_output"], Value::Null);
    assert!(v["total_cost_usd"].as_f64().unwrap() > 0.0, "{v}");

    // An error is {"error": …}, as Reldo's CLI prints it.
    let out = crit(d, &server, None)
        .args([
            "run",
            "Review",
            "--compat",
            "reldo",
            "--config",
            "missing.json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v = json_out(&out);
    assert!(v["error"].as_str().unwrap().contains("missing.json"), "{v}");
}

/// Reldo's PRD FR4 example config, unchanged: the Serena MCP server is not
/// installed here, so it is a warning and the review goes on.
pub(crate) const FR4_CONFIG: &str = r#"{
  "prompt": ".claude/reldo/orchestrator.md",
  "allowed_tools": ["Read", "Glob", "Grep", "Bash", "Task"],
  "mcp_servers": {
    "serena": {
      "command": "uvx",
      "args": ["--from", "git+https://github.com/oraios/serena", "serena", "start-mcp-server", "--project", "${cwd}"]
    }
  },
  "agents": {
    "backend-reviewer": {
      "description": "Reviews PHP/Laravel code for conventions and patterns",
      "prompt": ".claude/reldo/agents/backend-reviewer.md",
      "tools": ["Read", "Glob", "Grep", "Bash"]
    },
    "frontend-reviewer": {
      "description": "Reviews Vue/TypeScript code for conventions and patterns",
      "prompt": ".claude/reldo/agents/frontend-reviewer.md",
      "tools": ["Read", "Glob", "Grep", "Bash"]
    },
    "architecture-reviewer": {
      "description": "Reviews code for architectural patterns and cross-cutting concerns",
      "prompt": ".claude/reldo/agents/architecture-reviewer.md",
      "tools": ["Read", "Glob", "Grep"]
    }
  },
  "output_schema": {
    "type": "object",
    "properties": {
      "passed": { "type": "boolean" },
      "reviewers": {
        "type": "object",
        "additionalProperties": { "type": "boolean" }
      },
      "violations": {
        "type": "array",
        "items": {
          "type": "object",
          "properties": {
            "file": { "type": "string" },
            "line": { "type": "number" },
            "message": { "type": "string" },
            "reviewer": { "type": "string" }
          }
        }
      }
    },
    "required": ["passed"]
  },
  "cwd": "/path/to/project",
  "timeout_seconds": 180,
  "model": "claude-sonnet-4-20250514"
}"#;

fn task(agent: &str) -> (&'static str, Value) {
    (
        "Task",
        json!({"description": "review", "prompt": "Review app/Models/User.php", "subagent_type": agent}),
    )
}

#[test]
fn the_prd_fr4_config_runs_as_written_and_totals_hold_the_sub_agents() {
    let dir = reldo_project();
    let d = dir.path();
    // The PRD's prompts (FR8), with markers the fake server routes on.
    write(
        d,
        ".claude/reldo/agents/backend-reviewer.md",
        "# Backend Reviewer\nBACKEND-SUB. Return STATUS: PASS if no issues, STATUS: FAIL with violations list if issues found.\n",
    );
    write(
        d,
        ".claude/reldo/agents/architecture-reviewer.md",
        "# Architecture Reviewer\nARCH-SUB. Return STATUS: PASS or STATUS: FAIL.\n",
    );
    write(d, ".claude/reldo.json", FR4_CONFIG);
    let server = FakeServer::start_blocking();
    // The project's MCP server and its `cwd` run only once the user trusts them.
    let trust = crit(d, &server, None)
        .args(["trust", "--yes"])
        .output()
        .unwrap();
    assert_eq!(trust.status.code(), Some(0), "{}", stderr(&trust));
    server.push(Step::reply(
        Reply::tool_uses(vec![
            task("backend-reviewer"),
            task("architecture-reviewer"),
        ])
        .usage(1000, 100, 0, 0),
    ));
    server.push(Step::when_contains("BACKEND-SUB").reply(
        Reply::text("STATUS: FAIL\n- app/Models/User.php:2 missing $fillable").usage(400, 40, 0, 0),
    ));
    server.push(
        Step::when_contains("ARCH-SUB")
            .reply(Reply::text("Nothing to report.\nSTATUS: PASS").usage(300, 30, 0, 0)),
    );
    server.push(Step::reply(
        Reply::json(json!({"passed": false, "reviewers": {"backend-reviewer": false, "architecture-reviewer": true},
            "violations": [{"file": "app/Models/User.php", "line": 2, "message": "missing $fillable", "reviewer": "backend-reviewer"}]}))
        .usage(2000, 80, 0, 0),
    ));
    let out = run(
        d,
        &server,
        &[
            "--prompt",
            "Review app/Models/User.php. Context: Added user feature",
            "--cwd",
            ".",
            "--json",
            "--exit-code",
        ],
    );
    let r = json_out(&out);
    assert_eq!(out.status.code(), Some(1), "{r:#}");
    assert_eq!(r["verdict"], "FAIL");
    assert_eq!(
        r["structured_output"]["violations"][0]["reviewer"],
        "backend-reviewer"
    );
    // The MCP server that is not installed is a warning, not an abort.
    let warnings = r["warnings"].to_string();
    assert!(warnings.contains("serena"), "{warnings}");
    assert!(stderr(&out).contains("serena"), "{}", stderr(&out));
    // --cwd won over the config's "/path/to/project".
    let req = &server.model_requests()[0];
    assert_eq!(req.body["model"], "claude-sonnet-4-20250514");
    // Totals: the orchestrator and both sub-agents; each sub-agent's verdict
    // is its own answer's.
    assert_eq!(r["usage"]["input_tokens"], 1000 + 400 + 300 + 2000);
    assert_eq!(r["usage"]["output_tokens"], 100 + 40 + 30 + 80);
    let reviewer = |n: &str| {
        r["reviewers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == n)
            .unwrap()
            .clone()
    };
    assert_eq!(reviewer("backend-reviewer")["verdict"], "FAIL");
    assert_eq!(reviewer("architecture-reviewer")["verdict"], "PASS");
    assert_eq!(reviewer("backend-reviewer")["usage"]["input_tokens"], 400);
    // Reldo's default model has a price.
    assert!(r["cost_usd"].as_f64().unwrap() > 0.0, "{r}");
}

#[test]
fn prompt_from_stdin_cwd_and_a_relative_config() {
    let dir = reldo_project();
    let d = dir.path();
    let project = d.join("proj");
    std::fs::create_dir_all(&project).unwrap();
    write(
        &project,
        "reldo.json",
        r#"{"prompt": "LEAD-IN-PROJ. End with STATUS: PASS or STATUS: FAIL."}"#,
    );
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("LEAD-IN-PROJ").reply(Reply::text("STATUS: PASS")));
    let out = crit(d, &server, None)
        .args([
            "run",
            "--prompt",
            "-",
            "--cwd",
            "proj",
            "--config",
            "reldo.json",
            "--exit-code",
        ])
        .write_stdin("Review these files...\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let req = &server.model_requests()[0];
    // Reldo strips a prompt read from stdin.
    assert_eq!(
        req.body["messages"][0]["content"][0]["text"],
        "Review these files..."
    );
    // The session is the project's (under --cwd).
    assert!(project.join(".crit/sessions").is_dir());
}

#[test]
fn sessions_keep_reldo_file_names_and_keys() {
    let dir = reldo_project();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::text("fine\nSTATUS: PASS")));
    let out = run(d, &server, &["Review", "--verbose"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The init layout's logging.output_dir is .reldo/sessions.
    let sessions: Vec<_> = std::fs::read_dir(d.join(".reldo/sessions"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(sessions.len(), 1);
    let s = &sessions[0];
    let meta: Value =
        serde_json::from_slice(&std::fs::read(s.join("session.json")).unwrap()).unwrap();
    let id = meta["session_id"].as_str().unwrap();
    assert!(s.file_name().unwrap().to_string_lossy().ends_with(id));
    assert_eq!(meta["prompt"], "Review");
    assert!(s.join("transcript.log").is_file());
    let result: Value =
        serde_json::from_slice(&std::fs::read(s.join("result.json")).unwrap()).unwrap();
    for k in [
        "text",
        "input_tokens",
        "output_tokens",
        "total_tokens",
        "total_cost_usd",
        "duration_ms",
        "verdict",
    ] {
        assert!(result.get(k).is_some(), "result.json lacks {k}: {result}");
    }
    assert_eq!(result["text"], "fine\nSTATUS: PASS");
    // Reldo's .gitignore keeps covering them.
    assert_eq!(
        std::fs::read_to_string(d.join(".reldo/.gitignore"))
            .unwrap()
            .lines()
            .last(),
        Some("sessions/")
    );

    // Without --verbose, no transcript; an output_dir that is not a
    // `sessions` directory gets one; --no-log writes nothing.
    write(
        d,
        "quiet.json",
        r#"{"prompt": "LEAD. STATUS line last.", "logging": {"output_dir": ".reldo"}}"#,
    );
    server.push(Step::reply(Reply::text("STATUS: PASS")));
    let out = run(d, &server, &["Review", "--config", "quiet.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_dir(d.join(".reldo/sessions"))
            .unwrap()
            .count(),
        2
    );
    server.push(Step::reply(Reply::text("STATUS: PASS")));
    run(d, &server, &["Review", "--no-log"]);
    assert_eq!(
        std::fs::read_dir(d.join(".reldo/sessions"))
            .unwrap()
            .count(),
        2
    );
}

#[test]
fn every_documented_key_loads_and_unused_ones_warn() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("proj")).unwrap();
    // The user's own config, outside the project: every setting honoured.
    write(
        d,
        "reldo.json",
        r#"{
  "$schema": "https://example.com/reldo.schema.json",
  "prompt": "LEAD ${cwd} ${workspaceFolder} ${env:UNSET_TOKEN_X}. End with STATUS: PASS or FAIL.",
  "allowed_tools": ["Read", "Grep", "Write", "Edit", "WebFetch", "TodoWrite", "Task", "mcp__kb"],
  "setting_sources": ["project"],
  "permission_mode": "bypassPermissions",
  "agents": {
    "style": {"prompt": "STYLE-SUB", "tools": ["Read", "Write"], "color": "blue", "model": "haiku"}
  },
  "mcp_servers": {
    "remote": {"type": "sse", "url": "http://127.0.0.1:9/sse", "headers": {"Authorization": "Bearer x"}},
    "kb": {"command": "definitely-not-installed-mcp", "cwd": ".", "type": "stdio"}
  },
  "logging": {"enabled": true, "verbose": false, "level": "DEBUG"},
  "timeout_seconds": 60,
  "max_turns": 5,
  "model": "claude-sonnet-4-20250514"
}"#,
    );
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::tool_use(
        "TodoWrite",
        json!({"todos": [{"content": "Read the diff", "status": "in_progress", "activeForm": "Reading the diff"}]}),
    )));
    server.push(Step::reply(Reply::text("STATUS: PASS")));
    let out = run(
        d,
        &server,
        &[
            "Review",
            "--cwd",
            "proj",
            "--config",
            "../reldo.json",
            "--json",
            "--exit-code",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r = json_out(&out);
    let warnings = r["warnings"].to_string();
    for needle in [
        "setting_sources",
        "permission_mode",
        "agents.style.color",
        "logging.level",
        "`Write` is not offered: crit's reviewers are read-only",
        "`Edit` is not offered",
        "`WebFetch` is not offered",
        "UNSET_TOKEN_X is not set; left as written",
        "remote",
        "definitely-not-installed-mcp",
    ] {
        assert!(
            warnings.contains(needle),
            "no warning with {needle}: {warnings}"
        );
    }
    let reqs = server.model_requests();
    let system = reqs[0].body["system"][0]["text"].as_str().unwrap();
    // Only ${cwd} and ${env:…} expand; the unset variable stays as written.
    assert!(system.contains("${workspaceFolder}"), "{system}");
    assert!(system.contains("${env:UNSET_TOKEN_X}"), "{system}");
    assert!(!system.contains("${cwd}"), "{system}");
    let tools: Vec<String> = reqs[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert!(tools.contains(&"TodoWrite".to_string()), "{tools:?}");
    assert!(
        !tools
            .iter()
            .any(|t| t == "Write" || t == "Edit" || t == "WebFetch")
    );
    // An agent without a description is offered with an empty one.
    let task = reqs[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "Task")
        .unwrap();
    assert!(
        task["description"].as_str().unwrap().contains("- style: "),
        "{task}"
    );
    // TodoWrite kept the list and said so.
    let second = reqs[1].body["messages"].to_string();
    assert!(
        second.contains("Todos have been modified successfully"),
        "{second}"
    );
}

/// A stdio MCP server with two tools, in a few lines of Python.
pub(crate) const STDIO_MCP: &str = r#"
import json, sys
TOOLS = [{"name": n, "description": "Look up " + n, "inputSchema": {"type": "object", "properties": {"key": {"type": "string"}}}} for n in ("lookup", "define")]
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    m = msg.get("method")
    if m == "initialize":
        res = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}}, "serverInfo": {"name": "kb", "version": "1"}}
    elif m == "tools/list":
        res = {"tools": TOOLS}
    elif m == "tools/call":
        res = {"content": [{"type": "text", "text": msg["params"]["name"] + "-fact"}], "isError": False}
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "nope"}}), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": res}), flush=True)
"#;

/// A streamable-HTTP MCP server: JSON answers, a session id, and a header it
/// insists on (`X-Team: core`).
const HTTP_MCP: &str = r#"
import json
from http.server import BaseHTTPRequestHandler, HTTPServer
class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def empty(self, code):
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()
    def do_GET(self):
        self.empty(405)
    def do_DELETE(self):
        self.empty(200)
    def do_POST(self):
        msg = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        if self.headers.get("X-Team") != "core":
            return self.empty(401)
        if "id" not in msg:
            return self.empty(202)
        m = msg.get("method")
        if m == "initialize":
            res = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}}, "serverInfo": {"name": "docs", "version": "1"}}
        elif m == "tools/list":
            res = {"tools": [{"name": "search", "description": "Search the docs", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}]}
        elif m == "tools/call":
            res = {"content": [{"type": "text", "text": "docs-say-" + msg["params"]["arguments"]["q"]}], "isError": False}
        else:
            res = {}
        body = json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": res}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Mcp-Session-Id", "s-1")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
srv = HTTPServer(("127.0.0.1", 0), H)
print(srv.server_address[1], flush=True)
srv.serve_forever()
"#;

/// The HTTP MCP server, and the port it listens on. Killed when dropped.
struct HttpMcp(Child, u16);

impl HttpMcp {
    fn start(dir: &Path) -> Self {
        write(dir, "http_mcp.py", HTTP_MCP);
        let mut child = StdCommand::new("python3")
            .arg(dir.join("http_mcp.py"))
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().unwrap();
        HttpMcp(child, port)
    }
}

impl Drop for HttpMcp {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn mcp_tools_are_named_as_claude_code_names_them_over_stdio_and_http() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "proj/kb.py", STDIO_MCP);
    let http = HttpMcp::start(d);
    write(
        d,
        "reldo.json",
        &json!({
            "prompt": "LEAD. End with STATUS: PASS or STATUS: FAIL.",
            "allowed_tools": ["Read", "mcp__kb", "mcp__docs__search"],
            "mcp_servers": {
                "kb": {"command": "python3", "args": ["${cwd}/kb.py"]},
                "docs": {"type": "http", "url": format!("http://127.0.0.1:{}/mcp", http.1), "headers": {"X-Team": "${env:TEAM}"}}
            }
        })
        .to_string(),
    );
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::tool_uses(vec![
        ("mcp__kb__define", json!({"key": "auth"})),
        ("mcp__docs__search", json!({"q": "tokens"})),
    ])));
    server.push(Step::reply(Reply::text("STATUS: PASS")));
    let out = crit(d, &server, None)
        .env("TEAM", "core")
        .args([
            "run",
            "Review",
            "--cwd",
            "proj",
            "--config",
            "../reldo.json",
        ])
        .args(["--json", "--exit-code"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r = json_out(&out);
    assert!(r.get("warnings").is_none(), "{r}");
    let reqs = server.model_requests();
    let mut tools: Vec<String> = reqs[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    tools.sort();
    // `mcp__kb` allowed every tool of kb.
    assert_eq!(
        tools,
        [
            "Read",
            "mcp__docs__search",
            "mcp__kb__define",
            "mcp__kb__lookup"
        ]
    );
    let results = reqs[1].body["messages"].to_string();
    assert!(results.contains("define-fact"), "{results}");
    assert!(results.contains("docs-say-tokens"), "{results}");
}

#[test]
fn crit_init_refuses_to_overwrite_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    for layout in [&[][..], &["--reldo"][..]] {
        let out = crit(d, &server, None)
            .arg("init")
            .args(layout)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let again = crit(d, &server, None)
            .arg("init")
            .args(layout)
            .output()
            .unwrap();
        assert_eq!(again.status.code(), Some(2));
        assert!(stderr(&again).contains("--force"), "{}", stderr(&again));
        let forced = crit(d, &server, None)
            .arg("init")
            .args(layout)
            .arg("--force")
            .output()
            .unwrap();
        assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
        assert!(String::from_utf8_lossy(&forced.stdout).contains("replaced"));
    }
    assert!(d.join(".crit/run.yaml").is_file());
    assert!(d.join(".claude/reldo.json").is_file());
}
