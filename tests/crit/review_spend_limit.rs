//! The user's cost limit (`max_cost_usd`) holds for what a review spends,
//! not only for its estimate: a review sent under the limit whose reviewers
//! then spend past it stops there, INCOMPLETE (the gate fails closed). The
//! Stop gate, with no one to ask, holds the agent with the reason when the
//! estimate is over the limit, and when its review is cut short at it.

use crate::support;

use std::path::Path;

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::json;
use support::{crit, git, init_repo, json_out, write};

use super::stop_gate::{EVAL, agent, blocked, every_agent, repo, stop};

/// `main` has `app.py`; the branch changes it.
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

fn user_limit(d: &Path, usd: &str) {
    write(
        d,
        ".home/.config/crit/config.yaml",
        &format!("max_cost_usd: {usd}\n"),
    );
}

/// A first turn that reads a file and reports a million input tokens
/// (dollars on any known model), then a passing answer.
fn expensive_then_pass(server: &FakeServer, file: &str) {
    server.push(Step::reply(
        Reply::tool_use("Read", json!({"file_path": file})).usage(1_000_000, 100, 0, 0),
    ));
    server.push(Step::reply(Reply::json(support::pass())));
}

#[test]
fn what_a_review_spends_stops_at_the_users_limit() {
    let dir = branch_repo();
    let d = dir.path();
    // The estimate is far under this: sent without asking.
    user_limit(d, "0.50");
    let server = FakeServer::start_blocking();
    expensive_then_pass(&server, "app.py");
    let out = crit(d, &server, None)
        .args([
            "review",
            "code",
            "--diff",
            "main..HEAD",
            "--json",
            "--no-log",
        ])
        .arg("--exit-code")
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0), "{}", support::show(&out));
    let v = json_out(&out);
    assert_eq!(v["passed"], false, "{v}");
    assert_eq!(v["verdict"], "INCOMPLETE", "{v}");
    assert!(v.to_string().contains("over the budget of $0.50"), "{v}");
    // Nothing was asked after the limit was reached.
    assert_eq!(server.model_requests().len(), 1);

    // --yes is the user's word for any cost: the review goes on.
    let server = FakeServer::start_blocking();
    expensive_then_pass(&server, "app.py");
    let out = crit(d, &server, None)
        .args([
            "review",
            "code",
            "--diff",
            "main..HEAD",
            "--json",
            "--no-log",
        ])
        .args(["--yes", "--no-cache"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", support::show(&out));
    assert_eq!(json_out(&out)["verdict"], "PASS");
    assert_eq!(server.model_requests().len(), 2);
}

#[test]
fn the_stop_gate_holds_to_the_users_cost_limit() {
    every_agent(the_stop_gate_holds_to_the_users_cost_limit_in_each_agent);
}

fn the_stop_gate_holds_to_the_users_cost_limit_in_each_agent() {
    // An estimate over the limit: nothing is sent, the agent is held with
    // the reason.
    let dir = repo(EVAL);
    let d = dir.path();
    user_limit(d, "0.0001");
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::json(support::pass())));
    let reason = blocked(&stop(
        d,
        &server,
        &super::stop_gate::event(Some("s"), false),
        &[],
    ));
    assert!(reason.contains("max_cost_usd $0.00"), "{reason}");
    assert!(reason.contains("config.yaml"), "{reason}");
    assert!(server.model_requests().is_empty());

    // Under the limit by its estimate, over it as it spends: cut short,
    // and the agent is held.
    let dir = repo(EVAL);
    let d = dir.path();
    user_limit(d, "0.50");
    let server = FakeServer::start_blocking();
    expensive_then_pass(&server, "src/app.py");
    let out = stop(d, &server, &super::stop_gate::event(Some("s"), false), &[]);
    let reason = blocked(&out);
    assert!(reason.contains("over the budget of $0.50"), "{reason}");
    assert_eq!(server.model_requests().len(), 1, "{}", agent().id);
}
