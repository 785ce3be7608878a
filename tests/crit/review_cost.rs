//! What a code review costs, measured on crit-testkit's fake server with its
//! prompt cache simulated the way the Anthropic API keeps one (tokens are
//! `bytes / 4` of each block, the model's cache minimum from crit's model
//! table): the rolling breakpoint makes every turn of a review read the
//! turns before it from cache; an incremental review costs less than the
//! first; and each built-in template's shared prefix against each model's
//! minimum. The figures are printed (`--nocapture`) and asserted only in the
//! direction they must go.

use crate::support;

use crit_core::Usage;
use crit_testkit::{FakeServer, Reply, replay_prompt_cache, system_prefix_tokens};
use serde_json::{Value, json};
use support::{crit, git, init_repo, json_out, write};

fn usage(u: &crit_testkit::Usage) -> Usage {
    Usage {
        input_tokens: u.input,
        output_tokens: u.output,
        cache_write_tokens: u.cache_write,
        cache_read_tokens: u.cache_read,
    }
}

fn sum(us: &[crit_testkit::Usage]) -> Usage {
    let mut t = Usage::default();
    for u in us {
        t += usage(u);
    }
    t
}

/// The request without the breakpoints in its messages: how crit asked
/// before the rolling breakpoint (tools and system only).
fn without_message_breakpoints(body: &Value) -> Value {
    let mut b = body.clone();
    for m in b["messages"].as_array_mut().into_iter().flatten() {
        for block in m["content"].as_array_mut().into_iter().flatten() {
            if let Some(o) = block.as_object_mut() {
                o.remove("cache_control");
            }
        }
    }
    b
}

/// `main` has `src/big.py` (600 lines) and `src/app.py`; the branch changes
/// line 5 of `app.py` and line 300 of `big.py`.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    let big = |marker: &str| -> String {
        (1..=600)
            .map(|n| match n {
                300 => format!("{marker}\n"),
                _ => {
                    format!("def helper_{n}(x):  return x * {n}  # padding to make the file real\n")
                }
            })
            .collect()
    };
    write(d, "src/big.py", &big("BASE = 1"));
    write(d, "src/app.py", "import big\n\n\ndef main():\n    pass\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    git(d, &["checkout", "-q", "-b", "work"]);
    write(d, "src/big.py", &big("BASE = 2"));
    write(
        d,
        "src/app.py",
        "import big\n\n\ndef main():\n    eval(input())\n",
    );
    git(d, &["commit", "-q", "-am", "change"]);
    dir
}

#[test]
fn a_six_turn_review_pays_full_price_for_far_fewer_input_tokens_with_the_rolling_breakpoint() {
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    let probe = FakeServer::start_blocking();
    probe.push(Reply::json(
        json!({"verdict": "PASS", "summary": "s", "findings": []}),
    ));
    crit(d, &probe, None)
        .args([
            "review",
            "code",
            "--diff",
            "main..HEAD",
            "--json",
            "--no-log",
            "--no-cache",
        ])
        .output()
        .unwrap();
    let model = probe.model_requests()[0].body["model"]
        .as_str()
        .unwrap()
        .to_string();
    let min = crit_llm::pricing::cache_min_tokens(&model);
    server.simulate_prompt_cache(min);
    // Five turns of reading, then the answer: six requests.
    for (offset, limit) in [(1, 120), (120, 120), (240, 120), (360, 120), (480, 120)] {
        server.push(Reply::tool_use(
            "Read",
            json!({"file_path": "src/big.py", "offset": offset, "limit": limit}),
        ));
    }
    server.push(Reply::json(
        json!({"verdict": "PASS", "summary": "s", "findings": []}),
    ));
    let out = crit(d, &server, None)
        .args([
            "review",
            "code",
            "--diff",
            "main..HEAD",
            "--json",
            "--no-log",
            "--no-cache",
        ])
        .output()
        .unwrap();
    let r = json_out(&out);
    let bodies: Vec<Value> = server
        .model_requests()
        .iter()
        .map(|r| r.body.clone())
        .collect();
    assert_eq!(bodies.len(), 6, "{}", support::stderr(&out));
    let last = bodies.last().unwrap();
    let marked = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .any(|b| b.get("cache_control").is_some());
    assert!(marked, "the conversation carries a cache breakpoint");

    let after = sum(&replay_prompt_cache(&bodies, min));
    let before_bodies: Vec<Value> = bodies.iter().map(without_message_breakpoints).collect();
    let before = sum(&replay_prompt_cache(&before_bodies, min));
    let cost = |u: &Usage| crit_llm::pricing::cost(&model, u).usd;
    println!(
        "6-turn code review on {model} (cache minimum {min}):\n  before: {} input at full price, {} written, {} read, ${:.4}\n  after:  {} input at full price, {} written, {} read, ${:.4}\n  result: cost_usd {}",
        before.input_tokens,
        before.cache_write_tokens,
        before.cache_read_tokens,
        cost(&before),
        after.input_tokens,
        after.cache_write_tokens,
        after.cache_read_tokens,
        cost(&after),
        r["cost_usd"],
    );
    assert!(
        after.input_tokens < before.input_tokens / 2,
        "{after:?} vs {before:?}"
    );
    assert!(cost(&after) < cost(&before));
}

