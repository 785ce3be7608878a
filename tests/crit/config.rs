//! `crit config` and config files driving backend selection, end to end.

use assert_cmd::Command;
use crit_testkit::{FakeServer, Reply, Step};
use predicates::prelude::*;
use tempfile::TempDir;

fn crit(dir: &TempDir) -> Command {
    let mut c = Command::cargo_bin("crit").unwrap();
    c.env_clear()
        .env("PATH", "/nonexistent")
        .env("HOME", dir.path())
        .env("XDG_CONFIG_HOME", dir.path().join("xdg"))
        .current_dir(dir.path());
    c
}

fn write(dir: &TempDir, rel: &str, text: &str) {
    let p = dir.path().join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// `crit config --json`, which must succeed.
fn config_json(dir: &TempDir) -> serde_json::Value {
    let out = crit(dir).args(["config", "--json"]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The (value, source) of the row `key` in a list of rows.
fn row(rows: &serde_json::Value, key: &str) -> (String, String) {
    rows.as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == key)
        .map(|r| {
            (
                r["value"].as_str().unwrap().to_string(),
                r["source"].as_str().unwrap().to_string(),
            )
        })
        .unwrap_or_else(|| panic!("no {key} in {rows}"))
}

#[test]
fn shows_each_value_with_its_origin_and_precedence() {
    let dir = TempDir::new().unwrap();
    write(
        &dir,
        "xdg/crit/config.yaml",
        "provider: openai\nmodel: user-model\nbase_url: http://127.0.0.1:9/v1\nfail_on: p2\n",
    );
    write(
        &dir,
        ".crit/config.yaml",
        "model: project-model\nreview:\n  timeout: 300\n",
    );
    // The project's limit moves the review only once trusted.
    let doc = config_json(&dir);
    let ignored = row(&doc["rules"], "timeout");
    assert_eq!(ignored.0, "300 (ignored)");
    assert!(
        ignored.1.starts_with(".crit/config.yaml:3: not trusted"),
        "{ignored:?}"
    );
    crit(&dir).args(["trust", "--yes"]).assert().success();
    let doc = config_json(&dir);
    let code = &doc["kinds"][0];
    assert_eq!(code["kind"], "code review");
    let get = |k: &str| row(&code["settings"], k);
    assert_eq!(get("provider").0, "openai");
    assert!(
        get("provider").1.ends_with("xdg/crit/config.yaml:1"),
        "{:?}",
        get("provider")
    );
    assert_eq!(get("model").0, "project-model");
    assert!(get("model").1.ends_with(".crit/config.yaml:1"));
    assert_eq!(
        get("timeout"),
        ("300s".into(), "./.crit/config.yaml:3".into())
    );
    assert!(get("fail_on").1.ends_with("config.yaml:4"));
    // Environment over files, flags over environment.
    crit(&dir)
        .args(["config"])
        .env("CRIT_MODEL", "env-model")
        .assert()
        .success()
        .stdout(
            predicate::str::contains("env-model").and(predicate::str::contains("(env CRIT_MODEL)")),
        );
    crit(&dir)
        .args(["config", "--model", "flag-model", "--timeout", "5"])
        .env("CRIT_MODEL", "env-model")
        .assert()
        .success()
        .stdout(
            predicate::str::contains("flag-model")
                .and(predicate::str::contains("(--model)"))
                .and(predicate::str::contains("5s")),
        );
}

#[test]
fn a_malformed_config_names_file_line_and_column() {
    let dir = TempDir::new().unwrap();
    write(&dir, ".crit/config.yaml", "model: x\nprovider: gemini\n");
    crit(&dir).args(["config"]).assert().code(2).stderr(
        "crit: ./.crit/config.yaml:2:11: unknown provider `gemini`; expected one of anthropic, openai, claude-code, command, replay\n",
    );
    crit(&dir).args(["doctor"]).assert().code(2);
}

#[test]
fn doctor_uses_the_project_config() {
    let dir = TempDir::new().unwrap();
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::text("OK")));
    write(
        &dir,
        ".crit/config.yaml",
        &format!(
            "provider: openai\nmodel: local-model\nbase_url: {}/v1\n",
            server.url()
        ),
    );
    // `base_url` decides where the API key goes: honoured once trusted.
    crit(&dir).args(["trust", "--yes"]).assert().success();
    crit(&dir)
        .args(["doctor"])
        .assert()
        .success()
        .stdout(predicate::str::contains("local-model"));
    assert_eq!(server.model_requests()[0].body["model"], "local-model");
}

#[test]
fn no_backend_is_shown_not_fatal() {
    let dir = TempDir::new().unwrap();
    crit(&dir)
        .args(["config"])
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"provider +\(none\)").unwrap());
}

#[test]
fn panel_start_shows_with_its_origin_and_a_project_cannot_make_every_reviewer_pay() {
    let dir = TempDir::new().unwrap();
    let code = |doc: &serde_json::Value| doc["kinds"][0]["settings"].clone();
    assert_eq!(
        row(&code(&config_json(&dir)), "panel_start"),
        ("auto".to_string(), "default".to_string())
    );
    write(&dir, "xdg/crit/config.yaml", "panel_start: warm-first\n");
    let (value, source) = row(&code(&config_json(&dir)), "panel_start");
    assert_eq!(value, "warm-first");
    assert!(source.ends_with("xdg/crit/config.yaml:1"), "{source}");
    // `together` writes the shared prefix once per reviewer: from an
    // untrusted project it is ignored.
    write(&dir, ".crit/config.yaml", "panel_start: together\n");
    let doc = config_json(&dir);
    assert_eq!(row(&code(&doc), "panel_start").0, "warm-first");
    assert_eq!(row(&doc["rules"], "panel_start").0, "together (ignored)");
    let out = crit(&dir)
        .args(["config", "--json"])
        .env("CRIT_PANEL_START", "together")
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        row(&code(&doc), "panel_start"),
        ("together".to_string(), "env CRIT_PANEL_START".to_string())
    );
    // A word crit does not know names the file, line and the words it takes.
    write(&dir, "xdg/crit/config.yaml", "panel_start: sometimes\n");
    crit(&dir)
        .args(["config", "--json"])
        .assert()
        .failure()
        .stderr(
            predicate::str::contains("panel_start").and(predicate::str::contains("warm-first")),
        );
}
