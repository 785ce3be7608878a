#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns
//! The restricted Bash running real commands in real temporary git repositories.
use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Fixture, git};
use crit_agent::{BashTool, Limits, Tool};
use serde_json::json;

fn repo() -> Fixture {
    let f = Fixture::new();
    f.write("src/lib.rs", "pub fn one() -> u32 {\n    1\n}\n");
    f.write("README.md", "# demo\n");
    f.git_init();
    f.write("src/lib.rs", "pub fn one() -> u32 {\n    2\n}\n");
    f
}

async fn bash(f: &Fixture, command: &str) -> crit_agent::ToolOutput {
    f.call(&BashTool, json!({"command": command})).await
}

#[tokio::test]
async fn allowed_commands_run_and_report_their_output() {
    let f = repo();
    let root = f.root().display().to_string();
    let head = git(&f.root(), &["rev-parse", "HEAD"]);
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("git log --oneline", vec!["initial commit", "[exit code 0]"]),
        ("git diff", vec!["-    1", "+    2", "src/lib.rs"]),
        ("git diff --stat", vec!["src/lib.rs | 2 +-"]),
        ("git status --short", vec![" M src/lib.rs"]),
        ("git show --stat HEAD", vec!["initial commit", "README.md"]),
        ("git log -p -n 1", vec!["+# demo"]),
        ("git blame -L 1,1 src/lib.rs", vec!["pub fn one()"]),
        ("git ls-files", vec!["README.md\nsrc/lib.rs"]),
        ("git rev-parse HEAD", vec![head.trim()]),
        ("git grep -n demo", vec!["README.md:1:# demo"]),
        ("git cat-file -t HEAD", vec!["commit"]),
        ("git branch --list", vec!["* main"]),
        ("git shortlog -s HEAD", vec!["1\tTest"]),
        ("cat README.md", vec!["# demo\n[exit code 0]"]),
        (
            "head -n 1 src/lib.rs",
            vec!["pub fn one() -> u32 {\n[exit code 0]"],
        ),
        ("wc -l src/lib.rs", vec!["3 src/lib.rs"]),
        ("ls src", vec!["lib.rs"]),
        (
            "find . -name '*.rs' -not -path './.git/*'",
            vec!["./src/lib.rs"],
        ),
        ("grep -rn 'fn one' src", vec!["src/lib.rs:1:pub fn one"]),
        ("echo 'a|b; c'", vec!["a|b; c\n"]),
        ("pwd", vec![root.as_str()]),
    ];
    for (cmd, wants) in cases {
        let out = bash(&f, cmd).await;
        assert!(!out.is_error, "`{cmd}`: {}", out.content);
        for want in wants {
            assert!(
                out.content.contains(want),
                "`{cmd}` lacks {want:?}:\n{}",
                out.content
            );
        }
    }
    // Read-only: nothing above changed the work tree or the index.
    assert_eq!(git(&f.root(), &["status", "--short"]), " M src/lib.rs\n");
}

#[tokio::test]
async fn failures_and_refusals_are_error_outputs() {
    let f = repo();
    let out = bash(&f, "cat missing.txt").await;
    assert!(out.is_error);
    assert!(
        out.content.contains("[stderr]") && out.content.contains("No such file"),
        "{}",
        out.content
    );
    assert!(out.content.ends_with("[exit code 1]"), "{}", out.content);

    let out = bash(&f, "git log | head").await;
    assert!(
        out.is_error && out.content.contains("this Bash runs no shell"),
        "{}",
        out.content
    );

    let out = f.call(&BashTool, json!({"cmd": "ls"})).await;
    assert!(
        out.is_error && out.content.contains("unknown field `cmd`"),
        "{}",
        out.content
    );
    let out = f
        .call(&BashTool, json!({"command": "ls", "timeout": "soon"}))
        .await;
    assert!(
        out.is_error && out.content.contains("field `timeout`"),
        "{}",
        out.content
    );

    let plain = Fixture::new();
    let out = bash(&plain, "git status").await;
    assert!(
        out.is_error && out.content.contains("is not inside a git repository"),
        "{}",
        out.content
    );

    // rg may or may not be installed here; either way the tool must answer sanely.
    let out = bash(&f, "rg -n demo").await;
    let installed = Command::new("rg").arg("--version").output().is_ok();
    if installed {
        assert!(out.content.contains("README.md"), "{}", out.content);
    } else {
        assert!(
            out.is_error && out.content.starts_with("cannot run `rg`"),
            "{}",
            out.content
        );
    }
}

