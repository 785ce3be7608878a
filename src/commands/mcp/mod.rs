//! `crit mcp`: crit's reviews as MCP tools over stdio, for any agent that
//! speaks MCP. Each tool runs this same `crit` on the project it was started
//! in, so every setting, trust rule, deadline and audit line is the one the
//! command line has; the server adds only what a client cannot be trusted
//! with: its arguments are checked (paths must stay inside the project, a
//! range is two revisions and nothing else) and the spend of the session is
//! held under the user's `max_budget_usd`. It serves one project (a git
//! repository or a directory with `.crit/`); started anywhere else (the
//! home directory), the tools that read a project refuse, saying why. No
//! message may be larger than [`transport::MAX_MESSAGE_BYTES`].

mod transport;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::anyhow;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};

use crate::cli::CommonArgs;
use crate::exit::{CliError, Code};

const MIB: f64 = 1024.0 * 1024.0;

/// How long one tool call may run before it is ended.
const CALL_SECS: u64 = 600;

/// The server's state: the project, the spend so far, the findings it returned.
struct Crit {
    root: PathBuf,
    /// Why `root` is no project, when it is not.
    no_project: Option<String>,
    exe: PathBuf,
    budget: Option<f64>,
    spent: Mutex<f64>,
    /// Held by the call that may spend.
    turn: tokio::sync::Mutex<()>,
    findings: Mutex<Vec<Value>>,
}

fn tool(name: &'static str, description: &'static str, schema: Value) -> Tool {
    let schema = match schema {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    Tool::new(name, description, Arc::new(schema))
}

fn tools() -> Vec<Tool> {
    vec![
        tool(
            "review_code",
            "Review a code change with crit (the project's reviewers, settings and gate): the uncommitted changes, a revision range, or files. Returns the result JSON and a short summary.",
            json!({"type": "object", "properties": {
                "scope": {"type": "string", "enum": ["uncommitted", "range", "files"], "default": "uncommitted"},
                "range": {"type": "string", "description": "For scope range: `BASE..HEAD`."},
                "files": {"type": "array", "items": {"type": "string"}, "description": "For scope files: paths inside the project."}
            }}),
        ),
        tool(
            "check_plan",
            "Check a plan with crit plan: a plan file inside the project, or the plan's text. Returns the verdict and the questions.",
            json!({"type": "object", "properties": {
                "path": {"type": "string"}, "text": {"type": "string"}
            }}),
        ),
        tool(
            "review_prompt",
            "Review a prompt with crit's prompt reviewers. Returns the critiques and the refined prompt.",
            json!({"type": "object", "properties": {"prompt": {"type": "string"}}, "required": ["prompt"]}),
        ),
        tool(
            "explain_finding",
            "A finding review_code returned in this session, by its fingerprint: the finding, its evidence and its proof.",
            json!({"type": "object", "properties": {"fingerprint": {"type": "string"}}, "required": ["fingerprint"]}),
        ),
    ]
}

/// A call refused, with the reason the client reads.
fn refused(why: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(format!(
        "crit refused the call: {}",
        why.into()
    ))])
}

impl Crit {
    /// `path` from the client, inside the project, or why not.
    fn inside(&self, path: &str) -> Result<PathBuf, String> {
        if let Some(why) = &self.no_project {
            return Err(why.clone());
        }
        let joined = self.root.join(path);
        let real = joined.canonicalize().map_err(|e| format!("{path}: {e}"))?;
        if !real.starts_with(&self.root) {
            return Err(format!("{path} is outside the project"));
        }
        Ok(real)
    }

    fn over_budget(&self) -> Option<String> {
        let budget = self.budget?;
        let spent = self.spent.lock().map(|s| *s).unwrap_or(f64::INFINITY);
        (spent >= budget).then(|| {
            format!("over budget: this session spent ${spent:.4} of max_budget_usd ${budget}")
        })
    }

