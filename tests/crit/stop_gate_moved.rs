//! The Stop gate sees work the agent moves off HEAD during a session:
//! another branch, a detached HEAD, a tag, a stash, files git is told not to
//! look at, commits rewritten by an amend or a rebase. Each hostile variant
//! ends with a model request that holds the bad line and the gate blocking
//! on the model's P1. A session that moves nothing is reviewed as before,
//! and the session's first prompt starts no git process.

use crate::support;

use std::path::Path;
use std::process::Command;

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::json;
use support::{crit, git, write};

use super::stop_gate::{
    EVAL, agent, blocked, confirmed, decision, event, every_agent, pass, repo, reviews, stop,
};

const CLEAN: &str = "def main():\n    return 1\n";
const SHELL: &str = "import os\nos.system(input())\n";

fn p1(file: &str, title: &str) -> Reply {
    Reply::json(
        json!({"verdict": "FAIL", "summary": "Runs input.", "findings": [
        {"file_path": file, "line_start": 2, "line_end": 2, "priority": 1,
         "title": title, "body": "Input reaches an interpreter."}]}),
    )
}

/// The session's first prompt, through the hook: no output, no model.
fn prompt(d: &Path, server: &FakeServer, session: &str, path_first: Option<&Path>) {
    let e = json!({"hook_event_name": agent().prompt, "session_id": session,
        "prompt": "tidy up main", "transcript_path": "/nonexistent.jsonl"});
    let out = crit(d, server, path_first)
        .args(["hook", agent().id, agent().prompt])
        .write_stdin(e.to_string())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    assert_eq!(
        decision(&out),
        // Cursor waits for every prompt's answer: it goes on.
        (agent().id == "cursor").then(|| json!({"continue": true}))
    );
}

