//! `crit report` end to end: the binary on saved results in temporary directories.

use assert_cmd::Command;
use crit_core::{Finding, Location, ReviewResult, Severity, Verdict};
use predicates::prelude::*;
use tempfile::TempDir;

fn crit() -> Command {
    let mut c = Command::cargo_bin("crit").unwrap();
    c.env_remove("NO_COLOR")
        .env_remove("CRIT_PROVIDER")
        .env_remove("CRIT_MODEL");
    c
}

fn saved(dir: &TempDir, result: &ReviewResult) -> std::path::PathBuf {
    let path = dir.path().join("result.json");
    std::fs::write(&path, serde_json::to_string_pretty(result).unwrap()).unwrap();
    path
}

fn failing() -> ReviewResult {
    let mut r = ReviewResult::new("code", Verdict::Concerns);
    r.findings =
        vec![
            Finding::new("[P2] Duplicate helper", Severity::P2, "agent")
                .with_location(Location::lines("src/util.rs", 10, 12)),
            Finding::new("[P3] Typo in comment", Severity::P3, "agent")
                .with_location(Location::lines("src/lib.rs", 3, 3)),
        ];
    r.apply_gate(crit_core::FailOn::default());
    r
}

#[test]
fn renders_every_format() {
    let dir = TempDir::new().unwrap();
    let path = saved(&dir, &failing());
    for (format, needle) in [
        ("terminal", "src/util.rs"),
        ("json", "\"schema_version\": 1"),
        (
            "markdown",
            "| P2 | `src/util.rs:10-12` | Duplicate helper |",
        ),
        ("sarif", "\"version\": \"2.1.0\""),
        ("rdjson", "\"diagnostics\""),
    ] {
        crit()
            .args(["report", path.to_str().unwrap(), "--format", format])
            .assert()
            .success()
            .stdout(predicate::str::contains(needle));
    }
}

