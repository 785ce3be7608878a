//! Where a Reldo user switching to `crit run` used to trip, with Reldo's own
//! examples: a stdin prompt stripped as Reldo strips it, `result.json`'s
//! `completed_at`, MCP tools and `allowed_tools` as the Claude Agent SDK
//! treats them (the PRD's FR4 config), the project's conventions given to
//! sub-agents, `crit trust --config` for a config only `--config` loads, a
//! timeout under `--compat reldo`, and errors said in sentences.

use crate::dropin_reldo::{FR4_CONFIG, STDIO_MCP, reldo_project};
use crate::support;

use std::path::Path;
use std::time::Duration;

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};
use support::{crit, json_out, stderr, write};

#[test]
fn a_stdin_prompt_is_stripped_and_json_beside_compat_prints_reldo_keys() {
    let dir = reldo_project();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::text("Fine.\nSTATUS: PASS")));
    // printf '  Stdin prompt\n\n' | reldo review --prompt - --json
    let out = crit(d, &server, None)
        .args(["run", "-", "--json", "--compat", "reldo"])
        .write_stdin("  Stdin prompt\n\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let req = &server.model_requests()[0];
    assert_eq!(
        req.body["messages"][0]["content"][0]["text"],
        "Stdin prompt"
    );
    let v = json_out(&out);
    assert_eq!(v["text"], "Fine.\nSTATUS: PASS");
    assert!(v.get("verdict").is_none(), "Reldo's keys, not crit's: {v}");
}