/// `git args` in `d`, its stdout trimmed.
fn git_out(d: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(d)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", d)
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A commit holding `src/app.py` as `text` on top of HEAD, made without
/// moving HEAD or touching the working tree.
fn side_commit(d: &Path, text: &str) -> String {
    let blob = {
        let tmp = d.join(".state-blob");
        std::fs::write(&tmp, text).unwrap();
        let b = git_out(d, &["hash-object", "-w", ".state-blob"]);
        std::fs::remove_file(&tmp).unwrap();
        b
    };
    let index = d.join(".git").join("side-index");
    let env_index = index.display().to_string();
    let run = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(d)
            .env("GIT_INDEX_FILE", &env_index)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", d)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    run(&["read-tree", "HEAD"]);
    run(&[
        "update-index",
        "--cacheinfo",
        &format!("100644,{blob},src/app.py"),
    ]);
    let tree = run(&["write-tree"]);
    let _ = std::fs::remove_file(&index);
    git_out(d, &["commit-tree", &tree, "-p", "HEAD", "-m", "side"])
}

/// A session on a clean repository: the first prompt, then `agent`, then a
/// stop. The model must be sent `bad`, and its P1 must block.
fn hostile(name: &str, agent: impl Fn(&Path), bad: &str, file: &str) {
    let dir = repo(CLEAN);
    let d = dir.path();
    git(d, &["checkout", "-q", "--", "."]);
    let server = FakeServer::start_blocking();
    prompt(d, &server, "s", None);
    agent(d);
    server.push(Step::when_contains(bad).reply(p1(file, "input reaches an interpreter")));
    server.push(confirmed());
    let out = stop(d, &server, &event(Some("s"), false), &[]);
    let reason = blocked(&out);
    assert!(
        reason.contains("input reaches an interpreter"),
        "{name}: {reason}"
    );
    assert!(reason.contains("[P1]"), "{name}: {reason}");
    let sent = server.model_requests();
    assert!(
        sent.iter()
            .any(|r| r.body.to_string().contains(&bad.replace('\n', "\\n"))
                || r.body.to_string().contains(bad)),
        "{name}: the model never saw the bad line"
    );
}

#[test]
fn work_moved_off_head_is_reviewed() {
    every_agent(work_moved_off_head_is_reviewed_in_each_agent);
}

fn work_moved_off_head_is_reviewed_in_each_agent() {
    let bad = "return eval(input())";
    let app = "src/app.py";
    hostile(
        "another branch, then back",
        |d| {
            git(d, &["checkout", "-q", "-b", "evil"]);
            write(d, app, EVAL);
            git(d, &["commit", "-q", "-am", "evil"]);
            git(d, &["checkout", "-q", "-"]);
        },
        bad,
        app,
    );
    hostile(
        "a detached HEAD's commit, then back",
        |d| {
            git(d, &["checkout", "-q", "--detach"]);
            write(d, app, EVAL);
            git(d, &["commit", "-q", "-am", "evil"]);
            git(d, &["checkout", "-q", "-"]);
        },
        bad,
        app,
    );
    hostile(
        "a tag on a commit HEAD never held",
        |d| {
            let c = side_commit(d, EVAL);
            git(d, &["tag", "v-evil", &c]);
        },
        bad,
        app,
    );
    hostile(
        "an annotated tag on a commit HEAD never held",
        |d| {
            let c = side_commit(d, EVAL);
            git(d, &["tag", "-a", "-m", "release", "v-evil", &c]);
        },
        bad,
        app,
    );
    hostile(
        "a branch made with plumbing",
        |d| {
            let c = side_commit(d, EVAL);
            git(d, &["branch", "side", &c]);
        },
        bad,
        app,
    );
    hostile(
        "a stash",
        |d| {
            write(d, app, EVAL);
            git(d, &["stash", "-q"]);
        },
        bad,
        app,
    );
    hostile(
        "two stashes, the bad one first",
        |d| {
            write(d, app, EVAL);
            git(d, &["stash", "-q"]);
            write(d, app, "def main():\n    return 2\n");
            git(d, &["stash", "-q"]);
        },
        bad,
        app,
    );
    hostile(
        "a stash of an untracked file",
        |d| {
            write(d, "src/shell.py", SHELL);
            git(d, &["stash", "-q", "-u"]);
        },
        "os.system(input())",
        "src/shell.py",
    );
    hostile(
        "committed, then deleted in the working tree only",
        |d| {
            write(d, "src/shell.py", SHELL);
            git(d, &["add", "src/shell.py"]);
            git(d, &["commit", "-q", "-m", "helper"]);
            std::fs::remove_file(d.join("src/shell.py")).unwrap();
        },
        "os.system(input())",
        "src/shell.py",
    );
    hostile(
        "committed, then undone in the working tree and the index",
        |d| {
            write(d, app, EVAL);
            git(d, &["commit", "-q", "-am", "evil"]);
            write(d, app, CLEAN);
            git(d, &["add", app]);
        },
        bad,
        app,
    );
    hostile(
        "staged, then undone in the working tree only",
        |d| {
            write(d, app, EVAL);
            git(d, &["add", app]);
            write(d, app, CLEAN);
        },
        bad,
        app,
    );
    hostile(
        "a new file staged, then deleted",
        |d| {
            write(d, "src/shell.py", SHELL);
            git(d, &["add", "src/shell.py"]);
            std::fs::remove_file(d.join("src/shell.py")).unwrap();
        },
        "os.system(input())",
        "src/shell.py",
    );
    for flag in ["--skip-worktree", "--assume-unchanged"] {
        hostile(
            flag,
            |d| {
                git(d, &["update-index", flag, app]);
                write(d, app, EVAL);
            },
            bad,
            app,
        );
    }
}

/// The session's commits, rewritten after a passing review: what the
/// rewrite left is reviewed.
#[test]
fn rewritten_session_commits_are_reviewed() {
    every_agent(rewritten_session_commits_are_reviewed_in_each_agent);
}

fn rewritten_session_commits_are_reviewed_in_each_agent() {
    let app = "src/app.py";
    for how in ["amend", "rebase"] {
        let dir = repo(CLEAN);
        let d = dir.path();
        git(d, &["checkout", "-q", "--", "."]);
        let server = FakeServer::start_blocking();
        prompt(d, &server, "s", None);
        write(d, app, "def main():\n    return 2\n");
        git(d, &["commit", "-q", "-am", "two"]);
        server.push(Step::when_contains("return 2").reply(pass()));
        let out = stop(d, &server, &event(Some("s"), false), &[]);
        assert_eq!(decision(&out), None, "{how}: {}", support::stderr(&out));
        let bad = match how {
            "amend" => {
                write(d, app, EVAL);
                git(d, &["commit", "-q", "--amend", "-am", "two"]);
                "return eval(input())"
            }
            _ => {
                // A commit slipped under the reviewed one.
                git(d, &["checkout", "-q", "-b", "under", "HEAD~1"]);
                write(d, "src/shell.py", SHELL);
                git(d, &["add", "src/shell.py"]);
                git(d, &["commit", "-q", "-m", "helper"]);
                git(d, &["checkout", "-q", "-"]);
                git(d, &["rebase", "-q", "under"]);
                git(d, &["branch", "-q", "-D", "under"]);
                "os.system(input())"
            }
        };
        let file = if how == "amend" { app } else { "src/shell.py" };
        server.push(Step::when_contains(bad).reply(p1(file, "input reaches an interpreter")));
        server.push(confirmed());
        let reason = blocked(&stop(d, &server, &event(Some("s"), false), &[]));
        assert!(
            reason.contains("input reaches an interpreter"),
            "{how}: {reason}"
        );
        assert_eq!(reviews(&server), 2, "{how}");
    }
}

/// A branch's bad commit is judged by what the branch holds now: a fix
/// committed on top passes.
#[test]
fn a_fix_on_the_moved_branch_passes() {
    every_agent(a_fix_on_the_moved_branch_passes_in_each_agent);
}

fn a_fix_on_the_moved_branch_passes_in_each_agent() {
    let dir = repo(CLEAN);
    let d = dir.path();
    git(d, &["checkout", "-q", "--", "."]);
    let server = FakeServer::start_blocking();
    prompt(d, &server, "s", None);
    git(d, &["checkout", "-q", "-b", "evil"]);
    write(d, "src/app.py", EVAL);
    git(d, &["commit", "-q", "-am", "evil"]);
    git(d, &["checkout", "-q", "-"]);
    server.push(Step::when_contains("return eval(input())").reply(p1("src/app.py", "eval")));
    server.push(confirmed());
    blocked(&stop(d, &server, &event(Some("s"), false), &[]));
    git(d, &["checkout", "-q", "evil"]);
    write(d, "src/app.py", "def main():\n    return 3\n");
    git(d, &["commit", "-q", "-am", "fix"]);
    git(d, &["checkout", "-q", "-"]);
    server.push(Step::when_contains("return 3").reply(pass()));
    let out = stop(d, &server, &event(Some("s"), true), &[]);
    assert_eq!(decision(&out), None, "{}", support::stderr(&out));
    let last = server.model_requests().last().unwrap().body.to_string();
    assert!(!last.contains("return eval(input())"), "{last}");
}

/// What moved but cannot be read blocks, saying why: never a silent allow.
#[test]
fn a_ref_to_an_object_that_is_gone_blocks() {
    every_agent(a_ref_to_an_object_that_is_gone_blocks_in_each_agent);
}

fn a_ref_to_an_object_that_is_gone_blocks_in_each_agent() {
    let dir = repo(CLEAN);
    let d = dir.path();
    git(d, &["checkout", "-q", "--", "."]);
    let server = FakeServer::start_blocking();
    prompt(d, &server, "s", None);
    let gone = "0123456789abcdef0123456789abcdef01234567";
    std::fs::write(d.join(".git/refs/heads/ghost"), format!("{gone}\n")).unwrap();
    let reason = blocked(&stop(d, &server, &event(Some("s"), false), &[]));
    assert!(reason.contains("cannot review as a commit"), "{reason}");
    assert!(server.model_requests().is_empty());
}

/// A git on PATH that leaves a mark when it runs.
fn marking_git(dir: &Path, marker: &Path) -> std::path::PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let path = bin.join("git");
    std::fs::write(
        &path,
        format!("#!/bin/sh\necho \"$*\" >> '{}'\nexit 1\n", marker.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

/// Moving nothing: the prompt starts no git, and the stop reviews the
/// uncommitted change alone, as it always did.
#[test]
fn a_session_that_moves_nothing_is_reviewed_as_before() {
    every_agent(a_session_that_moves_nothing_is_reviewed_as_before_in_each_agent);
}

fn a_session_that_moves_nothing_is_reviewed_as_before_in_each_agent() {
    let dir = repo(CLEAN);
    let d = dir.path();
    git(d, &["checkout", "-q", "--", "."]);
    let tools = tempfile::tempdir().unwrap();
    let marker = tools.path().join("ran");
    let bin = marking_git(tools.path(), &marker);
    let server = FakeServer::start_blocking();
    prompt(d, &server, "s", Some(&bin));
    assert!(
        !marker.exists(),
        "the prompt ran git: {:?}",
        std::fs::read_to_string(&marker)
    );
    write(d, "src/app.py", EVAL);
    server.push(Step::when_contains("return eval(input())").reply(p1("src/app.py", "eval")));
    server.push(confirmed());
    blocked(&stop(d, &server, &event(Some("s"), false), &[]));
    let body = server.model_requests()[0].body.to_string();
    assert!(body.contains("uncommitted changes"), "{body}");
    assert!(!body.contains("; and "), "{body}");
}

#[test]
fn a_session_begun_before_the_first_commit_has_its_commits_reviewed() {
    every_agent(a_session_begun_before_the_first_commit_has_its_commits_reviewed_in_each_agent);
}

/// A repository with no commit when the session began: whatever the agent
/// commits is the session's, none of it measured from a HEAD it created.
fn a_session_begun_before_the_first_commit_has_its_commits_reviewed_in_each_agent() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    support::init_repo(d);
    let server = FakeServer::start_blocking();
    prompt(d, &server, "s", None);
    write(d, ".gitignore", ".state/\n.home/\n");
    write(d, "src/tool.py", SHELL);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "first"]);
    write(d, "README.md", "a tool\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "second"]);
    server.push(
        Step::when_contains("os.system(input())")
            .reply(p1("src/tool.py", "input reaches an interpreter")),
    );
    server.push(confirmed());
    let reason = blocked(&stop(d, &server, &event(Some("s"), false), &[]));
    assert!(reason.contains("input reaches an interpreter"), "{reason}");
    // Blocked, so the next stop still measures from nothing.
    server.push(
        Step::when_contains("os.system(input())")
            .reply(p1("src/tool.py", "input reaches an interpreter")),
    );
    server.push(confirmed());
    let reason = blocked(&stop(d, &server, &event(Some("s"), true), &[]));
    assert!(reason.contains("input reaches an interpreter"), "{reason}");
}

#[test]
fn a_repository_whose_git_directory_went_away_holds_the_gate() {
    every_agent(a_repository_whose_git_directory_went_away_holds_the_gate_in_each_agent);
}

/// An agent that moves `.git` away before it stops gets no pass on an
/// unreadable change: the gate holds, within its rounds.
fn a_repository_whose_git_directory_went_away_holds_the_gate_in_each_agent() {
    let dir = repo(EVAL);
    let d = dir.path();
    let server = FakeServer::start_blocking();
    prompt(d, &server, "s", None);
    std::fs::rename(d.join(".git"), d.join(".git-away")).unwrap();
    let reason = blocked(&stop(d, &server, &event(Some("s"), false), &[]));
    assert!(reason.contains(".git is not there"), "{reason}");
    assert!(server.model_requests().is_empty());
    std::fs::rename(d.join(".git-away"), d.join(".git")).unwrap();
}

/// Work committed or staged as the working tree shows it is sent once: the
/// index and the commits add a file only when they hold a line the working
/// tree does not.
#[test]
fn committed_and_staged_work_is_sent_once() {
    for how in ["committed", "staged", "committed and edited"] {
        let dir = repo(CLEAN);
        let d = dir.path();
        git(d, &["checkout", "-q", "--", "."]);
        let server = FakeServer::start_blocking();
        prompt(d, &server, "s", None);
        write(d, "src/app.py", "def main():\n    return 22\n");
        match how {
            "staged" => git(d, &["add", "-A"]),
            _ => git(d, &["commit", "-q", "-am", "two"]),
        }
        if how == "committed and edited" {
            write(d, "src/app.py", "def main():\n    return 22\n\nX = 1\n");
        }
        server.push(pass());
        let out = stop(d, &server, &event(Some("s"), false), &[]);
        assert_eq!(decision(&out), None, "{how}: {}", support::stderr(&out));
        let sent = server.model_requests()[0].body.to_string();
        assert_eq!(sent.matches("return 22").count(), 1, "{how}: {sent}");
        assert!(!sent.contains("no longer has"), "{how}: {sent}");
    }
}

/// A session whose only work is a file git hides (`.git/info/exclude`)
/// has not changed nothing: the gate holds, the review INCOMPLETE.
#[test]
fn a_change_of_only_hidden_files_holds_the_gate() {
    every_agent(a_change_of_only_hidden_files_holds_the_gate_in_each_agent);
}

fn a_change_of_only_hidden_files_holds_the_gate_in_each_agent() {
    let dir = repo(CLEAN);
    let d = dir.path();
    git(d, &["checkout", "-q", "--", "."]);
    let server = FakeServer::start_blocking();
    prompt(d, &server, "s", None);
    write(d, "conftest.py", SHELL);
    let exclude = d.join(".git/info/exclude");
    let mut text = std::fs::read_to_string(&exclude).unwrap_or_default();
    text.push_str("conftest.py\n");
    std::fs::write(&exclude, text).unwrap();
    server.push(pass());
    let reason = blocked(&stop(d, &server, &event(Some("s"), false), &[]));
    assert!(reason.contains("INCOMPLETE"), "{reason}");
}
