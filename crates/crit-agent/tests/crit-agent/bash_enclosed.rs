#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns
//! The restricted Bash where the project is a directory of a larger repository
//! (a `$HOME` kept in git, a monorepo package): the model asks for every way
//! to the rest of the repository it can think of, and receives only the
//! project's files and history. Run through the real tool in real temporary
//! repositories; afterwards nothing in the repository was written.
//!
//! The `crit` binary takes the nearest `.git` as the project root, so this
//! layout reaches the tools through the library (a host that gives crit a
//! project root of its own), which is what this file drives.
use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::git;
use crit_agent::{BashTool, Tool, ToolContext};
use serde_json::json;
use tempfile::TempDir;

const SECRET_CRED: &str = "SECRET-CREDENTIAL-91c2";
const SECRET_KEY: &str = "SECRET-SSH-KEY-4be0";

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// Every file under `dir` (not following symlinks) with its size and mtime.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (u64, std::time::SystemTime)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let m = e.path().symlink_metadata().unwrap();
            if m.is_dir() {
                stack.push(e.path());
            } else {
                out.insert(e.path(), (m.len(), m.modified().unwrap()));
            }
        }
    }
    out
}

/// Runs each command through the Bash tool with the project as root.
async fn probe(project: &Path, commands: &[String]) -> BTreeMap<String, String> {
    let cx = ToolContext::new(project, &[]).unwrap();
    let mut out = BTreeMap::new();
    for c in commands {
        let r = BashTool.call(json!({ "command": c }), &cx).await;
        out.insert(c.clone(), r.content);
    }
    out
}

fn assert_clean(results: &BTreeMap<String, String>, secrets: &[&str]) {
    for (cmd, text) in results {
        for s in secrets {
            assert!(!text.contains(s), "`{cmd}` let `{s}` out:\n{text}");
        }
    }
}

fn assert_refused(results: &BTreeMap<String, String>, cmd: &str, why: &str) {
    let text = &results[cmd];
    assert!(
        text.starts_with("refused") && text.contains(why),
        "`{cmd}` was not refused ({why}):\n{text}"
    );
}

/// A `$HOME` kept in git with the project inside it: the credentials file is
/// tracked, the ssh key is not. The project is `~/proj`.
struct Dotfiles {
    _dir: TempDir,
    home: PathBuf,
    project: PathBuf,
    /// Blob id of `~/.git-credentials` and the tree id of the top.
    cred_blob: String,
    top_tree: String,
}

