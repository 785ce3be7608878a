//! Everything crit takes in is bounded. A hostile model (crit-testkit)
//! streams forever, makes thousands of tool calls in one turn, launches
//! sub-agents that never stop spending; hostile files are endless devices and
//! huge documents. Each variant goes through the binary (under a 1 GiB
//! address-space limit where memory is the question) and checks the result,
//! the message, and the files afterwards.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crit_testkit::{FakeServer, RecordedRequest, Reply, Step};
use serde_json::{Value, json};
use support::{
    ARCH_REVIEW, arch_project as project, crit_run, json_out, pass, run_config, session_results,
    stderr, task, temp_files, write,
};

/// One answer's cap (crit_llm::ResponseLimits::default()).
const RESPONSE_CAP: &str = "passed the limit of 33554432 bytes";
/// One input's cap (crit_core::files::InputLimits::default()).
const INPUT_CAP: &str = "larger than the 32 MiB limit for an input";

/// `crit review arch` against `server`, its address space capped at 1 GiB
/// (`ulimit -v`): a crit that buffered an endless answer would die here.
fn review_capped(d: &Path, server: &FakeServer, env: &[(&str, &str)], extra: &[&str]) -> Output {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg("ulimit -v 1048576 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_crit"))
        .args(ARCH_REVIEW)
        .args(extra)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        // glibc reserves 64 MiB of address space per malloc arena, and a busy
        // machine makes up to 8 per core: the cap is about crit's buffers, not
        // about how contended the allocator was.
        .env("MALLOC_ARENA_MAX", "2")
        .env("HOME", d.join(".home"))
        .env("XDG_STATE_HOME", d.join(".state"))
        .env("ANTHROPIC_API_KEY", "sk-ant-bounds-0123456789")
        .env("ANTHROPIC_BASE_URL", server.url())
        .current_dir(d)
        .stdin(Stdio::null());
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

#[test]
fn an_answer_that_never_ends_is_cut_off_at_the_response_cap() {
    let openai: &[(&str, &str)] = &[("CRIT_PROVIDER", "openai"), ("CRIT_MODEL", "gpt-testkit")];
    type Env<'a> = &'a [(&'a str, &'a str)];
    let variants: Vec<(&str, Reply, Env)> = vec![
        (
            "Anthropic text deltas",
            Reply::endless("x".repeat(4096)),
            &[],
        ),
        ("Anthropic one-byte deltas", Reply::endless("y"), &[]),
        (
            "OpenAI content chunks",
            Reply::endless("z".repeat(4096)),
            openai,
        ),
        (
            "a 200 answer that is one endless line",
            Reply::endless_error(200),
            &[],
        ),
        (
            "Anthropic deltas in tiny network pieces",
            Reply::endless("w".repeat(512)).chunked(7),
            &[],
        ),
    ];
    for (name, reply, env) in variants {
        let dir = project();
        let server = FakeServer::start_blocking();
        server.push(Step::reply(reply));
        let mut env = env.to_vec();
        let url = format!("{}/v1", server.url());
        if env.iter().any(|(k, _)| *k == "CRIT_PROVIDER") {
            env.push(("OPENAI_BASE_URL", &url));
        }
        let out = review_capped(dir.path(), &server, &env, &["--exit-code"]);
        let r = json_out(&out);
        assert_eq!(r["verdict"], "ERROR", "{name}: {r}\n{}", stderr(&out));
        let error = r["parse_error"].as_str().unwrap();
        assert!(error.contains(RESPONSE_CAP), "{name}: {error}");
        assert_eq!(out.status.code(), Some(3), "{name}");
        assert_eq!(session_results(dir.path())[0]["verdict"], "ERROR", "{name}");
        assert_eq!(temp_files(dir.path()), Vec::<PathBuf>::new(), "{name}");
        assert_eq!(server.model_requests().len(), 1, "{name}: not retried");
    }
}

#[test]
fn an_endless_error_body_is_read_only_up_to_the_cap() {
    for status in [400, 500, 529] {
        let dir = project();
        let server = FakeServer::start_blocking();
        for _ in 0..4 {
            server.push(Step::reply(
                Reply::endless_error(status).with_header("x-should-retry", "false"),
            ));
        }
        let out = review_capped(dir.path(), &server, &[], &[]);
        let r = json_out(&out);
        assert_eq!(r["verdict"], "ERROR", "{status}: {r}");
        // The message quotes the body, but never the whole of it.
        let error = r["parse_error"].as_str().unwrap();
        assert!(error.len() < 40 * 1024 * 1024, "{status}");
        assert_eq!(out.status.code(), Some(3), "{status}");
    }
}

