//! `crit-test-mcp-server`: a tiny real MCP server on stdio, built with rmcp's
//! server side, for crit-agent's tests (feature `test-mcp-server`).
//!
//! Tools: `echo` (read-only: returns `text`), `note` (no annotations, so
//! mutating: returns `noted: <text>`), `fail` (read-only: a tool-level error),
//! `sleep` (read-only: waits `ms` milliseconds, then answers `slept`).
//! With `--hang-on-start` it never answers `initialize` (start-up timeout tests).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};

struct TestServer;

fn schema(props: Value) -> Arc<Map<String, Value>> {
    let v = json!({"type": "object", "properties": props});
    Arc::new(v.as_object().cloned().unwrap())
}

fn text_arg(req: &CallToolRequestParams, key: &str) -> String {
    req.arguments
        .as_ref()
        .and_then(|a| a.get(key))
        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
        .unwrap_or_default()
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let ro = ToolAnnotations::new().read_only(true);
        Ok(ListToolsResult {
            tools: vec![
                Tool::new(
                    "echo",
                    "Echoes `text` back.",
                    schema(json!({"text": {"type": "string"}})),
                )
                .annotate(ro.clone()),
                Tool::new(
                    "note",
                    "Records a note.",
                    schema(json!({"text": {"type": "string"}})),
                ),
                Tool::new("fail", "Always fails.", schema(json!({}))).annotate(ro.clone()),
                Tool::new(
                    "sleep",
                    "Sleeps `ms` milliseconds.",
                    schema(json!({"ms": {"type": "integer"}})),
                )
                .annotate(ro),
            ],
            ..Default::default()
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let result = match request.name.as_ref() {
            "echo" => CallToolResult::success(vec![ContentBlock::text(text_arg(&request, "text"))]),
            "note" => CallToolResult::success(vec![ContentBlock::text(format!(
                "noted: {}",
                text_arg(&request, "text")
            ))]),
            "fail" => CallToolResult::error(vec![ContentBlock::text("the tool failed on purpose")]),
            "sleep" => {
                let ms = text_arg(&request, "ms").parse().unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                CallToolResult::success(vec![ContentBlock::text("slept")])
            }
            other => return Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
        };
        Ok(result.into())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    if std::env::args().any(|a| a == "--hang-on-start") {
        std::future::pending::<()>().await;
    }
    let service = TestServer
        .serve(rmcp::transport::stdio())
        .await
        .expect("serve on stdio");
    let _ = service.waiting().await;
}
