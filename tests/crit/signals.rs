//! Signals and faults. SIGTERM, SIGINT and SIGHUP stop a review in flight
//! (a stalled model, a hanging hook, a reviewer program, `claude`, a `crit
//! run` with a sub-agent): crit kills every child process group, prints and
//! saves the partial result as INCOMPLETE, and exits with 128 + the signal.
//! A file-size limit (EFBIG) and /dev/full stand in for a full disk: the
//! error is reported, no temp file stays, the previous file is intact. A tool
//! input that is not JSON goes back to the model and the review goes on.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crit_testkit::{FakeClaude, FakeServer, Reply, Step, pid_alive};
use serde_json::{Value, json};
use support::{
    ARCH_REVIEW, arch_project as project, json_out, pass, session_dirs, session_results, stderr,
    temp_files, write,
};
use tempfile::TempDir;

/// The binary in a hermetic environment pointed at `server`.
fn plain(d: &Path, server: &FakeServer) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_crit"));
    c.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", d.join(".home"))
        .env("XDG_STATE_HOME", d.join(".state"))
        .env("ANTHROPIC_API_KEY", "sk-ant-signal-0123456789")
        .env("ANTHROPIC_BASE_URL", server.url())
        .current_dir(d)
        .stdin(Stdio::null());
    c
}

/// [`plain`], with stdout and stderr going to files in `out`.
fn command(d: &Path, server: &FakeServer, out: &Path) -> Command {
    let mut c = plain(d, server);
    c.stdout(std::fs::File::create(out.join("stdout")).unwrap())
        .stderr(std::fs::File::create(out.join("stderr")).unwrap());
    c
}

