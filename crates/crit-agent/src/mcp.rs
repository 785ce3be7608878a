//! Tools of MCP servers: stdio or HTTP servers from configuration, started
//! before a run, their tools listed once and offered to the model as
//! `mcp__server__tool` (Claude Code's names).
//!
//! The official `rmcp` crate speaks the protocol; this module is the only place
//! that touches its API (it changes between majors), and reads tool listings and
//! results through their wire JSON, which the MCP spec fixes.
//!
//! A tool is read-only (and may run concurrently with the other read-only calls
//! of a turn) only when its server marks it `readOnlyHint: true`; anything else
//! counts as mutating and runs alone. Errors of a call (a tool-level error, a
//! broken server, the per-call timeout) come back to the model as error results.

use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value};
use tokio::io::AsyncReadExt;

use crate::context::ToolContext;
use crate::registry::ToolRegistry;
use crate::tool::{Tool, ToolFuture, ToolOutput};
use crate::truncate::{HeadTail, cut_at_char};

pub use crit_core::agent::McpServerConfig;

/// How long a server may take to start (spawn, initialize, list tools) and to
/// answer one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McpTimeouts {
    pub startup: Duration,
    pub call: Duration,
}

impl Default for McpTimeouts {
    fn default() -> Self {
        Self {
            startup: Duration::from_secs(30),
            call: Duration::from_secs(120),
        }
    }
}

/// A server that could not be started.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum McpError {
    #[error("MCP server `{server}`: cannot run `{command}`: {message}")]
    Spawn {
        server: String,
        command: String,
        message: String,
    },
    #[error("MCP server `{server}` did not start within {secs} s{stderr}")]
    StartupTimeout {
        server: String,
        secs: f64,
        stderr: String,
    },
    #[error("MCP server `{server}` failed to start: {message}{stderr}")]
    Startup {
        server: String,
        message: String,
        stderr: String,
    },
}

impl McpError {
    /// A slow start may go better next time; a bad command or protocol will not.
    pub fn is_retryable(&self) -> bool {
        matches!(self, McpError::StartupTimeout { .. })
    }
}

type Client = RunningService<RoleClient, ()>;

/// A running server and its tools. Dropping it stops the server.
pub struct McpServer {
    name: String,
    client: Arc<Client>,
    tools: Vec<Arc<McpTool>>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("name", &self.name)
            .field(
                "tools",
                &self.tools.iter().map(|t| &t.name).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// Bytes of a server's stderr kept for start-up error messages.
const STDERR_CAP: usize = 4096;

impl McpServer {
    /// Starts the server (spawns its program in its `cwd`, else in `cwd`; or
    /// connects to its URL), initializes it and lists its tools, all within
    /// `timeouts.startup`.
    pub async fn start(
        cfg: &McpServerConfig,
        cwd: &Path,
        timeouts: McpTimeouts,
    ) -> Result<Self, McpError> {
        match &cfg.url {
            Some(url) => Self::start_http(cfg, url, timeouts).await,
            None => Self::start_stdio(cfg, cwd, timeouts).await,
        }
    }

    async fn start_stdio(
        cfg: &McpServerConfig,
        cwd: &Path,
        timeouts: McpTimeouts,
    ) -> Result<Self, McpError> {
        let mut cmd = tokio::process::Command::new(&cfg.command);
        // Killed when dropped, even if rmcp's own clean-up task never gets to run
        // (a runtime shutting down).
        cmd.args(&cfg.args)
            .envs(&cfg.env)
            .current_dir(cfg.cwd.as_deref().unwrap_or(cwd))
            .kill_on_drop(true);
        let (transport, stderr) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| McpError::Spawn {
                server: cfg.name.clone(),
                command: cfg.command.clone(),
                message: e.to_string(),
            })?;
        let log = Arc::new(Mutex::new(HeadTail::new(STDERR_CAP)));
        if let Some(mut stderr) = stderr {
            let log = Arc::clone(&log);
            tokio::spawn(async move {
                let mut buf = vec![0u8; 4096];
                while let Ok(n) = stderr.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    log.lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push(&buf[..n]);
                }
            });
        }
        let stderr_note = move || {
            let text = log.lock().unwrap_or_else(|p| p.into_inner()).render();
            let text = text.trim();
            if text.is_empty() {
                String::new()
            } else {
                format!("; its stderr: {text}")
            }
        };
        Self::connect(cfg, transport, timeouts, stderr_note).await
    }

