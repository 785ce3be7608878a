//! `--color never|always|auto` governs every stream: the report on stdout and
//! the diagnostics on stderr. `auto` means colour only on a terminal, so a piped
//! or captured stream never carries escape codes, `NO_COLOR` or not.

use crate::support;

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::json;
use support::{git, init_repo, write};

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, "a.py", "x = 1\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    write(d, "a.py", "x = eval(input())\n");
    dir
}

fn run(color: &str) -> (String, String) {
    let dir = repo();
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::json(json!({
        "verdict": "FAIL", "summary": "s",
        "findings": [{"file_path": "a.py", "line_start": 1, "line_end": 1, "priority": 1,
                      "title": "eval of input", "body": "b"}]
    }))));
    let out = support::crit(dir.path(), &server, None)
        .args([
            "review",
            "code",
            "--uncommitted",
            // Debug lines: tracing's, with their coloured levels.
            "-vv",
            "--no-log",
            "--verify",
            "off",
            "--no-cache",
            "--color",
            color,
        ])
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn captured_streams_carry_no_colour_unless_asked() {
    for color in ["auto", "never"] {
        let (out, err) = run(color);
        assert!(out.contains("eval of input"), "{out}");
        assert!(
            err.contains("INFO") || err.contains("code"),
            "-v logs: {err}"
        );
        assert!(!out.contains('\x1b'), "{color}: stdout {out:?}");
        assert!(!err.contains('\x1b'), "{color}: stderr {err:?}");
    }
    let (out, err) = run("always");
    assert!(out.contains("\x1b["), "{out:?}");
    assert!(err.contains("\x1b["), "{err:?}");
}
