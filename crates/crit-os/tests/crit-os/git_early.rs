//! Reads of commits started before the repository's config is read
//! (`Git::open_reading`): what the configured runner reads, whatever the
//! config says, never a program of the repository's, run again in a
//! repository that is not SHA-1, and with no config read at all unless a
//! later run needs it.

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
/// its config and its own `info/attributes`, and attribute and exclude files
/// of its own: the early reads run none of them, and read what the
/// configured runner (which overrides them all) reads.
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
    fs::write(d.join(".git/hidden"), "*.rs -diff\n*.rs binary\n").unwrap();
    git(d, &["config", "core.attributesFile", ".git/hidden"]);
    git(d, &["config", "core.excludesFile", ".git/hidden"]);
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
    let read: Vec<String> = read.into_iter().map(|r| r.unwrap().text()).collect();
    assert_eq!(read, again(&g));
    assert!(read[0].contains("+fn main() { evil() }"), "{}", read[0]);
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

/// A `git` first on PATH that notes each run's subcommand, then runs git.
fn noting_git() -> (TempDir, crit_os::Env) {
    let bin = TempDir::new().unwrap();
    let real = std::process::Command::new("sh")
        .args(["-c", "command -v git"])
        .output()
        .unwrap();
    let real = String::from_utf8(real.stdout).unwrap().trim().to_string();
    let log = bin.path().join("runs");
    let script = format!(
        "#!/bin/sh\nfor a; do case $a in -c|--*|*=*) ;; *) echo \"$a\" >>'{}'; break;; esac; done\nexec '{real}' \"$@\"\n",
        log.display()
    );
    let wrapper = bin.path().join("git");
    fs::write(&wrapper, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    (bin, crit_os::Env::from_pairs([("PATH", path)]))
}

fn runs(bin: &TempDir) -> Vec<String> {
    let text = fs::read_to_string(bin.path().join("runs")).unwrap_or_default();
    let mut runs: Vec<String> = text.lines().map(str::to_string).collect();
    runs.sort();
    runs
}

#[test]
fn reads_of_commits_alone_read_no_config_and_a_later_run_reads_it_once() {
    let dir = repo("sha1");
    commit_change(dir.path());
    let (bin, env) = noting_git();
    let (g, located, read) =
        Git::open_reading(dir.path(), &env, GitOptions::default(), &["HEAD"], &reads()).unwrap();
    assert!(located.success(), "{}", located.stderr);
    assert!(read.iter().all(Option::is_some), "{read:?}");
    assert_eq!(runs(&bin), ["diff", "log", "rev-parse"]);
    // The root commit's base is known from the rev-parse's answer.
    assert_eq!(
        g.empty_tree().unwrap(),
        "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
    );
    assert_eq!(runs(&bin).len(), 3);
    // A run that may read the work tree reads the config first, once for
    // every clone of the runner.
    let clone = g.clone();
    g.run(&["status", "--porcelain"], 1 << 16).unwrap();
    clone.run(&["status", "--porcelain"], 1 << 16).unwrap();
    assert_eq!(
        runs(&bin),
        ["config", "diff", "log", "rev-parse", "status", "status"]
    );
    // Without early reads, the config is read beside the rev-parse.
    let (bin, env) = noting_git();
    let (g, _) = Git::open_locating(dir.path(), &env, GitOptions::default(), &["HEAD"]).unwrap();
    assert_eq!(runs(&bin), ["config", "rev-parse"]);
    g.run(&["status", "--porcelain"], 1 << 16).unwrap();
    assert_eq!(runs(&bin), ["config", "rev-parse", "status"]);
}

/// `start_reading` returns with the early reads and the rev-parse running
/// as children of the calling thread (a front end starts them before it
/// starts anything else); `finish` answers as `open_reading` does.
#[cfg(target_os = "linux")]
#[test]
fn start_reading_starts_the_early_reads_on_the_calling_thread() {
    let dir = repo("sha1");
    commit_change(dir.path());
    let (bin, env) = noting_git();
    let children = || {
        fs::read_to_string("/proc/thread-self/children")
            .unwrap()
            .split_whitespace()
            .count()
    };
    let before = children();
    let start = || Git::start_reading(dir.path(), &env, GitOptions::default(), &["HEAD"], &reads());
    let opening = start().unwrap();
    // Not waited for yet, so not reaped: all three are still this thread's.
    assert_eq!(children() - before, 3);
    let (_, located, read) = opening.finish().unwrap();
    assert!(located.success(), "{}", located.stderr);
    assert!(read.iter().all(Option::is_some), "{read:?}");
    assert_eq!(runs(&bin), ["diff", "log", "rev-parse"]);
    assert_eq!(children(), before);
    // An opening dropped unfinished leaves no process behind.
    drop(start().unwrap());
    assert_eq!(children(), before);
}