    /// Runs this crit with `args` in the project, `stdin` piped in.
    async fn crit(
        &self,
        args: &[String],
        stdin: Option<&str>,
    ) -> Result<(i32, String, String), String> {
        use tokio::io::AsyncWriteExt;
        // Outside a project, in a directory of its own: nothing of the
        // directory the server was started in is read as a project's.
        let scratch = match &self.no_project {
            Some(_) => Some(tempfile::tempdir().map_err(|e| format!("a scratch directory: {e}"))?),
            None => None,
        };
        let cwd = scratch.as_ref().map_or(self.root.as_path(), |d| d.path());
        let mut cmd = tokio::process::Command::new(&self.exe);
        cmd.args(args)
            .current_dir(cwd)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        let mut child = cmd.spawn().map_err(|e| format!("running crit: {e}"))?;
        if let Some(mut pipe) = child.stdin.take() {
            let _ = pipe.write_all(stdin.unwrap_or_default().as_bytes()).await;
        }
        let out = tokio::time::timeout(Duration::from_secs(CALL_SECS), child.wait_with_output())
            .await
            .map_err(|_| format!("crit did not finish within {CALL_SECS} s"))?
            .map_err(|e| format!("running crit: {e}"))?;
        Ok((
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ))
    }

    async fn review_code(&self, args: &Map<String, Value>) -> CallToolResult {
        let mut cmd: Vec<String> = ["review", "code", "--format", "json"]
            .map(String::from)
            .to_vec();
        if let Some(why) = &self.no_project {
            return refused(why.clone());
        }
        let text = |k: &str| args.get(k).and_then(Value::as_str);
        match text("scope").unwrap_or("uncommitted") {
            "uncommitted" => cmd.push("--uncommitted".into()),
            "range" => {
                let Some(range) = text("range").filter(|r| is_range(r)) else {
                    return refused(
                        "a range is `BASE..HEAD`: two revisions, letters, digits and ._/~^@- only",
                    );
                };
                // `=`: a value is never read as an option of its own.
                cmd.push(format!("--diff={range}"));
            }
            "files" => {
                let files: Vec<&str> = args
                    .get("files")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                if files.is_empty() {
                    return refused("scope files needs `files`");
                }
                let several = files.len() > 1;
                let mut rels = Vec::new();
                for f in files {
                    match self.inside(f) {
                        Ok(p) => {
                            let rel = p.strip_prefix(&self.root).unwrap_or(&p);
                            let mut rel = rel.to_string_lossy().into_owned();
                            // Several paths go as one `{a,b}` pattern, in
                            // which a comma would part one name in two.
                            if globby(f) || globby(&rel) || (several && rel.contains(',')) {
                                return refused(format!(
                                    "{f}: review_code takes files by their paths, and a path with any of * ? [ ] {{ }} \\ (or a comma, among several paths) would be read as a pattern naming other files too; review it with the crit command"
                                ));
                            }
                            if several && p.is_dir() {
                                rel.push_str("/**");
                            }
                            rels.push(rel);
                        }
                        Err(why) => return refused(why),
                    }
                }
                // `=`: a file named `-q` or `--fix` is a value, not an option.
                match rels.as_slice() {
                    [one] => cmd.push(format!("--files={one}")),
                    _ => cmd.push(format!("--files={{{}}}", rels.join(","))),
                }
            }
            other => return refused(format!("unknown scope `{other}`")),
        }
        self.add_budget(&mut cmd);
        let (code, stdout, stderr) = match self.crit(&cmd, None).await {
            Ok(r) => r,
            Err(why) => return CallToolResult::error(vec![ContentBlock::text(why)]),
        };
        let Ok(result) = serde_json::from_str::<Value>(&stdout) else {
            return CallToolResult::error(vec![ContentBlock::text(format!(
                "crit review code ended {code}: {}",
                crate::output::printable(stderr.trim())
            ))]);
        };
        let cost = result["cost_usd"].as_f64().unwrap_or(0.0);
        if let Ok(mut s) = self.spent.lock() {
            *s += cost;
        }
        let findings = result["findings"].as_array().cloned().unwrap_or_default();
        if let Ok(mut kept) = self.findings.lock() {
            kept.extend(findings.iter().cloned());
        }
        let short = format!(
            "verdict {}, {} finding{}{}",
            result["verdict"].as_str().unwrap_or("?"),
            findings.len(),
            if findings.len() == 1 { "" } else { "s" },
            if result["passed"] == true {
                ", passed"
            } else {
                ", failed the gate"
            }
        );
        CallToolResult::success(vec![
            ContentBlock::text(short),
            ContentBlock::text(result.to_string()),
        ])
    }