#[test]
fn result_json_records_completed_at_as_reldo_does() {
    let dir = reldo_project();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::text("STATUS: PASS")));
    let out = crit(d, &server, None)
        .args(["run", "Review app/Models/User.php"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let session = std::fs::read_dir(d.join(".reldo/sessions"))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let result: Value =
        serde_json::from_slice(&std::fs::read(session.join("result.json")).unwrap()).unwrap();
    let completed = result["completed_at"].as_str().expect("completed_at");
    let started = result["started_at"].as_str().unwrap();
    assert!(
        completed.ends_with('Z') && completed.len() == started.len(),
        "{completed}"
    );
    assert!(completed >= started, "{started} {completed}");
}

/// The PRD's FR4 config with its Serena server replaced by a stand-in of
/// the same name (two tools, `lookup` and `define`), and `allowed_tools` as
/// given.
fn fr4_with_serena(d: &Path, allowed: Value) {
    write(d, "kb.py", STDIO_MCP);
    let mut config: Value = serde_json::from_str(FR4_CONFIG).unwrap();
    config["mcp_servers"]["serena"] = json!({"command": "python3", "args": ["${cwd}/kb.py"]});
    config["allowed_tools"] = allowed;
    config.as_object_mut().unwrap().remove("cwd");
    config.as_object_mut().unwrap().remove("output_schema");
    write(d, ".claude/reldo.json", &config.to_string());
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn mcp_tools_need_allowed_tools_as_with_the_agent_sdk_and_unreachable_ones_warn() {
    let dir = reldo_project();
    let d = dir.path();
    // The PRD's allowed_tools: Read, Glob, Grep, Bash, Task — no Serena tool.
    fr4_with_serena(d, json!(["Read", "Glob", "Grep", "Bash", "Task"]));
    let server = FakeServer::start_blocking();
    let trust = crit(d, &server, None)
        .args(["trust", "--yes"])
        .output()
        .unwrap();
    assert_eq!(trust.status.code(), Some(0), "{}", stderr(&trust));
    server.push(Step::reply(Reply::tool_use(
        "mcp__serena__lookup",
        json!({"key": "User"}),
    )));
    server.push(Step::reply(Reply::text("STATUS: PASS")));
    let out = crit(d, &server, None)
        .args(["run", "Review app/Models/User.php", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r = json_out(&out);
    // The user is told, on stderr and in the result.
    let warning = "MCP server `serena` started, but allowed_tools grants none of its 2 tools: the model is shown them, and every call is refused, as in Reldo";
    assert!(stderr(&out).contains(warning), "{}", stderr(&out));
    assert!(
        r["warnings"]
            .to_string()
            .contains("add \\\"mcp__serena\\\" to allowed_tools"),
        "{r}"
    );
    let reqs = server.model_requests();
    // As Reldo's SDK does: the tools are offered, and a call is refused in
    // the SDK's words, for want of a permission nobody can grant.
    let mut offered = tool_names(&reqs[0].body);
    offered.retain(|t| t.starts_with("mcp__"));
    offered.sort();
    assert_eq!(offered, ["mcp__serena__define", "mcp__serena__lookup"]);
    let results = reqs[1].body["messages"].to_string();
    assert!(
        results.contains("Claude requested permissions to use mcp__serena__lookup, but you haven't granted it yet."),
        "{results}"
    );
    assert!(!results.contains("lookup-fact"), "{results}");

    // crit's own run config (YAML) does not offer them at all.
    let config = std::fs::read_to_string(d.join(".claude/reldo.json")).unwrap();
    let config: Value = serde_json::from_str(&config).unwrap();
    std::fs::remove_file(d.join(".claude/reldo.json")).unwrap();
    write(
        d,
        ".crit/run.yaml",
        &serde_json::to_string(&config).unwrap(),
    );
    crit(d, &server, None)
        .args(["trust", "--yes"])
        .output()
        .unwrap();
    server.push(Step::reply(Reply::tool_use(
        "mcp__serena__lookup",
        json!({"key": "User"}),
    )));
    server.push(Step::reply(Reply::text("STATUS: PASS")));
    let out = crit(d, &server, None)
        .args(["run", "Review app/Models/User.php", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let reqs = server.model_requests();
    let n = reqs.len();
    assert!(
        !tool_names(&reqs[n - 2].body)
            .iter()
            .any(|t| t.starts_with("mcp__"))
    );
    assert!(
        reqs[n - 1].body["messages"]
            .to_string()
            .contains("permission to use mcp__serena__lookup was not granted"),
    );
    std::fs::remove_file(d.join(".crit/run.yaml")).unwrap();

    // `mcp__serena__*` grants them all, as in Claude Code: offered, callable, no warning.
    fr4_with_serena(d, json!(["Read", "Task", "mcp__serena__*"]));
    crit(d, &server, None)
        .args(["trust", "--yes"])
        .output()
        .unwrap();
    server.push(Step::reply(Reply::tool_use(
        "mcp__serena__lookup",
        json!({"key": "User"}),
    )));
    server.push(Step::reply(Reply::text("STATUS: PASS")));
    let out = crit(d, &server, None)
        .args(["run", "Review app/Models/User.php", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("MCP server"), "{}", stderr(&out));
    let reqs = server.model_requests();
    let n = reqs.len();
    let mut tools = tool_names(&reqs[n - 2].body);
    tools.retain(|t| t.starts_with("mcp__"));
    tools.sort();
    assert_eq!(tools, ["mcp__serena__define", "mcp__serena__lookup"]);
    assert!(
        reqs[n - 1].body["messages"]
            .to_string()
            .contains("lookup-fact")
    );

    // One tool by name: the server is reachable; only the other is refused.
    fr4_with_serena(d, json!(["Read", "Task", "mcp__serena__define"]));
    crit(d, &server, None)
        .args(["trust", "--yes"])
        .output()
        .unwrap();
    server.push(Step::reply(Reply::tool_use(
        "mcp__serena__lookup",
        json!({"key": "User"}),
    )));
    server.push(Step::reply(Reply::text("STATUS: PASS")));
    let out = crit(d, &server, None)
        .args(["run", "Review app/Models/User.php"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("MCP server"), "{}", stderr(&out));
    let last = server.model_requests().last().unwrap().body["messages"].to_string();
    assert!(
        last.contains("Claude requested permissions to use mcp__serena__lookup, but you haven't granted it yet."),
        "{last}"
    );
}

#[test]
fn sub_agents_get_the_projects_claude_md_and_rules() {
    let dir = reldo_project();
    let d = dir.path();
    write(
        d,
        "CLAUDE.md",
        "# Project\nCONVENTION-FROM-CLAUDE-MD: models use $fillable.\n",
    );
    write(
        d,
        ".claude/rules/backend.md",
        "RULE-FROM-CLAUDE-RULES: no raw SQL in controllers.\n",
    );
    write(
        d,
        ".claude/reldo/agents/backend-reviewer.md",
        "# Backend Reviewer\nBACKEND-SUB. Return STATUS: PASS or STATUS: FAIL.\n",
    );
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::tool_use(
        "Task",
        json!({"description": "review", "prompt": "Review app/Models/User.php", "subagent_type": "backend-reviewer"}),
    )));
    server.push(Step::when_contains("BACKEND-SUB").reply(Reply::text("STATUS: PASS")));
    server.push(Step::reply(Reply::text("STATUS: PASS")));
    let out = crit(d, &server, None)
        .args(["run", "Review app/Models/User.php", "--exit-code"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let sub = server
        .model_requests()
        .into_iter()
        .find(|r| r.body["system"].to_string().contains("BACKEND-SUB"))
        .expect("the sub-agent's request");
    let system = sub.body["system"].to_string();
    assert!(system.contains("CONVENTION-FROM-CLAUDE-MD"), "{system}");
    assert!(system.contains("RULE-FROM-CLAUDE-RULES"), "{system}");
}

#[test]
fn crit_trust_takes_the_config_crit_run_loads_with_config() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    support::init_repo(d);
    write(d, "kb.py", STDIO_MCP);
    write(
        d,
        "ci/reldo.json",
        r#"{"prompt": "LEAD. End with STATUS: PASS or STATUS: FAIL.",
            "allowed_tools": ["Read", "mcp__kb"],
            "mcp_servers": {"kb": {"command": "python3", "args": ["${cwd}/kb.py"]}}}"#,
    );
    let server = FakeServer::start_blocking();
    let run = |server: &FakeServer| {
        server.push(Step::reply(Reply::tool_use(
            "mcp__kb__define",
            json!({"key": "x"}),
        )));
        server.push(Step::reply(Reply::text("STATUS: PASS")));
        crit(d, server, None)
            .args(["run", "Review", "--config", "ci/reldo.json"])
            .output()
            .unwrap()
    };
    let out = run(&server);
    // Not trusted yet; the warning names the command that trusts it.
    let err = stderr(&out);
    assert!(
        err.contains("ignoring `mcp_servers.kb` from ci/reldo.json"),
        "{err}"
    );
    assert!(
        err.contains("run `crit trust --config ci/reldo.json`"),
        "{err}"
    );
    // Plain `crit trust` does not read a file only --config loads: it names
    // the file the warning was about and the command that trusts it ...
    let plain = crit(d, &server, None)
        .args(["trust", "--yes"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&plain.stdout);
    assert!(!said.contains("mcp_servers.kb"), "{said}");
    assert!(said.contains("nothing to trust"), "{said}");
    assert!(
        said.contains("ci/reldo.json is loaded only with `crit run --config`, so plain `crit trust` does not read it; to trust its settings, run: crit trust --config ci/reldo.json"),
        "{said}"
    );
    // ... `crit trust --config` does, and then the run uses the server.
    let trust = crit(d, &server, None)
        .args(["trust", "--yes", "--config", "ci/reldo.json"])
        .output()
        .unwrap();
    assert_eq!(trust.status.code(), Some(0), "{}", stderr(&trust));
    let listed = String::from_utf8_lossy(&trust.stdout);
    assert!(
        listed.contains("ci/reldo.json") && listed.contains("mcp_servers.kb"),
        "{listed}"
    );
    let out = run(&server);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("ignoring"), "{}", stderr(&out));
    let last = server.model_requests().last().unwrap().body["messages"].to_string();
    assert!(last.contains("define-fact"), "{last}");
    // A missing file is said as such.
    let missing = crit(d, &server, None)
        .args(["trust", "--yes", "--config", "ci/nope.json"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).contains("no such file"),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn a_timeout_under_compat_reldo_is_an_error_and_fails() {
    let dir = reldo_project();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(Step::reply(
        Reply::text("STATUS: PASS").delay(Duration::from_secs(5)),
    ));
    let out = crit(d, &server, None)
        .args(["run", "Review", "--compat", "reldo", "--timeout", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let v = json_out(&out);
    let error = v["error"].as_str().expect("an error key");
    assert!(error.contains("timed out after 1s"), "{v}");
    assert_eq!(v.as_object().unwrap().len(), 1, "{v}");
}

#[test]
fn a_missing_config_and_the_turn_limit_are_said_in_sentences() {
    let dir = reldo_project();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    let out = crit(d, &server, None)
        .args(["run", "Review", "--config", "missing.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(!err.contains("entity not found"), "{err}");
    assert!(
        err.contains("missing.json: no such file; expected the orchestrator's config there"),
        "{err}"
    );

    server.push(Step::reply(Reply::tool_use(
        "Read",
        json!({"file_path": "app/Models/User.php"}),
    )));
    let out = crit(d, &server, None)
        .args(["run", "Review", "--max-turns", "1"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert!(!err.contains("crit: max_turns\n"), "{err}");
    assert!(
        err.contains(
            "crit: the orchestrator stopped before it answered: it reached the maximum of 1 turns (raise --max-turns, or max_turns in the config)"
        ),
        "{err}"
    );
}

#[test]
fn logging_disabled_writes_no_session_and_no_model_means_sonnet() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // FR7's logging block with logging turned off, and no `model`.
    write(
        d,
        ".claude/reldo.json",
        r#"{"prompt": "LEAD. End with STATUS: PASS or STATUS: FAIL.",
            "logging": {"enabled": false, "output_dir": ".reldo/sessions"}}"#,
    );
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::text("STATUS: PASS")));
    let out = crit(d, &server, None)
        .args(["run", "Review app/Models/User.php", "--verbose"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!d.join(".reldo/sessions").exists());
    assert!(!d.join(".crit/sessions").exists());
    // Reldo's default model is a Sonnet; crit's alias resolves to the current one.
    let model = server.model_requests()[0].body["model"].clone();
    assert!(model.as_str().unwrap().contains("sonnet"), "{model}");
    // With the same config but logging on, the session is written.
    write(
        d,
        ".claude/reldo.json",
        r#"{"prompt": "LEAD. End with STATUS: PASS or STATUS: FAIL.",
            "logging": {"enabled": true, "output_dir": ".reldo/sessions"}}"#,
    );
    server.push(Step::reply(Reply::text("STATUS: PASS")));
    crit(d, &server, None)
        .args(["run", "Review app/Models/User.php"])
        .output()
        .unwrap();
    assert!(d.join(".reldo/sessions").is_dir());
}

/// A key the API refuses (401): Reldo's SDK raises and its CLI prints
/// `{"error": …}`; so does `crit run --compat reldo`, and it fails (3).
#[test]
fn a_refused_key_under_compat_reldo_prints_reldos_error() {
    let dir = reldo_project();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    for _ in 0..4 {
        server.push(Step::reply(Reply::api_error(
            401,
            "authentication_error",
            "invalid x-api-key",
        )));
    }
    let out = crit(d, &server, None)
        .args(["run", "Review app/Models/User.php", "--compat", "reldo"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let v = json_out(&out);
    assert_eq!(v.as_object().unwrap().len(), 1, "{v}");
    let error = v["error"].as_str().expect("an error key");
    assert!(
        error.contains("401") || error.to_lowercase().contains("authentication"),
        "{v}"
    );
    assert!(!error.contains("sk-ant-review-secret"), "{v}");
}
