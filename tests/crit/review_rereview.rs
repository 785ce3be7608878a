//! A second review of a change after a one-hunk fix pays full price only
//! for what changed: every request keeps the stable prefix (the system
//! prompt, the conventions, the tools, then the part's diff) byte for byte
//! and cache-marked, and what a new commit changes everywhere (the range,
//! the commits) comes after it. Measured on crit-testkit's fake server with
//! the Anthropic prompt cache simulated (tokens are `bytes / 4` of each
//! block), with the hunk cache off so that every part is sent both times (as
//! when the first review found something in every file). The cache works a
//! block at a time: a big part's diff is two cached blocks, so the part
//! holding the fix is sent again from the block the fix is in, and the
//! second review's share stays under 30% with three parts as with four.

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

/// `n` files of 150 KB each, added on the branch: `n` parts.
fn repo(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, "README", "base\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    git(d, &["checkout", "-q", "-b", "work"]);
    for i in 0..n {
        write(d, &format!("m{i}/code.py"), &file(i, None));
    }
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "change"]);
    dir
}

fn review(d: &std::path::Path, server: &FakeServer, n: usize) -> Value {
    for _ in 0..n {
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
    for parts in [3, 4] {
        second_review_share(parts);
    }
}

fn second_review_share(n: usize) {
    let dir = repo(n);
    let d = dir.path();
    let server = FakeServer::start_blocking();
    let min = 1024;
    server.simulate_prompt_cache(min);
    let first = review(d, &server, n);
    assert_eq!(first["coverage"]["chunks"], n);
    // One line of one file fixed, in a commit of its own.
    write(d, "m1/code.py", &file(1, Some(700)));
    git(d, &["commit", "-q", "-am", "fix"]);
    let second = review(d, &server, n);
    let bodies: Vec<Value> = server
        .model_requests()
        .iter()
        .map(|r| r.body.clone())
        .collect();
    assert_eq!(bodies.len(), 2 * n);
    let usage = replay_prompt_cache(&bodies, min);
    // What is paid at full price or more: input not read from the cache.
    let uncached =
        |us: &[crit_testkit::Usage]| -> u64 { us.iter().map(|u| u.input + u.cache_write).sum() };
    let (one, two) = (uncached(&usage[..n]), uncached(&usage[n..]));
    let share = two as f64 / one as f64;
    println!(
        "re-review after a one-hunk fix, {n} parts: first {one} uncached input tokens, second {two} ({:.1}%)",
        share * 100.0
    );
    assert!(share <= 0.30, "{n} parts: {two} of {one}");
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
    // The diff comes first, in cached blocks (a big part's in two, so a fix
    // in its later half still reads the first from the cache); the range
    // and the commits follow it, outside the cached prefix.
    let message = bodies[n]["messages"][0]["content"].as_array().unwrap();
    let commits = message
        .iter()
        .position(|b| b["text"].as_str().unwrap().contains("<commits>"))
        .unwrap();
    assert!(commits >= 1, "{message:?}");
    assert!(message[0]["text"].as_str().unwrap().contains("<diff>"));
    for b in &message[..commits] {
        assert!(b.get("cache_control").is_some(), "{message:?}");
        assert!(!b["text"].as_str().unwrap().contains("<commits>"));
    }
}
