//! `crit prompt` at a terminal: the question `Proceed with the refined prompt?
//! (yes / no / edit)` answered under a pseudo-terminal made by util-linux
//! `script`, `edit` through a scripted `$EDITOR`.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crit_testkit::prompt_review::{critique, finding, who};
use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};

fn have_script() -> bool {
    Command::new("script")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn script_panel(server: &FakeServer) {
    server.push(
        Step::when_contains(who("Clarity")).reply(Reply::json(critique(
            "clarity",
            json!([finding(
                "CLR-001",
                "minor",
                "optimize the settings",
                "ReplaceVague",
                "Reduce settings.ts render time"
            )]),
        ))),
    );
    for (label, role) in [
        ("Domain SME", "domain_sme"),
        ("Security", "security"),
        ("Testing", "testing"),
    ] {
        server.push(Step::when_contains(who(label)).reply(Reply::json(critique(role, json!([])))));
    }
}

/// Runs `crit prompt "optimize the settings page"` under a pty typing `input`;
/// returns (exit code, transcript, the audit line).
fn under_pty(
    dir: &Path,
    server: &FakeServer,
    input: &str,
    editor: &Path,
) -> (Option<i32>, String, Value) {
    let cmd = format!(
        "'{}' prompt 'optimize the settings page'",
        env!("CARGO_BIN_EXE_crit")
    );
    let mut child = Command::new("script")
        .args(["-q", "-e", "-c", &cmd, "/dev/null"])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir.join(".home"))
        .env("XDG_STATE_HOME", dir.join(".state"))
        .env("XDG_CACHE_HOME", dir.join(".cache"))
        .env("TERM", "dumb")
        .env("ANTHROPIC_API_KEY", "sk-ant-test")
        .env("ANTHROPIC_BASE_URL", server.url())
        .env("PROMPT_REVIEW_MODE", "api")
        .env("VISUAL", editor)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    let audit_dir = dir.join(".state/crit/audit/prompt-review");
    let file = std::fs::read_dir(&audit_dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let text = std::fs::read_to_string(file).unwrap();
    let line = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).replace('\r', ""),
        line,
    )
}

fn editor(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("fake-editor.sh");
    // Writes through a child so no writable descriptor of ours leaks into a fork.
    let status = Command::new("sh")
        .arg("-c")
        .arg("printf '%s\\n' '#!/bin/sh' 'printf \"%s\\n\" \"Profile settings.ts first, then reduce its render time.\" > \"$1\"' > \"$0\" && chmod 755 \"$0\"")
        .arg(&path)
        .status()
        .unwrap();
    assert!(status.success());
    path
}

#[test]
fn yes_no_and_edit_at_a_terminal() {
    assert!(
        have_script(),
        "this test needs util-linux `script` for its pseudo-terminal"
    );
    let dir = tempfile::tempdir().unwrap();
    let ed = editor(dir.path());

    let server = FakeServer::start_blocking();
    script_panel(&server);
    let (code, t, line) = under_pty(dir.path(), &server, "maybe\nyes\n", &ed);
    assert_eq!(code, Some(0), "{t}");
    assert!(
        t.contains("Proceed with the refined prompt? (yes / no / edit) "),
        "{t}"
    );
    assert!(t.contains("Answer yes, no or edit."), "{t}");
    assert!(t.ends_with("Reduce settings.ts render time page\n"), "{t}");
    assert_eq!(line["outcome"], "approved");

    let server = FakeServer::start_blocking();
    script_panel(&server);
    let (code, t, line) = under_pty(dir.path(), &server, "no\n", &ed);
    assert_eq!(code, Some(0), "{t}");
    // (The pty echoes typed input as soon as it is written, so the answer
    // shows up earlier in the transcript.)
    assert!(
        t.ends_with("(yes / no / edit) optimize the settings page\n"),
        "{t}"
    );
    assert_eq!(line["outcome"], "rejected");

    let server = FakeServer::start_blocking();
    script_panel(&server);
    let (code, t, line) = under_pty(dir.path(), &server, "edit\n", &ed);
    assert_eq!(code, Some(0), "{t}");
    assert!(
        t.ends_with("Profile settings.ts first, then reduce its render time.\n"),
        "{t}"
    );
    assert_eq!(line["outcome"], "edited");
    // The block and the diff came first, at the terminal.
    assert!(
        t.contains("~ [Clarity] Replaced \"optimize the settings\" → \"Reduce settings.ts"),
        "{t}"
    );
    assert!(
        t.contains("-optimize the settings page\n+Reduce settings.ts render time page\n"),
        "{t}"
    );
}
