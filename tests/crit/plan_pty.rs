//! `crit plan` at a terminal: the question is asked in the reviewer's voice and
//! answered interactively. Runs the binary under a pseudo-terminal made by
//! util-linux `script` (a test dependency, like git).

use std::fs;
use std::io::Write;
use std::process::{Command, Stdio};

fn have_script() -> bool {
    Command::new("script")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Run `crit plan DIR` under a pty, typing `input`; returns (exit code, transcript).
fn under_pty(home: &std::path::Path, dir: &std::path::Path, input: &str) -> (Option<i32>, String) {
    let cmd = format!("'{}' plan '{}'", env!("CARGO_BIN_EXE_crit"), dir.display());
    let mut child = Command::new("script")
        .args(["-q", "-e", "-c", &cmd, "/dev/null"])
        .env("HOME", home)
        .env_remove("XDG_STATE_HOME")
        .env("TERM", "dumb")
        .env_remove("CRIT_PROVIDER")
        .env_remove("CRIT_MODEL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    // Keep stdin open until the child is done so `script` does not send EOF early.
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).replace('\r', ""),
    )
}

fn session(plan: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("plan.md"), plan).unwrap();
    fs::write(
        dir.join("context.yaml"),
        "reviewer_persona: \"Performance architect\"\n",
    )
    .unwrap();
    fs::write(
        dir.join("checks.yaml"),
        "checks:\n  - id: no_eval\n    pattern: \"eval()\"\n    fix: {action: replace, with: \"JSON.parse()\"}\n  - id: judgment\n    pattern: \"ambiguous thing\"\n    reason: \"Requires human judgment\"\n",
    )
    .unwrap();
    (tmp, dir)
}

#[test]
fn interactive_approve_under_a_pty() {
    assert!(
        have_script(),
        "this test needs util-linux `script` for its pseudo-terminal"
    );
    let (tmp, dir) = session("Use eval() on the ambiguous thing.\n");
    let (code, transcript) = under_pty(tmp.path(), &dir, "1\n");
    assert!(transcript.contains("Review: [Checks for Performance architect]: Pattern 'ambiguous thing' found. Requires human judgment."), "{transcript}");
    assert!(
        transcript.contains("1) Approve this instance — Mark this check as approved for this plan"),
        "{transcript}"
    );
    assert!(
        transcript.contains("2) Abort review — Stop review with INCOMPLETE status"),
        "{transcript}"
    );
    assert!(transcript.contains("APPROVED\nReviewer: Performance architect (checks only; no model reviewed the plan)\nChecks: 2 passed\nEdits: 1\n  - L1: eval() → JSON.parse() (no_eval)\n"), "{transcript}");
    assert_eq!(code, Some(0), "{transcript}");
    assert!(dir.join("plan.approved").exists());
}

#[test]
fn interactive_replacement_text_and_abort_under_a_pty() {
    assert!(
        have_script(),
        "this test needs util-linux `script` for its pseudo-terminal"
    );
    let (tmp, dir) = session("Decide the ambiguous thing.\n");
    let (code, transcript) = under_pty(tmp.path(), &dir, "Decide the settled question.\n");
    assert_eq!(code, Some(0), "{transcript}");
    assert_eq!(
        fs::read_to_string(dir.join("plan.md")).unwrap(),
        "Decide the settled question.\n"
    );

    let (tmp, dir) = session("Decide the ambiguous thing.\n");
    let (code, transcript) = under_pty(tmp.path(), &dir, "2\n");
    assert_eq!(code, Some(1), "{transcript}");
    assert!(
        transcript.contains("INCOMPLETE\nReviewer: Performance architect (checks only; no model reviewed the plan)\nReason: user aborted\n"),
        "{transcript}"
    );
}
