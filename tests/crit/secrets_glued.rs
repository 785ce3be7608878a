//! A GitHub token glued to the text before it (a URL-encoded
//! `Bearer%20ghp_…`, `x=abcghp_…`) in a reviewed file is redacted before the
//! model, through the binary: no boundary before the token lets it through.

use crate::support;

use crit_testkit::{FakeServer, Reply};
use serde_json::json;
use support::{git, init_repo, write};

const CLASSIC: &str = "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";

#[test]
fn a_github_token_right_after_a_word_never_reaches_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, ".gitignore", ".home/\n.state/\n");
    write(d, "src/app.py", "print('hi')\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    let lines = [
        format!("URL = 'https://api.example/?Authorization=Bearer%20ghp_{CLASSIC}'"),
        format!("QS = 'x=abcghs_{CLASSIC}'"),
        format!("KEY = 'prefix_gho_{CLASSIC}'"),
        format!("RAW = 'Bearerghu_{CLASSIC}'"),
        format!("N = '0ghr_{CLASSIC}'"),
    ];
    write(
        d,
        "src/app.py",
        &format!("print('hi')\n{}\n", lines.join("\n")),
    );
    let server = FakeServer::start_blocking();
    server.push(Reply::json(
        json!({"verdict": "PASS", "summary": "Fine.", "findings": []}),
    ));
    let out = support::crit(d, &server, None)
        .args(["review", "code", "--verify", "off", "--no-cache", "--json"])
        .arg("--uncommitted")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let reqs = server.model_requests();
    assert_eq!(reqs.len(), 1);
    let body = reqs[0].body.to_string();
    assert!(body.contains("src/app.py"), "{body}");
    assert!(body.contains("[REDACTED:github-token]"), "{body}");
    assert!(!body.contains(CLASSIC), "a token reached the model: {body}");
}
