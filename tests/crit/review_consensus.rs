//! Consensus across a panel, end to end: three reviewers on different models
//! review one change; `--consensus` decides which findings count.

use crate::support;

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};
use support::review_repo::repo;
use support::{json_out, write};

const TRIO: &str = r#"name: trio
description: Three reviewers on three models
system_prompt: You review code.
allowed_tools: [Read, Grep]
prompt_builder: code
inputs:
  optional:
    - name: diff
      description: Git ref to diff against
    - name: files
      description: Glob pattern to scope the review
reviewers:
  - name: opus-eye
    model: opus
    system_prompt: REVIEWER-A
  - name: sonnet-eye
    model: sonnet
    system_prompt: REVIEWER-B
  - name: haiku-eye
    model: haiku
    system_prompt: REVIEWER-C
"#;

fn finding(line: u32, title: &str) -> Value {
    json!({"file_path": "src/api/users.rs", "line_start": line, "line_end": line,
           "priority": 1, "title": title, "body": "b"})
}

/// A and B report the unwrap (at lines that overlap, in their own words);
/// only C reports the audit call.
fn answers(server: &FakeServer) {
    let unwrap_a = finding(2, "unwrap on a database read panics");
    let unwrap_b = finding(2, "a missing user panics the handler");
    let audit_c = finding(3, "audit runs before the permission check");
    for (who, findings) in [
        ("REVIEWER-A", vec![unwrap_a]),
        ("REVIEWER-B", vec![unwrap_b]),
        ("REVIEWER-C", vec![audit_c]),
    ] {
        server.push(Step::when_contains(who).reply(Reply::json(
            json!({"verdict": "FAIL", "summary": "s", "findings": findings}),
        )));
    }
}

fn review(consensus: &str) -> Value {
    let dir = repo();
    let d = dir.path();
    write(d, ".crit/templates/trio.yaml", TRIO);
    let server = FakeServer::start_blocking();
    answers(&server);
    let out = support::crit(d, &server, None)
        .args([
            "review",
            "trio",
            "--diff",
            "HEAD~1..HEAD",
            "--consensus",
            consensus,
            "--verify",
            "off",
            "--no-cache",
            "--json",
            "--no-log",
        ])
        .output()
        .unwrap();
    assert_eq!(
        server.model_requests().len(),
        3,
        "{}",
        support::stderr(&out)
    );
    let models: Vec<String> = server
        .model_requests()
        .iter()
        .map(|r| r.body["model"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        {
            let mut m = models.clone();
            m.sort();
            m.dedup();
            m.len()
        },
        3,
        "three models: {models:?}"
    );
    json_out(&out)
}

fn titles(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|f| {
            f.get("finding")
                .unwrap_or(f)
                .get("title")
                .unwrap()
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn majority_keeps_what_two_of_three_reported_and_dismisses_the_rest() {
    let r = review("majority");
    let kept = r["findings"].as_array().unwrap();
    assert_eq!(kept.len(), 1, "{r}");
    // The finding names who reported it and who agreed.
    let mut agreed: Vec<&str> = kept[0]["agreed_by"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    agreed.push(kept[0]["reviewer"].as_str().unwrap());
    agreed.sort();
    assert_eq!(agreed, ["opus-eye", "sonnet-eye"], "{r}");
    let dismissed = r["dismissed"].as_array().unwrap();
    assert_eq!(
        titles(&r["dismissed"]),
        ["audit runs before the permission check"],
        "{r}"
    );
    assert_eq!(dismissed[0]["cause"], "no_consensus");
    assert_eq!(
        r["verdict"], "FAIL",
        "a P1 two reviewers agree on still blocks"
    );
}

#[test]
fn all_needs_every_reviewer_and_any_keeps_each_problem_once() {
    let r = review("all");
    assert!(r["findings"].as_array().unwrap().is_empty(), "{r}");
    assert_eq!(r["dismissed"].as_array().unwrap().len(), 2, "{r}");

    let r = review("any");
    let mut t = titles(&r["findings"]);
    t.sort();
    assert_eq!(t.len(), 2, "the unwrap counted once: {r}");
    assert!(
        t.contains(&"audit runs before the permission check".to_string()),
        "{r}"
    );
}
