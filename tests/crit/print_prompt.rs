//! `--print-prompt` prints the requests crit sends: the same system prompt,
//! messages and tools the model receives, per reviewer and part, and sends
//! nothing.

use crate::support;

use crit_testkit::{FakeServer, Reply};
use serde_json::{Value, json};
use support::{crit, git, init_repo, json_out, write};

/// A block list (or a plain string) as its texts.
fn texts(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) => vec![s.clone()],
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| {
                b["text"]
                    .as_str()
                    .map_or_else(|| b.to_string(), str::to_string)
            })
            .collect(),
        Value::Null => Vec::new(),
        other => vec![other.to_string()],
    }
}

/// A wire body (Anthropic Messages) in `--print-prompt --json`'s shape.
fn as_printed(body: &Value) -> Value {
    let messages: Vec<Value> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| json!({"role": m["role"], "content": texts(&m["content"])}))
        .collect();
    let tools: Vec<Value> = body["tools"]
        .as_array()
        .map(|t| t.iter().map(|t| t["name"].clone()).collect())
        .unwrap_or_default();
    json!({
        "model": body["model"],
        "system": texts(&body["system"]),
        "messages": messages,
        "tools": tools,
    })
}

#[test]
fn print_prompt_prints_exactly_the_request_the_model_receives() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(
        d,
        "CLAUDE.md",
        "# Conventions\n\nErrors are returned, never unwrapped.\n",
    );
    let lines: String = (1..=30).map(|n| format!("line {n}\n")).collect();
    write(d, "src/a.py", &lines);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    write(
        d,
        "src/a.py",
        &lines.replace("line 7\n", "x = eval(input())\n"),
    );
    git(d, &["commit", "-q", "-am", "read input"]);
    let args = [
        "review",
        "code",
        "--diff",
        "HEAD~1..HEAD",
        "--json",
        "--no-log",
        "--no-cache",
    ];

    let server = FakeServer::start_blocking();
    let out = crit(d, &server, None)
        .args(args)
        .arg("--print-prompt")
        .output()
        .unwrap();
    let printed = json_out(&out);
    assert!(
        server.model_requests().is_empty(),
        "--print-prompt sent a request"
    );

    server.push(Reply::json(
        json!({"verdict": "PASS", "summary": "Fine.", "findings": []}),
    ));
    let out = crit(d, &server, None).args(args).output().unwrap();
    assert_eq!(json_out(&out)["verdict"], "PASS");
    let sent: Vec<Value> = server
        .model_requests()
        .iter()
        .map(|r| as_printed(&r.body))
        .collect();
    assert_eq!(sent.len(), 1);
    assert_eq!(printed, Value::Array(sent));
    // What it holds: the numbered diff and the conventions, not a summary.
    let all = printed.to_string();
    assert!(all.contains("x = eval(input())"), "{all}");
    assert!(
        all.contains("Errors are returned, never unwrapped."),
        "{all}"
    );

    // Without --json, the same request for a person: headed, every part.
    let out = crit(d, &server, None)
        .args([
            "review",
            "code",
            "--diff",
            "HEAD~1..HEAD",
            "--no-log",
            "--no-cache",
            "--print-prompt",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("=== request 1 of 1 · model "), "{text}");
    assert!(text.contains("--- system 1 ---\n"), "{text}");
    assert!(
        text.contains("--- message 1 · user · block 1 ---\n"),
        "{text}"
    );
    assert!(text.contains("x = eval(input())"), "{text}");
}