    /// The rest of the session's budget as this call's limit.
    fn add_budget(&self, cmd: &mut Vec<String>) {
        if let Some(b) = self.budget {
            let spent = self.spent.lock().map(|s| *s).unwrap_or(b);
            cmd.extend([
                "--max-budget-usd".into(),
                format!("{}", (b - spent).max(0.0)),
            ]);
        }
    }

    async fn check_plan(&self, args: &Map<String, Value>) -> CallToolResult {
        let mut cmd: Vec<String> = ["plan", "--non-interactive"].map(String::from).to_vec();
        let _scratch;
        match (
            args.get("path").and_then(Value::as_str),
            args.get("text").and_then(Value::as_str),
        ) {
            (Some(p), _) => match self.inside(p) {
                Ok(p) => cmd.push(p.display().to_string()),
                Err(why) => return refused(why),
            },
            (None, Some(t)) => {
                // A directory of its own: a plan's directory is its session
                // (checks.yaml, state, the lock), never the shared temp dir.
                let dir = match tempfile::tempdir() {
                    Ok(d) => d,
                    Err(e) => {
                        return CallToolResult::error(vec![ContentBlock::text(e.to_string())]);
                    }
                };
                let plan = dir.path().join("plan.md");
                if let Err(e) = std::fs::write(&plan, t) {
                    return CallToolResult::error(vec![ContentBlock::text(e.to_string())]);
                }
                cmd.push(plan.display().to_string());
                _scratch = dir;
            }
            (None, None) => return refused("check_plan needs `path` or `text`"),
        }
        self.plain(&cmd, None).await
    }

    async fn plain(&self, cmd: &[String], stdin: Option<&str>) -> CallToolResult {
        match self.crit(cmd, stdin).await {
            Ok((_, stdout, stderr)) => CallToolResult::success(vec![ContentBlock::text(
                crate::output::printable(if stdout.trim().is_empty() {
                    &stderr
                } else {
                    &stdout
                }),
            )]),
            Err(why) => CallToolResult::error(vec![ContentBlock::text(why)]),
        }
    }

    fn explain(&self, args: &Map<String, Value>) -> CallToolResult {
        let Some(fp) = args.get("fingerprint").and_then(Value::as_str) else {
            return refused("explain_finding needs `fingerprint`");
        };
        let kept = self.findings.lock().map(|k| k.clone()).unwrap_or_default();
        match kept
            .iter()
            .find(|f| f["id"] == fp || f["fingerprint"] == fp)
        {
            Some(f) => CallToolResult::success(vec![ContentBlock::text(f.to_string())]),
            None => refused(format!(
                "no finding {fp} among those review_code returned in this session"
            )),
        }
    }
}

/// A character `--files` reads as a glob's: a path holding one would name
/// more files than the one checked.
fn globby(path: &str) -> bool {
    path.contains(['*', '?', '[', ']', '{', '}', '\\'])
}

/// `BASE..HEAD` (or `...`) of plain revision names: nothing git would read as an option.
fn is_range(r: &str) -> bool {
    let ok = |s: &str| {
        !s.is_empty()
            && !s.starts_with('-')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "._/~^@-".contains(c))
    };
    let Some((a, b)) = r.split_once("..") else {
        return false;
    };
    ok(a) && ok(b.strip_prefix('.').unwrap_or(b))
}

