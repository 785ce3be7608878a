//! Three ways past the user's spending limit, closed: a model with no known
//! price (its spending is never counted), parts running side by side (each
//! started before the others' cost was known), and the second look at the
//! findings (sent after the review had spent the budget).

use crate::support;

use std::path::Path;

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::json;
use support::gate::{answer, finding};
use support::{crit, git, init_repo, json_out, write};

use super::stop_gate::{EVAL, blocked, every_agent, repo, stop};

fn branch_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, "app.py", "def main():\n    pass\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    git(d, &["checkout", "-q", "-b", "work"]);
    write(
        d,
        "app.py",
        "def main():\n    eval(input())\n    return 1\n",
    );
    git(d, &["commit", "-q", "-am", "change"]);
    dir
}

fn config(d: &Path, text: &str) {
    write(d, ".home/.config/crit/config.yaml", text);
}

fn review(d: &Path, server: &FakeServer, extra: &[&str]) -> std::process::Output {
    crit(d, server, None)
        .args([
            "review",
            "code",
            "--diff",
            "main..HEAD",
            "--json",
            "--no-log",
            "--no-cache",
        ])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn a_model_with_no_known_price_is_not_sent_under_a_limit() {
    let dir = branch_repo();
    let d = dir.path();
    config(d, "max_cost_usd: 0.05\nmodel: my-company-proxy-model\n");
    let server = FakeServer::start_blocking();
    for _ in 0..13 {
        server.push(Step::reply(
            Reply::tool_use("Read", json!({"file_path": "app.py"})).usage(1_000_000, 100, 0, 0),
        ));
    }
    server.push(Step::reply(Reply::json(support::pass())));
    let out = review(d, &server, &[]);
    assert_ne!(out.status.code(), Some(0), "{}", support::show(&out));
    let err = support::stderr(&out);
    assert!(err.contains("no known price"), "{err}");
    assert!(err.contains("--yes"), "{err}");
    assert!(server.model_requests().is_empty());

    // --yes is the user's word: sent.
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::json(support::pass())));
    let out = review(d, &server, &["--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", support::show(&out));
    assert_eq!(server.model_requests().len(), 1);
}

#[test]
fn the_stop_gate_holds_when_the_model_has_no_known_price() {
    every_agent(|| {
        let dir = repo(EVAL);
        let d = dir.path();
        config(d, "max_cost_usd: 0.05\nmodel: my-company-proxy-model\n");
        let server = FakeServer::start_blocking();
        server.push(Step::reply(Reply::json(support::pass())));
        let reason = blocked(&stop(
            d,
            &server,
            &super::stop_gate::event(Some("s"), false),
            &[],
        ));
        assert!(reason.contains("no known price"), "{reason}");
        assert!(server.model_requests().is_empty());
    });
}

/// `files` files of 150 KB added on the branch: one part each.
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
fn parts_side_by_side_stop_at_the_limit() {
    let dir = files_repo(6);
    let d = dir.path();
    let server = FakeServer::start_blocking();
    // Each part's one answer costs $0.80 on sonnet: far over its estimate.
    for _ in 0..6 {
        server.push(Step::reply(
            Reply::json(support::pass()).usage(400_000, 100, 0, 0),
        ));
    }
    let out = review(d, &server, &["--max-cost", "2.00", "--verify", "off"]);
    let v = json_out(&out);
    assert_ne!(v["verdict"], "PASS", "{v}");
    assert_eq!(v["verdict"], "INCOMPLETE", "{v}");
    let cost = v["cost_usd"].as_f64().unwrap();
    assert!(cost <= 2.0, "${cost} spent against a $2 limit: {v}");
    let sent = server.model_requests().len();
    assert!((1..6).contains(&sent), "{sent} parts sent: {v}");
    // The parts not sent are listed, for the budget.
    let left = v["coverage"]["left_out"].as_array().unwrap();
    assert_eq!(left.len(), 6 - sent, "{v}");
    assert!(left.iter().all(|l| l["cause"] == "budget"), "{v}");
}

#[test]
fn the_second_look_gets_only_what_is_left_of_the_budget() {
    let dir = branch_repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    let findings = (1..=4)
        .map(|n| finding("app.py", 2, 1, &format!("eval of input {n}")))
        .collect();
    server.push(Step::reply(
        answer("FAIL", findings).usage(1_000_000, 100, 0, 0),
    ));
    for _ in 0..4 {
        server.push(Step::reply(
            Reply::json(json!({"outcome": "refuted", "reason": "no"})).usage(1_000_000, 100, 0, 0),
        ));
    }
    let out = review(d, &server, &["--max-cost", "0.20", "--verify", "all"]);
    let v = json_out(&out);
    assert_eq!(server.model_requests().len(), 1, "{v}");
    assert_ne!(v["verdict"], "PASS", "{v}");
    let text = v.to_string();
    assert!(text.contains("not checked, kept as reported"), "{v}");
    for n in 1..=4 {
        assert!(text.contains(&format!("eval of input {n}")), "{v}");
    }
}

/// A review of documents is held to the limit as one of a change is: a
/// reviewer whose first turn spent past what was approved is stopped there
/// (INCOMPLETE), not given its second turn.
#[test]
fn a_document_review_stops_at_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(
        d,
        "slice.md",
        "# Slice\n\nRead users straight from the table.\n",
    );
    write(
        d,
        "arch.md",
        "# Architecture\n\nOnly repositories touch storage.\n",
    );
    let server = FakeServer::start_blocking();
    // One turn costs $3 on sonnet; the answer after it would pass.
    server.push(Step::reply(
        Reply::tool_use("Read", json!({"file_path": "slice.md"})).usage(1_000_000, 100, 0, 0),
    ));
    server.push(Step::reply(Reply::text(
        "## Summary\nPASS\n\nThe slice fits.\n\n## Findings\n\n### [PASS] Fits\nNothing crosses a boundary.\n",
    )));
    let out = crit(d, &server, None)
        .args(["review", "arch", "slice.md", "--against", "arch.md"])
        .args(["--json", "--no-log", "--max-cost", "0.50"])
        .output()
        .unwrap();
    let v = json_out(&out);
    assert_eq!(server.model_requests().len(), 1, "{v}");
    assert_ne!(v["verdict"], "PASS", "{v}");
}
