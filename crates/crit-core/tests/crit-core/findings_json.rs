//! The findings JSON contract against realistic model answers. Each case asserts
//! the exact result: verdict, gate, parse_error and every finding.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::show;
use crit_core::ReviewResult;
use crit_core::contract::{self, Contract, ParseContext};

fn parse(text: &str) -> ReviewResult {
    let cx = ParseContext {
        reviewer: "agent-sdk",
        root: Some("/home/dev/project"),
    };
    contract::into_result("code", Contract::FindingsJson, text, &cx)
}

fn check(text: &str, expected: &str) {
    let r = parse(text);
    assert_eq!(show(&r), expected.trim(), "input:\n{text}");
    assert_eq!(r.raw_output, text, "the raw answer is always kept");
    assert!(!r.fatal_error, "a parse problem is never fatal");
}

#[test]
fn well_formed_pass() {
    check(
        r#"{"verdict": "PASS", "findings": []}"#,
        "PASS passed=true parse_error=None",
    );
}

#[test]
fn seed_r4_example() {
    check(
        r#"{"verdict": "FAIL", "findings": [{"file_path": "src/main.py", "line_start": 42, "line_end": 42, "priority": 1, "title": "[P1] Issue", "body": "Details"}]}"#,
        r#"FAIL passed=false parse_error=None
P1 src/main.py:42 "[P1] Issue" agent-sdk (7)"#,
    );
}

#[test]
fn needs_work_with_only_p2_p3_passes_the_default_gate() {
    check(
        r#"{"verdict":"NEEDS_WORK","summary":"Minor cleanups.","findings":[
            {"file_path":"lib/util.ts","line_start":10,"line_end":14,"priority":2,"title":"[P2] Duplicate helper","body":"`formatDate` exists in lib/date.ts."},
            {"file_path":"lib/util.ts","line_start":3,"line_end":3,"priority":3,"title":"[P3] Unused import","body":"`lodash` is unused."}]}"#,
        r#"CONCERNS passed=true parse_error=None
P2 lib/util.ts:10-14 "[P2] Duplicate helper" agent-sdk (35)
P3 lib/util.ts:3 "[P3] Unused import" agent-sdk (19)"#,
    );
}

#[test]
fn fenced_with_prose_around() {
    check(
        "I reviewed the diff and ran `git log`.\n\n```json\n{\n  \"verdict\": \"FAIL\",\n  \"findings\": [\n    {\"file_path\": \"api/handlers.go\", \"line_start\": 88, \"line_end\": 95, \"priority\": 0, \"title\": \"[P0] SQL injection in search\", \"body\": \"The query string is interpolated into SQL.\"}\n  ]\n}\n```\n\nLet me know if you want me to look deeper.",
        r#"FAIL passed=false parse_error=None
P0 api/handlers.go:88-95 "[P0] SQL injection in search" agent-sdk (42)"#,
    );
}

#[test]
fn bare_object_inside_prose() {
    check(
        r#"Here is my review: {"verdict": "PASS", "findings": []} That is all."#,
        "PASS passed=true parse_error=None",
    );
}

#[test]
fn the_contract_object_wins_over_other_json_in_the_answer() {
    check(
        "The config sets ```json\n{\"retries\": 3}\n``` which is fine.\n\n```json\n{\"verdict\": \"PASS\", \"findings\": []}\n```",
        "PASS passed=true parse_error=None",
    );
}

#[test]
fn truncated_answer_is_invalid_json() {
    check(
        r#"{"verdict": "FAIL", "findings": [{"file_path": "src/a.rs", "line_start": 4"#,
        r#"UNKNOWN passed=false parse_error=Some("invalid json: EOF while parsing an object at line 1 column 74")"#,
    );
}

#[test]
fn empty_answer() {
    check(
        "",
        r#"UNKNOWN passed=false parse_error=Some("invalid json: empty output")"#,
    );
    check(
        "  \n",
        r#"UNKNOWN passed=false parse_error=Some("invalid json: empty output")"#,
    );
}

#[test]
fn prose_only() {
    check(
        "The change looks good to me. No issues found.",
        r#"UNKNOWN passed=false parse_error=Some("invalid json: no JSON object in output")"#,
    );
}

