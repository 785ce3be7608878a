//! Reads of commits started before the repository's config is read
//! (`Git::open_reading`): kept only where they ran as the configured runner
//! runs, and never a program of the repository's, even before its config
//! is known.

use std::fs;
use std::path::Path;

use crit_os::git::{EarlyRead, Git, GitOptions};
use tempfile::TempDir;

use super::git::{env, git, repo};

const OPTIONS: &[&str] = &["--raw", "--numstat", "-z", "-p"];
const LOG: &[&str] = &["--format=%s"];

fn reads() -> [EarlyRead<'static>; 2] {
    [
        EarlyRead::Diff {
            options: OPTIONS,
            from: "HEAD~1",
            to: "HEAD",
            paths: &["."],
            text: true,
            cap: 1 << 20,
        },
        EarlyRead::Log {
            options: LOG,
            from: "HEAD~1",
            to: "HEAD",
            cap: 1 << 20,
        },
    ]
}

/// A second commit that edits `a.rs`.
fn commit_change(dir: &Path) {
    fs::write(dir.join("a.rs"), "fn main() { evil() }\n").unwrap();
    git(dir, &["commit", "-q", "-am", "change"]);
}

fn open(dir: &Path) -> (Git, Vec<Option<crit_os::git::GitOutput>>) {
    let (g, located, read) =
        Git::open_reading(dir, &env(), GitOptions::default(), &["HEAD"], &reads()).unwrap();
    assert!(located.success(), "{}", located.stderr);
    (g, read)
}

/// What the configured runner answers to the same reads.
fn again(g: &Git) -> Vec<String> {
    reads().iter().map(|r| r.run(g).unwrap().text()).collect()
}

#[test]
fn early_reads_of_a_plain_repository_are_what_the_configured_runner_reads() {
    let dir = repo("sha1");
    commit_change(dir.path());
    let (g, read) = open(dir.path());
    let read: Vec<String> = read.into_iter().map(|r| r.unwrap().text()).collect();
    assert_eq!(read, again(&g));
    assert!(read[0].contains("+fn main() { evil() }"), "{}", read[0]);
    assert_eq!(read[1], "change\n");
}

#[test]
fn early_reads_are_run_again_in_a_sha256_repository() {
    let dir = repo("sha256");
    commit_change(dir.path());
    let (g, read) = open(dir.path());
    assert!(read.iter().all(Option::is_none), "{read:?}");
    assert!(again(&g)[0].contains("+fn main() { evil() }"));
}

/// A repository that names filter and textconv programs for every file, in
/// its config and its own `info/attributes`: the early reads run none of
/// them, and are run again (its config asks for overrides).
#[test]
fn early_reads_run_no_program_of_the_repository() {
    let dir = repo("sha1");
    let d = dir.path();
    let marks = TempDir::new().unwrap();
    let mark = |name: &str| marks.path().join(name).display().to_string();
    for (key, name) in [
        ("filter.evil.clean", "clean"),
        ("filter.evil.smudge", "smudge"),
        ("filter.evil.process", "process"),
        ("diff.evil.textconv", "textconv"),
        ("diff.evil.command", "command"),
    ] {
        git(d, &["config", key, &format!("touch {}; cat", mark(name))]);
    }
    fs::write(d.join(".git/info/attributes"), "* filter=evil diff=evil\n").unwrap();
    fs::write(d.join(".gitattributes"), "* filter=evil diff=evil\n").unwrap();
    // The test's own commits with the programs off.
    let tame = |args: &[&str]| {
        let off = ["-c", "filter.evil.clean=cat", "-c", "filter.evil.process="];
        git(d, &[&off[..], args].concat());
    };
    tame(&["add", "-A"]);
    tame(&["commit", "-q", "-m", "attrs"]);
    fs::write(d.join("a.rs"), "fn main() { evil() }\n").unwrap();
    tame(&["commit", "-q", "-am", "change"]);
    let (g, read) = open(d);
    assert!(read.iter().all(Option::is_none), "{read:?}");
    assert!(again(&g)[0].contains("+fn main() { evil() }"));
    let ran: Vec<_> = fs::read_dir(marks.path()).unwrap().collect();
    assert!(ran.is_empty(), "{ran:?}");
    // The same diff by git unhardened runs them (its filter process, to
    // read the work tree's copy for textconv): the trap is armed.
    let _ = std::process::Command::new("git")
        .args(["diff", "HEAD~1", "HEAD"])
        .current_dir(d)
        .output()
        .unwrap();
    assert!(Path::new(&mark("process")).exists());
}