/// The tool results crit sent back in `req` (its last message).
fn results(req: &RecordedRequest) -> Vec<(String, bool)> {
    let last = req.body["messages"].as_array().unwrap().last().unwrap();
    last["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| {
            let text = match &b["content"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (text, b["is_error"] == true)
        })
        .collect()
}

#[test]
fn a_turn_runs_at_most_64_tool_calls_and_answers_the_rest_with_an_error() {
    let read = || ("Read", json!({"file_path": "notes.md"}));
    let variants: Vec<(&str, Reply, usize, usize)> = vec![
        ("3000 reads", Reply::tool_uses(vec![read(); 3000]), 3000, 64),
        ("65 reads", Reply::tool_uses(vec![read(); 65]), 65, 64),
        ("64 reads", Reply::tool_uses(vec![read(); 64]), 64, 64),
        (
            "3000 calls of a tool that does not exist",
            Reply::tool_uses(vec![("Write", json!({"file_path": "x"})); 3000]),
            3000,
            0,
        ),
        (
            "two calls with input that is not JSON",
            Reply::tool_use_raw("Read", "{\"file_path\": ").then_tool_use_raw("Read", "[1,"),
            2,
            0,
        ),
    ];
    for (name, reply, calls, ran) in variants {
        let dir = project();
        let server = FakeServer::start_blocking();
        server.push(Step::reply(reply));
        server.push(Step::reply(Reply::json(pass())));
        let out = review_capped(dir.path(), &server, &[], &["--exit-code"]);
        let r = json_out(&out);
        assert_eq!(r["verdict"], "PASS", "{name}: the review goes on: {r}");
        assert_eq!(out.status.code(), Some(0), "{name}");
        let sent = results(&server.model_requests()[1]);
        assert_eq!(sent.len(), calls, "{name}: every call is answered");
        let ok = sent.iter().filter(|(_, err)| !err).count();
        assert_eq!(ok, ran, "{name}");
        let refused = sent
            .iter()
            .filter(|(t, _)| t.contains("a turn may make at most 64 tool calls"))
            .count();
        assert_eq!(refused, calls.saturating_sub(64), "{name}");
        assert!(
            sent[..ran]
                .iter()
                .all(|(t, _)| t.contains("Drop the users table")),
            "{name}"
        );
    }
}

/// $0.20 a call on claude-opus-5-5 ($4 per million input tokens).
fn costly(r: Reply) -> Reply {
    r.model("claude-opus-5-5").usage(50_000, 0, 0, 0)
}

#[test]
fn the_budget_holds_for_crit_run_its_sub_agents_and_template_reviews() {
    let lead = |r: Reply| Step::when_contains("I-AM-LEAD").reply(costly(r));
    let alpha = |r: Reply| Step::when_contains("I-AM-ALPHA").reply(costly(r));
    let read = || Reply::tool_use("Read", json!({"file_path": "notes.md"}));
    // (name, lead's first turn, sub-agents launched, budget)
    let variants: Vec<(&str, Reply, usize, &str)> = vec![
        (
            "one looping sub-agent",
            Reply::tool_uses(vec![task("alpha")]),
            1,
            "1",
        ),
        (
            "two sub-agents at once",
            Reply::tool_uses(vec![task("alpha"); 2]),
            2,
            "1",
        ),
        (
            "six sub-agents at once",
            Reply::tool_uses(vec![task("alpha"); 6]),
            6,
            "1",
        ),
        ("a lead that only reads", read(), 0, "1"),
        (
            "a small budget",
            Reply::tool_uses(vec![task("alpha"); 3]),
            3,
            "0.5",
        ),
    ];
    for (name, first, agents, budget) in variants {
        let dir = project();
        let cfg = tempfile::tempdir().unwrap();
        let config = run_config(cfg.path(), &["alpha"], 100);
        let server = FakeServer::start_blocking();
        server.push(lead(first));
        for _ in 0..60 {
            server.push(alpha(read()));
            server.push(lead(read()));
        }
        let out = crit_run(dir.path(), &server, &config, &["--max-budget-usd", budget]);
        let r = json_out(&out);
        let limit: f64 = budget.parse().unwrap();
        let cost = r["cost_usd"].as_f64().unwrap();
        // Each agent running at the time may finish the call it is in.
        let slack = 0.2 * (agents as f64 + 1.0) + 1e-9;
        assert!(cost >= limit, "{name}: stopped before the budget: {cost}");
        assert!(
            cost <= limit + slack,
            "{name}: ${cost} on a ${limit} budget"
        );
        assert_eq!(r["verdict"], "INCOMPLETE", "{name}: {r}");
        assert_eq!(r["passed"], false, "{name}");
        assert_ne!(out.status.code(), Some(0), "{name}");
        let calls = server.model_requests().len() as f64;
        assert!(calls * 0.2 <= limit + slack + 1e-9, "{name}: {calls} calls");
        let saved = session_results(dir.path());
        assert_eq!(saved[0]["verdict"], "INCOMPLETE", "{name}");
    }
    // A template review: the reviewer stops at the budget too.
    let dir = project();
    let server = FakeServer::start_blocking();
    for _ in 0..30 {
        server.push(Step::reply(costly(read())));
    }
    let out = support::crit(dir.path(), &server, None)
        .args(ARCH_REVIEW)
        .args(["--max-budget-usd", "0.5"])
        .output()
        .unwrap();
    let r = json_out(&out);
    assert_eq!(r["verdict"], "INCOMPLETE", "{r}");
    assert_eq!(r["parse_error"], "max_budget_usd", "{r}");
    assert_eq!(server.model_requests().len(), 3, "0.2 + 0.2 + 0.2 ≥ 0.5");
}

