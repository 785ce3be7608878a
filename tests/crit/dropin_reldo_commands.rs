//! Reldo's reviewer prompts call the project's linters ("Run `lint:php` on
//! the files", the PRD's backend reviewer). A sub-agent's Bash runs exactly
//! the project commands a trusted config lists (`project_commands`), in the
//! tools' sandbox, followed only by files of the project; anything else is
//! refused with a message naming what it may run, and a project's list is
//! ignored until the user trusts it.

use crate::support;

use std::path::Path;

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::json;
use support::{crit, stderr, write};

/// The PRD's example backend reviewer, as written.
const BACKEND_REVIEWER: &str = "# Backend Reviewer

<role>
You review PHP/Laravel code for compliance with backend conventions.
You read project rules, run linters, check code against conventions, and
report violations with file paths and line numbers. Return STATUS: PASS
if no issues, STATUS: FAIL with violations list if issues found.
</role>

<instructions>
1. Read relevant rules from `.claude/rules/techstack/backend/`
2. Run `lint:php` on the files to catch type errors
3. Check code against the rules you read
4. Report any violations found
</instructions>
";

const COMMANDS: &str = "project_commands: [\"composer lint:php\", \"npm run lint\"]\n";

/// `composer` and `npm` stand-ins outside the project: each says it ran,
/// and whether it could write into the project (the sandbox says no).
fn linters() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let bin = tempfile::tempdir().unwrap();
    for name in ["composer", "npm"] {
        let path = bin.path().join(name);
        std::fs::write(
            &path,
            format!(
                "#!/bin/sh\necho \"{name} ran: $*\"\nif touch lint-cache 2>/dev/null; then echo wrote; else echo 'could not write'; fi\n"
            ),
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    bin
}

/// The Reldo layout with the PRD's backend reviewer.
fn project() -> tempfile::TempDir {
    let dir = super::dropin_reldo::reldo_project();
    write(
        dir.path(),
        ".claude/reldo/agents/backend-reviewer.md",
        BACKEND_REVIEWER,
    );
    dir
}

/// `crit run` where the backend reviewer runs `command` in Bash: what its
/// Bash answered, and crit's stderr.
fn bash_result(d: &Path, bin: &Path, command: &str) -> (String, String) {
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::tool_use(
        "Task",
        json!({"description": "review", "prompt": "Review app/Models/User.php", "subagent_type": "backend-reviewer"}),
    )));
    server.push(
        Step::when_contains("compliance with backend conventions").reply(Reply::tool_use(
            "Bash",
            json!({"command": command, "description": "lint"}),
        )),
    );
    server.push(
        Step::when_contains("compliance with backend conventions")
            .reply(Reply::text("STATUS: PASS")),
    );
    server.push(Step::reply(Reply::text(
        "All reviewers passed.\n\nSTATUS: PASS",
    )));
    let out = crit(d, &server, Some(bin))
        .args(["run", "--prompt", "Review app/Models/User.php", "--no-log"])
        .output()
        .unwrap();
    let reqs = server.model_requests();
    let answered = reqs
        .iter()
        .filter(|r| {
            r.body
                .to_string()
                .contains("compliance with backend conventions")
        })
        .find_map(|r| {
            let last = r.body["messages"].as_array()?.last()?.clone();
            let text = last.to_string();
            text.contains("tool_result").then_some(text)
        })
        .unwrap_or_else(|| panic!("no Bash result: {}", stderr(&out)));
    (answered, stderr(&out))
}

#[test]
fn sub_agents_run_the_trusted_project_commands_and_nothing_else() {
    let bin = linters();
    let dir = project();
    let d = dir.path();
    write(d, ".crit/config.yaml", COMMANDS);
    // Not trusted yet: the project's list is ignored, and the warning says so.
    let (answer, err) = bash_result(d, bin.path(), "composer lint:php app/Models/User.php");
    assert!(answer.contains("`composer` is not allowed"), "{answer}");
    assert!(!answer.contains("composer ran"), "{answer}");
    assert!(err.contains("ignoring `project_commands`"), "{err}");

    let server = FakeServer::start_blocking();
    crit(d, &server, None)
        .args(["trust", "--yes"])
        .assert()
        .success();
    for (command, ran) in [
        (
            "composer lint:php app/Models/User.php",
            "composer ran: lint:php app/Models/User.php",
        ),
        ("composer lint:php", "composer ran: lint:php"),
        ("npm run lint", "npm ran: run lint"),
    ] {
        let (answer, _) = bash_result(d, bin.path(), command);
        assert!(answer.contains(ran), "{command}: {answer}");
        // Inside crit's sandbox: it reads the project, it writes nothing.
        assert!(answer.contains("could not write"), "{command}: {answer}");
        assert!(!d.join("lint-cache").exists(), "{command}");
    }
    for command in [
        "composer install",
        "composer lint:php --fix app/Models/User.php",
        "composer lint:php ../outside.php",
        "composer lint:php /etc/passwd",
        "npm run",
        "npm run lint-fix",
    ] {
        let (answer, _) = bash_result(d, bin.path(), command);
        assert!(
            answer.contains("is not one of the project's commands"),
            "{command}: {answer}"
        );
        assert!(
            answer.contains("composer lint:php; npm run lint"),
            "{command}: {answer}"
        );
        assert!(!answer.contains(" ran:"), "{command}: {answer}");
    }
    for (command, says) in [
        ("npm run lint; rm -rf app", "shell syntax"),
        ("php artisan migrate", "`php` is not allowed"),
    ] {
        let (answer, _) = bash_result(d, bin.path(), command);
        assert!(answer.contains(says), "{command}: {answer}");
        assert!(!answer.contains(" ran:"), "{command}: {answer}");
    }
    // The refusal of another program names the project's commands too.
    let (answer, _) = bash_result(d, bin.path(), "make lint");
    assert!(
        answer.contains("the project's commands: composer lint:php; npm run lint"),
        "{answer}"
    );
}

#[test]
fn the_users_own_config_lists_commands_without_trust() {
    let bin = linters();
    let dir = project();
    let d = dir.path();
    write(d, ".home/.config/crit/config.yaml", COMMANDS);
    let (answer, _) = bash_result(d, bin.path(), "npm run lint");
    assert!(answer.contains("npm ran: run lint"), "{answer}");
    // A command line that is not plain words is an error with its place.
    write(
        d,
        ".home/.config/crit/config.yaml",
        "project_commands: [\"npm run lint && rm -rf .\"]\n",
    );
    let server = FakeServer::start_blocking();
    let out = crit(d, &server, Some(bin.path()))
        .args(["run", "--prompt", "Review it", "--no-log"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("config.yaml:1:") && err.contains("project_commands"),
        "{err}"
    );
}
