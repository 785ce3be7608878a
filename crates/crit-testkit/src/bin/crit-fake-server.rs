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
//!
//! A bad command answers `{"error": "…"}`. End of input stops the server.

use std::io::{BufRead, Write};
use std::time::Instant;

use crit_testkit::FakeServer;
use crit_testkit::script::step_from_json;
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
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let answer = match serde_json::from_str::<Value>(&line) {
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
            let parsed: Result<Vec<_>, String> = steps.iter().map(step_from_json).collect();
            match parsed {
                Ok(steps) => {
                    server.push_all(steps);
                    json!({"ok": true})
                }
                Err(e) => json!({"error": e}),
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

fn say(out: &mut impl Write, v: &Value) -> std::io::Result<()> {
    writeln!(out, "{v}")?;
    out.flush()
}