    /// A server over streamable HTTP (what Claude Code's `http` servers, and
    /// the `sse` servers that moved on, speak), on crit's one TLS stack.
    async fn start_http(
        cfg: &McpServerConfig,
        url: &str,
        timeouts: McpTimeouts,
    ) -> Result<Self, McpError> {
        let failed = |message: String| McpError::Startup {
            server: cfg.name.clone(),
            message,
            stderr: String::new(),
        };
        let https = url.trim_start().to_ascii_lowercase().starts_with("https:");
        let client = crit_llm::transport::tls_client(https, timeouts.startup)
            .map_err(|e| failed(e.to_string()))?;
        let headers = crit_llm::transport::header_map(&cfg.headers).map_err(failed)?;
        let config =
            StreamableHttpClientTransportConfig::with_uri(url.to_string()).custom_headers(headers);
        let transport = StreamableHttpClientTransport::with_client(client, config);
        Self::connect(cfg, transport, timeouts, String::new).await
    }

    /// Initializes a server on `transport` and lists its tools.
    async fn connect<T, E, A>(
        cfg: &McpServerConfig,
        transport: T,
        timeouts: McpTimeouts,
        stderr_note: impl Fn() -> String,
    ) -> Result<Self, McpError>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let started = tokio::time::timeout(timeouts.startup, async {
            let client = ().serve(transport).await.map_err(|e| e.to_string())?;
            let tools = client.list_all_tools().await.map_err(|e| e.to_string())?;
            Ok::<_, String>((client, tools))
        })
        .await;
        let (client, listed) = match started {
            Ok(Ok(ok)) => ok,
            Ok(Err(message)) => {
                return Err(McpError::Startup {
                    server: cfg.name.clone(),
                    message,
                    stderr: stderr_note(),
                });
            }
            Err(_) => {
                return Err(McpError::StartupTimeout {
                    server: cfg.name.clone(),
                    secs: timeouts.startup.as_secs_f64(),
                    stderr: stderr_note(),
                });
            }
        };
        let client = Arc::new(client);
        let tools = listed
            .iter()
            .filter_map(|t| serde_json::to_value(t).ok())
            .filter_map(|wire| McpTool::from_wire(&cfg.name, &wire, &client, timeouts.call))
            .map(Arc::new)
            .collect();
        Ok(Self {
            name: cfg.name.clone(),
            client,
            tools,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The server's tools, as crit tools.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools
            .iter()
            .map(|t| Arc::clone(t) as Arc<dyn Tool>)
            .collect()
    }

    /// Adds the server's tools to `registry`.
    pub fn add_to(&self, registry: &mut ToolRegistry) {
        for t in self.tools() {
            registry.insert(t);
        }
    }

    /// Stops the server now (dropping it stops it too, in the background).
    pub async fn shutdown(self) {
        let Self { client, tools, .. } = self;
        drop(tools);
        if let Ok(client) = Arc::try_unwrap(client) {
            let _ = client.cancel().await;
        }
    }
}

/// Starts every server concurrently; the ones that fail are reported, not fatal.
pub async fn start_all(
    configs: &[McpServerConfig],
    cwd: &Path,
    timeouts: McpTimeouts,
) -> (Vec<McpServer>, Vec<McpError>) {
    let started =
        futures_util::future::join_all(configs.iter().map(|c| McpServer::start(c, cwd, timeouts)))
            .await;
    let mut ok = Vec::new();
    let mut failed = Vec::new();
    for s in started {
        match s {
            Ok(s) => ok.push(s),
            Err(e) => failed.push(e),
        }
    }
    (ok, failed)
}

/// The name the model calls a server's tool by: `mcp__server__tool`, as
/// Claude Code names it, limited to the characters and length the model APIs
/// accept.
pub fn tool_name(server: &str, tool: &str) -> String {
    let name: String = format!("mcp__{server}__{tool}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    cut_at_char(&name, 64).to_string()
}

struct McpTool {
    /// The name the model sees.
    name: String,
    server: String,
    /// The name the server knows.
    remote: String,
    description: String,
    schema: Value,
    read_only: bool,
    client: Arc<Client>,
    call_timeout: Duration,
}

impl McpTool {
    /// From a `tools/list` entry as MCP puts it on the wire.
    fn from_wire(
        server: &str,
        wire: &Value,
        client: &Arc<Client>,
        call_timeout: Duration,
    ) -> Option<Self> {
        let remote = wire.get("name")?.as_str()?.to_string();
        Some(Self {
            name: tool_name(server, &remote),
            server: server.to_string(),
            description: wire
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            schema: wire
                .get("inputSchema")
                .filter(|s| s.is_object())
                .cloned()
                .unwrap_or_else(|| serde_json::json!({"type": "object"})),
            read_only: wire.pointer("/annotations/readOnlyHint") == Some(&Value::Bool(true)),
            remote,
            client: Arc::clone(client),
            call_timeout,
        })
    }

    async fn invoke(&self, input: Value, cx: &ToolContext) -> ToolOutput {
        let mut params = CallToolRequestParams::new(self.remote.clone());
        match input {
            Value::Object(map) => params = params.with_arguments(map),
            Value::Null => params = params.with_arguments(Map::new()),
            _ => {
                return ToolOutput::error(
                    "invalid input: expected a JSON object with the tool's fields",
                );
            }
        }
        let call = tokio::time::timeout(self.call_timeout, self.client.call_tool(params));
        let answered = tokio::select! {
            r = call => r,
            () = cx.cancel.cancelled() => return ToolOutput::error("cancelled"),
        };
        match answered {
            Ok(Ok(result)) => {
                let wire = serde_json::to_value(&result).unwrap_or_default();
                let mut out = render_result(&wire);
                let max = cx.limits.max_output_bytes;
                if out.content.len() > max {
                    let total = out.content.len();
                    out.content = format!(
                        "{}\n[output cut at {max} of {total} bytes]",
                        cut_at_char(&out.content, max)
                    );
                }
                out
            }
            Ok(Err(e)) => {
                ToolOutput::error(format!("MCP server `{}` failed the call: {e}", self.server))
            }
            Err(_) => ToolOutput::error(format!(
                "MCP tool `{}` timed out after {} s",
                self.name,
                self.call_timeout.as_secs_f64()
            )),
        }
    }
}

/// A `tools/call` result as the model reads it: text blocks as they are, other
/// blocks as a short note, structured content when there is no text.
fn render_result(wire: &Value) -> ToolOutput {
    let mut parts: Vec<String> = Vec::new();
    for block in wire
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let field = |k: &str| block.get(k).and_then(Value::as_str).unwrap_or_default();
        let part = match field("type") {
            "text" => field("text").to_string(),
            "resource" => match block.pointer("/resource/text").and_then(Value::as_str) {
                Some(text) => text.to_string(),
                None => format!(
                    "[resource: {}]",
                    block
                        .pointer("/resource/uri")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                ),
            },
            "resource_link" => format!("[resource link: {}]", field("uri")),
            other => format!("[{other}: {}]", field("mimeType")),
        };
        parts.push(part);
    }
    if parts.is_empty()
        && let Some(s) = wire.get("structuredContent")
    {
        parts.push(s.to_string());
    }
    ToolOutput {
        content: parts.join("\n"),
        is_error: wire.get("isError") == Some(&Value::Bool(true)),
    }
}

impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn input_schema(&self) -> Value {
        self.schema.clone()
    }

    fn is_mutating(&self) -> bool {
        !self.read_only
    }

    fn call<'a>(&'a self, input: Value, cx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(self.invoke(input, cx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_are_prefixed_and_safe() {
        assert_eq!(tool_name("github", "get_issue"), "mcp__github__get_issue");
        assert_eq!(tool_name("my.srv", "a/b c"), "mcp__my_srv__a_b_c");
        assert_eq!(tool_name(&"s".repeat(80), "t").len(), 64);
    }

    #[test]
    fn results_render_for_the_model() {
        let r = render_result(&json!({"content": [
            {"type": "text", "text": "one"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///a", "text": "body"}},
            {"type": "resource_link", "uri": "file:///b", "name": "b"}
        ], "isError": false}));
        assert_eq!(
            r,
            ToolOutput::ok("one\n[image: image/png]\nbody\n[resource link: file:///b]")
        );
        let r =
            render_result(&json!({"content": [], "structuredContent": {"n": 1}, "isError": true}));
        assert_eq!(r, ToolOutput::error("{\"n\":1}"));
    }
}
