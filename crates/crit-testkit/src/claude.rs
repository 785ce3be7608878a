//! A scripted fake `claude` executable.
//!
//! [`FakeClaude::write`] writes a POSIX `sh` script named `claude` into a
//! directory. Each run records itself under
//! `<dir>/fake-claude-invocations/<n>/` (argv NUL-separated, stdin, cwd, pid,
//! selected env vars, the pid of its `sleep` grandchild, a `done` marker) and
//! prints the scripted lines according to its `--output-format`:
//! `stream-json` prints every line, `json` only `result` lines, `text` (the
//! default) the `result` text (or the `errors` on stderr). Read the records
//! with [`FakeClaude::invocations`]. Plain files rather than one JSON file,
//! so that the script needs nothing but `sh` and never has to escape JSON.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// Env vars the fake records when they are set (even when empty).
pub const RECORDED_ENV: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
    "CLAUDE_CODE_MAX_RETRIES",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "API_TIMEOUT_MS",
    "DISABLE_AUTOUPDATER",
    "IS_SANDBOX",
];

const INVOCATIONS_DIR: &str = "fake-claude-invocations";
const SESSION_ID: &str = "00000000-0000-4000-8000-00000000c0de";
const MODEL: &str = "claude-opus-5-5";

#[derive(Clone, Debug, PartialEq)]
enum Action {
    Line(Value),
    Stderr(String),
    Sleep(u64),
}

/// Builder of a fake `claude`. Actions run in the order they were added.
#[derive(Clone, Debug, PartialEq)]
pub struct FakeClaude {
    actions: Vec<Action>,
    exit_code: i32,
    message_count: usize,
    /// Scripts for runs whose arguments contain a needle, tried in order.
    branches: Vec<(String, FakeClaude)>,
    /// What `claude auth status` says (not recorded as a run).
    logged_in: bool,
}

impl Default for FakeClaude {
    fn default() -> Self {
        Self::new()
    }
}

/// One recorded run of the fake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invocation {
    /// Run order, from 0.
    pub index: usize,
    /// Arguments without the program name.
    pub argv: Vec<String>,
    pub stdin: String,
    /// The [`RECORDED_ENV`] vars that were set.
    pub env: BTreeMap<String, String>,
    pub cwd: PathBuf,
    pub pid: Option<u32>,
    /// Pid of the `sleep` child spawned by `sleep_secs` (a grandchild of the
    /// test), for process-group kill tests.
    pub grandchild_pid: Option<u32>,
    /// False when the run was killed before it finished.
    pub completed: bool,
}

impl Invocation {
    /// The value following `flag` (`--flag value` or `--flag=value`).
    pub fn arg_value(&self, flag: &str) -> Option<&str> {
        let prefix = format!("{flag}=");
        self.argv.iter().enumerate().find_map(|(i, a)| {
            if a == flag {
                self.argv.get(i + 1).map(String::as_str)
            } else {
                a.strip_prefix(prefix.as_str())
            }
        })
    }

    /// True when `flag` appears as an argument.
    pub fn has_arg(&self, flag: &str) -> bool {
        self.argv.iter().any(|a| a == flag)
    }

    /// True while the grandchild `sleep` process still exists (and is not a
    /// zombie). Linux `/proc` only.
    pub fn grandchild_alive(&self) -> bool {
        self.grandchild_pid.is_some_and(pid_alive)
    }
}