#[test]
fn trailing_comma() {
    check(
        r#"{"verdict": "PASS", "findings": [],}"#,
        r#"UNKNOWN passed=false parse_error=Some("invalid json: trailing comma at line 1 column 36")"#,
    );
}

#[test]
fn missing_verdict() {
    check(
        r#"{"findings": []}"#,
        r#"UNKNOWN passed=false parse_error=Some("missing field: verdict")"#,
    );
}

#[test]
fn missing_findings() {
    check(
        r#"{"verdict": "PASS"}"#,
        r#"UNKNOWN passed=false parse_error=Some("missing field: findings")"#,
    );
}

#[test]
fn finding_missing_each_required_field() {
    let full = serde_json::json!({"file_path": "a.py", "line_start": 1, "line_end": 2, "priority": 1, "title": "[P1] t", "body": "b"});
    for field in [
        "file_path",
        "line_start",
        "line_end",
        "priority",
        "title",
        "body",
    ] {
        let mut f = full.clone();
        f.as_object_mut().unwrap().remove(field);
        // Without a priority the `[P1]` title tag is used, as Codex-style answers rely on.
        let text = serde_json::json!({"verdict": "FAIL", "findings": [f]}).to_string();
        let expected = if field == "priority" {
            "FAIL passed=false parse_error=None\nP1 a.py:1-2 \"[P1] t\" agent-sdk (1)".to_string()
        } else {
            format!("UNKNOWN passed=false parse_error=Some(\"missing field: {field}\")")
        };
        check(&text, &expected);
    }
}

#[test]
fn missing_priority_and_no_title_tag() {
    check(
        r#"{"verdict":"FAIL","findings":[{"file_path":"a.py","line_start":1,"line_end":1,"title":"No tag","body":"b"}]}"#,
        r#"UNKNOWN passed=false parse_error=Some("missing field: priority")"#,
    );
}

#[test]
fn invalid_verdict_words() {
    check(
        r#"{"verdict": "APPROVED", "findings": []}"#,
        r#"UNKNOWN passed=false parse_error=Some("invalid verdict: APPROVED")"#,
    );
    check(
        r#"{"verdict": "pass", "findings": []}"#,
        r#"UNKNOWN passed=false parse_error=Some("invalid verdict: pass")"#,
    );
    check(
        r#"{"verdict": 1, "findings": []}"#,
        r#"UNKNOWN passed=false parse_error=Some("invalid verdict: 1")"#,
    );
    check(
        r#"{"verdict": null, "findings": []}"#,
        r#"UNKNOWN passed=false parse_error=Some("invalid verdict: null")"#,
    );
}

#[test]
fn priority_as_string_forms() {
    check(
        r#"{"verdict":"FAIL","findings":[
            {"file_path":"a.py","line_start":1,"line_end":1,"priority":"P1","title":"[P1] a","body":"x"},
            {"file_path":"a.py","line_start":5,"line_end":5,"priority":"2","title":"[P2] b","body":"y"}]}"#,
        r#"FAIL passed=false parse_error=None
P1 a.py:1 "[P1] a" agent-sdk (1)
P2 a.py:5 "[P2] b" agent-sdk (1)"#,
    );
}

#[test]
fn priority_out_of_range() {
    check(
        r#"{"verdict":"FAIL","findings":[{"file_path":"a.py","line_start":1,"line_end":1,"priority":7,"title":"t","body":"b"}]}"#,
        r#"UNKNOWN passed=false parse_error=Some("invalid field: priority: expected 0-3 or \"P0\"-\"P3\", got 7")"#,
    );
}

#[test]
fn numbers_written_as_strings_and_floats() {
    check(
        r#"{"verdict":"FAIL","findings":[{"file_path":"a.py","line_start":"42","line_end":44.0,"priority":0,"title":"[P0] t","body":"b"}]}"#,
        r#"FAIL passed=false parse_error=None
P0 a.py:42-44 "[P0] t" agent-sdk (1)"#,
    );
}

