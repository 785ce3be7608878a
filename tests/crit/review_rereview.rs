//! A second review of a change after a one-hunk fix pays full price only
//! for what changed: every request keeps the stable prefix (the system
//! prompt, the conventions, the tools, then the part's diff) byte for byte
//! and cache-marked, and what a new commit changes everywhere (the range,
//! the commits) comes after it. Measured on crit-testkit's fake server with
//! the Anthropic prompt cache simulated (tokens are `bytes / 4` of each
//! block), with the hunk cache off so that every part is sent both times (as
//! when the first review found something in every file). The cache works a
//! block at a time, so the part holding the fix is sent again whole: the
//! second review's share is about one part's (a quarter, here).

use crate::support;

use crit_testkit::{FakeServer, Reply, replay_prompt_cache};
use serde_json::{Value, json};
use support::{crit, git, init_repo, json_out, write};

fn file(i: usize, changed_line: Option<usize>) -> String {
    (0..2000)
        .map(|j| match changed_line == Some(j) {
            true => format!("f{i} l{j} fixed\n"),
            false => format!("f{i} l{j} {}\n", "y".repeat(64)),
        })
        .collect()
}

/// Four files of 150 KB each, added on the branch: four parts.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, "README", "base\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    git(d, &["checkout", "-q", "-b", "work"]);
    for i in 0..4 {
        write(d, &format!("m{i}/code.py"), &file(i, None));
    }
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "change"]);
    dir
}

fn review(d: &std::path::Path, server: &FakeServer) -> Value {
    for _ in 0..4 {
        server.push(Reply::json(
            json!({"verdict": "PASS", "summary": "s", "findings": []}),
        ));
    }
    let out = crit(d, server, None)
        .args([
            "review",
            "code",
            "--diff",
            "main..HEAD",
            "--json",
            "--no-log",
        ])
        .args(["--no-cache", "--verify", "off", "--max-cost", "100"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", support::show(&out));
    json_out(&out)
}

#[test]
fn a_second_review_after_a_one_hunk_fix_sends_under_30_percent_uncached() {
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    let min = 1024;
    server.simulate_prompt_cache(min);
    let first = review(d, &server);
    assert_eq!(first["coverage"]["chunks"], 4);
    // One line of one file fixed, in a commit of its own.
    write(d, "m1/code.py", &file(1, Some(700)));
    git(d, &["commit", "-q", "-am", "fix"]);
    let second = review(d, &server);
    let bodies: Vec<Value> = server
        .model_requests()
        .iter()
        .map(|r| r.body.clone())
        .collect();
    assert_eq!(bodies.len(), 8);
    let usage = replay_prompt_cache(&bodies, min);
    // What is paid at full price or more: input not read from the cache.
    let uncached =
        |us: &[crit_testkit::Usage]| -> u64 { us.iter().map(|u| u.input + u.cache_write).sum() };
    let (one, two) = (uncached(&usage[..4]), uncached(&usage[4..]));
    let share = two as f64 / one as f64;
    println!(
        "re-review after a one-hunk fix: first {one} uncached input tokens, second {two} ({:.1}%)",
        share * 100.0
    );
    assert!(share <= 0.30, "{two} of {one}");
    // The result says cached and uncached input apart.
    let u = &second["usage"];
    assert!(u["cache_read_tokens"].as_u64().unwrap() > 0, "{u}");
    assert!(
        u["input_tokens"].as_u64().unwrap() + u["cache_write_tokens"].as_u64().unwrap()
            < first["usage"]["input_tokens"].as_u64().unwrap()
                + first["usage"]["cache_write_tokens"].as_u64().unwrap(),
        "{u} vs {}",
        first["usage"]
    );
    // The range and the commits follow the diff, outside the cached prefix.
    let message = bodies[4]["messages"][0]["content"].as_array().unwrap();
    assert!(message[0].get("cache_control").is_some(), "{message:?}");
    assert!(message[0]["text"].as_str().unwrap().contains("<diff>"));
    assert!(!message[0]["text"].as_str().unwrap().contains("<commits>"));
    assert!(message[1]["text"].as_str().unwrap().contains("<commits>"));
}