impl ServerHandler for Crit {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.instructions = Some("crit reviews code changes, plans and prompts with the project's own reviewers and settings.".into());
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name == transport::OVERSIZED {
            let bytes = request
                .arguments
                .as_ref()
                .and_then(|a| a.get("bytes"))
                .and_then(Value::as_u64)
                .unwrap_or_default();
            return Err(ErrorData::invalid_request(
                format!(
                    "crit refused the call: the message is {:.1} MiB, and crit mcp reads messages of at most {} MiB (give a file's path inside the project rather than its text)",
                    bytes as f64 / MIB,
                    transport::MAX_MESSAGE_BYTES / (1024 * 1024)
                ),
                None,
            ));
        }
        let args = request.arguments.unwrap_or_default();
        let spends = matches!(
            &*request.name,
            "review_code" | "check_plan" | "review_prompt"
        );
        // One spending call at a time: each starts from what the last one spent.
        let _turn = match spends {
            true => Some(self.turn.lock().await),
            false => None,
        };
        if spends && let Some(why) = self.over_budget() {
            return Ok(refused(why).into());
        }
        // What a plan's panel or a prompt review spends is not reported back
        // to be counted: under a budget they are not run.
        if let ("check_plan" | "review_prompt", Some(b)) = (&*request.name, self.budget) {
            return Ok(refused(format!(
                "{} cannot be held to max_budget_usd ${b} here; run it with the crit command",
                request.name
            ))
            .into());
        }
        let result = match &*request.name {
            "review_code" => self.review_code(&args).await,
            "check_plan" => self.check_plan(&args).await,
            "review_prompt" => match args.get("prompt").and_then(Value::as_str) {
                Some(p) => {
                    self.plain(
                        &["prompt", "--format", "markdown", "-"].map(String::from),
                        Some(p),
                    )
                    .await
                }
                None => refused("review_prompt needs `prompt`"),
            },
            "explain_finding" => self.explain(&args),
            other => refused(format!("no tool `{other}`")),
        };
        Ok(result.into())
    }
}

/// The user's `max_budget_usd` for code reviews in `root`, as `crit config` reads it.
fn budget(common: &CommonArgs, root: &Path) -> Option<f64> {
    if let Some(b) = common.max_budget_usd {
        return Some(b);
    }
    let project = crit_project::Project::open(
        root,
        crate::backend::explicit(common).ok()?,
        common.env.clone(),
    )
    .ok()?;
    let settings = project.settings(crit_project::Kind::Code).ok()?;
    settings.max_budget_usd.as_ref().map(|b| b.value)
}

pub fn run(common: &CommonArgs) -> Result<Code, CliError> {
    let cwd = common.cwd.clone().unwrap_or_else(|| PathBuf::from("."));
    let cwd = cwd
        .canonicalize()
        .map_err(|e| CliError::usage(anyhow!("{}: {e}", cwd.display())))?;
    let home = common.env.get("HOME").map(PathBuf::from);
    let root = crit_project::paths::project_root_in(&cwd, home.as_deref());
    let no_project = (!root.join(".git").exists() && !root.join(".crit").is_dir()).then(|| {
        format!(
            "crit mcp was started in {}, which is no project (no git repository, no .crit directory); start it in the project's directory, or give its path with --cwd",
            crate::output::printable(&root.display().to_string())
        )
    });
    let exe = std::env::current_exe().map_err(|e| CliError::could_not_run(anyhow!("{e}")))?;
    let server = Crit {
        budget: budget(common, &root),
        root,
        no_project,
        exe,
        spent: Mutex::new(0.0),
        turn: tokio::sync::Mutex::new(()),
        findings: Mutex::new(Vec::new()),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::could_not_run(anyhow!("starting the async runtime: {e}")))?;
    runtime.block_on(async {
        let service = server
            .serve(transport::Bounded::new(
                tokio::io::stdin(),
                tokio::io::stdout(),
            ))
            .await
            .map_err(|e| CliError::could_not_run(anyhow!("MCP: {e}")))?;
        service
            .waiting()
            .await
            .map_err(|e| CliError::could_not_run(anyhow!("MCP: {e}")))?;
        Ok(Code::Ok)
    })
}
