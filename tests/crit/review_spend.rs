//! Spending is the user's decision: a review says what it will send and what
//! it may cost before its first request; above the limit it asks at a
//! terminal (a pty made by util-linux `script`, a test dependency like git)
//! and stops without one (exit 2, the estimate said, nothing sent) unless
//! `--yes` or a higher `--max-cost` allows it. A split change's progress is
//! one line per part and its summary is said once.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::support;

use crit_testkit::{FakeServer, Reply};
use serde_json::json;
use support::{crit, git, init_repo, json_out, write};

/// `main` has `app.py`; the branch changes it.
fn repo() -> tempfile::TempDir {
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

/// The user's own limit, in the user's config file.
fn user_limit(d: &Path, usd: &str) {
    write(
        d,
        ".home/.config/crit/config.yaml",
        &format!("max_cost_usd: {usd}\n"),
    );
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
        ])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn the_plan_and_its_cost_are_said_before_the_first_request() {
    let dir = repo();
    let server = FakeServer::start_blocking();
    server.push(Reply::json(support::pass()));
    let out = review(dir.path(), &server, &[]);
    let err = support::stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{}", support::show(&out));
    assert!(
        err.contains("crit: the review: 1 part, 1 request, 2 added lines, about "),
        "{err}"
    );
    // A known model: a price range, never an unknown or zero price.
    assert!(err.contains(": $0.") && err.contains("–$"), "{err}");
    let plan_at = err.find("crit: the review:").unwrap();
    let started_at = err.find(": started (").unwrap();
    assert!(plan_at < started_at, "the plan comes first: {err}");
}

#[test]
fn over_the_limit_without_a_terminal_nothing_is_sent_and_the_exit_is_2() {
    let dir = repo();
    let d = dir.path();
    user_limit(d, "0.0001");
    let server = FakeServer::start_blocking();
    server.push(Reply::json(support::pass()));
    let out = review(d, &server, &[]);
    let err = support::stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{}", support::show(&out));
    assert!(server.model_requests().is_empty());
    assert!(
        err.contains("is over the $0.00 limit (") && err.contains("config.yaml"),
        "{err}"
    );
    assert!(err.contains("--yes") && err.contains("--max-cost"), "{err}");
    assert!(
        err.contains("not reviewed: 1 part, 1 request, 2 added lines"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "{}", support::show(&out));

    // --max-cost over the estimate allows it.
    let out = review(d, &server, &["--max-cost", "50"]);
    assert_eq!(out.status.code(), Some(0), "{}", support::show(&out));
    assert_eq!(json_out(&out)["verdict"], "PASS");
    assert_eq!(server.model_requests().len(), 1);

    // --yes sends it whatever the estimate.
    server.push(Reply::json(support::pass()));
    let out = review(d, &server, &["--yes", "--no-cache"]);
    assert_eq!(out.status.code(), Some(0), "{}", support::show(&out));
    assert_eq!(server.model_requests().len(), 2);

    // An explicit limit under the estimate stops it too, and says whose.
    let out = review(d, &server, &["--max-cost", "0", "--no-cache"]);
    assert_eq!(out.status.code(), Some(2), "{}", support::show(&out));
    assert!(
        support::stderr(&out).contains("(--max-cost)"),
        "{}",
        support::show(&out)
    );
    assert_eq!(server.model_requests().len(), 2);
}

#[test]
fn the_limit_is_a_setting_with_its_source() {
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    let out = crit(d, &server, None)
        .args(["config", "--json"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("max_cost_usd") && text.contains("1.00"),
        "{text}"
    );
    user_limit(d, "3.5");
    let out = crit(d, &server, None).args(["config"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("3.50"), "{text}");
}

fn have_script() -> bool {
    Command::new("script")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `crit review code` under a pty, answering `input`; (exit code, transcript).
fn under_pty(d: &Path, server: &FakeServer, input: &str) -> (Option<i32>, String) {
    let cmd = format!(
        "'{}' review code --diff main..HEAD --no-log --no-cache --max-cost 0",
        env!("CARGO_BIN_EXE_crit")
    );
    let mut child = Command::new("script")
        .args(["-q", "-e", "-c", &cmd, "/dev/null"])
        .current_dir(d)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", d.join(".home"))
        .env("XDG_STATE_HOME", d.join(".state"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("TERM", "dumb")
        .env("ANTHROPIC_API_KEY", "sk-ant-review-secret-0123456789")
        .env("ANTHROPIC_BASE_URL", server.url())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).replace('\r', ""),
    )
}

#[test]
fn at_a_terminal_over_the_limit_it_asks_and_the_answer_decides() {
    if !have_script() {
        eprintln!("skipped: util-linux `script` is not installed");
        return;
    }
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(Reply::json(support::pass()));
    let (code, transcript) = under_pty(d, &server, "n\n");
    assert_eq!(code, Some(2), "{transcript}");
    assert!(
        transcript.contains("crit: the review: 1 part"),
        "{transcript}"
    );
    assert!(transcript.contains("Send it? [y/N]"), "{transcript}");
    assert!(server.model_requests().is_empty(), "{transcript}");
    let (code, transcript) = under_pty(d, &server, "y\n");
    assert_eq!(code, Some(0), "{transcript}");
    assert!(transcript.contains("Send it? [y/N]"), "{transcript}");
    assert_eq!(server.model_requests().len(), 1, "{transcript}");
}

/// Two files of 150 KB each: two parts.
fn two_part_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, "README", "base\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    git(d, &["checkout", "-q", "-b", "work"]);
    for i in 0..2 {
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
fn a_split_change_says_one_line_per_part_and_its_summary_once() {
    let dir = two_part_repo();
    let server = FakeServer::start_blocking();
    for _ in 0..2 {
        server.push(Reply::json(
            json!({"verdict": "PASS", "summary": "Looked at it.", "findings": []}),
        ));
    }
    let out = crit(dir.path(), &server, None)
        .args([
            "review",
            "code",
            "--diff",
            "main..HEAD",
            "--no-log",
            "--no-cache",
        ])
        .args(["--verify", "off", "--max-cost", "100"])
        .output()
        .unwrap();
    let err = support::stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{}", support::show(&out));
    assert_eq!(server.model_requests().len(), 2);
    assert!(
        err.contains("crit: the review: 2 parts, 2 requests, 4000 added lines"),
        "{err}"
    );
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("] parts: ")).collect();
    assert!(
        lines[0].contains("parts: 1/2 built, 0 sent, 0 answered"),
        "{err}"
    );
    assert!(
        lines
            .last()
            .unwrap()
            .contains("2/2 built, 2 sent, 2 answered"),
        "{err}"
    );
    assert!(
        lines.len() <= 3,
        "one line once built, one per part answered: {err}"
    );
    // No line per reviewer, turn and part.
    assert!(!err.contains(": started ("), "{err}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.matches("Looked at it.").count(), 1, "{text}");
}
