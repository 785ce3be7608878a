//! `crit review` on the Claude Code CLI backend, end to end: the binary, a real
//! git repository, and crit-testkit's scripted `claude`.

use crate::support;

use std::path::Path;

use assert_cmd::Command;
use crit_testkit::FakeServer;
use support::json_out;
use support::review_repo::{findings_answer, repo};

fn crit(dir: &Path, server: &FakeServer) -> Command {
    support::crit(dir, server, None)
}

/// The Claude Code backend runs the reviewer's own loop: crit gives it the
/// prompts, read-only tools (Bash only for read-only git), and the schema.
#[test]
fn the_claude_code_backend_gets_read_only_tools_and_the_schema() {
    use crit_testkit::FakeClaude;
    let dir = repo();
    let d = dir.path();
    let bin_dir = tempfile::tempdir().unwrap();
    let bin = FakeClaude::new()
        .emit_init()
        .emit_result(FakeClaude::structured_result(findings_answer()))
        .write(bin_dir.path());
    let server = FakeServer::start_blocking();
    let out = crit(d, &server)
        .env("CRIT_CLAUDE_BIN", &bin)
        .args([
            "review",
            "code",
            "--verify",
            "off",
            "--no-cache",
            "--diff",
            "HEAD~1..HEAD",
            "--provider",
            "claude-code",
            "--json",
            "--no-log",
        ])
        .output()
        .unwrap();
    let result = json_out(&out);
    assert_eq!(result["verdict"], "FAIL", "{result}");
    assert_eq!(result["findings"][0]["severity"], "P1");
    let calls = FakeClaude::invocations(bin_dir.path());
    let call = &calls[0];
    assert_eq!(call.arg_value("--tools"), Some("Read,Glob,Grep,Bash"));
    let allowed = call.arg_value("--allowedTools").unwrap();
    assert!(allowed.contains("Bash(git diff:*)"), "{allowed}");
    assert!(
        !allowed.split(',').any(|t| t == "Bash"),
        "never the whole shell: {allowed}"
    );
    assert!(
        call.arg_value("--json-schema")
            .unwrap()
            .contains("findings")
    );
    assert!(
        call.arg_value("--system-prompt")
            .unwrap()
            .contains("Every handler checks")
    );
    assert!(server.requests().is_empty());
}

#[test]
fn claude_code_failures_are_told_plainly() {
    use crit_testkit::FakeClaude;
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    // The CLI is missing.
    let out = crit(d, &server)
        .env("CRIT_CLAUDE_BIN", d.join("no-such-claude"))
        .args([
            "review",
            "code",
            "--verify",
            "off",
            "--no-cache",
            "--diff",
            "HEAD~1..HEAD",
            "--provider",
            "claude-code",
            "--json",
            "--no-log",
        ])
        .output()
        .unwrap();
    // A configured path that is not there: the user's to fix (exit 2), and the
    // message names the setting (with --json, mala's ERROR result is printed too).
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("no-such-claude") && err.contains("CRIT_CLAUDE_BIN"),
        "{err}"
    );
    // The CLI runs but the API fails.
    let bin_dir = tempfile::tempdir().unwrap();
    let bin = FakeClaude::new()
        .emit_init()
        .emit_result(FakeClaude::api_error_result(
            401,
            "Invalid API key · Please run /login",
        ))
        .exit_code(1)
        .write(bin_dir.path());
    let out = crit(d, &server)
        .env("CRIT_CLAUDE_BIN", &bin)
        .args([
            "review",
            "code",
            "--verify",
            "off",
            "--no-cache",
            "--diff",
            "HEAD~1..HEAD",
            "--provider",
            "claude-code",
            "--json",
            "--no-log",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let result = json_out(&out);
    assert!(
        result["parse_error"]
            .as_str()
            .unwrap()
            .contains("Invalid API key"),
        "{result}"
    );
}