#[test]
fn an_incremental_review_costs_less_than_the_first() {
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.simulate_prompt_cache(1024);
    let answer = || Reply::json(json!({"verdict": "PASS", "summary": "s", "findings": []}));
    server.push(answer());
    let run = || {
        let out = crit(d, &server, None)
            .args([
                "review",
                "code",
                "--diff",
                "main..HEAD",
                "--json",
                "--no-log",
            ])
            .output()
            .unwrap();
        json_out(&out)
    };
    let first = run();
    // A fix to app.py only: big.py's hunk comes from the hunk cache.
    write(
        d,
        "src/app.py",
        "import big\n\n\ndef main():\n    print(input())\n",
    );
    git(d, &["commit", "-q", "-am", "fix"]);
    server.push(answer());
    let second = run();
    let bodies: Vec<Value> = server
        .model_requests()
        .iter()
        .map(|r| r.body.clone())
        .collect();
    assert_eq!(bodies.len(), 2);
    let first_bytes = bodies[0]["messages"].to_string().len();
    let second_bytes = bodies[1]["messages"].to_string().len();
    let u = replay_prompt_cache(&bodies, 1024);
    let total = |u: &crit_testkit::Usage| u.input + u.cache_write + u.cache_read;
    println!(
        "incremental review: first {} input tokens ({} bytes of messages, cost_usd {}), second {} ({} bytes, cost_usd {}); hunks reviewed {} then {}, cached {}",
        total(&u[0]),
        first_bytes,
        first["cost_usd"],
        total(&u[1]),
        second_bytes,
        second["cost_usd"],
        first["coverage"]["hunks_reviewed"],
        second["coverage"]["hunks_reviewed"],
        second["coverage"]["hunks_cached"],
    );
    assert_eq!(second["coverage"]["hunks_cached"], 1);
    assert!(second_bytes < first_bytes);
    assert!(total(&u[1]) < total(&u[0]));
    // What the cache saved: the cached hunk's share of the first review's
    // cost, reported beside what the second one spent.
    let first_cost = first["cost_usd"].as_f64().unwrap();
    let saved = second["coverage"]["cached_cost_usd"].as_f64().unwrap();
    println!("saved by the hunk cache: {saved} of the first review's {first_cost}");
    assert!(saved > 0.0 && saved < first_cost, "{saved} of {first_cost}");
    assert!(first["coverage"].get("cached_cost_usd").is_none());
    // Nothing new: no model call, and the whole of what was saved is said.
    let out = crit(d, &server, None)
        .args(["review", "code", "--diff", "main..HEAD", "--no-log"])
        .output()
        .unwrap();
    assert_eq!(server.model_requests().len(), 2, "{}", support::show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("saved by the hunk cache"), "{text}");
}

#[test]
fn each_built_in_template_shares_a_prefix_and_its_length_against_each_model_minimum() {
    let dir = support::arch_project();
    let d = dir.path();
    init_repo(d);
    write(d, "plan.md", "# Plan\n\n1. Drop the table.\n2. Ship.\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    write(d, "notes.md", "# Slice\n\nDrop the users table now.\n");
    let runs: [(&str, Vec<&str>); 3] = [
        ("code", vec!["review", "code", "--uncommitted"]),
        (
            "arch",
            vec!["review", "arch", "notes.md", "--against", "hld.md"],
        ),
        (
            "tasks",
            vec!["review", "tasks", "plan.md", "--against", "hld.md"],
        ),
    ];
    let table = crit_llm::pricing::table();
    let mut lines = Vec::new();
    for (name, args) in runs {
        let server = FakeServer::start_blocking();
        server.push(Reply::json(support::pass()));
        let out = crit(d, &server, None)
            .args(&args)
            .args(["--json", "--no-log", "--verify", "off"])
            .output()
            .unwrap();
        let reqs = server.model_requests();
        assert!(!reqs.is_empty(), "{name}: {}", support::stderr(&out));
        let tokens = system_prefix_tokens(&reqs[0].body);
        assert!(tokens > 0, "{name}");
        let mut below: Vec<String> = table
            .models
            .iter()
            .filter(|(m, _)| crit_llm::pricing::cache_min_tokens(m) > tokens)
            .map(|(m, _)| m.clone())
            .collect();
        below.sort();
        lines.push(format!(
            "{name}: shared prefix ≈ {tokens} tokens; under the cache minimum of: {}",
            if below.is_empty() {
                "none".to_string()
            } else {
                below.join(", ")
            }
        ));
    }
    println!("{}", lines.join("\n"));
}

/// `files` files of 150 KB, added on the branch: one part each.
fn files_repo(files: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, "README", "base\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    git(d, &["checkout", "-q", "-b", "work"]);
    for i in 0..files {
        let text: String = (0..2000)
            .map(|j| format!("f{i} l{j} {}\n", "y".repeat(64)))
            .collect();
        write(d, &format!("m{i}/code.py"), &text);
    }
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "change"]);
    dir
}

#[test]
fn four_parts_run_side_by_side() {
    let mut times = Vec::new();
    for files in [1, 4] {
        let dir = files_repo(files);
        let server = FakeServer::start_blocking();
        for _ in 0..files {
            server.push(
                Reply::json(json!({"verdict": "PASS", "summary": "s", "findings": []}))
                    .delay(std::time::Duration::from_millis(1500)),
            );
        }
        let started = std::time::Instant::now();
        let out = crit(dir.path(), &server, None)
            .args([
                "review",
                "code",
                "--diff",
                "main..HEAD",
                "--json",
                "--no-log",
                "--no-cache",
            ])
            .output()
            .unwrap();
        let wall = started.elapsed();
        let r = json_out(&out);
        assert_eq!(r["coverage"]["chunks"], files, "{}", support::stderr(&out));
        assert_eq!(server.model_requests().len(), files);
        times.push((files, wall));
    }
    for (parts, wall) in times {
        println!(
            "{parts} part(s), each answered after 1.5 s: {:.2} s wall",
            wall.as_secs_f64()
        );
    }
}
