//! SARIF and rdjson output validated against the official schemas (both SARIF
//! generations), GitLab Code Quality against its documented rules, and the JSON
//! output against our own published schema.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::PathBuf;

use common::fixtures;
use crit_core::render::{Format, RenderOptions, render};
use serde_json::Value;

fn load(rel: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel);
    let text = std::fs::read_to_string(&path).unwrap();
    // The 2.1.0 schema's `run.language` pattern has a stray `]` that ECMA-262 regex
    // rejects, so a strict validator refuses the schema itself. Errata 01 fixed it
    // the same way; crit never emits `language`, so this changes nothing we check.
    let text = text.replace(
        r#"^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$"#,
        r#"^[a-zA-Z]{2}(-[a-zA-Z]{2})?$"#,
    );
    serde_json::from_str(&text).unwrap()
}

fn errors(schema: &Value, doc: &Value) -> Vec<String> {
    let validator = jsonschema::validator_for(schema).unwrap();
    validator
        .iter_errors(doc)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

fn outputs(format: Format) -> Vec<Value> {
    [
        fixtures::rich(),
        fixtures::clean(),
        fixtures::unparseable(),
        fixtures::suggestions(),
    ]
    .iter()
    .map(|r| serde_json::from_str(&render(r, format, &RenderOptions::default())).unwrap())
    .collect()
}

#[test]
fn sarif_is_valid_against_both_official_schemas() {
    for schema in [
        "tests/schemas/sarif-schema-2.1.0.json",
        "tests/schemas/sarif-schema-2.1.0-errata01.json",
    ] {
        let schema = load(schema);
        for doc in outputs(Format::Sarif) {
            assert_eq!(errors(&schema, &doc), Vec::<String>::new());
        }
    }
}

#[test]
fn rdjson_is_valid_against_the_official_schema() {
    let schema = load("tests/schemas/rdjson/DiagnosticResult.json");
    for doc in outputs(Format::Rdjson) {
        assert_eq!(errors(&schema, &doc), Vec::<String>::new());
    }
}

#[test]
fn each_rdjson_diagnostic_is_a_valid_rdjsonl_line() {
    let schema = load("tests/schemas/rdjson/Diagnostic.json");
    for doc in outputs(Format::Rdjson) {
        for d in doc["diagnostics"].as_array().unwrap() {
            assert_eq!(errors(&schema, d), Vec::<String>::new());
        }
    }
}

#[test]
fn the_validators_reject_broken_documents() {
    // Guards against a validator that accepts everything.
    let sarif = load("tests/schemas/sarif-schema-2.1.0-errata01.json");
    let mut doc = outputs(Format::Sarif).remove(0);
    doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        Value::from(0);
    assert!(!errors(&sarif, &doc).is_empty());
    let rdjson = load("tests/schemas/rdjson/DiagnosticResult.json");
    let mut doc = outputs(Format::Rdjson).remove(0);
    doc["diagnostics"][0]["location"]["range"]["start"]["line"] = Value::from("three");
    assert!(!errors(&rdjson, &doc).is_empty());
}

#[test]
fn json_output_matches_the_published_result_schema() {
    let schema = load("../../schemas/review-result.schema.json");
    for doc in outputs(Format::Json) {
        assert_eq!(errors(&schema, &doc), Vec::<String>::new());
    }
}

#[test]
fn sarif_carries_levels_rules_and_fingerprints() {
    let doc = outputs(Format::Sarif).remove(0);
    let run = &doc["runs"][0];
    let levels: Vec<&str> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["level"].as_str().unwrap())
        .collect();
    assert_eq!(levels, ["error", "error", "warning", "note", "note"]);
    let r = fixtures::rich();
    let sorted = r.sorted_findings();
    for (res, f) in run["results"].as_array().unwrap().iter().zip(sorted) {
        assert_eq!(
            res["partialFingerprints"]["critFindingId/v1"],
            f.id.as_str()
        );
        let rule = &run["tool"]["driver"]["rules"][res["ruleIndex"].as_u64().unwrap() as usize];
        assert_eq!(rule["id"], res["ruleId"]);
    }
    assert_eq!(run["tool"]["driver"]["name"], "crit");
    assert_eq!(run["invocations"][0]["executionSuccessful"], true);
    let failed = outputs(Format::Sarif).remove(2);
    assert_eq!(
        failed["runs"][0]["invocations"][0]["executionSuccessful"],
        false
    );
}

