//! A caller's `output_schema` is enforced on every answer path: an answer given
//! as text instead of through the structured-output tool must match it too.

use crate::support;

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::json;
use support::{json_out, write};

fn run_config(dir: &std::path::Path) {
    write(
        dir,
        ".crit/run.yaml",
        &json!({
            "prompt": "You coordinate code reviews.",
            "allowed_tools": ["Read"],
            "output_schema": {
                "type": "object",
                "properties": {"passed": {"type": "boolean"}},
                "required": ["passed"],
                "additionalProperties": false
            }
        })
        .to_string(),
    );
}

#[test]
fn a_text_answer_that_breaks_the_schema_is_unknown_not_a_pass() {
    let dir = tempfile::tempdir().unwrap();
    run_config(dir.path());
    let server = FakeServer::start_blocking();
    // Never through the tool: once, and again after crit's reminder.
    for _ in 0..2 {
        server.push(Step::reply(Reply::text(
            r#"{"passed": true, "note": "approved without looking"}"#,
        )));
    }
    let out = support::crit(dir.path(), &server, None)
        .args([
            "run",
            "Review it",
            "--config",
            ".crit/run.yaml",
            "--json",
            "--exit-code",
            "--no-log",
        ])
        .output()
        .unwrap();
    let result = json_out(&out);
    assert_eq!(result["verdict"], "UNKNOWN", "{result}");
    assert!(
        result["parse_error"]
            .as_str()
            .unwrap()
            .starts_with("schema mismatch: "),
        "{result}"
    );
    assert_eq!(result["passed"], false);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_text_answer_that_matches_the_schema_still_counts() {
    let dir = tempfile::tempdir().unwrap();
    run_config(dir.path());
    let server = FakeServer::start_blocking();
    for _ in 0..2 {
        server.push(Step::reply(Reply::text(r#"{"passed": true}"#)));
    }
    let out = support::crit(dir.path(), &server, None)
        .args([
            "run",
            "Review it",
            "--config",
            ".crit/run.yaml",
            "--json",
            "--exit-code",
            "--no-log",
        ])
        .output()
        .unwrap();
    let result = json_out(&out);
    assert_eq!(result["verdict"], "PASS", "{result}");
    assert_eq!(result["structured_output"], json!({"passed": true}));
    assert_eq!(out.status.code(), Some(0));
}
