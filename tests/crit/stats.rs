//! `crit stats` over a fixture of audit lines (crit's reviews of every kind,
//! prompt reviews with a later answer, a line from the prompt-review
//! plugin's own log, a line outside the period, one that is not JSON):
//! golden terminal and JSON output.

use crate::support;

use std::path::Path;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// A home and state directory holding the fixture's logs.
fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/crit/fixtures/stats");
    copy_dir(&src.join("audit"), &dir.path().join("state/crit/audit"));
    copy_dir(
        &src.join("plugin-logs"),
        &dir.path().join("home/.claude/plugins/prompt-review/logs"),
    );
    dir
}

fn stats(dir: &Path, args: &[&str]) -> String {
    let out = assert_cmd::Command::cargo_bin("crit")
        .unwrap()
        .env_clear()
        .env("HOME", dir.join("home"))
        .env("XDG_STATE_HOME", dir.join("state"))
        .arg("stats")
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", support::stderr(&out));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn terminal_report_over_a_week() {
    let dir = fixture();
    let text = stats(dir.path(), &["--since", "7d", "--until", "2026-02-24"]);
    insta::assert_snapshot!("stats_terminal", text);
}

#[test]
fn json_report_over_a_week() {
    let dir = fixture();
    let text = stats(
        dir.path(),
        &["--since", "7d", "--until", "2026-02-24", "--json"],
    );
    insta::assert_snapshot!("stats_json", text);
}

#[test]
fn the_period_decides_what_counts() {
    let dir = fixture();
    let all = stats(
        dir.path(),
        &["--since", "2026-02-01", "--until", "2026-02-24", "--json"],
    );
    let v: serde_json::Value = serde_json::from_str(&all).unwrap();
    assert_eq!(v["reviews"], 11);
    let one = stats(
        dir.path(),
        &["--since", "1d", "--until", "2026-02-24", "--json"],
    );
    let v: serde_json::Value = serde_json::from_str(&one).unwrap();
    assert_eq!(v["reviews"], 1);
    let none = stats(dir.path(), &["--since", "2d", "--until", "2026-01-02"]);
    assert!(none.contains("No reviews in this period."), "{none}");
    let out = assert_cmd::Command::cargo_bin("crit")
        .unwrap()
        .env("XDG_STATE_HOME", dir.path().join("state"))
        .args(["stats", "--since", "seven days"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(support::stderr(&out).contains("--since seven days: expected"));
}

/// `crit plan` writes its audit line too: plan reviews are counted with the
/// rest, with the ids of the checks that fired and no plan text.
#[test]
fn plan_reviews_are_in_the_audit_log() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    support::write(
        d,
        "plan.md",
        "# Plan\n\nWe parse the config with eval() for speed.\n",
    );
    support::write(
        d,
        "checks.yaml",
        "checks:\n  - id: no_eval\n    pattern: \"eval()\"\n    reason: \"Security risk\"\n",
    );
    let out = assert_cmd::Command::cargo_bin("crit")
        .unwrap()
        .env_clear()
        .env("PATH", "/nonexistent")
        .env("HOME", d.join("home"))
        .env("XDG_STATE_HOME", d.join("state"))
        .current_dir(d)
        .args(["plan", "plan.md", "--non-interactive"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("QUESTION\n"),
        "{}",
        support::stderr(&out)
    );
    let audit = std::fs::read_dir(d.join("state/crit/audit"))
        .unwrap()
        .flatten()
        .find(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .unwrap()
        .path();
    let text = std::fs::read_to_string(audit).unwrap();
    let line: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(line["review"], "plan");
    assert_eq!(line["rules"]["no_eval"], 1, "{line}");
    assert!(!text.contains("config with"), "{text}");
    let v: serde_json::Value =
        serde_json::from_str(&stats(d, &["--since", "1d", "--json"])).unwrap();
    assert_eq!(v["kinds"][0]["kind"], "plan");
}