/// True when process `pid` exists and is not a zombie (Linux `/proc`).
pub fn pid_alive(pid: u32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state letter follows the parenthesised command name.
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

impl FakeClaude {
    pub fn new() -> Self {
        Self {
            actions: Vec::new(),
            exit_code: 0,
            message_count: 0,
            branches: Vec::new(),
            logged_in: true,
        }
    }

    /// `claude auth status` says `"loggedIn": false` and exits 1, as the
    /// real CLI does with no credentials (by default it is logged in).
    pub fn logged_out(mut self) -> Self {
        self.logged_in = false;
        self
    }

    /// A run whose arguments (the system prompt, the schema, …) contain
    /// `needle` plays `script` instead of this one: one fake for a panel whose
    /// members answer differently. Branches are tried in the order added.
    pub fn when_args_contain(mut self, needle: impl Into<String>, script: FakeClaude) -> Self {
        self.branches.push((needle.into(), script));
        self
    }

    /// The `system/init` line.
    pub fn emit_init(self) -> Self {
        self.emit_line(json!({
            "type":"system","subtype":"init","cwd":"/","session_id":SESSION_ID,
            "tools":["Task","Bash","Glob","Grep","Read","Edit","Write"],
            "mcp_servers":[],"model":MODEL,"permissionMode":"default",
            "slash_commands":[],"apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":"2.1.330",
            "output_style":"default","agents":["general-purpose"],"skills":[],"plugins":[],
            "uuid":"00000000-0000-4000-8000-000000000001"
        }))
    }

    /// An `assistant` line with one text block.
    pub fn emit_assistant_text(self, text: impl Into<String>) -> Self {
        self.emit_assistant_block(json!({"type":"text","text":text.into()}))
    }

    /// An `assistant` line with one `tool_use` block.
    pub fn emit_tool_use(self, name: impl Into<String>, input: Value) -> Self {
        let id = format!("toolu_fakeclaude_{}", self.message_count);
        self.emit_assistant_block(
            json!({"type":"tool_use","id":id,"name":name.into(),"input":input}),
        )
    }

    fn emit_assistant_block(mut self, block: Value) -> Self {
        let n = self.message_count;
        self.message_count += 1;
        self.emit_line(json!({
            "type":"assistant",
            "message":{"id":format!("msg_fakeclaude_{n}"),"type":"message","role":"assistant",
                       "model":MODEL,"content":[block],"stop_reason":null,"stop_sequence":null,
                       "usage":{"input_tokens":100,"cache_creation_input_tokens":0,
                                "cache_read_input_tokens":0,"output_tokens":20}},
            "parent_tool_use_id":null,"session_id":SESSION_ID,
            "uuid":format!("00000000-0000-4000-8000-1{n:011}"),
            "request_id":format!("req_fakeclaude_{n}")
        }))
    }

    /// A `result` line (build one with the `*_result` helpers, or by hand).
    pub fn emit_result(self, result: Value) -> Self {
        self.emit_line(result)
    }

    /// Any stream-json line, verbatim.
    pub fn emit_line(mut self, line: Value) -> Self {
        self.actions.push(Action::Line(line));
        self
    }

    /// A line on stderr.
    pub fn emit_stderr(mut self, text: impl Into<String>) -> Self {
        self.actions.push(Action::Stderr(text.into()));
        self
    }

    /// The exit status (default 0). The real CLI exits 1 on `is_error`.
    pub fn exit_code(mut self, code: i32) -> Self {
        self.exit_code = code;
        self
    }

    /// Hang for `secs` seconds at this point, in a `sleep` child process
    /// (a grandchild of the test) so a process-group kill can be proven.
    pub fn sleep_secs(mut self, secs: u64) -> Self {
        self.actions.push(Action::Sleep(secs));
        self
    }

    /// A successful `result` with `result` text.
    pub fn success_result(text: impl Into<String>) -> Value {
        let mut v = base_result("success", false);
        set(&mut v, "result", json!(text.into()));
        set(&mut v, "stop_reason", json!("end_turn"));
        v
    }

    /// A successful `--json-schema` `result`: `structured_output` set and
    /// `result` holding its compact JSON.
    pub fn structured_result(value: Value) -> Value {
        let mut v = base_result("success", false);
        set(&mut v, "result", json!(value.to_string()));
        set(&mut v, "structured_output", value);
        set(&mut v, "stop_reason", json!("tool_use"));
        set(&mut v, "num_turns", json!(2));
        v
    }

    /// An API failure as the CLI reports it: `subtype:"success"`,
    /// `is_error:true`, `api_error_status`, the message in `result`. Pair
    /// with `.exit_code(1)`.
    pub fn api_error_result(status: u16, message: impl Into<String>) -> Value {
        let mut v = base_result("success", true);
        set(&mut v, "api_error_status", json!(status));
        set(&mut v, "result", json!(message.into()));
        set(&mut v, "stop_reason", json!("stop_sequence"));
        set(&mut v, "terminal_reason", json!("api_error"));
        set(&mut v, "total_cost_usd", json!(0));
        v
    }

    /// `error_max_turns` after `turns` turns (no `result` key). Pair with
    /// `.exit_code(1)`.
    pub fn max_turns_result(turns: u32) -> Value {
        let mut v = base_result("error_max_turns", true);
        set(
            &mut v,
            "errors",
            json!([format!("Reached maximum number of turns ({turns})")]),
        );
        set(&mut v, "terminal_reason", json!("max_turns"));
        set(&mut v, "num_turns", json!(turns + 1));
        v
    }

    /// Writes the executable `dir/claude` and returns its path. Panics on
    /// an I/O error (see [`FakeClaude::try_write`]).
    pub fn write(&self, dir: impl AsRef<Path>) -> PathBuf {
        match self.try_write(dir.as_ref()) {
            Ok(p) => p,
            Err(e) => panic!("crit-testkit: cannot write fake claude: {e}"),
        }
    }

    pub fn try_write(&self, dir: &Path) -> io::Result<PathBuf> {
        fs::create_dir_all(dir)?;
        let dir = dir.canonicalize()?;
        let path = dir.join("claude");
        write_executable(&path, &self.script(&dir.join(INVOCATIONS_DIR)))?;
        Ok(path)
    }

    /// Every recorded run of a fake written into `dir`, in run order.
    /// Panics on an unreadable record.
    pub fn invocations(dir: impl AsRef<Path>) -> Vec<Invocation> {
        match read_invocations(dir.as_ref()) {
            Ok(v) => v,
            Err(e) => panic!("crit-testkit: cannot read fake claude invocations: {e}"),
        }
    }

    fn script(&self, rec: &Path) -> String {
        let mut s = String::from("#!/bin/sh\n# crit-testkit fake claude (generated)\n");
        // `claude auth status`, answered as the real CLI does and not recorded.
        let (logged, method, code) = match self.logged_in {
            true => ("true", "oauth_token", 0),
            false => ("false", "none", 1),
        };
        let _ = writeln!(
            s,
            "if [ \"$1\" = auth ] && [ \"$2\" = status ]; then\n  printf '%s\\n' '{{\"loggedIn\": {logged}, \"authMethod\": \"{method}\", \"apiProvider\": \"firstParty\"}}'\n  exit {code}\nfi"
        );
        let _ = writeln!(s, "rec={}", sh_quote(&rec.to_string_lossy()));
        s.push_str(RECORD_PRELUDE);
        for var in RECORDED_ENV {
            let _ = writeln!(
                s,
                "if [ \"${{{var}+set}}\" = set ]; then printf '%s' \"${var}\" > \"$inv/env/{var}\"; fi"
            );
        }
        s.push_str(FORMAT_PRELUDE);
        for (needle, branch) in &self.branches {
            let _ = writeln!(
                s,
                "if grep -qaF -- {} \"$inv/argv\"; then",
                sh_quote(needle)
            );
            branch.push_actions(&mut s);
            let _ = writeln!(s, ": > \"$inv/done\"\nexit {}\nfi", branch.exit_code);
        }
        self.push_actions(&mut s);
        let _ = writeln!(s, ": > \"$inv/done\"\nexit {}", self.exit_code);
        s
    }

    fn push_actions(&self, s: &mut String) {
        for action in &self.actions {
            match action {
                Action::Line(v) => push_line(s, v),
                Action::Stderr(t) => {
                    let _ = writeln!(s, "printf '%s\\n' {} >&2", sh_quote(t));
                }
                Action::Sleep(secs) => {
                    let _ = writeln!(
                        s,
                        "sleep {secs} &\necho $! > \"$inv/grandchild_pid\"\nwait $!"
                    );
                }
            }
        }
    }
}

const RECORD_PRELUDE: &str = r#"mkdir -p "$rec"
n=0
while ! mkdir "$rec/$n" 2>/dev/null; do n=$((n+1)); done
inv="$rec/$n"
echo $$ > "$inv/pid"
pwd > "$inv/cwd"
: > "$inv/argv"
for a in "$@"; do printf '%s\0' "$a" >> "$inv/argv"; done
if [ -t 0 ]; then : > "$inv/stdin"; else cat > "$inv/stdin"; fi
mkdir "$inv/env"
"#;

const FORMAT_PRELUDE: &str = r#"fmt=text
prev=
for a in "$@"; do
  if [ "$prev" = "--output-format" ]; then fmt="$a"; fi
  case "$a" in --output-format=*) fmt="${a#--output-format=}" ;; esac
  prev="$a"