#[test]
fn wrong_types() {
    check(
        r#"{"verdict":"FAIL","findings":[{"file_path":"a.py","line_start":"forty","line_end":1,"priority":0,"title":"t","body":"b"}]}"#,
        r#"UNKNOWN passed=false parse_error=Some("invalid field: line_start: expected a line number, got \"forty\"")"#,
    );
    check(
        r#"{"verdict":"FAIL","findings":[{"file_path":"a.py","line_start":1,"line_end":1,"priority":0,"title":17,"body":"b"}]}"#,
        r#"UNKNOWN passed=false parse_error=Some("invalid field: title: expected a string, got a number")"#,
    );
    check(
        r#"{"verdict":"FAIL","findings":{"file_path":"a.py"}}"#,
        r#"UNKNOWN passed=false parse_error=Some("invalid field: findings: expected an array")"#,
    );
    check(
        r#"{"verdict":"FAIL","findings":["a.py:1 bad"]}"#,
        r#"UNKNOWN passed=false parse_error=Some("invalid field: findings: each finding must be an object")"#,
    );
}

#[test]
fn reversed_range_is_a_parse_error_and_line_zero_means_whole_file() {
    // mala's contract: `line_end` is at least `line_start`; an answer that
    // breaks it is not understood (UNKNOWN, never a pass), as mala reports it.
    check(
        r#"{"verdict":"NEEDS_WORK","findings":[
            {"file_path":"a.py","line_start":6,"line_end":4,"priority":2,"title":"[P2] r","body":"b"}]}"#,
        r#"UNKNOWN passed=false parse_error=Some("invalid field: line_end: expected at least line_start (6), got 4")"#,
    );
    check(
        r#"{"verdict":"NEEDS_WORK","findings":[
            {"file_path":"a.py","line_start":20,"line_end":20,"priority":2,"title":"[P2] r","body":"b"},
            {"file_path":"README.md","line_start":0,"line_end":0,"priority":3,"title":"[P3] w","body":"b"}]}"#,
        r#"CONCERNS passed=true parse_error=None
P2 a.py:20 "[P2] r" agent-sdk (1)
P3 README.md "[P3] w" agent-sdk (1)"#,
    );
}

#[test]
fn extra_fields_are_ignored() {
    check(
        r#"{"verdict":"FAIL","model":"x","tokens":12,"findings":[{"file_path":"a.py","line_start":3,"line_end":3,"priority":1,"title":"[P1] t","body":"b","confidence":0.9,"category":"bug"}]}"#,
        r#"FAIL passed=false parse_error=None
P1 a.py:3 "[P1] t" agent-sdk (1)"#,
    );
    let r = parse(
        r#"{"verdict":"FAIL","findings":[{"file_path":"a.py","line_start":3,"line_end":3,"priority":1,"title":"[P1] t","body":"b","confidence":0.9}]}"#,
    );
    assert_eq!(r.findings[0].confidence, Some(0.9));
}

#[test]
fn codex_review_output() {
    check(
        r#"{
  "findings": [
    {
      "title": "[P1] Handle missing config file",
      "body": "`load_config` unwraps the read; a fresh checkout has no config and crashes.",
      "confidence_score": 0.82,
      "priority": 1,
      "code_location": {"absolute_file_path": "/home/dev/project/src/config.rs", "line_range": {"start": 31, "end": 33}}
    }
  ],
  "overall_correctness": "patch is incorrect",
  "overall_explanation": "Crashes on a fresh checkout.",
  "overall_confidence_score": 0.8
}"#,
        r#"FAIL passed=false parse_error=None
P1 src/config.rs:31-33 "[P1] Handle missing config file" agent-sdk (75)"#,
    );
    let r = parse(
        r#"{"findings":[],"overall_correctness":"patch is correct","overall_explanation":"Looks right."}"#,
    );
    assert_eq!(r.summary, "Looks right.");
}

#[test]
fn codex_without_priority_uses_title_tag_or_p2() {
    check(
        r#"{"findings":[
            {"title":"[P0] Data loss on retry","body":"b","code_location":{"absolute_file_path":"/home/dev/project/db.py","line_range":{"start":5,"end":9}}},
            {"title":"Prefer a constant","body":"b","code_location":{"absolute_file_path":"/elsewhere/x.py","line_range":{"start":1,"end":1}}}],
          "overall_correctness":"patch is incorrect"}"#,
        r#"FAIL passed=false parse_error=None
