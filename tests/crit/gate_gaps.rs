//! What an uncommitted change holds that no reviewer can read is a gap,
//! never complete coverage: an untracked file too large to show, a file
//! under `.crit/sessions/` that is not one of crit's logs, a nested
//! repository added as a gitlink, and a file the user's global git excludes
//! hide (the agent runs as the user and can write those). Each is listed in
//! the coverage's `left_out`, the review is INCOMPLETE, and the review gate
//! holds. Through the binary, on real repositories.

use std::path::Path;

use crit_testkit::FakeServer;
use serde_json::Value;

use crate::gate_hidden::{EVIL, left_out, repo};
use crate::stop_gate::{blocked, event, every_agent, stop};
use crate::support::gate::passes;
use crate::support::{self, git, init_repo, json_out, show, write};

/// `crit review code --uncommitted --exit-code --json`, `extra` added.
fn review(d: &Path, server: &FakeServer, extra: &[&str]) -> (std::process::Output, Value) {
    passes(server, 3);
    let out = support::crit(d, server, None)
        .args(["review", "code", "--uncommitted", "--json", "--exit-code"])
        .args(["--verify", "off", "--no-cache"])
        .args(extra)
        .output()
        .unwrap();
    let r = json_out(&out);
    (out, r)
}

/// The review held for `path`: listed as not sent with a reason, coverage
/// incomplete, INCOMPLETE, a failing exit, its text never sent.
fn holds_for(out: &std::process::Output, r: &Value, server: &FakeServer, path: &str) {
    let listed = left_out(r);
    let entry = listed.iter().find(|(p, _, _)| p == path);
    let (_, cause, reason) = entry.unwrap_or_else(|| panic!("{path} not listed: {r:#}"));
    assert_eq!(cause, "not_sent", "{r:#}");
    assert!(reason.contains("not reviewed"), "{reason}");
    assert_eq!(r["coverage"]["complete"], false, "{r:#}");
    assert_eq!(r["verdict"], "INCOMPLETE", "{r:#}");
    assert_eq!(r["passed"], false, "{r:#}");
    assert_ne!(out.status.code(), Some(0), "{}", show(out));
    assert!(
        !crate::support::gate::sent(server).contains("hidden-line"),
        "a hidden file was sent, yet listed as not reviewed"
    );
}

/// Over the 1 MiB an untracked file is shown up to, then the code.
fn huge() -> String {
    format!("{}\n{EVIL}", "#".repeat(1024 * 1024 + 1))
}

#[test]
fn an_untracked_file_too_large_to_show_is_a_gap() {
    let dir = repo();
    let d = dir.path();
    write(d, "src/evil.py", &huge());
    let server = FakeServer::start_blocking();
    let (out, r) = review(d, &server, &["--no-log"]);
    holds_for(&out, &r, &server, "src/evil.py");
    assert!(
        left_out(&r)
            .iter()
            .any(|(p, _, why)| p == "src/evil.py" && why.contains("larger than")),
        "{r:#}"
    );
}

/// A review that wrote its session logs, then the agent's file planted in
/// `.crit/sessions/`: crit's logs stay out, the planted file is a gap,
/// whether `.crit/.gitignore` is the change's (crit's text) or the base's.
#[test]
fn a_file_planted_under_crits_session_logs_is_a_gap() {
    for committed in [false, true] {
        let dir = repo();
        let d = dir.path();
        // A first review writes `.crit/.gitignore` and a session of its own.
        let server = FakeServer::start_blocking();
        let (out, _) = review(d, &server, &[]);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        assert!(d.join(".crit/.gitignore").is_file());
        if committed {
            git(d, &["add", ".crit/.gitignore"]);
            git(d, &["commit", "-q", "-m", "crit's ignore"]);
        }
        write(d, ".crit/sessions/20260101T000000Z-abc/helpers.py", EVIL);
        write(d, ".crit/sessions/tools/run.py", EVIL);
        let server = FakeServer::start_blocking();
        let (out, r) = review(d, &server, &["--no-log"]);
        for path in [
            ".crit/sessions/20260101T000000Z-abc/helpers.py",
            ".crit/sessions/tools/run.py",
        ] {
            holds_for(&out, &r, &server, path);
        }
        // crit's own session files are not listed.
        let listed = left_out(&r);
        assert!(
            listed
                .iter()
                .filter(|(p, _, _)| p.starts_with(".crit/"))
                .all(|(p, _, _)| p.ends_with(".py")),
            "{r:#}"
        );
    }
}

