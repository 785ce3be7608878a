//! crit's pre-commit hooks under the real pre-commit (from PyPI, installed by
//! `.ci/install-test-deps`): `pre-commit try-repo` against a fixture
//! repository, the review answered offline by the replay provider from
//! cassettes recorded against crit-testkit's fake server. A push with a
//! blocking finding fails the hook, a clean one passes; the prompt hook gates
//! the prompt files being committed.
//!
//! The hooks file under test is the shipped `.pre-commit-hooks.yaml` with one
//! change: `language: unsupported` and the crit binary this build made on
//! PATH, instead of `language: python`, which would have pre-commit build crit
//! in release mode first (minutes). What `language: python` does, pip
//! installing this repository through its build backend, is tested by
//! `.ci/python-tests` (a complete install from source) and here by
//! `pre_commit_builds_crit_with_the_lock_file` (a stale Cargo.lock stops it).
//!
//! A first push to a new remote goes through a real `git push` with the
//! hook installed by `pre-commit install` from the example config.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::json;
use support::{git, init_repo, write};
use tempfile::TempDir;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The pinned pre-commit. The tests that call this are ignored where it is
/// missing (see `.ci/test_deps_cfg.rs`); under CI they run, and this fails
/// saying how to install it.
fn pre_commit() -> PathBuf {
    let bin = root().join(".test-deps/venv/bin/pre-commit");
    assert!(
        bin.exists(),
        "{} is missing: run .ci/install-test-deps",
        bin.display()
    );
    bin
}

/// A hook repository: the shipped hooks, run with the binary on PATH.
fn hook_repo() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let shipped = std::fs::read_to_string(root().join(".pre-commit-hooks.yaml")).unwrap();
    assert_eq!(shipped.matches("\n  language: python\n").count(), 2);
    write(
        dir.path(),
        ".pre-commit-hooks.yaml",
        &shipped.replace("\n  language: python\n", "\n  language: unsupported\n"),
    );
    init_repo(dir.path());
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "hooks"]);
    dir
}

/// A directory holding only `crit`, to put first on PATH.
fn bin_dir() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_crit"), dir.path().join("crit")).unwrap();
    dir
}

struct Fixture {
    repo: TempDir,
    base: String,
    bad: String,
    good: String,
    cassettes: TempDir,
    home: TempDir,
    bin: TempDir,
    hooks: TempDir,
}