fn wait_for(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !ready() {
        assert!(Instant::now() < deadline, "gave up waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal(pid: u32, name: &str) {
    let ok = Command::new("kill")
        .args([format!("-{name}"), pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{name} {pid}");
}

/// Waits for `child` to exit (killing it after 60 s) and returns its code.
fn exit_code(child: &mut Child) -> Option<i32> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("crit did not stop after the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn pids_in(file: &Path) -> Vec<u32> {
    read(file)
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

fn assert_gone(pids: &[u32], what: &str) {
    assert!(!pids.is_empty(), "{what}: no pids recorded");
    let deadline = Instant::now() + Duration::from_secs(10);
    while pids.iter().any(|p| pid_alive(*p)) {
        assert!(Instant::now() < deadline, "{what}: still running: {pids:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

const SIGNALS: [(&str, i32); 3] = [("TERM", 143), ("INT", 130), ("HUP", 129)];

/// What every stopped review leaves: the exit code of the signal, the partial
/// result on stdout as INCOMPLETE, the same in the session, no temp files.
fn assert_stopped(d: &Path, out: &Path, code: Option<i32>, want: i32, session: bool) -> Value {
    let stderr = read(&out.join("stderr"));
    assert_eq!(code, Some(want), "{stderr}");
    let stdout = read(&out.join("stdout"));
    let r: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
    assert_eq!(r["passed"], false, "{r}");
    assert_ne!(r["verdict"], "PASS", "{r}");
    assert!(stderr.contains("stopping the reviewers"), "{stderr}");
    if session {
        let dirs = session_dirs(d);
        assert_eq!(dirs.len(), 1, "{stderr}");
        assert!(dirs[0].join("session.json").is_file());
        let saved = session_results(d);
        assert_eq!(saved.len(), 1, "result.json written: {stderr}");
        assert_eq!(saved[0]["verdict"], "INCOMPLETE");
        assert_eq!(r["verdict"], "INCOMPLETE", "{r}");
        let error = r["parse_error"].as_str().unwrap_or_default();
        assert!(error.starts_with("cancelled"), "{r}");
    }
    assert_eq!(temp_files(d), Vec::<PathBuf>::new());
    r
}

#[test]
fn a_signal_while_the_model_stalls_saves_the_partial_result() {
    for (sig, code) in SIGNALS {
        let dir = project();
        let out = tempfile::tempdir().unwrap();
        let server = FakeServer::start_blocking();
        server.push(Step::reply(
            Reply::json(pass()).stall_after_bytes(40, Duration::from_secs(120)),
        ));
        let mut child = command(dir.path(), &server, out.path())
            .args(ARCH_REVIEW)
            .spawn()
            .unwrap();
        wait_for("the model call", || server.model_requests().len() == 1);
        signal(child.id(), sig);
        let got = exit_code(&mut child);
        assert_stopped(dir.path(), out.path(), got, code, true);
    }
}

/// A user template (trusted: it is the user's own) whose PreToolUse hook
/// hangs with a grandchild and records both pids.
fn hanging_hook_template(home: &Path, pids: &Path) {
    let hook = format!(
        "echo $$ >> '{p}'; sleep 1000 & echo $! >> '{p}'; wait",
        p = pids.display()
    );
    let template = json!({
        "name": "hooked",
        "description": "Review with a hook",
        "system_prompt": "Be brief.",
        "allowed_tools": ["Read"],
        "inputs": {"required": [{"name": "input", "description": "doc"}]},
        "prompt_template": "Check {{input}}",
        "hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": hook, "timeout": 600}]}]}
    });
    let dir = home.join(".config/crit/templates");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("hooked.json"), template.to_string()).unwrap();
    std::fs::write(
        dir.join("hooked.yaml"),
        serde_json::to_string(&template).unwrap(),
    )
    .unwrap();
    std::fs::remove_file(dir.join("hooked.json")).unwrap();
}

#[test]
fn a_signal_while_a_hook_hangs_kills_its_process_group() {
    for (sig, code) in SIGNALS {
        let dir = project();
        let out = tempfile::tempdir().unwrap();
        let pids = out.path().join("pids");
        hanging_hook_template(&dir.path().join(".home"), &pids);
        let server = FakeServer::start_blocking();
        server.push(Step::reply(Reply::tool_use(
            "Read",
            json!({"file_path": "notes.md"}),
        )));
        server.push(Step::reply(Reply::json(pass())));
        let mut child = command(dir.path(), &server, out.path())
            .args(["review", "hooked", "notes.md", "--json"])
            .spawn()
            .unwrap();
        wait_for("the hook and its grandchild", || pids_in(&pids).len() == 2);
        let running = pids_in(&pids);
        assert!(running.iter().all(|p| pid_alive(*p)));
        signal(child.id(), sig);
        let got = exit_code(&mut child);
        assert_stopped(dir.path(), out.path(), got, code, true);
        assert_gone(&running, "the hook");
        assert_eq!(server.model_requests().len(), 1, "no turn after the signal");
    }
}

/// A git repository whose HEAD changes a file, for `crit review code`.
fn repo() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    support::init_repo(d);
    write(d, "src/app.py", "x = 1\n");
    support::git(d, &["add", "-A"]);
    support::git(d, &["commit", "-q", "-m", "base"]);
    write(d, "src/app.py", "x = eval(input())\n");
    support::git(d, &["commit", "-q", "-am", "change"]);
    dir
}

#[test]
fn a_signal_while_a_reviewer_program_runs_kills_it_and_its_children() {
    for (sig, code) in SIGNALS {
        let dir = repo();
        let out = tempfile::tempdir().unwrap();
        let pids = out.path().join("pids");
        let prog = out.path().join("review-gate");
        std::fs::write(
            &prog,
            format!(
                "#!/bin/sh\necho $$ >> '{p}'\nsleep 1000 &\necho $! >> '{p}'\nwait\n",
                p = pids.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&prog, std::fs::Permissions::from_mode(0o755)).unwrap();
        // The user's own config (trusted), not the project's.
        write(
            &dir.path().join(".home"),
            ".config/crit/config.yaml",
            &format!("reviewer: command\ncommand: [\"{}\"]\n", prog.display()),
        );
        let server = FakeServer::start_blocking();
        let mut child = command(dir.path(), &server, out.path())
            .args(["review", "code", "--diff", "HEAD~1..HEAD", "--json"])
            .spawn()
            .unwrap();
        wait_for("the reviewer program", || pids_in(&pids).len() == 2);
        let running = pids_in(&pids);
        signal(child.id(), sig);
        let got = exit_code(&mut child);
        let r = assert_stopped(dir.path(), out.path(), got, code, false);
        assert_eq!(r["parse_error"], "cancelled", "{r}");
        assert_gone(&running, "the reviewer program");
    }
}

/// A second signal quits at once (no result is waited for), and still no
/// process crit started outlives it.
#[test]
fn a_second_signal_quits_at_once_and_leaves_no_child() {
    let dir = repo();
    let out = tempfile::tempdir().unwrap();
    let pids = out.path().join("pids");
    let prog = out.path().join("review-gate");
    std::fs::write(
        &prog,
        format!(
            "#!/bin/sh\necho $$ >> '{p}'\nsleep 1000 &\necho $! >> '{p}'\nwait\n",
            p = pids.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&prog, std::fs::Permissions::from_mode(0o755)).unwrap();
    write(
        &dir.path().join(".home"),
        ".config/crit/config.yaml",
        &format!("reviewer: command\ncommand: [\"{}\"]\n", prog.display()),
    );
    let server = FakeServer::start_blocking();
    let mut child = command(dir.path(), &server, out.path())
        .args(["review", "code", "--diff", "HEAD~1..HEAD", "--json"])
        .spawn()
        .unwrap();
    wait_for("the reviewer program", || pids_in(&pids).len() == 2);
    let running = pids_in(&pids);
    signal(child.id(), "INT");
    signal(child.id(), "TERM");
    let got = exit_code(&mut child);
    assert!(matches!(got, Some(130 | 143)), "{got:?}");
    assert_gone(&running, "the reviewer program");
}

#[test]
fn a_signal_while_claude_runs_kills_its_process_group() {
    for (sig, code) in SIGNALS {
        let dir = project();
        let out = tempfile::tempdir().unwrap();
        let bin = tempfile::tempdir().unwrap();
        let claude = FakeClaude::new()
            .emit_init()
            .sleep_secs(1000)
            .emit_result(FakeClaude::structured_result(pass()))
            .write(bin.path());
        let server = FakeServer::start_blocking();
        let mut child = command(dir.path(), &server, out.path())
            .env("CRIT_CLAUDE_BIN", &claude)
            .args(["--provider", "claude-code"])
            .args(ARCH_REVIEW)
            .spawn()
            .unwrap();
        wait_for("claude and its grandchild", || {
            FakeClaude::invocations(bin.path())
                .first()
                .is_some_and(|i| i.grandchild_pid.is_some())
        });
        let run = FakeClaude::invocations(bin.path()).remove(0);
        signal(child.id(), sig);
        let got = exit_code(&mut child);
        assert_stopped(dir.path(), out.path(), got, code, true);
        assert_gone(&[run.pid.unwrap(), run.grandchild_pid.unwrap()], "claude");
    }
}

#[test]
fn a_signal_while_sub_agents_run_stops_crit_run() {
    for (sig, code) in SIGNALS {
        let dir = project();
        let out = tempfile::tempdir().unwrap();
        let cfg = out.path().join("run.json");
        std::fs::write(
            &cfg,
            json!({"prompt": "I-AM-LEAD", "allowed_tools": ["Read", "Task"],
                   "agents": {"alpha": {"description": "d", "prompt": "I-AM-ALPHA", "tools": ["Read"]}}})
            .to_string(),
        )
        .unwrap();
        let server = FakeServer::start_blocking();
        let task = json!({"description": "r", "prompt": "Review", "subagent_type": "alpha"});
        server.push(
            Step::when_contains("I-AM-LEAD").reply(Reply::tool_uses(vec![
                ("Task", task.clone()),
                ("Task", task),
            ])),
        );
        for _ in 0..2 {
            server
                .push(Step::when_contains("I-AM-ALPHA").reply(
                    Reply::text("Looking.").stall_after_bytes(40, Duration::from_secs(120)),
                ));
        }
        let mut child = command(dir.path(), &server, out.path())
            .args(["run", "Review the slice", "--json", "--config"])
            .arg(&cfg)
            .spawn()
            .unwrap();
        wait_for("both sub-agents", || server.model_requests().len() == 3);
        signal(child.id(), sig);
        let got = exit_code(&mut child);
        let r = assert_stopped(dir.path(), out.path(), got, code, true);
        let subs: Vec<&Value> = r["reviewers"].as_array().unwrap().iter().skip(1).collect();
        assert_eq!(subs.len(), 2, "{r}");
        assert!(subs.iter().all(|s| s["status"] == "incomplete"), "{r}");
    }
}

/// crit under `prlimit --fsize=BYTES`, SIGXFSZ ignored so an oversized write
/// fails with EFBIG as on a full disk.
fn with_file_limit(bytes: u64, crit: &mut Command) -> Output {
    let program = crit.get_program().to_owned();
    let args: Vec<_> = crit.get_args().map(|a| a.to_owned()).collect();
    let prlimit = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("prlimit"))
        .find(|p| p.is_file())
        .expect("prlimit (util-linux) on PATH");
    let mut c = Command::new("/bin/sh");
    c.arg("-c")
        .arg("trap '' XFSZ; limit=$1; shift; exec \"$0\" --fsize=\"$limit\" \"$@\"")
        .arg(prlimit)
        .arg(bytes.to_string())
        .arg(program)
        .args(args)
        .env_clear();
    for (k, v) in crit.get_envs() {
        if let Some(v) = v {
            c.env(k, v);
        }
    }
    if let Some(d) = crit.get_current_dir() {
        c.current_dir(d);
    }
    c.output().unwrap()
}

#[test]
fn a_full_disk_is_reported_and_leaves_no_temp_file() {
    let long = "word ".repeat(4000);
    let answer = json!({"verdict": "PASS", "summary": long, "findings": []});

    // 1. The session's result cannot be written: reported, nothing half-written.
    let dir = project();
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::json(answer.clone())));
    let mut c = plain(dir.path(), &server);
    c.args(ARCH_REVIEW);
    let o = with_file_limit(8192, &mut c);
    let err = stderr(&o);
    assert!(err.contains("could not save the review's result"), "{err}");
    assert!(err.contains("File too large"), "{err}");
    assert_eq!(
        json_out(&o)["verdict"],
        "PASS",
        "the answer still reaches stdout"
    );
    let session = &session_dirs(dir.path())[0];
    assert!(!session.join("result.json").exists());
    assert_eq!(temp_files(dir.path()), Vec::<PathBuf>::new());

    // 2. --out over an existing file: an error, the old file whole.
    let dir = project();
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::json(answer.clone())));
    let target = dir.path().join("review.json");
    std::fs::write(&target, "previous result\n").unwrap();
    let mut c = plain(dir.path(), &server);
    c.args(ARCH_REVIEW)
        .args(["--no-log"])
        .args(["--out", "review.json"]);
    let o = with_file_limit(8192, &mut c);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("review.json") && stderr(&o).contains("File too large"));
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "previous result\n"
    );
    assert_eq!(temp_files(dir.path()), Vec::<PathBuf>::new());

    // 3. A result to stdout on /dev/full, and --out /dev/full.
    let dir = project();
    let saved = dir.path().join("r.json");
    let mut r = crit_core_result();
    r["summary"] = json!("fine");
    std::fs::write(&saved, r.to_string()).unwrap();
    let full = || {
        Stdio::from(
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        )
    };
    let o = Command::new(env!("CARGO_BIN_EXE_crit"))
        .args(["report", saved.to_str().unwrap(), "--json"])
        .stdout(full())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("No space left on device"),
        "{}",
        stderr(&o)
    );
    let o = Command::new(env!("CARGO_BIN_EXE_crit"))
        .args([
            "report",
            saved.to_str().unwrap(),
            "--json",
            "--out",
            "/dev/full",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("No space left on device"),
        "{}",
        stderr(&o)
    );

    // 4. crit plan: a fix that makes the plan too large to write.
    let home = tempfile::tempdir().unwrap();
    let plans = home.path().join("s");
    std::fs::create_dir_all(&plans).unwrap();
    let plan_text = format!("# Plan\n\nWe use eval here.\n\n{}\n", "x".repeat(6000));
    std::fs::write(plans.join("plan.md"), &plan_text).unwrap();
    std::fs::write(
        plans.join("checks.yaml"),
        format!(
            "checks:\n  - id: no_eval\n    pattern: eval\n    reason: r\n    fix:\n      action: replace\n      with: \"{}\"\n",
            "y".repeat(4000)
        ),
    )
    .unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_crit"));
    c.args(["plan", plans.to_str().unwrap()])
        .env("HOME", home.path())
        .env("PATH", "/nonexistent");
    let o = with_file_limit(8192, &mut c);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.starts_with("ERROR\n") && out.contains("File too large"),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(plans.join("plan.md")).unwrap(),
        plan_text
    );
    assert!(!plans.join("plan.approved").exists());
    assert_eq!(temp_files(home.path()), Vec::<PathBuf>::new());

    // 5. The transcript cannot be written past the limit: said so.
    let dir = project();
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::tool_use(
        "Read",
        json!({"file_path": "big.md"}),
    )));
    server.push(Step::reply(Reply::json(pass())));
    write(dir.path(), "big.md", &"line of text\n".repeat(2000));
    let mut c = plain(dir.path(), &server);
    c.args(ARCH_REVIEW);
    let o = with_file_limit(16384, &mut c);
    let err = stderr(&o);
    assert!(
        err.contains("transcript.jsonl is incomplete") && err.contains("File too large"),
        "{err}"
    );
    assert_eq!(session_results(dir.path())[0]["verdict"], "PASS", "{err}");
    assert_eq!(temp_files(dir.path()), Vec::<PathBuf>::new());
}

