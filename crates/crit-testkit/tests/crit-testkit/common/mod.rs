//! Shared helpers of the SDK fidelity tests.

use std::path::PathBuf;
use std::process::Command;

use crit_testkit::{FakeServer, RecordedRequest, Reply};

/// The Python of the venv made by `.ci/install-test-deps`. The tests that call
/// this are ignored where it is missing (see `.ci/test_deps_cfg.rs`); under CI
/// they run, and this fails saying how to install it.
pub fn sdk_python() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let python = root.join(".test-deps/venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run .ci/install-test-deps to install the official Anthropic/OpenAI SDKs",
        python.display()
    );
    python
}

/// One scenario: the replies scripted on its own server, the function of
/// `tests/sdk/<script>` that checks what the SDK parsed, and checks of what
/// the SDK sent.
pub struct Case {
    pub name: &'static str,
    pub replies: Vec<Reply>,
    pub check: fn(&[RecordedRequest]),
}

pub fn case(name: &'static str, replies: Vec<Reply>) -> Case {
    Case {
        name,
        replies,
        check: |_| {},
    }
}

/// Runs every case in one Python process (importing an SDK takes seconds),
/// each against its own fake server, then runs the Rust-side checks.
pub fn run_cases(script: &str, cases: Vec<Case>) {
    let python = sdk_python();
    let servers: Vec<FakeServer> = cases
        .iter()
        .map(|c| {
            let s = FakeServer::start_blocking();
            s.push_all(c.replies.clone());
            s
        })
        .collect();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/sdk")
        .join(script);
    let mut cmd = Command::new(python);
    cmd.arg(&path);
    for (c, s) in cases.iter().zip(&servers) {
        cmd.arg(s.url()).arg(c.name);
    }
    for var in [
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
    ] {
        cmd.env_remove(var);
    }
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", path.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let failed: Vec<&str> = cases
        .iter()
        .map(|c| c.name)
        .filter(|n| !stdout.lines().any(|l| l == format!("ok {n}")))
        .collect();
    assert!(
        out.status.success() && failed.is_empty(),
        "{script}: scenarios failed: {failed:?} ({})\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    for (c, s) in cases.iter().zip(&servers) {
        eprintln!("checking requests of {}", c.name);
        (c.check)(&s.requests());
    }
}