fn rev(d: &Path) -> String {
    let out = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(d)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// `main`, then a bad commit (eval of input) and, on another branch, a good one.
fn fixture() -> Fixture {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    init_repo(d);
    let lines: String = (1..=10).map(|n| format!("line {n}\n")).collect();
    write(d, "src/app.py", &lines);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    let base = rev(d);
    git(d, &["checkout", "-q", "-b", "good"]);
    write(d, "src/app.py", &format!("\"\"\"The app.\"\"\"\n{lines}"));
    git(d, &["commit", "-q", "-am", "docstring"]);
    let good = rev(d);
    git(d, &["checkout", "-q", "-b", "bad", "main"]);
    write(
        d,
        "src/app.py",
        &lines.replace("line 5\n", "x = eval(input())\n"),
    );
    git(d, &["commit", "-q", "-am", "read input"]);
    let bad = rev(d);
    Fixture {
        repo,
        base,
        bad,
        good,
        cassettes: tempfile::tempdir().unwrap(),
        home: tempfile::tempdir().unwrap(),
        bin: bin_dir(),
        hooks: hook_repo(),
    }
}

impl Fixture {
    fn env(&self, c: &mut Command) {
        let path = format!(
            "{}:{}",
            self.bin.path().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        c.current_dir(self.repo.path())
            .env_clear()
            .env("PATH", path)
            .env("HOME", self.home.path())
            .env("XDG_STATE_HOME", self.home.path().join("state"))
            .env("PRE_COMMIT_HOME", self.home.path().join("pre-commit"))
            .env("GIT_CONFIG_NOSYSTEM", "1");
    }

    /// Records the model's answer for what the hook will ask, by running the
    /// hook's command as pre-commit would, against the fake server.
    fn record(&self, server: &FakeServer, hook_env: &[(&str, &str)], args: &[&str]) {
        let mut c = Command::new(env!("CARGO_BIN_EXE_crit"));
        self.env(&mut c);
        c.args(["hook", "pre-commit"])
            .args(args)
            .args(["--record", self.cassettes.path().to_str().unwrap()])
            .env("ANTHROPIC_BASE_URL", server.url())
            .env("ANTHROPIC_API_KEY", "sk-ant-hook-secret-0123456789")
            .env("CRIT_PROVIDER", "anthropic");
        for (k, v) in hook_env {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "recording: {}",
            show(&out)
        );
    }

    /// `pre-commit try-repo HOOKS HOOK …` on the replay provider.
    fn try_repo(&self, pre_commit: &Path, hook: &str, args: &[&str]) -> Output {
        let mut c = Command::new(pre_commit);
        self.env(&mut c);
        c.arg("try-repo")
            .arg(self.hooks.path())
            .arg(hook)
            .args(args)
            .env("CRIT_PROVIDER", "replay")
            .env("CRIT_CASSETTES", self.cassettes.path());
        c.output().unwrap()
    }
}

fn show(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn answer(verdict: &str, findings: serde_json::Value) -> Reply {
    Reply::json(json!({"verdict": verdict, "summary": "s", "findings": findings}))
}

#[test]
#[cfg_attr(
    missing_pre_commit,
    ignore = "pre-commit is not installed: run .ci/install-test-deps"
)]
fn crit_review_fails_a_bad_push_and_passes_a_good_one() {
    let pc = pre_commit();
    let f = fixture();
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("eval(input())").reply(answer(
        "FAIL",
        json!([{"file_path": "src/app.py", "line_start": 5, "line_end": 5, "priority": 1,
            "title": "[P1] eval of user input", "body": "Runs whatever is typed."}]),
    )));
    server.push(Step::when_contains("The app.").reply(answer("PASS", json!([]))));
    for to in [&f.bad, &f.good] {
        let env = [
            ("PRE_COMMIT_FROM_REF", f.base.as_str()),
            ("PRE_COMMIT_TO_REF", to.as_str()),
        ];
        f.record(&server, &env, &["review"]);
    }
    // The two reviews (the P1 finding also gets a verifier's second look).
    let reviews = server
        .model_requests()
        .iter()
        .filter(|r| !r.body.to_string().contains("You check one finding"))
        .count();
    assert_eq!(reviews, 2);
    drop(server);

    let push = |to: &str| {
        f.try_repo(
            &pc,
            "crit-review",
            &[
                "--hook-stage",
                "pre-push",
                "--from-ref",
                &f.base,
                "--to-ref",
                to,
            ],
        )
    };
    let out = push(&f.bad);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("crit review") && text.contains("Failed"),
        "{text}"
    );
    assert!(text.contains("eval of user input"), "{text}");
    assert!(!text.contains("sk-ant-hook-secret"), "{text}");

    let out = push(&f.good);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Passed"),
        "{}",
        show(&out)
    );

    // Nothing recorded for this range: the review cannot run, the push is held.
    let out = f.try_repo(
        &pc,
        "crit-review",
        &[
            "--hook-stage",
            "pre-push",
            "--from-ref",
            &f.bad,
            "--to-ref",
            &f.good,
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("no cassette"), "{text}");
}