fn crit_core_result() -> Value {
    json!({"schema_version": 1, "review": "arch", "verdict": "PASS", "passed": true,
           "summary": "", "findings": [], "reviewers": [],
           "usage": {"input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0, "cache_write_tokens": 0},
           "cost_usd": 0.0, "duration_ms": 0, "raw_output": "", "parse_error": null, "fatal_error": false})
}

#[test]
fn a_tool_input_that_is_not_json_goes_back_to_the_model() {
    let openai: &[(&str, &str)] = &[("CRIT_PROVIDER", "openai"), ("CRIT_MODEL", "gpt-testkit")];
    type Env<'a> = &'a [(&'a str, &'a str)];
    let variants: Vec<(&str, Reply, Env, usize)> = vec![
        (
            "cut short",
            Reply::tool_use_raw("Read", "{\"file_path\": \"notes"),
            &[],
            1,
        ),
        (
            "not JSON at all",
            Reply::tool_use_raw("Read", "read notes.md please"),
            &[],
            1,
        ),
        (
            "trailing text",
            Reply::tool_use_raw("Read", "{\"file_path\": \"notes.md\"} and more"),
            &[],
            1,
        ),
        (
            "an unclosed array",
            Reply::tool_use_raw("Read", "[1, 2"),
            &[],
            1,
        ),
        ("a lone quote", Reply::tool_use_raw("Read", "\""), &[], 1),
        (
            "bad input next to a good call",
            Reply::tool_use_raw("Read", "{oops}")
                .then_tool_use("Read", json!({"file_path": "notes.md"})),
            &[],
            1,
        ),
        (
            "OpenAI arguments cut short",
            Reply::tool_use_raw("Read", "{\"file_path\":"),
            openai,
            1,
        ),
        (
            "OpenAI bad arguments next to good ones",
            Reply::tool_use_raw("Read", "nope")
                .then_tool_use("Read", json!({"file_path": "notes.md"})),
            openai,
            1,
        ),
        (
            "a final answer that is not JSON",
            Reply::tool_use_raw("StructuredOutput", "{\"verdict\": \"PASS\""),
            &[],
            1,
        ),
        (
            "two bad calls",
            Reply::tool_use_raw("Read", "{").then_tool_use_raw("Grep", "}"),
            &[],
            2,
        ),
    ];
    for (name, reply, env, bad) in variants {
        let dir = project();
        let server = FakeServer::start_blocking();
        server.push(Step::reply(reply));
        server.push(Step::reply(Reply::json(pass())));
        let mut c = support::crit(dir.path(), &server, None);
        c.args(ARCH_REVIEW).args(["--exit-code"]);
        let url = format!("{}/v1", server.url());
        if !env.is_empty() {
            c.envs(env.iter().copied()).env("OPENAI_BASE_URL", &url);
        }
        let o = c.output().unwrap();
        let r = json_out(&o);
        assert_eq!(r["verdict"], "PASS", "{name}: the review went on: {r}");
        assert_eq!(o.status.code(), Some(0), "{name}");
        let second = &server.model_requests()[1];
        let text = second.body["messages"].to_string();
        let told = text.matches("was not valid JSON").count();
        assert_eq!(told, bad, "{name}: {text}");
        assert_eq!(temp_files(dir.path()), Vec::<PathBuf>::new());
    }
    // A model that never sends valid JSON does not pass: UNKNOWN after the retries.
    let dir = project();
    let server = FakeServer::start_blocking();
    for _ in 0..6 {
        server.push(Step::reply(Reply::tool_use_raw(
            "StructuredOutput",
            "{\"verdict\":",
        )));
    }
    let o = support::crit(dir.path(), &server, None)
        .args(ARCH_REVIEW)
        .args(["--exit-code"])
        .output()
        .unwrap();
    let r = json_out(&o);
    assert_eq!(r["verdict"], "UNKNOWN", "{r}");
    assert_eq!(o.status.code(), Some(1));
    assert!(session_results(dir.path())[0]["passed"] == false);
}

#[test]
fn a_signal_while_the_plan_panel_reviews_approves_nothing() {
    for (sig, code) in SIGNALS {
        let dir = tempfile::tempdir().unwrap();
        let out = tempfile::tempdir().unwrap();
        let session = dir.path().join("session");
        write(&session, "plan.md", "# Plan\n\nParse with JSON.parse.\n");
        write(
            &session,
            "context.yaml",
            "reviewer_persona: Security reviewer\n",
        );
        write(
            &session,
            "checks.yaml",
            "checks:\n  - id: no_eval\n    pattern: eval\n    reason: r\n",
        );
        let server = FakeServer::start_blocking();
        server.push(Step::reply(
            Reply::json(pass()).stall_after_bytes(40, Duration::from_secs(120)),
        ));
        let mut child = command(dir.path(), &server, out.path())
            .args(["plan", session.to_str().unwrap()])
            .spawn()
            .unwrap();
        wait_for("the persona's review", || {
            server.model_requests().len() == 1
        });
        signal(child.id(), sig);
        let got = exit_code(&mut child);
        let stdout = read(&out.path().join("stdout"));
        assert_eq!(
            got,
            Some(code),
            "{stdout}{}",
            read(&out.path().join("stderr"))
        );
        assert!(!stdout.starts_with("APPROVED"), "{stdout}");
        assert!(!session.join("plan.approved").exists(), "{stdout}");
        assert!(read(&session.join("state.yaml")).contains("# crit-seal: "));
        assert_eq!(temp_files(dir.path()), Vec::<PathBuf>::new());
    }
}
