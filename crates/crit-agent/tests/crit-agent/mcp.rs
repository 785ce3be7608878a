//! MCP tools from a real stdio server (`crit-test-mcp-server`, built from this
//! package with rmcp's server side): listed at start-up, called through the loop
//! against crit-testkit, read-only hints honoured, errors and timeouts returned
//! to the model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::kit;

use std::collections::BTreeMap;
use std::time::Duration;

use crit_agent::mcp::{McpError, McpServer, McpServerConfig, McpTimeouts, start_all};
use crit_agent::transcript::NoTranscript;
use crit_agent::{RunStatus, ToolContext, ToolRegistry, run_agent};
use crit_testkit::{FakeServer, Reply, Step};
use kit::{model, project, spec, tool_names, tool_results};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const SERVER: &str = env!("CARGO_BIN_EXE_crit-test-mcp-server");

fn config(args: &[&str]) -> McpServerConfig {
    McpServerConfig {
        name: "test".into(),
        command: SERVER.into(),
        args: args.iter().map(|a| a.to_string()).collect(),
        env: BTreeMap::new(),
        ..McpServerConfig::default()
    }
}

#[tokio::test]
async fn server_tools_are_listed_and_called_through_the_loop() {
    let dir = project();
    let mcp = McpServer::start(&config(&[]), dir.path(), McpTimeouts::default())
        .await
        .unwrap();
    let mut tools = ToolRegistry::from_names(&["Read"]).unwrap();
    mcp.add_to(&mut tools);
    let names: Vec<&str> = tools.names().collect();
    assert_eq!(
        names,
        [
            "Read",
            "mcp__test__echo",
            "mcp__test__note",
            "mcp__test__fail",
            "mcp__test__sleep"
        ]
    );
    assert!(
        !tools.get("mcp__test__echo").unwrap().is_mutating(),
        "readOnlyHint: true"
    );
    assert!(
        tools.get("mcp__test__note").unwrap().is_mutating(),
        "no annotations: mutating"
    );

    let server = FakeServer::start().await;
    server.push(Step::reply(Reply::tool_uses(vec![
        ("mcp__test__echo", json!({"text": "hello from the model"})),
        ("mcp__test__fail", json!({})),
        ("mcp__test__note", json!({"text": "n1"})),
    ])));
    server.push(Step::reply(Reply::text("done")));
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    let out = run_agent(
        &model(&server),
        &spec(tools),
        &cx,
        &mut NoTranscript,
        CancellationToken::new(),
    )
    .await;
    assert_eq!(out.status, RunStatus::Completed);
    let first = &server.model_requests()[0];
    assert_eq!(tool_names(first)[1], "mcp__test__echo");
    let echo_spec = &first.body["tools"][1];
    assert_eq!(echo_spec["description"], "Echoes `text` back.");
    assert_eq!(
        echo_spec["input_schema"]["properties"]["text"]["type"],
        "string"
    );
    let r = tool_results(&server, 1);
    assert_eq!(
        (r[0].1.as_str(), r[0].2),
        (
            "<tool_output tool=\"mcp__test__echo\">\nhello from the model\n</tool_output>",
            false
        )
    );
    assert_eq!(
        (r[1].1.as_str(), r[1].2),
        (
            "<tool_output tool=\"mcp__test__fail\">\nthe tool failed on purpose\n</tool_output>",
            true
        )
    );
    assert_eq!(
        (r[2].1.as_str(), r[2].2),
        (
            "<tool_output tool=\"mcp__test__note\">\nnoted: n1\n</tool_output>",
            false
        )
    );
    mcp.shutdown().await;
}

#[tokio::test]
async fn a_slow_call_times_out_as_an_error_result() {
    let dir = project();
    let timeouts = McpTimeouts {
        call: Duration::from_millis(300),
        ..McpTimeouts::default()
    };
    let mcp = McpServer::start(&config(&[]), dir.path(), timeouts)
        .await
        .unwrap();
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    let sleep = mcp
        .tools()
        .into_iter()
        .find(|t| t.name() == "mcp__test__sleep")
        .unwrap();
    let out = sleep.call(json!({"ms": 5000}), &cx).await;
    assert!(out.is_error);
    assert_eq!(
        out.content,
        "MCP tool `mcp__test__sleep` timed out after 0.3 s"
    );
    // The server still answers afterwards.
    let fast = sleep.call(json!({"ms": 1}), &cx).await;
    assert_eq!(fast.content, "slept");
    let bad = sleep.call(json!(["not", "an", "object"]), &cx).await;
    assert!(bad.is_error);
}

#[tokio::test]
async fn servers_that_cannot_start_are_reported_not_fatal() {
    let dir = project();
    let timeouts = McpTimeouts {
        startup: Duration::from_millis(500),
        ..McpTimeouts::default()
    };
    let missing = McpServerConfig {
        name: "gone".into(),
        command: dir.path().join("no-such-server").display().to_string(),
        ..config(&[])
    };
    let hangs = McpServerConfig {
        name: "slow".into(),
        ..config(&["--hang-on-start"])
    };
    let (ok, failed) = start_all(&[config(&[]), missing, hangs], dir.path(), timeouts).await;
    assert_eq!(ok.len(), 1);
    assert_eq!(ok[0].name(), "test");
    assert_eq!(failed.len(), 2);
    assert!(
        matches!(&failed[0], McpError::Spawn { server, .. } if server == "gone"),
        "{:?}",
        failed[0]
    );
    assert!(
        matches!(&failed[1], McpError::StartupTimeout { server, .. } if server == "slow"),
        "{:?}",
        failed[1]
    );
    assert!(failed[1].is_retryable());
    assert!(
        failed[1]
            .to_string()
            .starts_with("MCP server `slow` did not start within 0.5 s")
    );
    // The server that hung was killed, not left behind.
    kit::assert_no_process_with_arg("--hang-on-start").await;
}