done
"#;

fn push_line(s: &mut String, v: &Value) {
    let line = sh_quote(&v.to_string());
    if v.get("type").and_then(Value::as_str) != Some("result") {
        let _ = writeln!(
            s,
            "if [ \"$fmt\" = stream-json ]; then printf '%s\\n' {line}; fi"
        );
        return;
    }
    let text = match v.get("result").and_then(Value::as_str) {
        Some(r) => format!("printf '%s\\n' {}", sh_quote(r)),
        None => {
            let errors: Vec<&str> = v
                .get("errors")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            format!("printf 'Error: %s\\n' {} >&2", sh_quote(&errors.join("; ")))
        }
    };
    let _ = writeln!(
        s,
        "case \"$fmt\" in stream-json|json) printf '%s\\n' {line} ;; *) {text} ;; esac"
    );
}

fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn set(v: &mut Value, key: &str, value: Value) {
    if let Some(map) = v.as_object_mut() {
        map.insert(key.to_string(), value);
    }
}

fn base_result(subtype: &str, is_error: bool) -> Value {
    json!({
        "type":"result","subtype":subtype,"is_error":is_error,"api_error_status":null,
        "duration_ms":143,"duration_api_ms":72,"num_turns":1,
        "stop_reason":null,"terminal_reason":"completed","session_id":SESSION_ID,
        "total_cost_usd":0.0009,
        "usage":{"input_tokens":100,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,
                 "output_tokens":20,"server_tool_use":{"web_search_requests":0,"web_fetch_requests":0},
                 "service_tier":"standard",
                 "cache_creation":{"ephemeral_1h_input_tokens":0,"ephemeral_5m_input_tokens":0}},
        "modelUsage":{MODEL:{"inputTokens":100,"outputTokens":20,"cacheReadInputTokens":0,
                             "cacheCreationInputTokens":0,"costUSD":0.0009,
                             "contextWindow":1_000_000,"maxOutputTokens":128_000}},
        "permission_denials":[],"uuid":"00000000-0000-4000-8000-0000000000ff"
    })
}

