//! Shared by the loop tests: a model pointed at crit-testkit, a small git
//! project, a spec, and readers for what the fake server received.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use crit_agent::{AgentSpec, ToolRegistry};
use crit_llm::{Anthropic, AnthropicAuth, AnthropicConfig, RetryPolicy, Secret, SystemBlock};
use crit_testkit::{FakeServer, RecordedRequest};
use serde_json::Value;

pub const MODEL: &str = "claude-sonnet-5-5";

pub fn model(server: &FakeServer) -> Anthropic {
    let mut c = AnthropicConfig::new(
        server.url(),
        AnthropicAuth::ApiKey(Secret::new("sk-ant-test")),
    );
    c.retry = RetryPolicy {
        max_attempts: 1,
        ..RetryPolicy::default()
    };
    Anthropic::new(c).unwrap()
}

/// A git project with `src/pool.rs` and `README.md`.
pub fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/pool.rs"),
        "fn get() {\n    let c = pool.get();\n    c.unwrap()\n}\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("README.md"), "# Demo\n").unwrap();
    dir
}

pub fn spec(tools: ToolRegistry) -> AgentSpec {
    let mut s = AgentSpec::new("reviewer", MODEL, "Review src/pool.rs");
    s.system = vec![SystemBlock::cached("You review code.")];
    s.tools = tools;
    s.max_output_tokens = 4096;
    s
}

/// The tool results in the last message of `req`: (tool_use_id, content, is_error).
pub fn results_of(req: &RecordedRequest) -> Vec<(String, String, bool)> {
    let msgs = req.body["messages"].as_array().unwrap();
    let last = msgs.last().unwrap();
    last["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter(|b| b["type"] == "tool_result")
                .map(|b| {
                    let content = match &b["content"] {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    (
                        b["tool_use_id"].as_str().unwrap().to_string(),
                        content,
                        b["is_error"] == true,
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The tool results of request `n` (0-based).
pub fn tool_results(server: &FakeServer, n: usize) -> Vec<(String, String, bool)> {
    results_of(&server.model_requests()[n])
}

/// The names of the tools offered in `req`.
pub fn tool_names(req: &RecordedRequest) -> Vec<String> {
    req.body["tools"]
        .as_array()
        .map(|ts| {
            ts.iter()
                .map(|t| t["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The text of the last user message of `req`.
pub fn last_user_text(req: &RecordedRequest) -> String {
    let last = req.body["messages"].as_array().unwrap().last().unwrap();
    match &last["content"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

/// Whether the request's system prompt contains `needle`.
pub fn system_has(req: &RecordedRequest, needle: &str) -> bool {
    req.body["system"].to_string().contains(needle)
}

/// Waits until no live process has `arg` on its command line.
pub async fn assert_no_process_with_arg(arg: &str) {
    let mut left = Vec::new();
    for _ in 0..100 {
        left = processes_with_arg(arg);
        if left.is_empty() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("still running: {left:?}");
}

fn processes_with_arg(arg: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit(')')
            .next()
            .is_some_and(|s| s.trim_start().starts_with('Z'));
        if cmdline.contains(arg) && !zombie {
            found.push(cmdline);
        }
    }
    found
}
