//! A security guardrail and a clarity edit that contradicts it, through
//! `crit prompt`: the refined prompt never keeps both, whether the two
//! reviewers name one subject (the issue's own example, "Never expose API
//! keys in logs." beside "Log the full request headers, including the API
//! key…") or only mean one (a credential and the Authorization header): the
//! second is found by checking the refined prompt against every Security
//! critique with a model. Security wins; the conflict says why. A check that
//! cannot run keeps the edit and says so.

use crate::support;

use std::path::Path;

use crit_testkit::prompt_review::{critique, finding, who};
use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};
use support::{crit, json_out};

const PROMPT: &str = "add request logging to the API client";
/// What the guardrail check's request holds (its system prompt).
const CHECK: &str = "check prompts for AI coding agents against their security guardrails";

fn review(dir: &Path, server: &FakeServer) -> Value {
    let out = crit(dir, server, None)
        .env("PROMPT_REVIEW_MODE", "api")
        .args(["prompt", "--json", PROMPT])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_out(&out)
}

/// The four always-on reviewers: Security's guardrail, Clarity's edit,
/// Testing's, and nothing from the Domain SME.
fn script(server: &FakeServer, guardrail: &str, clarity: &str, testing: Option<&str>) {
    let answers = [
        (
            "Security",
            critique(
                "security",
                json!([finding("SEC-001", "major", "", "AddGuardrail", guardrail)]),
            ),
        ),
        (
            "Clarity",
            critique(
                "clarity",
                json!([finding(
                    "CLR-001",
                    "minor",
                    "request logging",
                    "AddConstraint",
                    clarity
                )]),
            ),
        ),
        (
            "Testing",
            critique(
                "testing",
                match testing {
                    Some(t) => json!([finding("TST-001", "major", "", "AddAcceptanceCriteria", t)]),
                    None => json!([]),
                },
            ),
        ),
        ("Domain SME", critique("domain_sme", json!([]))),
    ];
    for (label, answer) in answers {
        server.push(Step::when_contains(who(label)).reply(Reply::json(answer)));
    }
}

fn conflicts(v: &Value) -> Vec<(String, String, String)> {
    v["conflicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["winner"]["reviewer"].as_str().unwrap().to_string(),
                c["loser"]["value"].as_str().unwrap().to_string(),
                c["why"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn the_issues_example_keeps_the_guardrail_and_leaves_the_edit_out() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start_blocking();
    let clarity =
        "Log the full request headers, including the API key, so failures can be debugged.";
    script(&server, "Never expose API keys in logs.", clarity, None);
    // Should the editor miss it, the check finds it.
    server.push(
        Step::when_contains(CHECK).reply(Reply::json(json!({"contradictions": [
        {"edit": 1, "guardrail": 1, "why": "The headers carry the API key."}]}))),
    );
    let v = review(dir.path(), &server);
    let refined = v["refined"].as_str().unwrap();
    assert!(
        refined.contains("Never expose API keys in logs."),
        "{refined}"
    );
    assert!(
        !refined.contains("Log the full request headers"),
        "{refined}"
    );
    let c = conflicts(&v);
    assert_eq!(c.len(), 1, "{c:?}");
    assert_eq!(c[0].0, "security");
    assert_eq!(c[0].1, clarity);
    assert_eq!(v["changes"].as_array().unwrap().len(), 1, "{v:#}");
}

#[test]
fn a_contradiction_in_other_words_is_found_by_meaning() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start_blocking();
    let clarity = "Write the Authorization header of every request to the log in full.";
    let testing = "A test shows one log line per request.";
    script(
        &server,
        "Never expose credentials in logs.",
        clarity,
        Some(testing),
    );
    server.push(
        Step::when_contains(CHECK).reply(Reply::json(json!({"contradictions": [
        {"edit": 2, "guardrail": 1, "why": "The Authorization header\nis the credential."}]}))),
    );
    let v = review(dir.path(), &server);
    let refined = v["refined"].as_str().unwrap();
    assert!(
        refined.contains("Never expose credentials in logs."),
        "{refined}"
    );
    assert!(
        refined.contains(testing),
        "an edit that breaks nothing stays: {refined}"
    );
    assert!(!refined.contains("Authorization header"), "{refined}");
    let c = conflicts(&v);
    assert_eq!(c.len(), 1, "{c:?}");
    assert_eq!(c[0].0, "security");
    assert_eq!(c[0].1, clarity);
    assert!(
        c[0].2.contains("in other words")
            && c[0]
                .2
                .contains("The Authorization header is the credential."),
        "{c:?}"
    );
    let reqs = server.model_requests();
    let check = reqs
        .iter()
        .find(|r| r.body.to_string().contains(CHECK))
        .expect("the refined prompt was checked");
    let user = check.body["messages"][0]["content"][0]["text"]
        .as_str()
        .unwrap();
    insta::assert_snapshot!("guardrail_check_prompt", user);
    assert!(v["warnings"].as_array().unwrap().is_empty(), "{v:#}");
}

#[test]
fn a_check_that_cannot_run_keeps_the_edit_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start_blocking();
    let clarity = "Write the Authorization header of every request to the log in full.";
    script(&server, "Never expose credentials in logs.", clarity, None);
    server.push(Step::when_contains(CHECK).reply(Reply::api_error(
        400,
        "invalid_request_error",
        "the model is not available",
    )));
    let v = review(dir.path(), &server);
    let refined = v["refined"].as_str().unwrap();
    assert!(refined.contains("Authorization header"), "{refined}");
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("not checked against the security guardrails"),
        "{warnings}"
    );
}
