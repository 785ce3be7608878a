//! The git processes a review starts, through the binary with a `git` on PATH
//! that logs each run before it runs the real one: the fixed cost of a small
//! review is mostly git's, so a review asks git only what it must, and asks
//! the independent questions at once (the config read beside locating the
//! repository, the log beside the diff).

use crate::support;

use std::path::{Path, PathBuf};

use crit_testkit::FakeServer;
use serde_json::json;
use support::{git, init_repo, write};

/// A directory holding a `git` that appends its arguments (one run a line)
/// to `log`, then runs the real git.
fn logging_git(dir: &Path, log: &Path) -> PathBuf {
    let real = std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|d| d.join("git"))
        .find(|p| p.is_file())
        .unwrap();
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = format!(
        "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
        log.display(),
        real.display()
    );
    let path = bin.join("git");
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

/// Each logged run's subcommand: the first word that is neither an option
/// nor the value of a `-c`.
fn subcommands(log: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            let mut words = line.split(' ');
            while let Some(w) = words.next() {
                if w == "-c" {
                    words.next();
                } else if !w.starts_with('-') {
                    return Some(w.to_string());
                }
            }
            None
        })
        .collect()
}

fn repo_with_two_commits() -> (tempfile::TempDir, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, ".gitignore", ".home/\n.state/\n");
    write(d, "src/app.py", "print('hi')\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    write(d, "src/app.py", "print('hello')\n");
    git(d, &["commit", "-q", "-am", "hello"]);
    // The logging git lives outside the project: crit drops PATH entries
    // inside it.
    (dir, tempfile::tempdir().unwrap())
}

fn review_logging(d: &Path, tools: &Path, args: &[&str]) -> Vec<String> {
    let log = tools.join("git.log");
    let bin = logging_git(tools, &log);
    let server = FakeServer::start_blocking();
    server.push(crit_testkit::Reply::json(
        json!({"verdict": "PASS", "summary": "Fine.", "findings": []}),
    ));
    let out = support::crit(d, &server, Some(&bin))
        .args([
            "review",
            "code",
            "--verify",
            "off",
            "--no-cache",
            "--no-log",
            "--json",
        ])
        .args(args)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    assert_eq!(support::json_out(&out)["verdict"], "PASS");
    assert_eq!(server.model_requests().len(), 1);
    subcommands(&log)
}

#[test]
fn a_range_review_runs_three_git_commands() {
    let (dir, tools) = repo_with_two_commits();
    let mut runs = review_logging(dir.path(), tools.path(), &["--diff", "HEAD~1..HEAD"]);
    runs.sort();
    // Both ends resolved with the repository's location, in one rev-parse;
    // the empty tree known without asking git; and no config read, as reads
    // of commits need nothing from it.
    assert_eq!(runs, ["diff", "log", "rev-parse"], "{runs:?}");
}

#[test]
fn a_diff_against_a_branch_without_upstream_resolves_it_once() {
    let (dir, tools) = repo_with_two_commits();
    let d = dir.path();
    git(d, &["branch", "base", "HEAD~1"]);
    let runs = review_logging(d, tools.path(), &["--diff", "base"]);
    let count = |s: &str| runs.iter().filter(|r| *r == s).count();
    // One rev-parse locates the repository and resolves `base`; one asks
    // for its upstream (there is none).
    assert_eq!(count("rev-parse"), 2, "{runs:?}");
    assert_eq!(count("hash-object"), 0, "{runs:?}");
    assert_eq!(runs.len(), 6, "{runs:?}");
}

#[test]
fn an_unknown_end_of_a_range_is_still_named() {
    let (dir, tools) = repo_with_two_commits();
    let d = dir.path();
    let log = tools.path().join("git.log");
    let bin = logging_git(tools.path(), &log);
    let server = FakeServer::start_blocking();
    let out = support::crit(d, &server, Some(&bin))
        .args(["review", "code", "--no-log", "--diff", "nosuch..HEAD"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", support::stderr(&out));
    assert!(
        support::stderr(&out).contains("nosuch"),
        "{}",
        support::stderr(&out)
    );
    assert!(server.model_requests().is_empty());
}

/// The Stop gate reads the change once: the change it fingerprints is the
/// one the review is handed, so it runs git's `diff` no more often than
/// `crit review code --uncommitted` does.
#[test]
fn the_stop_gate_hands_its_change_to_the_review() {
    let (dir, tools) = repo_with_two_commits();
    let d = dir.path();
    write(d, "src/app.py", "print('hello, world')\n");
    let cli = review_logging(d, tools.path(), &["--uncommitted"]);
    let diffs = |runs: &[String]| runs.iter().filter(|r| *r == "diff").count();
    assert!(diffs(&cli) > 0, "{cli:?}");

    let log = tools.path().join("gate.log");
    let bin = logging_git(&tools.path().join("gate"), &log);
    let server = FakeServer::start_blocking();
    server.push(crit_testkit::Reply::json(
        json!({"verdict": "PASS", "summary": "Fine.", "findings": []}),
    ));
    let event = json!({"hook_event_name": "Stop", "session_id": "s", "stop_hook_active": false});
    let out = support::crit(d, &server, Some(&bin))
        .args(["hook", "claude-code", "Stop"])
        .write_stdin(event.to_string())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    // Reviewed (one model request), and the change read once.
    assert_eq!(
        server.model_requests().len(),
        1,
        "{}",
        support::stderr(&out)
    );
    let gate = subcommands(&log);
    assert_eq!(diffs(&gate), diffs(&cli), "gate {gate:?}, review {cli:?}");
}