#[test]
fn no_more_than_eight_sub_agents_run_at_once() {
    let dir = project();
    let cfg = tempfile::tempdir().unwrap();
    let config = run_config(cfg.path(), &["alpha"], 10);
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("I-AM-LEAD").reply(Reply::tool_uses(vec![task("alpha"); 20])));
    for _ in 0..20 {
        server.push(
            Step::when_contains("I-AM-ALPHA")
                .reply(Reply::text("Nothing found.").delay(Duration::from_millis(300))),
        );
    }
    server.push(Step::when_contains("I-AM-LEAD").reply(Reply::json(pass())));
    let out = crit_run(dir.path(), &server, &config, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", json_out(&out));
    let subs: Vec<RecordedRequest> = server
        .model_requests()
        .into_iter()
        .filter(|r| r.body.to_string().contains("I-AM-ALPHA"))
        .collect();
    assert_eq!(subs.len(), 20);
    // The most requests in flight at one moment: a sweep over arrivals (+1)
    // and answers (-1), answers first when they coincide.
    let mut events: Vec<(std::time::Instant, i32)> = subs
        .iter()
        .flat_map(|r| [(r.received_at, 1), (r.responded_at, -1)])
        .collect();
    events.sort();
    let (mut now, mut most) = (0, 0);
    for (_, step) in events {
        now += step;
        most = most.max(now);
    }
    assert!(most <= 8, "{most} sub-agents at once");
    assert!(most >= 2, "they still run concurrently: {most}");
}

fn crit_plain(dir: &Path, args: &[&str], stdin: Stdio) -> Output {
    Command::new(env!("CARGO_BIN_EXE_crit"))
        .args(args)
        .env_clear()
        .env("HOME", dir.join(".home"))
        .env("XDG_STATE_HOME", dir.join(".state"))
        .env("PATH", "/nonexistent")
        .current_dir(dir)
        .stdin(stdin)
        .output()
        .unwrap()
}

fn zero() -> Stdio {
    Stdio::from(std::fs::File::open("/dev/zero").unwrap())
}