#[test]
fn crits_own_session_logs_alone_pass() {
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    let (out, _) = review(d, &server, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    // Another review, with the first one's logs beside the change.
    let server = FakeServer::start_blocking();
    let (out, r) = review(d, &server, &["--no-log"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(r["verdict"], "PASS", "{r:#}");
    assert_eq!(left_out(&r), Vec::new(), "{r:#}");
}

/// `git init lib; …; git add lib`: the change holds one line, the commit.
fn add_gitlink(d: &Path) {
    let lib = d.join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    init_repo(&lib);
    write(&lib, "run.py", EVIL);
    git(&lib, &["add", "-A"]);
    git(&lib, &["commit", "-q", "-m", "inner"]);
    git(d, &["add", "lib"]);
}

#[test]
fn a_nested_repository_added_as_a_gitlink_is_a_gap() {
    let dir = repo();
    let d = dir.path();
    add_gitlink(d);
    let server = FakeServer::start_blocking();
    let (out, r) = review(d, &server, &["--no-log"]);
    holds_for(&out, &r, &server, "lib/");
}

/// The user's global excludes, as `crit` finds them under its HOME.
fn global_excludes(d: &Path, how: &str, rules: &str) {
    match how {
        "xdg" => write(d, ".home/.config/git/ignore", rules),
        _ => {
            write(d, ".home/agent-ignore", rules);
            let file = d.join(".home/agent-ignore");
            write(
                d,
                ".home/.gitconfig",
                &format!("[core]\n\texcludesFile = {}\n", file.display()),
            );
        }
    }
}

#[test]
fn a_file_the_global_git_excludes_hide_is_a_gap() {
    for how in ["xdg", "gitconfig"] {
        let dir = repo();
        let d = dir.path();
        global_excludes(d, how, ".DS_Store\nevil.py\nbuild/\n");
        write(d, "evil.py", EVIL);
        // What the base's own rules ignore too stays out.
        write(d, "build/out.txt", "generated\n");
        let server = FakeServer::start_blocking();
        let (out, r) = review(d, &server, &["--no-log"]);
        holds_for(&out, &r, &server, "evil.py");
        let listed = left_out(&r);
        assert_eq!(listed.len(), 1, "{how}: {r:#}");
        assert!(listed[0].2.contains("global git excludes"), "{listed:?}");
    }
}

#[test]
fn global_excludes_with_nothing_new_under_them_pass() {
    let dir = repo();
    let d = dir.path();
    // No such file exists: nothing to list.
    global_excludes(d, "xdg", ".DS_Store\n*.swp\n");
    let server = FakeServer::start_blocking();
    let (out, r) = review(d, &server, &["--no-log"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(r["verdict"], "PASS", "{r:#}");
    assert_eq!(left_out(&r), Vec::new(), "{r:#}");
}

/// A path the gate's reason must name, and how the agent plants it.
type Plant = (&'static str, fn(&Path));

/// The review gate, in every agent, holds on each of these gaps.
#[test]
fn the_review_gate_holds_on_each_gap() {
    every_agent(the_review_gate_holds_on_each_gap_in_each_agent);
}

fn the_review_gate_holds_on_each_gap_in_each_agent() {
    let plants: [Plant; 4] = [
        ("src/evil.py", |d| write(d, "src/evil.py", &huge())),
        ("helpers.py", |d| {
            write(d, ".crit/.gitignore", crit_project::scope::CRIT_GITIGNORE);
            write(d, ".crit/sessions/20260101T000000Z-abc/helpers.py", EVIL);
        }),
        ("lib/", add_gitlink),
        ("evil.py", |d| {
            global_excludes(d, "xdg", "evil.py\n");
            write(d, "evil.py", EVIL);
        }),
    ];
    for (path, plant) in plants {
        gate_holds_on(path, plant, "def main():\n    return 2\n");
    }
}

/// Nothing git shows changed, only a file it hides: the gate holds still.
#[test]
fn the_review_gate_holds_when_only_a_hidden_file_changed() {
    every_agent(the_review_gate_holds_when_only_a_hidden_file_changed_in_each_agent);
}

fn the_review_gate_holds_when_only_a_hidden_file_changed_in_each_agent() {
    let plants: [Plant; 3] = [
        ("tool.py", |d| {
            write(d, ".git/info/exclude", "tool.py\n");
            write(d, "tool.py", EVIL);
        }),
        ("helpers.py", |d| {
            write(d, ".crit/.gitignore", crit_project::scope::CRIT_GITIGNORE);
            write(d, ".crit/sessions/20260101T000000Z-abc/helpers.py", EVIL);
        }),
        ("evil.py", |d| {
            global_excludes(d, "xdg", "evil.py\n");
            write(d, "evil.py", EVIL);
        }),
    ];
    for (path, plant) in plants {
        // The tracked file as committed: git shows no change.
        gate_holds_on(path, plant, "def main():\n    return 1\n");
    }
}

/// The Stop gate, in a repository whose tracked file now reads `tracked`
/// and where `plant` hid a file git does not show, holds and names `path`,
/// and no reviewer was sent the hidden file.
fn gate_holds_on(path: &str, plant: fn(&Path), tracked: &str) {
    let dir = crate::stop_gate::repo(tracked);
    let d = dir.path();
    plant(d);
    let server = FakeServer::start_blocking();
    passes(&server, 3);
    let out = stop(d, &server, &event(Some("s1"), false), &[]);
    let reason = blocked(&out);
    assert!(reason.contains(path), "{path}: {reason}");
    // What no reviewer read is the change's, not crit's setup.
    assert!(reason.contains("Let git show them"), "{path}: {reason}");
    assert!(!reason.contains("crit doctor"), "{path}: {reason}");
    assert!(
        !crate::support::gate::sent(&server).contains("hidden-line"),
        "{path}: a hidden file was sent"
    );
}