#[test]
#[cfg_attr(
    missing_pre_commit,
    ignore = "pre-commit is not installed: run .ci/install-test-deps"
)]
fn crit_prompt_reviews_the_prompt_files_being_committed() {
    let pc = pre_commit();
    let f = fixture();
    let d = f.repo.path();
    write(
        d,
        "prompts/triage.md",
        "Do what the ticket says. Use your judgement.\n",
    );
    write(d, "src/other.py", "y = 2\n");
    git(d, &["add", "-A"]);
    let server = FakeServer::start_blocking();
    server.push(answer(
        "FAIL",
        json!([{"file_path": "prompts/triage.md", "line_start": 1, "line_end": 1, "priority": 1,
            "title": "[P1] Follows instructions from the ticket", "body": "Untrusted text becomes instructions."}]),
    ));
    // pre-commit passes the staged files its `files:` pattern matches.
    f.record(&server, &[], &["prompt", "prompts/triage.md"]);
    assert_eq!(server.model_requests().len(), 1);
    let asked = server.model_requests()[0].body["messages"].to_string();
    assert!(
        asked.contains("prompts/triage.md") && !asked.contains("src/other.py"),
        "{asked}"
    );
    drop(server);

    let out = f.try_repo(&pc, "crit-prompt", &["--hook-stage", "pre-commit"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("crit prompt review") && text.contains("Failed"),
        "{text}"
    );

    // No prompt file staged: the hook has nothing to do and is skipped.
    git(d, &["reset", "-q"]);
    git(d, &["add", "src/other.py"]);
    let out = f.try_repo(&pc, "crit-prompt", &["--hook-stage", "pre-commit"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Skipped"),
        "{}",
        show(&out)
    );
}

/// At commit time (no refs from pre-commit) the hook reviews the staged
/// change, and gates it by default.
#[test]
fn review_at_commit_time_reviews_the_staged_change() {
    let f = fixture();
    let d = f.repo.path();
    write(d, "src/app.py", "import os\nos.system(input())\n");
    git(d, &["add", "-A"]);
    let server = FakeServer::start_blocking();
    server.push(answer(
        "FAIL",
        json!([{"file_path": "src/app.py", "line_start": 2, "line_end": 2, "priority": 0,
            "title": "[P0] Shell command from input", "body": "b"}]),
    ));
    let out = support::crit(d, &server, None)
        .args(["hook", "pre-commit", "review", "--no-log"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let asked = server.model_requests()[0].body["messages"].to_string();
    assert!(asked.contains("os.system(input())"), "{asked}");
    assert!(asked.contains("uncommitted changes"), "{asked}");
    // `--fail-on never` given to the hook turns the findings gate off.
    let server = FakeServer::start_blocking();
    server.push(answer("FAIL", json!([])));
    let out = support::crit(d, &server, None)
        .args(["hook", "pre-commit", "review", "--fail-on", "never"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

#[test]
fn unknown_hook_events_and_stray_arguments_are_usage_errors() {
    for args in [
        vec!["hook", "pre-commit", "nope"],
        vec!["hook", "claude-code", "PreToolUse", "extra"],
    ] {
        let out = assert_cmd::Command::cargo_bin("crit")
            .unwrap()
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", show(&out));
    }
}

/// The example config, pointing at `hooks` (a local hook repository) at its
/// HEAD instead of the published one.
fn config_for(hooks: &Path) -> String {
    let example =
        std::fs::read_to_string(root().join("examples/pre-commit/.pre-commit-config.yaml"))
            .unwrap();
    let head = rev(hooks);
    example
        .replace(
            "repo: https://github.com/crit-review/crit",
            &format!("repo: {}", hooks.display()),
        )
        .replace("rev: v0.1.0", &format!("rev: {head}"))
}

#[test]
#[cfg_attr(
    missing_pre_commit,
    ignore = "pre-commit is not installed: run .ci/install-test-deps"
)]
fn a_first_push_to_a_new_remote_reviews_the_pushed_commits() {
    let pc = pre_commit();
    let f = fixture();
    let d = f.repo.path();
    write(d, ".pre-commit-config.yaml", &config_for(f.hooks.path()));
    git(d, &["add", ".pre-commit-config.yaml"]);
    git(d, &["commit", "-q", "-m", "hooks"]);
    let bad = rev(d);
    git(d, &["checkout", "-q", "good"]);
    git(
        d,
        &["checkout", "-q", "bad", "--", ".pre-commit-config.yaml"],
    );
    git(d, &["commit", "-q", "-m", "hooks"]);
    let good = rev(d);
    git(d, &["checkout", "-q", "bad"]);
    // `pre-commit install` installs both hook types the config names.
    let mut c = Command::new(&pc);
    f.env(&mut c);
    let out = c.arg("install").output().unwrap();
    assert!(out.status.success(), "{}", show(&out));
    assert!(d.join(".git/hooks/pre-push").is_file(), "{}", show(&out));
    assert!(d.join(".git/hooks/pre-commit").is_file(), "{}", show(&out));
    // A new, empty remote.
    let remote = tempfile::tempdir().unwrap();
    git(remote.path(), &["init", "-q", "--bare"]);
    git(
        d,
        &["remote", "add", "origin", remote.path().to_str().unwrap()],
    );

    // What each push asks, recorded as the hook will ask it: the branch
    // against the local default branch, as pre-commit names no range.
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("eval(input())").reply(answer(
        "FAIL",
        json!([{"file_path": "src/app.py", "line_start": 5, "line_end": 5, "priority": 1,
            "title": "[P1] eval of user input", "body": "Runs whatever is typed."}]),
    )));
    server.push(Step::when_contains("The app.").reply(answer("PASS", json!([]))));
    for branch in ["bad", "good"] {
        let local = format!("refs/heads/{branch}");
        let env = [
            ("PRE_COMMIT_REMOTE_NAME", "origin"),
            ("PRE_COMMIT_LOCAL_BRANCH", local.as_str()),
        ];
        f.record(&server, &env, &["review"]);
    }
    // The two reviews (the P1 finding also gets a verifier's second look).
    let asked: Vec<String> = server
        .model_requests()
        .iter()
        .map(|r| r.body["messages"].to_string())
        .filter(|m| !m.contains("The finding to check"))
        .collect();
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert!(asked[0].contains("eval(input())"), "{}", asked[0]);
    assert!(!asked[0].contains("uncommitted"), "{}", asked[0]);
    drop(server);

    let push = |branch: &str| {
        let mut c = Command::new("git");
        f.env(&mut c);
        c.args(["push", "-q", "origin", branch])
            .env("CRIT_PROVIDER", "replay")
            .env("CRIT_CASSETTES", f.cassettes.path());
        c.output().unwrap()
    };
    let out = push("bad");
    assert_ne!(
        out.status.code(),
        Some(0),
        "the P1 is not pushed: {}",
        show(&out)
    );
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("eval of user input"), "{text}");
    assert!(
        text.contains("against the local default branch `main`"),
        "{text}"
    );
    let remote_has = |sha: &str| {
        Command::new("git")
            .args(["cat-file", "-e", &format!("{sha}^{{commit}}")])
            .current_dir(remote.path())
            .status()
            .unwrap()
            .success()
    };
    assert!(!remote_has(&bad));
    let out = push("good");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(remote_has(&good));
}

#[test]
fn the_readme_shows_the_example_config_and_how_to_install_its_hooks() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let example =
        std::fs::read_to_string(root().join("examples/pre-commit/.pre-commit-config.yaml"))
            .unwrap();
    let body: String = example
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(
        readme.contains(&body),
        "README.md shows the example config:\n{body}"
    );
    assert!(
        readme.contains("pre-commit install"),
        "and how to install it"
    );
}

/// pre-commit installs the hooks with pip, which builds crit through the
/// repository's build backend with `--locked`: a Cargo.lock that does not
/// match Cargo.toml stops the install instead of resolving newer crates.
/// Offline: pip takes maturin from .test-deps/wheels, and cargo stops at the
/// lock file before it compiles anything.
#[test]
#[cfg_attr(
    missing_pre_commit,
    ignore = "pre-commit is not installed: run .ci/install-test-deps"
)]
fn pre_commit_builds_crit_with_the_lock_file() {
    let pc = pre_commit();
    let wheels = root().join(".test-deps/wheels");
    assert!(
        wheels.is_dir(),
        "{} is missing: run .ci/install-test-deps",
        wheels.display()
    );
    // The repository as committed, with a Cargo.lock one crate short.
    let clone = tempfile::tempdir().unwrap();
    let c = clone.path().join("crit");
    let out = Command::new("git")
        .args(["clone", "-q", "--no-hardlinks"])
        .arg(root())
        .arg(&c)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", show(&out));
    init_identity(&c);
    let lock = std::fs::read_to_string(c.join("Cargo.lock")).unwrap();
    let entry = "[[package]]\nname = \"shlex\"\n";
    let at = lock.find(entry).expect("Cargo.lock lists shlex");
    let end = lock[at + entry.len()..]
        .find("\n\n")
        .map_or(lock.len(), |i| at + entry.len() + i + 2);
    std::fs::write(
        c.join("Cargo.lock"),
        format!("{}{}", &lock[..at], &lock[end..]),
    )
    .unwrap();
    git(&c, &["commit", "-q", "-am", "a stale lock file"]);

    let f = fixture();
    let mut cmd = Command::new(&pc);
    f.env(&mut cmd);
    let out = cmd
        .args(["try-repo"])
        .arg(&c)
        .args(["crit-review", "--hook-stage", "pre-push", "--from-ref"])
        .args([&f.base, "--to-ref", &f.good])
        .env("PIP_NO_INDEX", "1")
        .env("PIP_FIND_LINKS", &wheels)
        .env(
            "CARGO_HOME",
            std::env::var_os("CARGO_HOME")
                .unwrap_or_else(|| std::env::home_dir().unwrap().join(".cargo").into()),
        )
        .env(
            "RUSTUP_HOME",
            std::env::var_os("RUSTUP_HOME")
                .unwrap_or_else(|| std::env::home_dir().unwrap().join(".rustup").into()),
        )
        .env("CARGO_NET_OFFLINE", "true")
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0), "{}", show(&out));
    let log = std::fs::read_to_string(f.home.path().join("pre-commit/pre-commit.log"))
        .unwrap_or_default();
    let text = format!("{}\n{log}", show(&out));
    assert!(
        text.contains("--locked") && text.contains("lock file"),
        "the install stopped at the lock file: {text}"
    );
}

fn init_identity(d: &Path) {
    git(d, &["config", "user.name", "Test"]);
    git(d, &["config", "user.email", "test@example.com"]);
    git(d, &["config", "commit.gpgsign", "false"]);
}