#[test]
fn json_output_round_trips() {
    let dir = TempDir::new().unwrap();
    let r = failing();
    let path = saved(&dir, &r);
    let out = crit()
        .args(["report", path.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    let back: ReviewResult = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(back, r);
}

#[test]
fn reads_stdin_and_writes_out_file() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("nested/report.sarif");
    crit()
        .args([
            "report",
            "-",
            "--format",
            "sarif",
            "--out",
            out.to_str().unwrap(),
        ])
        .write_stdin(serde_json::to_string(&failing()).unwrap())
        .assert()
        .success()
        .stdout("");
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
    assert_eq!(sarif["runs"][0]["results"].as_array().unwrap().len(), 2);
}

#[test]
fn seed_output_spelling() {
    let dir = TempDir::new().unwrap();
    let path = saved(&dir, &failing());
    let file = dir.path().join("out.json");
    crit()
        .args([
            "report",
            path.to_str().unwrap(),
            "--output",
            "file",
            file.to_str().unwrap(),
        ])
        .assert()
        .success();
    let back: ReviewResult =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(back.findings.len(), 2);
    crit()
        .args(["report", path.to_str().unwrap(), "--output", "json"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("{"));
    crit()
        .args(["report", path.to_str().unwrap(), "--output", "terminal"])
        .assert()
        .success()
        .stdout(predicate::str::contains("CONCERNS"));
    crit()
        .args(["report", path.to_str().unwrap(), "--output", "file"])
        .assert()
        .code(2)
        .stderr("crit: --output file needs a path: --output file PATH\n");
    crit()
        .args(["report", path.to_str().unwrap(), "--output", "yaml"])
        .assert()
        .code(2)
        .stderr("crit: --output yaml: expected `terminal`, `json` or `file PATH`\n");
}

#[test]
fn gate_sets_the_exit_code() {
    let dir = TempDir::new().unwrap();
    let path = saved(&dir, &failing());
    let p = path.to_str().unwrap();
    crit().args(["report", p]).assert().code(0);
    crit().args(["report", p, "--exit-code"]).assert().code(0);
    crit()
        .args(["report", p, "--fail-on", "p2"])
        .assert()
        .code(1);
    crit()
        .args(["report", p, "--fail-on", "concerns"])
        .assert()
        .code(1);
    crit()
        .args(["report", p, "--fail-on", "p1"])
        .assert()
        .code(0);
    // The case crit prints (`P2`, `CONCERNS`) is accepted as written.
    for (level, code) in [
        ("P2", 1),
        ("Minor", 1),
        ("CONCERNS", 1),
        ("P1", 0),
        ("NEVER", 0),
    ] {
        crit()
            .args(["report", p, "--fail-on", level])
            .assert()
            .code(code);
    }
    crit()
        .args(["report", p, "--format", "JSON", "--color", "NEVER"])
        .assert()
        .code(0);
    let unknown = ReviewResult::parse_failure("code", "invalid json: empty output", "");
    let path = saved(&dir, &unknown);
    crit()
        .args(["report", path.to_str().unwrap(), "--fail-on", "never"])
        .assert()
        .code(1);
}

#[test]
fn malformed_inputs_get_one_clear_line_and_exit_2() {
    let dir = TempDir::new().unwrap();
    let cases: &[(&str, &str)] = &[
        (
            "{\"verdict\": \"PASS\",\n  \"passed\": tru }",
            ":2:16: expected ident;",
        ),
        ("{\"schema_version\": 1}", ":1:21: missing field `review`;"),
        ("", ": empty file;"),
        ("[1, 2]", ":1:1: not a JSON object;"),
        ("\n\n   \"text\"", ":3:4: not a JSON object;"),
        (
            "{\"schema_version\":1,\"review\":\"x\",\"verdict\":\"MAYBE\",\"passed\":true}",
            "unknown variant `MAYBE`, expected one of `PASS`, `CONCERNS`, `FAIL`, `INCOMPLETE`, `UNKNOWN`, `ERROR`",
        ),
    ];
    for (text, expected) in cases {
        let path = dir.path().join("bad.json");
        std::fs::write(&path, text).unwrap();
        let out = crit()
            .args(["report", path.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{text}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(
            stderr.starts_with(&format!("crit: {}", path.display())),
            "{stderr}"
        );
        assert!(
            stderr.contains(expected),
            "{stderr}\nexpected to contain {expected}"
        );
        assert!(
            stderr.contains("expected a ReviewResult JSON document"),
            "{stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn unreadable_and_binary_inputs() {
    let dir = TempDir::new().unwrap();
    let missing = dir.path().join("nope.json");
    crit()
        .args(["report", missing.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "nope.json: cannot read: No such file or directory",
        ));
    let bin = dir.path().join("bin.json");
    std::fs::write(&bin, [0xff, 0xfe, 0x00]).unwrap();
    crit()
        .args(["report", bin.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not UTF-8 text"));
}

#[test]
fn newer_schema_version_is_refused() {
    let dir = TempDir::new().unwrap();
    let mut v = serde_json::to_value(failing()).unwrap();
    v["schema_version"] = 99.into();
    let path = dir.path().join("future.json");
    std::fs::write(&path, v.to_string()).unwrap();
    crit()
        .args(["report", path.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("newer crit"));
}

#[test]
fn color_flags() {
    let dir = TempDir::new().unwrap();
    let path = saved(&dir, &failing());
    let p = path.to_str().unwrap();
    crit()
        .args(["report", p, "--color", "always"])
        .assert()
        .stdout(predicate::str::contains("\u{1b}["));
    crit()
        .args(["report", p, "--color", "never"])
        .assert()
        .stdout(predicate::str::contains("\u{1b}[").not());
    // Not a terminal: auto means no color.
    crit()
        .args(["report", p])
        .assert()
        .stdout(predicate::str::contains("\u{1b}[").not());
}

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    crit().assert().code(2);
    crit()
        .arg("--help")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("Usage: crit"));
    crit()
        .arg("--version")
        .assert()
        .code(0)
        .stdout(format!("crit {}\n", env!("CARGO_PKG_VERSION")));
    crit()
        .args(["report"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("<FILE>"));
    crit()
        .args(["report", "x", "--format", "yaml"])
        .assert()
        .code(2);
    crit()
        .args(["report", "x", "--json", "--format", "sarif"])
        .assert()
        .code(2);
}
