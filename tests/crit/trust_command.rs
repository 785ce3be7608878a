//! `crit trust` allows exactly what it listed, for one project: the exact
//! settings it showed, not a later edit of them, not another checkout; and a
//! user's own command reviewer applies only the suppressions the user trusted.

use crit_testkit::FakeServer;
use serde_json::Value;

use crate::support::{crit, git, json_out, write};
use crate::trust_local::{answer, hostile, review, stderr, store, warned};

/// `crit trust` lists and records exact values: the trusted `base_url` is
/// used; a comment or the model may change; a changed value, a move of the
/// checkout, or `--revoke` makes it ignored again. `crit config` and
/// `crit trust --show` say which.
#[test]
fn trust_is_for_exact_settings_of_one_project() {
    let trusted = FakeServer::start_blocking();
    let other = FakeServer::start_blocking();
    let config = |url: &str, model: &str| format!("# ours\nmodel: {model}\nbase_url: {url}\n");
    let dir = hostile(&[(".crit/config.yaml", config(&trusted.url(), "sonnet"))]);
    let d = dir.path();
    let env_server = FakeServer::start_blocking();

    let out = crit(d, &env_server, None)
        .args(["trust", "--yes"])
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        listed.contains(".crit/config.yaml:3")
            && listed.contains(&format!("base_url: {}", trusted.url())),
        "{listed}"
    );
    let saved = std::fs::read_to_string(store(d)).unwrap();
    let key = d.canonicalize().unwrap().display().to_string();
    let stored: Value = serde_json::from_str(&saved).unwrap();
    let ids: Vec<&String> = stored["projects"][&key]["settings"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(ids.len(), 1, "{saved}");
    assert_eq!(ids[0].len(), 64, "a SHA-256 per setting");

    trusted.push(answer(vec![]));
    let out = review(d, &env_server);
    assert_eq!(json_out(&out)["verdict"], "PASS", "{}", stderr(&out));
    assert_eq!(
        trusted.model_requests().len(),
        1,
        "the trusted base_url is used"
    );
    assert!(env_server.requests().is_empty());

    // Comments and plain settings: no need to trust again.
    write(
        d,
        ".crit/config.yaml",
        &format!("# edited\n{}", config(&trusted.url(), "opus")),
    );
    trusted.push(answer(vec![]));
    let out = review(d, &env_server);
    assert!(!stderr(&out).contains("ignoring"), "{}", stderr(&out));
    assert_eq!(trusted.model_requests().len(), 2);

    // A changed value asks again.
    write(d, ".crit/config.yaml", &config(&other.url(), "opus"));
    env_server.push(answer(vec![]));
    let out = review(d, &env_server);
    warned(&out, "base_url");
    assert!(other.requests().is_empty());
    assert_eq!(env_server.model_requests().len(), 1);
    let show = crit(d, &env_server, None)
        .args(["trust", "--show"])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&show.stdout).into_owned();
    assert!(shown.contains("not trusted  base_url:"), "{shown}");
    let cfg = crit(d, &env_server, None)
        .args(["config", "--json"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&cfg.stdout).unwrap();
    let rows = doc["rules"].as_array().unwrap();
    let ignored = rows
        .iter()
        .find(|r| r["key"] == "base_url" && r["value"].as_str().unwrap().ends_with("(ignored)"));
    assert!(
        ignored.is_some_and(|r| r["source"].as_str().unwrap().contains("crit trust")),
        "{rows:?}"
    );
    assert!(
        rows.iter()
            .any(|r| r["key"] == "rules" && r["value"] == "working tree"),
        "{rows:?}"
    );

    // Trusted again, then revoked.
    crit(d, &env_server, None)
        .args(["trust", "--yes"])
        .assert()
        .success();
    other.push(answer(vec![]));
    review(d, &env_server);
    assert_eq!(other.model_requests().len(), 1);
    crit(d, &env_server, None)
        .args(["trust", "--revoke"])
        .assert()
        .success();
    env_server.push(answer(vec![]));
    warned(&review(d, &env_server), "base_url");
    assert_eq!(other.model_requests().len(), 1);

    // The same files in another checkout are not trusted.
    crit(d, &env_server, None)
        .args(["trust", "--yes"])
        .assert()
        .success();
    let copy = tempfile::tempdir().unwrap();
    git(copy.path(), &["clone", "-q", &d.display().to_string(), "."]);
    git(copy.path(), &["checkout", "-q", "work"]);
    git(copy.path(), &["branch", "-q", "main", "origin/main"]);
    write(
        copy.path(),
        ".crit/config.yaml",
        &config(&other.url(), "opus"),
    );
    env_server.push(answer(vec![]));
    let out = crit(copy.path(), &env_server, None)
        .env("XDG_STATE_HOME", d.join(".state"))
        .args(["review", "code", "--diff", "main", "--json", "--no-log"])
        .output()
        .unwrap();
    warned(&out, "base_url");
    assert_eq!(other.model_requests().len(), 1);
}

/// The external reviewer gets the suppressions the project's rules allow,
/// never the working tree's file unchecked: a user's own reviewer runs, and an
/// untrusted `title: "*"` dismisses nothing until `crit trust`.
#[test]
fn a_users_command_reviewer_applies_only_trusted_suppressions() {
    use std::os::unix::fs::PermissionsExt;
    let bin = tempfile::tempdir().unwrap();
    let marker = bin.path().join("ran");
    let prog = bin.path().join("reviewer");
    std::fs::write(
        &prog,
        format!(
            "#!/bin/sh\ntouch '{}'\necho '{{\"verdict\": \"FAIL\", \"findings\": [{{\"file_path\": \"src/lib.rs\", \"line_start\": 1, \"line_end\": 1, \"priority\": 0, \"title\": \"[P0] Remote code execution\", \"body\": \"b\"}}]}}'\n",
            marker.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&prog, std::fs::Permissions::from_mode(0o755)).unwrap();
    let dir = hostile(&[(
        ".crit/suppressions.yaml",
        "suppressions:\n  - title: \"*\"\n    reason: r\n    author: mallory\n".into(),
    )]);
    let d = dir.path();
    write(
        d,
        ".home/.config/crit/config.yaml",
        &format!("reviewer: command\ncommand: [\"{}\"]\n", prog.display()),
    );
    let server = FakeServer::start_blocking();
    let out = review(d, &server);
    let result = json_out(&out);
    assert!(marker.exists(), "the user's reviewer runs");
    warned(&out, "suppression");
    assert_eq!(result["passed"], false, "{result}");
    assert_eq!(result["findings"][0]["severity"], "P0", "{result}");
    assert!(server.requests().is_empty());
    crit(d, &server, None)
        .args(["trust", "--yes"])
        .assert()
        .success();
    let result = json_out(&review(d, &server));
    assert_eq!(
        result["passed"], true,
        "trusted, the suppression applies: {result}"
    );
    assert_eq!(
        result["dismissed"][0]["finding"]["severity"], "P0",
        "{result}"
    );
}