#[test]
fn input_files_are_read_up_to_the_input_cap() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let big = d.join("big.json");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(40 * 1024 * 1024).unwrap();
    // plan sessions: a huge plan, checks that are a device, a plan that is one
    let session = |name: &str| {
        let s = d.join(name);
        std::fs::create_dir_all(&s).unwrap();
        std::fs::write(
            s.join("checks.yaml"),
            "checks:\n  - id: x\n    pattern: eval\n    reason: r\n",
        )
        .unwrap();
        std::fs::write(s.join("plan.md"), "# Plan\n").unwrap();
        s
    };
    let huge_plan = session("huge-plan");
    std::fs::copy(&big, huge_plan.join("plan.md")).unwrap();
    let zero_checks = session("zero-checks");
    std::fs::remove_file(zero_checks.join("checks.yaml")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", zero_checks.join("checks.yaml")).unwrap();
    let zero_context = session("zero-context");
    std::os::unix::fs::symlink("/dev/zero", zero_context.join("context.yaml")).unwrap();
    let zero_state = session("zero-state");
    std::os::unix::fs::symlink("/dev/zero", zero_state.join("state.yaml")).unwrap();
    let s = |p: &Path| p.display().to_string();
    type Variant = (&'static str, Vec<String>, Stdio, i32, String);
    let variants: Vec<Variant> = vec![
        (
            "report /dev/zero",
            vec!["report".into(), "/dev/zero".into()],
            Stdio::null(),
            2,
            "/dev/zero".into(),
        ),
        (
            "report a 40 MiB file",
            vec!["report".into(), s(&big)],
            Stdio::null(),
            2,
            s(&big),
        ),
        (
            "report - from /dev/zero",
            vec!["report".into(), "-".into()],
            zero(),
            2,
            "<stdin>".into(),
        ),
        (
            "plan with a 40 MiB plan",
            vec!["plan".into(), s(&huge_plan)],
            Stdio::null(),
            2,
            s(&huge_plan.join("plan.md")),
        ),
        (
            "plan verify with a 40 MiB plan",
            vec!["plan".into(), "verify".into(), s(&huge_plan)],
            Stdio::null(),
            2,
            s(&huge_plan.join("plan.md")),
        ),
        (
            "run - from /dev/zero",
            vec!["run".into(), "-".into()],
            zero(),
            2,
            "<stdin>".into(),
        ),
        (
            "hook input from /dev/zero",
            vec!["hook".into(), "claude-code".into(), "PreToolUse".into()],
            zero(),
            2,
            "<stdin>".into(),
        ),
    ];
    for (name, args, stdin, code, file) in variants {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = crit_plain(d, &args, stdin);
        let all = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
        assert_eq!(o.status.code(), Some(code), "{name}: {all}");
        assert!(all.contains(INPUT_CAP), "{name}: {all}");
        assert!(all.contains(&file), "{name} names {file}: {all}");
    }
    // A plan directory's files that are symlinks (to a device here) are
    // refused before anything is read, naming the link.
    let (checks, context, state) = (s(&zero_checks), s(&zero_context), s(&zero_state));
    let refused = [
        (vec!["plan", &checks], "checks.yaml"),
        (vec!["plan", &context], "context.yaml"),
        (vec!["plan", "verify", &checks], "checks.yaml"),
        (vec!["plan", &state], "state.yaml"),
    ];
    for (args, name) in refused {
        let o = crit_plain(d, &args, Stdio::null());
        let all = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
        assert_eq!(o.status.code(), Some(2), "{args:?}: {all}");
        assert!(all.contains(&format!("{name} is a symbolic link")), "{all}");
    }
    // `--context FILE` of a review
    let p = project();
    let server = FakeServer::start_blocking();
    let o = support::crit(p.path(), &server, None)
        .args([
            "review",
            "code",
            "--all",
            "--context",
            "/dev/zero",
            "--json",
        ])
        .output()
        .unwrap();
    assert_ne!(o.status.code(), Some(0));
    assert!(
        stderr(&o).contains("/dev/zero") && stderr(&o).contains("32 MiB"),
        "{}",
        stderr(&o)
    );
    assert_eq!(server.model_requests().len(), 0);
    assert_eq!(temp_files(d), Vec::<PathBuf>::new());
}

#[test]
fn the_plan_panel_shares_one_budget() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let session = d.join("session");
    write(&session, "plan.md", "# Plan\n\nParse with JSON.parse.\n");
    write(
        &session,
        "context.yaml",
        "reviewer_personas:\n  - name: A\n  - name: B\n  - name: C\n",
    );
    write(
        &session,
        "checks.yaml",
        "checks:\n  - id: no_eval\n    pattern: eval\n    reason: r\n",
    );
    let server = FakeServer::start_blocking();
    for _ in 0..40 {
        server.push(Step::reply(costly(Reply::tool_use(
            "Read",
            json!({"file_path": "plan.md"}),
        ))));
    }
    let o = support::crit(d, &server, None)
        .args(["plan", session.to_str().unwrap(), "--max-budget-usd", "0.5"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_ne!(o.status.code(), Some(0), "{out}");
    assert!(!out.starts_with("APPROVED"), "{out}");
    assert!(!session.join("plan.approved").exists());
    // $0.20 a call: three personas reach $0.50 within one call each of it.
    let calls = server.model_requests().len();
    assert!((3..=6).contains(&calls), "{calls} calls");
    assert_eq!(temp_files(d), Vec::<PathBuf>::new());
}