fn dotfiles() -> Dotfiles {
    let dir = TempDir::new().unwrap();
    let home = dir.path().canonicalize().unwrap().join("home");
    let project = home.join("proj");
    std::fs::create_dir_all(&project).unwrap();
    git(&home, &["init", "-q", "-b", "main"]);
    write(
        &home,
        ".git-credentials",
        &format!("https://u:{SECRET_CRED}@example.com\n"),
    );
    let shared = "alias ll='ls -l'\nalias la='ls -A'\nalias gs='git status'\nset -o vi\n";
    write(
        &home,
        ".bashrc",
        &format!("export TOKEN={SECRET_CRED}\n{shared}"),
    );
    write(&project, "src/lib.rs", "pub fn one() -> u32 {\n    1\n}\n");
    git(&home, &["add", "-A"]);
    git(&home, &["commit", "-q", "-m", "dotfiles and proj"]);
    // A later commit touches both, and copies most of `.bashrc` (not its
    // secret line) into the project: copy detection against a source outside
    // would print the line that was left out.
    write(
        &home,
        ".git-credentials",
        &format!("https://u:{SECRET_CRED}-2@example.com\n"),
    );
    write(&project, "src/lib.rs", "pub fn one() -> u32 {\n    2\n}\n");
    write(&project, "copy.txt", &format!("{shared}extra\n"));
    git(&home, &["add", "-A"]);
    git(&home, &["commit", "-q", "-m", "two: rotate"]);
    std::fs::remove_file(project.join("copy.txt")).unwrap();
    git(&home, &["commit", "-q", "-am", "drop copy"]);
    write(
        &home,
        ".ssh/id_rsa",
        &format!("-----BEGIN {SECRET_KEY}-----\n"),
    );
    let rev = |r: &str| {
        let out = std::process::Command::new("git")
            .args(["rev-parse", r])
            .current_dir(&home)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    Dotfiles {
        cred_blob: rev("HEAD:.git-credentials"),
        top_tree: rev("HEAD^{tree}"),
        _dir: dir,
        home,
        project,
    }
}

/// The project is a directory of a larger repository (a `$HOME` in git): git
/// shows the project's files and history and nothing else of the repository,
/// whatever revision, path or magic the model tries.
#[tokio::test]
async fn an_enclosing_repository_shows_only_the_project() {
    let d = dotfiles();
    let index_before = std::fs::read(d.home.join(".git/index")).unwrap();
    let before = snapshot(&d.home);
    let (blob, tree) = (&d.cred_blob, &d.top_tree);
    let commands: Vec<String> = [
        "git status",
        "git status --short --untracked-files=all --ignored",
        "git ls-files --others",
        "git ls-files --full-name",
        "git log -p",
        "git log --all --stat --format=%s",
        "git log -p --full-diff",
        "git log -p -C -C --find-copies-harder",
        "git show HEAD",
        "git show HEAD~1 --stat",
        "git show :/two",
        "git show HEAD:.git-credentials",
        "git show HEAD:./../.git-credentials",
        "git show HEAD:proj/../.git-credentials",
        "git show HEAD:",
        "git show HEAD:..",
        "git show HEAD^{tree}",
        "git show :.git-credentials",
        "git show :0:.bashrc",
        "git cat-file -p HEAD:.git-credentials",
        "git cat-file -p HEAD:./sub/../../.git-credentials",
        "git cat-file -t HEAD^{tree}",
        "git rev-parse HEAD:.git-credentials",
        "git diff HEAD~2 HEAD",
        "git diff HEAD~2:.git-credentials HEAD:.git-credentials",
        "git diff HEAD~2..HEAD:proj",
        "git diff-tree -r -p HEAD~2 HEAD",
        "git grep -e SECRET HEAD",
        "git grep -e SECRET HEAD~2 -- .",
        "git grep --untracked -e SECRET",
        "git grep --untracked -e SECRET -- ':/'",
        "git grep -e SECRET -- ':(top)'",
        "git log -p -- ':/.git-credentials'",
        "git log -p -- ../.git-credentials",
        "git log -L1,1:../.git-credentials",
        "git log -L1,1:./../.bashrc",
        "git blame ../.bashrc",
        "git blame -C -C src/lib.rs",
        "git shortlog -s",
        "git log --author Test",
        "git log --author Test --format=%s",
        "git log --format %s",
        "git log --follow -p -- copy.txt",
        "git log --follow -p -C -C --find-copies-harder -- copy.txt",
        "git log --follow -p -M10% -- src/lib.rs",
        "git log -p --pickaxe-all -S alias",
        "git log -g -p",
        "git log -p -m --cc --first-parent --all",
        "git diff --stat --relative HEAD~2",
        "git tag --list '--format=%(raw)'",
        "git branch '--format=%(contents)'",
        "ls ..",
        "cat ../.ssh/id_rsa",
        "rg --files ..",
        "find .. -name id_rsa",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([
        format!("git cat-file -p {blob}"),
        format!("git show {blob}"),
        format!("git show {tree}"),
        format!("git grep -e SECRET {tree}"),
        format!("git diff {blob} HEAD:proj/src/lib.rs"),
        format!("git cat-file -s {blob}"),
    ])
    .collect();
    assert!(commands.len() >= 55);
    let results = probe(&d.project, &commands).await;
    if std::env::var_os("CRIT_TEST_SHOW").is_some() {
        for (c, r) in &results {
            eprintln!("=== {c}\n{r}");
        }
    }
    assert_clean(&results, &[SECRET_CRED, SECRET_KEY]);
    // What ran (was not refused) names no file outside the project either; a
    // refusal may echo the path it was given.
    let ran: BTreeMap<String, String> = results
        .iter()
        .filter(|(_, r)| !r.starts_with("refused"))
        .map(|(c, r)| (c.clone(), r.clone()))
        .collect();
    assert_clean(&ran, &[".bashrc", "id_rsa", ".git-credentials", ".ssh"]);
    for cmd in [
        "git show HEAD:.git-credentials",
        "git show HEAD:./../.git-credentials",
        "git show HEAD:proj/../.git-credentials",
        "git show HEAD:",
        "git show HEAD:..",
        "git show :.git-credentials",
        "git show :0:.bashrc",
        "git cat-file -p HEAD:.git-credentials",
        "git rev-parse HEAD:.git-credentials",
        "git diff HEAD~2:.git-credentials HEAD:.git-credentials",
    ] {
        assert_refused(&results, cmd, "outside the project");
    }
    for cmd in [
        "git show HEAD^{tree}",
        "git cat-file -t HEAD^{tree}",
        &format!("git cat-file -p {blob}"),
        &format!("git show {blob}"),
        &format!("git show {tree}"),
        &format!("git grep -e SECRET {tree}"),
        &format!("git cat-file -s {blob}"),
    ] {
        assert_refused(&results, cmd, "does not name a commit");
    }
    assert_refused(
        &results,
        "git log -p --full-diff",
        "would show files outside",
    );
    assert_refused(
        &results,
        "git blame -C -C src/lib.rs",
        "would show files outside",
    );
    for cmd in [
        "git log --follow -p -- copy.txt",
        "git log --follow -p -C -C --find-copies-harder -- copy.txt",
        "git log --follow -p -M10% -- src/lib.rs",
    ] {
        assert_refused(&results, cmd, "would show files outside");
    }
    // The allow-list knows `--author` takes the next word, so `Test` is not
    // read as a revision; a word git would read as one is refused.
    assert!(results["git log --author Test"].contains("drop copy"));
    assert!(results["git log --author Test --format=%s"].contains("two: rotate"));
    assert_refused(&results, "git log --format %s", "attached with `=`");
    assert_refused(
        &results,
        "git tag --list '--format=%(raw)'",
        "would show files outside",
    );
    assert!(results["git branch '--format=%(contents)'"].contains("drop copy"));
    assert_refused(&results, "git diff HEAD~2..HEAD:proj", "not both");
    assert_refused(
        &results,
        &format!("git diff {blob} HEAD:proj/src/lib.rs"),
        "not both",
    );
    for cmd in [
        "git cat-file -p HEAD:./sub/../../.git-credentials",
        "git log -p -- ../.git-credentials",
        "git log -L1,1:../.git-credentials",
        "git log -L1,1:./../.bashrc",
        "git blame ../.bashrc",
        "ls ..",
        "cat ../.ssh/id_rsa",
        "rg --files ..",
        "find .. -name id_rsa",
    ] {
        assert!(
            results[cmd].starts_with("refused"),
            "`{cmd}`: {}",
            results[cmd]
        );
    }
    // The project's own history and files do come through.
    assert!(
        results["git log -p"].contains("+    2"),
        "{}",
        results["git log -p"]
    );
    assert!(results["git show :/two"].contains("two: rotate"));
    assert!(results["git ls-files --full-name"].contains("proj/src/lib.rs"));
    assert!(results["git shortlog -s"].contains("Test"));
    assert!(!results["git log --all --stat --format=%s"].contains(".git-credentials"));
    // Nothing written: the index and every file of the home are as before.
    assert_eq!(
        std::fs::read(d.home.join(".git/index")).unwrap(),
        index_before
    );
    assert_eq!(snapshot(&d.home), before);
}