#[test]
fn codeclimate_follows_gitlabs_code_quality_rules() {
    let schema = load("tests/schemas/gitlab/code-quality.schema.json");
    for doc in outputs(Format::Codeclimate) {
        assert_eq!(errors(&schema, &doc), Vec::<String>::new(), "{doc:#}");
        let fingerprints: Vec<&str> = doc
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["fingerprint"].as_str().unwrap())
            .collect();
        let unique: std::collections::BTreeSet<&&str> = fingerprints.iter().collect();
        assert_eq!(unique.len(), fingerprints.len(), "{fingerprints:?}");
    }
}

#[test]
fn codeclimate_fingerprints_are_crits_own_and_stay_unique_for_repeats() {
    use crit_core::{Finding, Location, ReviewResult, Severity, Verdict};
    let mut r = ReviewResult::new("code", Verdict::Concerns);
    let a = Finding::new("Unchecked unwrap", Severity::P2, "r")
        .with_location(Location::lines("src/a.rs", 3, 3));
    let b = a.clone().with_location(Location::lines("src/a.rs", 30, 31));
    assert_eq!(a.id, b.id, "same problem, other line: one crit fingerprint");
    r.findings = vec![a.clone(), b];
    let doc: Value =
        serde_json::from_str(&render(&r, Format::Codeclimate, &RenderOptions::default())).unwrap();
    let fps: Vec<&str> = doc
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["fingerprint"].as_str().unwrap())
        .collect();
    assert_eq!(fps, [a.id.clone(), format!("{}-2", a.id)]);
    assert_eq!(doc[1]["location"]["lines"]["begin"], 30);
    assert_eq!(doc[0]["severity"], "major");
}

#[test]
fn codeclimate_maps_every_severity_and_flags_an_incomplete_review() {
    let doc = outputs(Format::Codeclimate).remove(0);
    let severities: Vec<&str> = doc
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["severity"].as_str().unwrap())
        .collect();
    assert_eq!(
        severities,
        ["blocker", "critical", "major", "minor", "info"]
    );
    assert_eq!(outputs(Format::Codeclimate).remove(1), Value::Array(vec![]));
    let failed = outputs(Format::Codeclimate).remove(2);
    assert_eq!(failed[0]["severity"], "blocker");
    assert_eq!(failed[0]["check_name"], "crit/incomplete");
    // The validator is not one that accepts everything.
    let schema = load("tests/schemas/gitlab/code-quality.schema.json");
    for (pointer, bad) in [
        ("/0/severity", Value::from("high")),
        ("/0/location/lines/begin", Value::from(0)),
        ("/0/location/path", Value::from("./a.rs")),
    ] {
        let mut broken = doc.clone();
        *broken.pointer_mut(pointer).unwrap() = bad;
        assert!(!errors(&schema, &broken).is_empty(), "{pointer}");
    }
    let mut missing = doc.clone();
    missing[0].as_object_mut().unwrap().remove("fingerprint");
    assert!(!errors(&schema, &missing).is_empty());
}

#[test]
fn suggestions_become_sarif_fixes_and_rdjson_suggestions() {
    let sarif = outputs(Format::Sarif).remove(3);
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let fix = &results[0]["fixes"][0]["artifactChanges"][0];
    assert_eq!(fix["artifactLocation"]["uri"], "src/config.rs");
    let replacement = &fix["replacements"][0];
    assert_eq!(replacement["deletedRegion"]["startLine"], 12);
    assert_eq!(replacement["deletedRegion"]["endLine"], 13);
    assert_eq!(
        replacement["insertedContent"]["text"],
        "let port = cfg.get(\"port\")\n    .ok_or(Error::MissingPort)?;"
    );
    let rdjson = outputs(Format::Rdjson).remove(3);
    let deletion = rdjson["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["location"]["path"] == "src/main.rs")
        .unwrap();
    assert_eq!(deletion["suggestions"][0]["text"], "");
    assert_eq!(deletion["suggestions"][0]["range"]["start"]["line"], 5);
    // The validators see the fixes: a fix without its changes is refused.
    let schema = load("tests/schemas/sarif-schema-2.1.0.json");
    let mut broken = sarif.clone();
    broken["runs"][0]["results"][0]["fixes"][0]
        .as_object_mut()
        .unwrap()
        .remove("artifactChanges");
    assert!(!errors(&schema, &broken).is_empty());
}
