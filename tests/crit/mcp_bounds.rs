//! `crit mcp`'s bounds through the binary, driven by rmcp's own client: a
//! message over the size it reads is answered at once with the reason (not
//! left unanswered) and the server goes on serving; started outside any
//! project (the home directory), the tools that read a project refuse,
//! saying why; and a file's path from the client is that file only, never a
//! glob that reaches files the server did not check, nor an option (a file
//! named `-q` is that file).

use crate::mcp_server::command;
use crate::support;

use std::time::Duration;

use crit_testkit::FakeServer;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value, json};
use support::{git, init_repo, write};

fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_message_over_the_limit_is_answered_with_the_reason() {
    let dir = crate::stop_gate::repo(crate::stop_gate::EVAL);
    let d = dir.path();
    let server = FakeServer::start_blocking();
    runtime().block_on(async {
        let transport = TokioChildProcess::new(command(d, &server, &[])).unwrap();
        let client = ().serve(transport).await.unwrap();
        let huge = "x".repeat(34 * 1024 * 1024);
        let call = client.call_tool(
            CallToolRequestParams::new("review_prompt")
                .with_arguments(args(json!({"prompt": huge}))),
        );
        let answer = tokio::time::timeout(Duration::from_secs(120), call)
            .await
            .expect("the call is answered, not left waiting");
        let e = answer.expect_err("refused").to_string();
        assert!(e.contains("crit refused the call"), "{e}");
        assert!(e.contains("the message is 34.0 MiB"), "{e}");
        assert!(e.contains("at most 4 MiB"), "{e}");
        // The server goes on serving.
        let r = client
            .call_tool(
                CallToolRequestParams::new("explain_finding")
                    .with_arguments(args(json!({"fingerprint": "f1"}))),
            )
            .await
            .unwrap();
        let r = serde_json::to_value(&r).unwrap();
        assert!(text(&r).contains("no finding f1"), "{r}");
        client.cancel().await.unwrap();
    });
    assert!(server.model_requests().is_empty());
}

#[test]
fn outside_a_project_the_tools_that_read_one_refuse() {
    // The home directory: no repository, no .crit.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "notes.md", "# Plan\n1. Do it.\n");
    let server = FakeServer::start_blocking();
    runtime().block_on(async {
        let mut c = command(d, &server, &[]);
        c.env("HOME", d);
        let client = ().serve(TokioChildProcess::new(c).unwrap()).await.unwrap();
        for (tool, a) in [
            ("review_code", json!({"scope": "uncommitted"})),
            (
                "review_code",
                json!({"scope": "files", "files": ["notes.md"]}),
            ),
            ("check_plan", json!({"path": "notes.md"})),
        ] {
            let r = client
                .call_tool(CallToolRequestParams::new(tool).with_arguments(args(a)))
                .await
                .unwrap();
            let r = serde_json::to_value(&r).unwrap();
            assert_eq!(r["isError"], true, "{tool}: {r}");
            assert!(text(&r).contains("which is no project"), "{tool}: {r}");
            assert!(text(&r).contains("--cwd"), "{tool}: {r}");
        }
        client.cancel().await.unwrap();
    });
    assert!(server.model_requests().is_empty());
}

#[test]
fn a_file_s_path_is_that_file_never_a_glob() {
    let dir = committed(&[
        ("*.py", "print('LITERAL_STAR')\n"),
        ("[ab].py", "print('LITERAL_CLASS')\n"),
        ("a.py", "print('FILE_A')\n"),
        ("other.py", "print('OTHER_FILE')\n"),
    ]);
    let d = dir.path();
    let server = FakeServer::start_blocking();
    runtime().block_on(async {
        let client =
            ().serve(TokioChildProcess::new(command(d, &server, &[])).unwrap())
                .await
                .unwrap();
        for name in ["*.py", "[ab].py", "./*.py"] {
            let r = client
                .call_tool(
                    CallToolRequestParams::new("review_code")
                        .with_arguments(args(json!({"scope": "files", "files": ["a.py", name]}))),
                )
                .await
                .unwrap();
            let r = serde_json::to_value(&r).unwrap();
            assert_eq!(r["isError"], true, "{name}: {r}");
            assert!(text(&r).contains("by their paths"), "{name}: {r}");
        }
        client.cancel().await.unwrap();
    });
    // Nothing reached the model: neither the file named like a pattern nor
    // what the pattern would have reached.
    assert!(server.model_requests().is_empty());
}

#[test]
fn a_file_named_like_an_option_is_reviewed_as_that_file() {
    let dir = committed(&[
        ("-q", "print('DASH_Q')\n"),
        ("--fix", "print('DASH_FIX')\n"),
    ]);
    let d = dir.path();
    let server = FakeServer::start_blocking();
    runtime().block_on(async {
        let client =
            ().serve(TokioChildProcess::new(command(d, &server, &[])).unwrap())
                .await
                .unwrap();
        for name in ["-q", "--fix"] {
            server.push(crit_testkit::Reply::json(
                json!({"verdict": "PASS", "summary": "Fine.", "findings": []}),
            ));
            let r = client
                .call_tool(
                    CallToolRequestParams::new("review_code")
                        .with_arguments(args(json!({"scope": "files", "files": [name]}))),
                )
                .await
                .unwrap();
            let r = serde_json::to_value(&r).unwrap();
            assert_ne!(r["isError"], true, "{name}: {r}");
            assert!(text(&r).contains("verdict PASS"), "{name}: {r}");
        }
        client.cancel().await.unwrap();
    });
    let asked: Vec<String> = server
        .model_requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    assert_eq!(asked.len(), 2, "{asked:?}");
    // The reviewer is given that file to find and read, not an option.
    assert!(asked[0].contains("files matching `-q`"), "{}", asked[0]);
    assert!(asked[1].contains("files matching `--fix`"), "{}", asked[1]);
}

/// Several files in one call are one review of all of them.
#[test]
fn several_files_are_reviewed_in_one_call() {
    let dir = committed(&[
        ("a.py", "print('FIRST_FILE')\n"),
        ("lib/b.py", "print('SECOND_FILE')\n"),
        ("c.py", "print('THIRD_FILE')\n"),
    ]);
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(crit_testkit::Reply::json(
        json!({"verdict": "PASS", "summary": "Fine.", "findings": []}),
    ));
    runtime().block_on(async {
        let client =
            ().serve(TokioChildProcess::new(command(d, &server, &[])).unwrap())
                .await
                .unwrap();
        let r = client
            .call_tool(
                CallToolRequestParams::new("review_code")
                    .with_arguments(args(json!({"scope": "files", "files": ["a.py", "lib"]}))),
            )
            .await
            .unwrap();
        let r = serde_json::to_value(&r).unwrap();
        assert_ne!(r["isError"], true, "{r}");
        assert!(text(&r).contains("verdict PASS"), "{r}");
        client.cancel().await.unwrap();
    });
    let asked = server.model_requests();
    assert_eq!(asked.len(), 1);
    let body = asked[0].body.to_string();
    // One review of both: the file and the directory's files.
    assert!(body.contains("files matching `{a.py,lib/**}`"), "{body}");
}

/// A repository whose one commit holds `files` (and ignores the test's own
/// directories).
fn committed(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, ".gitignore", ".state/\n.home/\n");
    for (path, text) in files {
        write(d, path, text);
    }
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    dir
}
