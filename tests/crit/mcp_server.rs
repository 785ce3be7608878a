//! `crit mcp` through the binary, driven by rmcp's own client over stdio:
//! it lists its tools; `review_code` on an uncommitted change returns the
//! findings crit-testkit's stand-in model reported; a path outside the
//! project and a call over the session's budget are refused with the reason.

use crate::stop_gate::{EVAL, confirmed, repo};

use std::path::Path;

use crit_testkit::{FakeServer, Reply, Step};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value, json};

fn p1() -> Reply {
    Reply::json(
        json!({"verdict": "FAIL", "summary": "Runs user input as code.", "findings": [
        {"file_path": "src/app.py", "line_start": 2, "line_end": 2, "priority": 1,
         "title": "eval of user input", "body": "Any input runs as Python. Use ast.literal_eval."}]}),
    )
}

pub(crate) fn command(d: &Path, server: &FakeServer, extra: &[&str]) -> tokio::process::Command {
    let mut c = tokio::process::Command::new(env!("CARGO_BIN_EXE_crit"));
    c.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", d.join(".home"))
        .env("XDG_STATE_HOME", d.join(".state"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("ANTHROPIC_API_KEY", "sk-ant-review-secret-0123456789")
        .env("ANTHROPIC_BASE_URL", server.url())
        .arg("mcp")
        .args(extra)
        .current_dir(d);
    c
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

fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

#[test]
fn review_code_returns_the_findings_and_hostile_calls_are_refused() {
    let dir = repo(EVAL);
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("eval(input())").reply(p1()));
    server.push(confirmed());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let transport = TokioChildProcess::new(command(d, &server, &[])).unwrap();
        let client = ().serve(transport).await.unwrap();
        let tools: Vec<String> = client
            .list_all_tools()
            .await
            .unwrap()
            .iter()
            .map(|t| t.name.to_string())
            .collect();
        assert_eq!(
            tools,
            [
                "review_code",
                "check_plan",
                "review_prompt",
                "explain_finding"
            ]
        );

        let call =
            |name: &'static str, a: Value| CallToolRequestParams::new(name).with_arguments(args(a));
        let r = client
            .call_tool(call("review_code", json!({"scope": "uncommitted"})))
            .await
            .unwrap();
        let r = serde_json::to_value(&r).unwrap();
        let said = text(&r);
        assert!(
            said.starts_with("verdict FAIL, 1 finding, failed the gate"),
            "{said}"
        );
        assert!(said.contains("eval of user input"), "{said}");
        assert!(
            server.model_requests()[0]
                .body
                .to_string()
                .contains("return eval(input())")
        );

        // A path outside the project, and one that climbs out of it.
        for outside in ["/etc/passwd", "../../../../etc/passwd"] {
            let r = client
                .call_tool(call(
                    "review_code",
                    json!({"scope": "files", "files": [outside]}),
                ))
                .await
                .unwrap();
            let r = serde_json::to_value(&r).unwrap();
            assert_eq!(r["isError"], true, "{r}");
            assert!(text(&r).contains("outside the project"), "{r}");
            let r = client
                .call_tool(call("check_plan", json!({"path": outside})))
                .await
                .unwrap();
            assert!(text(&serde_json::to_value(&r).unwrap()).contains("outside the project"));
        }
        // A range that would be read as an option.
        let r = client
            .call_tool(call(
                "review_code",
                json!({"scope": "range", "range": "--output=/tmp/x..HEAD"}),
            ))
            .await
            .unwrap();
        assert!(text(&serde_json::to_value(&r).unwrap()).starts_with("crit refused the call"));
        client.cancel().await.unwrap();
    });
    assert_eq!(
        server.model_requests().len(),
        2,
        "only the one review reached the model"
    );
}

#[test]
fn a_call_over_the_session_s_budget_is_refused_with_the_reason() {
    let dir = repo(EVAL);
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("eval(input())").reply(p1()));
    server.push(confirmed());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        // A budget of nothing: the first review is already over it.
        let transport =
            TokioChildProcess::new(command(d, &server, &["--max-budget-usd", "0"])).unwrap();
        let client = ().serve(transport).await.unwrap();
        let r = client
            .call_tool(
                CallToolRequestParams::new("review_code")
                    .with_arguments(args(json!({"scope": "uncommitted"}))),
            )
            .await
            .unwrap();
        let r = serde_json::to_value(&r).unwrap();
        assert_eq!(r["isError"], true, "{r}");
        assert!(text(&r).contains("over budget"), "{r}");
        assert!(text(&r).contains("max_budget_usd"), "{r}");
        client.cancel().await.unwrap();
    });
    assert!(server.model_requests().is_empty());
}

/// Under a budget, the tools whose spending crit cannot count are refused;
/// a plan given as text is checked in a directory of its own, never beside
/// whatever another user left in the shared temp directory.
#[test]
fn uncounted_tools_are_refused_under_a_budget_and_plan_text_is_checked_alone() {
    let dir = repo(EVAL);
    let d = dir.path();
    let tmp = d.join(".tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::write(
        tmp.join("checks.yaml"),
        "checks:\n  - id: planted\n    pattern: \"Plan\"\n    reason: \"PLANTED_IN_TMP\"\n",
    )
    .unwrap();
    let server = FakeServer::start_blocking();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut c = command(d, &server, &["--max-budget-usd", "5"]);
        c.env("TMPDIR", &tmp);
        let client = ().serve(TokioChildProcess::new(c).unwrap()).await.unwrap();
        for (tool, a) in [
            ("review_prompt", json!({"prompt": "Write a parser."})),
            ("check_plan", json!({"text": "# Plan\n1. Do it.\n"})),
        ] {
            let r = client
                .call_tool(CallToolRequestParams::new(tool).with_arguments(args(a)))
                .await
                .unwrap();
            let r = serde_json::to_value(&r).unwrap();
            assert_eq!(r["isError"], true, "{tool}: {r}");
            assert!(text(&r).contains("max_budget_usd"), "{tool}: {r}");
        }
        client.cancel().await.unwrap();

        let mut c = command(d, &server, &[]);
        c.env("TMPDIR", &tmp);
        let client = ().serve(TokioChildProcess::new(c).unwrap()).await.unwrap();
        let r = client
            .call_tool(
                CallToolRequestParams::new("check_plan")
                    .with_arguments(args(json!({"text": "# Plan\n1. Do it.\n"}))),
            )
            .await
            .unwrap();
        let r = serde_json::to_value(&r).unwrap();
        assert!(!text(&r).contains("PLANTED_IN_TMP"), "{r}");
        client.cancel().await.unwrap();
    });
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("checks.yaml")]);
    assert!(server.model_requests().is_empty());
}