/// Writes `text` to `path` as an executable, through a `sh` child process.
///
/// Writing it from this process would open a writable fd here, which a fork
/// by another test thread can inherit for a moment; exec of the file then
/// fails with ETXTBSY ("Text file busy"). A child's fds are never inherited
/// by our other threads. The rename means a running old copy never sees a
/// half-written file.
fn write_executable(path: &Path, text: &str) -> io::Result<()> {
    use std::process::{Command, Stdio};
    let tmp = path.with_extension("tmp");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(r#"cat > "$1" && chmod 755 "$1" && mv -f "$1" "$2""#)
        .arg("sh")
        .arg(&tmp)
        .arg(path)
        .stdin(Stdio::piped())
        .spawn()?;
    let written = match child.stdin.take() {
        Some(mut stdin) => io::Write::write_all(&mut stdin, text.as_bytes()),
        None => Err(io::Error::other("no stdin")),
    };
    let status = child.wait()?;
    written?;
    if status.success() {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "writing {} failed: sh exited with {status}",
            path.display()
        )))
    }
}

fn read_opt(path: &Path) -> io::Result<Option<String>> {
    match fs::read(path) {
        Ok(b) => Ok(Some(String::from_utf8_lossy(&b).into_owned())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

fn read_invocations(dir: &Path) -> io::Result<Vec<Invocation>> {
    let rec = dir.join(INVOCATIONS_DIR);
    let mut indices: Vec<usize> = match fs::read_dir(&rec) {
        Ok(entries) => entries
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
            .collect(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    indices.sort_unstable();
    indices
        .into_iter()
        .map(|index| {
            let d = rec.join(index.to_string());
            let argv = read_opt(&d.join("argv"))?
                .unwrap_or_default()
                .split_terminator('\0')
                .map(str::to_string)
                .collect();
            let mut env = BTreeMap::new();
            for var in RECORDED_ENV {
                if let Some(v) = read_opt(&d.join("env").join(var))? {
                    env.insert((*var).to_string(), v);
                }
            }
            let pid_of = |name: &str| -> io::Result<Option<u32>> {
                Ok(read_opt(&d.join(name))?.and_then(|s| s.trim().parse().ok()))
            };
            Ok(Invocation {
                index,
                argv,
                stdin: read_opt(&d.join("stdin"))?.unwrap_or_default(),
                env,
                cwd: PathBuf::from(read_opt(&d.join("cwd"))?.unwrap_or_default().trim_end()),
                pid: pid_of("pid")?,
                grandchild_pid: pid_of("grandchild_pid")?,
                completed: d.join("done").exists(),
            })
        })
        .collect()
}
