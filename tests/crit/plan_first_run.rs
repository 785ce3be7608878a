//! A first `crit plan` as the README runs it: honest about what it wrote, what
//! reviewed the plan, and where each edit was.

use std::path::Path;

use assert_cmd::Command;
use tempfile::TempDir;

fn example() -> TempDir {
    let dir = TempDir::new().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/plan-session");
    for f in ["plan.md", "checks.yaml", "context.yaml"] {
        std::fs::copy(src.join(f), dir.path().join(f)).unwrap();
    }
    dir
}

fn plan(dir: &TempDir, args: &[&str]) -> (String, String, Option<i32>) {
    let home = dir.path().join(".home");
    let out = Command::cargo_bin("crit")
        .unwrap()
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", &home)
        .env("XDG_STATE_HOME", home.join("state"))
        .arg("plan")
        .arg(dir.path())
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code(),
    )
}

/// The `--answer` of the README's install-and-run command.
fn readme_answer() -> String {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let (_, rest) = readme.split_once("--answer decide_later=\"").unwrap();
    format!("decide_later={}", rest.split_once('"').unwrap().0)
}

#[test]
fn the_readme_example_says_what_it_wrote_and_that_no_model_reviewed() {
    let dir = example();
    let (out, err, code) = plan(&dir, &["--answer", &readme_answer()]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        err.contains(
            "crit: changed plan.md; created state.yaml, plan.approved, .crit-plan.lock (in "
        ),
        "{err}"
    );
    // Without a model, no persona is made to speak.
    assert!(
        out.contains(
            "Reviewer: Senior backend engineer (checks only; no model reviewed the plan)\n"
        ),
        "{out}"
    );
    assert!(!out.contains("[As "), "{out}");
    assert!(
        out.contains("Panel: did not run (no model backend configured)"),
        "{out}"
    );
    // Edit lines are the plan's lines as written: the TTL sentence was line 13
    // before the console.log line above it was removed.
    assert!(
        out.contains("  - L4: eval() → JSON.parse() (no_eval)\n"),
        "{out}"
    );
    assert!(
        out.contains("  - L10: removed sentence with 'console.log' (no_console_log)\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "  - L13: We will decide the TTL later. → We will use a 10-minute TTL. (user) (decide_later)\n"
        ),
        "{out}"
    );
    let plan_md = std::fs::read_to_string(dir.path().join("plan.md")).unwrap();
    assert_eq!(
        plan_md.lines().nth(11),
        Some("We will use a 10-minute TTL.")
    );

    // Run again: the plan is as approved, so nothing it holds changes.
    let (out, err, code) = plan(&dir, &[]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(!err.contains("plan.md"), "{err}");
    assert!(!err.contains("created"), "{err}");

    // Quiet: the verdict only.
    let (_, err, _) = plan(&dir, &["-q"]);
    assert!(!err.contains("crit:"), "{err}");
}
