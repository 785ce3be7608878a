//! The fake model server as a program, for test suites that are not written
//! in Rust (the Python binding's pytest suite). It prints one JSON line,
//! `{"url": "http://127.0.0.1:PORT"}`, then reads commands, one JSON object
//! per line on stdin, and answers each with one JSON line on stdout:
//!
//! - `{"op": "push", "steps": [STEP, …]}` → `{"ok": true}` (steps as in
//!   `crit_testkit::script`)
//! - `{"op": "requests"}` → `{"requests": [{"path", "query", "headers", "body", "status", "step", "received_ms", "responded_ms"}, …]}`
//!   (times in milliseconds since the program started)
//! - `{"op": "remaining"}` → `{"remaining": N}`
//! - `{"op": "gitlab", "iid": N, "head_sha": SHA, "base_sha": SHA, "files": [{"path", "patch"}, …]}`
//!   → `{"api_url", "project_id", "token"}`: the GitLab stand-in, serving
//!   that merge request (started once; later calls add merge requests)
//! - `{"op": "discussions", "iid": N}` → `{"discussions": [...]}` of the
//!   GitLab stand-in
//!
//! A bad command answers `{"error": "…"}`. End of input stops the server.

use std::io::{BufRead, Write};
use std::time::Instant;

use crit_testkit::script::step_from_json;
use crit_testkit::{ChangedFile, FakeServer, GitlabConfig, GitlabServer, MergeRequestSpec};
use serde_json::{Value, json};

fn main() {
    let t0 = Instant::now();
    let server = match FakeServer::try_start() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("crit-fake-server: cannot start: {e}");
            std::process::exit(1);
        }
    };
    let mut out = std::io::stdout().lock();
    if say(&mut out, &json!({"url": server.url()})).is_err() {
        return;
    }
    let mut gitlab: Option<GitlabServer> = None;
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let answer = match serde_json::from_str::<Value>(&line) {
            Ok(cmd) if cmd["op"] == "gitlab" || cmd["op"] == "discussions" => {
                forge(&mut gitlab, &cmd)
            }
            Ok(cmd) => command(&server, &cmd, t0),
            Err(e) => json!({"error": format!("not JSON: {e}")}),
        };
        if say(&mut out, &answer).is_err() {
            break;
        }
    }
}

fn command(server: &FakeServer, cmd: &Value, t0: Instant) -> Value {
    let ms = |at: Instant| at.duration_since(t0).as_secs_f64() * 1000.0;
    match cmd["op"].as_str() {
        Some("push") => {
            let steps = cmd["steps"].as_array().cloned().unwrap_or_default();
            let parsed: Result<Vec<_>, _> = steps.iter().map(step_from_json).collect();
            match parsed {
                Ok(steps) => {
                    server.push_all(steps);
                    json!({"ok": true})
                }
                Err(e) => json!({"error": e.to_string()}),
            }
        }
        Some("requests") => {
            let requests: Vec<Value> = server
                .requests()
                .into_iter()
                .map(|r| {
                    json!({
                        "path": r.path,
                        "query": r.query,
                        "headers": r.headers,
                        "body": r.body,
                        "status": r.status,
                        "step": r.step,
                        "received_ms": ms(r.received_at),
                        "responded_ms": ms(r.responded_at),
                    })
                })
                .collect();
            json!({"requests": requests})
        }
        Some("remaining") => json!({"remaining": server.remaining_steps()}),
        _ => json!({"error": "expected op: push, requests or remaining"}),
    }
}

/// The GitLab stand-in's commands.
fn forge(gitlab: &mut Option<GitlabServer>, cmd: &Value) -> Value {
    let iid = cmd["iid"].as_u64().unwrap_or(1);
    if cmd["op"] == "discussions" {
        return match gitlab {
            Some(s) => json!({"discussions": s.discussions(iid)}),
            None => json!({"error": "no GitLab stand-in: send op gitlab first"}),
        };
    }
    let config = GitlabConfig::default();
    let answer = json!({"project_id": config.project_id, "token": config.token});
    let s = gitlab.get_or_insert_with(|| GitlabServer::start(config));
    let sha = |k: &str| cmd[k].as_str().unwrap_or_default().to_string();
    let files = cmd["files"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            ChangedFile::modified(
                f["path"].as_str().unwrap_or_default(),
                f["patch"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    s.add_merge_request(MergeRequestSpec {
        iid,
        title: "A change".into(),
        description: String::new(),
        base_sha: sha("base_sha"),
        start_sha: sha("base_sha"),
        head_sha: sha("head_sha"),
        files,
    });
    let mut answer = answer;
    answer["api_url"] = json!(s.api_url());
    answer
}

fn say(out: &mut impl Write, v: &Value) -> std::io::Result<()> {
    writeln!(out, "{v}")?;
    out.flush()
}