P0 db.py:5-9 "[P0] Data loss on retry" agent-sdk (1)
P2 /elsewhere/x.py:1 "Prefer a constant" agent-sdk (1)"#,
    );
}

#[test]
fn cerberus_consensus_shape() {
    check(
        r#"{"consensus_verdict":"NEEDS_WORK","aggregated_findings":[
            {"file_path":"pkg/a.go","line_start":7,"line_end":8,"priority":2,"title":"[P2] Shadowed err","body":"b","reviewer":"codex"},
            {"file_path":"pkg/b.go","line_start":1,"line_end":1,"priority":3,"title":"[P3] Typo","body":"b","reviewer":"gemini"}]}"#,
        r#"CONCERNS passed=true parse_error=None
P2 pkg/a.go:7-8 "[P2] Shadowed err" codex (1)
P3 pkg/b.go:1 "[P3] Typo" gemini (1)"#,
    );
}

#[test]
fn unicode_everywhere() {
    check(
        r#"{"verdict":"FAIL","findings":[{"file_path":"docs/日本語.md","line_start":2,"line_end":2,"priority":1,"title":"[P1] Überschrift fehlt 🚫","body":"Der Abschnitt „Einführung“ fehlt."}]}"#,
        r#"FAIL passed=false parse_error=None
P1 docs/日本語.md:2 "[P1] Überschrift fehlt 🚫" agent-sdk (33)"#,
    );
}

#[test]
fn very_long_answer_keeps_everything() {
    let body = "Explanation. ".repeat(10_000);
    let text = format!(
        "{}\n```json\n{{\"verdict\":\"FAIL\",\"findings\":[{{\"file_path\":\"a.rs\",\"line_start\":1,\"line_end\":1,\"priority\":1,\"title\":\"[P1] Long\",\"body\":\"{body}\"}}]}}\n```",
        "Thinking out loud. ".repeat(5_000)
    );
    let r = parse(&text);
    assert_eq!(r.findings.len(), 1);
    assert_eq!(r.findings[0].body, body.trim());
    assert_eq!(r.raw_output.len(), text.len());
}

#[test]
fn byte_order_mark_and_whitespace() {
    check(
        "\u{feff}\n  {\"verdict\": \"PASS\", \"findings\": []}  \n",
        "PASS passed=true parse_error=None",
    );
}

#[test]
fn pass_with_blocking_findings_does_not_pass_the_gate() {
    // The verdict word is the model's; the gate also reads the findings.
    check(
        r#"{"verdict":"PASS","findings":[{"file_path":"a.py","line_start":1,"line_end":1,"priority":0,"title":"[P0] t","body":"b"}]}"#,
        r#"PASS passed=false parse_error=None
P0 a.py:1 "[P0] t" agent-sdk (1)"#,
    );
}

#[test]
fn top_level_array_is_not_the_contract() {
    check(
        r#"[{"verdict":"PASS"}]"#,
        r#"UNKNOWN passed=false parse_error=Some("missing field: findings")"#,
    );
}

#[test]
fn a_suggestion_is_kept_verbatim() {
    let r = parse(
        r#"{"verdict":"FAIL","findings":[
            {"file_path":"src/a.rs","line_start":3,"line_end":4,"priority":1,"title":"[P1] unwrap","body":"b",
             "suggestion":"    let n = v?;\n    let p = n.parse()?;\n"},
            {"file_path":"src/a.rs","line_start":9,"line_end":9,"priority":2,"title":"[P2] blank","body":"b","suggestion":"  \n"},
            {"file_path":"src/a.rs","line_start":9,"line_end":9,"priority":2,"title":"[P2] not text","body":"b","suggestion":["x"]}]}"#,
    );
    assert_eq!(r.parse_error, None);
    assert_eq!(
        r.findings[0].suggestion.as_deref(),
        Some("    let n = v?;\n    let p = n.parse()?;\n")
    );
    assert_eq!(r.findings[1].suggestion, None);
    assert_eq!(r.findings[2].suggestion, None);
}