/// Writes an executable script that says it ran on stderr (which git passes
/// on, so the model would see it even where the sandbox stops the next step),
/// touches `marker`, and then acts as `cat` (so it also works as a filter or
/// textconv), outside the repository.
fn hook(dir: &Path, name: &str, marker: &Path) -> PathBuf {
    let path = dir.join(format!("{name}.sh"));
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\necho HOOK-RAN-{name} >&2\ntouch '{}'\ncat \"$1\" 2>/dev/null\nexit 0\n",
            marker.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[tokio::test]
async fn hostile_repo_config_runs_nothing_through_the_tool() {
    let f = repo();
    let root = f.root();
    let scripts = f.outside();
    let marker = |n: &str| scripts.join(format!("marker-{n}"));
    let set = |k: &str, v: &str| {
        git(&root, &["config", "--local", k, v]);
    };
    set(
        "core.pager",
        &hook(&scripts, "pager", &marker("pager"))
            .display()
            .to_string(),
    );
    set(
        "pager.log",
        &hook(&scripts, "pagerlog", &marker("pager"))
            .display()
            .to_string(),
    );
    set(
        "diff.external",
        &hook(&scripts, "external", &marker("external"))
            .display()
            .to_string(),
    );
    set(
        "core.fsmonitor",
        &hook(&scripts, "fsmonitor", &marker("fsmonitor"))
            .display()
            .to_string(),
    );
    set(
        "diff.evil.textconv",
        &hook(&scripts, "textconv", &marker("textconv"))
            .display()
            .to_string(),
    );
    set(
        "diff.evil.command",
        &hook(&scripts, "command", &marker("command"))
            .display()
            .to_string(),
    );
    set(
        "filter.evil.clean",
        &hook(&scripts, "clean", &marker("clean"))
            .display()
            .to_string(),
    );
    set(
        "filter.evil.smudge",
        &hook(&scripts, "smudge", &marker("smudge"))
            .display()
            .to_string(),
    );
    set(
        "gpg.program",
        &hook(&scripts, "gpg", &marker("gpg")).display().to_string(),
    );
    set("log.showSignature", "true");
    f.write(".gitattributes", "*.rs diff=evil filter=evil\n");
    let all = [
        "pager",
        "external",
        "fsmonitor",
        "textconv",
        "command",
        "clean",
        "smudge",
        "gpg",
    ];
    let clear = || {
        all.iter()
            .for_each(|m| drop(std::fs::remove_file(marker(m))))
    };

    // Controls: plain git really runs these hooks, so the test below can fail.
    let plain = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(&root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
    };
    plain(&["diff"]);
    assert!(
        marker("external").exists() || marker("command").exists(),
        "control: external diff did not run"
    );
    plain(&["diff", "--no-ext-diff"]);
    assert!(marker("textconv").exists(), "control: textconv did not run");
    plain(&["status"]);
    assert!(
        marker("fsmonitor").exists(),
        "control: fsmonitor did not run"
    );
    assert!(
        marker("clean").exists(),
        "control: clean filter did not run"
    );
    clear();

    for cmd in [
        "git diff",
        "git diff HEAD",
        "git diff --stat",
        "git log -p",
        "git log --format='%G? %h'",
        "git show HEAD",
        "git status",
        "git status --short",
        "git blame src/lib.rs",
        "git grep -n one",
        "git diff-tree -p HEAD",
        "git describe --always",
        "git ls-files -m",
    ] {
        let out = bash(&f, cmd).await;
        assert!(!out.is_error, "`{cmd}`: {}", out.content);
        assert!(
            !out.content.contains("HOOK-RAN"),
            "`{cmd}`: {}",
            out.content
        );
        let fired: Vec<_> = all.iter().filter(|m| marker(m).exists()).collect();
        assert!(
            fired.is_empty(),
            "`{cmd}` ran repo-configured programs: {fired:?}"
        );
    }
    // The diff is still the real one, not the hook's.
    let out = bash(&f, "git diff").await;
    assert!(out.content.contains("+    2"), "{}", out.content);
}

/// A hostile `core.worktree` is ignored: git is told the work tree (the
/// directory holding `.git`), so it shows the project and nothing of the
/// directory the setting names.
#[tokio::test]
async fn a_work_tree_setting_cannot_move_git_outside() {
    let f = repo();
    git(
        &f.root(),
        &[
            "config",
            "--local",
            "core.worktree",
            &f.outside().display().to_string(),
        ],
    );
    for cmd in [
        "git status --short",
        "git ls-files --others",
        "git grep --untracked -e TOP-SECRET",
    ] {
        let out = bash(&f, cmd).await;
        assert!(
            !out.content.contains("secret.txt"),
            "`{cmd}`: {}",
            out.content
        );
        assert!(
            !out.content.contains("TOP-SECRET-OUTSIDE"),
            "`{cmd}`: {}",
            out.content
        );
    }
    let out = bash(&f, "git status --short").await;
    assert!(out.content.contains(" M src/lib.rs"), "{}", out.content);
}

#[tokio::test]
async fn huge_output_is_cut_in_the_middle_and_the_process_reaped() {
    let f = repo();
    let mut body = String::from("FIRST LINE\n");
    while body.len() < 5_000_000 {
        body.push_str("filler filler filler filler filler filler filler filler\n");
    }
    body.push_str("LAST LINE\n");
    f.write("big.txt", &body);
    let out = bash(&f, "cat big.txt").await;
    assert!(
        !out.is_error,
        "{}",
        &out.content[..200.min(out.content.len())]
    );
    assert!(out.content.len() < 31_000, "{}", out.content.len());
    assert!(out.content.starts_with("FIRST LINE\n"));
    assert!(out.content.contains(" bytes omitted …"), "no marker");
    assert!(
        out.content.ends_with("LAST LINE\n[exit code 0]"),
        "{}",
        &out.content[out.content.len() - 100..]
    );
    let omitted: u64 = out
        .content
        .split("… ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(omitted as usize, body.len() - 30_000 * 3 / 4);
}

#[tokio::test]
async fn a_command_that_never_ends_is_killed_at_the_timeout() {
    let f = repo();
    f.write("grows.log", "started\n");
    // `tail -f` is allowed and never ends on its own.
    let out = f
        .call(
            &BashTool,
            json!({"command": "tail -f grows.log", "timeout": 400}),
        )
        .await;
    assert!(out.is_error, "{}", out.content);
    assert!(
        out.content.starts_with("started\n"),
        "partial output kept: {}",
        out.content
    );
    assert!(
        out.content.contains("[timed out after 0.4 s"),
        "{}",
        out.content
    );
    let path = f.root().join("grows.log").display().to_string();
    assert!(!tail_running(&path), "tail still running");
}

#[tokio::test]
async fn the_timeout_is_capped_by_the_context() {
    let mut f = repo();
    f.cx.limits = Limits {
        bash_max_timeout: std::time::Duration::from_millis(300),
        ..Limits::default()
    };
    f.write("grows.log", "x\n");
    let out = f
        .call(
            &BashTool,
            json!({"command": "tail -f grows.log", "timeout": 600000}),
        )
        .await;
    assert!(
        out.content.contains("[timed out after 0.3 s"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn cancellation_kills_the_command() {
    let f = repo();
    f.write("grows.log", "x\n");
    let cancel = f.cx.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        cancel.cancel();
    });
    let out = BashTool
        .call(json!({"command": "tail -f grows.log"}), &f.cx)
        .await;
    assert!(out.is_error);
    assert!(out.content.contains("cancelled"), "{}", out.content);
    assert!(!tail_running(
        &f.root().join("grows.log").display().to_string()
    ));
}

/// Whether a live `tail` reading `path` exists (zombies and other tests' tails excluded).
fn tail_running(path: &str) -> bool {
    for _ in 0..50 {
        let alive = std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
            let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            let cmd = String::from_utf8_lossy(&cmd);
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            let zombie = stat
                .rsplit(')')
                .next()
                .is_some_and(|s| s.trim_start().starts_with('Z'));
            cmd.starts_with("tail\0") && cmd.contains(path) && !zombie
        });
        if !alive {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    true
}

/// Many calls at once (a model asked for thousands in one turn): every one
/// answers, through the one sandbox spawner, and nothing panics. Calls that
/// cannot get a process (a file descriptor limit) say so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_calls_all_answer() {
    let f = repo();
    let calls = (0..1000).map(|i| {
        let f = &f;
        async move { (i, bash(f, &format!("echo call-{i}")).await) }
    });
    let results = futures_util::future::join_all(calls).await;
    let mut ran = 0;
    for (i, out) in results {
        if out.is_error {
            assert!(
                out.content.starts_with("cannot run `echo`"),
                "{}",
                out.content
            );
        } else {
            assert_eq!(out.content, format!("call-{i}\n[exit code 0]"));
            ran += 1;
        }
    }
    assert!(ran > 0);
}
