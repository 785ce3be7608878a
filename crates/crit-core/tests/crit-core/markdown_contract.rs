//! Seed 000's markdown severity format against realistic model answers. Each case
//! asserts the exact result. An answer that names no verdict is UNKNOWN and never
//! passes (the seed's published parser let it through).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::show;
use crit_core::ReviewResult;
use crit_core::contract::{self, Contract, ParseContext};

const NO_VERDICT: &str = r#"parse_error=Some("no verdict: expected a '## Summary' section naming PASS, CONCERNS or FAIL")"#;

fn parse(text: &str) -> ReviewResult {
    let cx = ParseContext {
        reviewer: "arch",
        root: Some("/repo"),
    };
    contract::into_result("arch", Contract::Markdown, text, &cx)
}

fn check(text: &str, expected: &str) {
    let r = parse(text);
    assert_eq!(show(&r), expected.trim(), "input:\n{text}");
    assert_eq!(r.raw_output, text);
    assert!(!r.fatal_error);
}

#[test]
fn canonical_pass_without_findings() {
    check(
        "## Summary\nPASS\n\nThe design matches the architecture.\n\n## Findings\n\nNone.\n",
        "PASS passed=true parse_error=None",
    );
}

#[test]
fn canonical_fail_with_references() {
    check(
        "## Summary\nFAIL — the slice contradicts the HLD on persistence.\n\n## Findings\n\n\
### [FAIL] Persistence bypasses the repository layer\n\
The slice writes to SQLite directly (slices/105.md:42), while the HLD requires all\n\
storage to go through `Repository` (architecture/100.md:88-96).\n\n\
### [CONCERN] Retry policy unspecified\n\
No retry behaviour is given for the webhook client in `src/webhooks/client.py`.\n\n\
### [PASS] Clear module boundaries\n\
The package layout follows the HLD.\n",
        r#"FAIL passed=false parse_error=None
P1 slices/105.md:42 "Persistence bypasses the repository layer" arch (146)
P2 src/webhooks/client.py "Retry policy unspecified" arch (79)
info - "Clear module boundaries" arch (35)"#,
    );
}

#[test]
fn concerns_verdict_passes_the_default_gate() {
    check(
        "## Summary\nCONCERNS\n\n## Findings\n### [CONCERN] Task 3 has no test\nTask 3 in tasks.md:17 adds an endpoint without a test task.\n",
        r#"CONCERNS passed=true parse_error=None
P2 tasks.md:17 "Task 3 has no test" arch (59)"#,
    );
}

#[test]
fn bold_verdict_in_summary() {
    check(
        "## Summary\n**Overall assessment: CONCERNS**\n",
        "CONCERNS passed=true parse_error=None",
    );
}

#[test]
fn summary_heading_variants() {
    check("# Summary:\nFAIL\n", "FAIL passed=false parse_error=None");
    check(
        "### **Summary**\n\nVerdict — PASS\n",
        "PASS passed=true parse_error=None",
    );
}

#[test]
fn no_summary_is_unknown_and_keeps_findings() {
    check(
        "I looked at the plan.\n\n### [FAIL] Missing rollback\nNo rollback step in plan.md:30.\n",
        &format!("UNKNOWN passed=false {NO_VERDICT}\nP1 plan.md:30 \"Missing rollback\" arch (31)"),
    );
}

#[test]
fn summary_without_a_verdict_word() {
    check(
        "## Summary\nMostly fine, a few nits.\n",
        &format!("UNKNOWN passed=false {NO_VERDICT}"),
    );
}

#[test]
fn verdict_line_without_summary_heading() {
    check(
        "Verdict: FAIL\n\n### [FAIL] Broken link\nSee docs/index.md:3.\n",
        "FAIL passed=false parse_error=None\nP1 docs/index.md:3 \"Broken link\" arch (20)",
    );
}

#[test]
fn lower_case_tags_and_separators() {
    check(
        "## Summary\nCONCERNS\n### [concern]: Naming drift\nbody\n### [Fail] - Wrong layer\nbody\n",
        r#"CONCERNS passed=false parse_error=None
P2 - "Naming drift" arch (4)
P1 - "Wrong layer" arch (4)"#,
    );
}

#[test]
fn headings_inside_code_fences_are_text() {
    check(
        "## Summary\nPASS\n## Findings\n### [PASS] Good docs\nExample:\n```md\n## Summary\nFAIL\n### [FAIL] fake\n```\n",
        r#"PASS passed=true parse_error=None
info - "Good docs" arch (50)"#,
    );
}

#[test]
fn crlf_line_endings() {
    check(
        "## Summary\r\nFAIL\r\n\r\n### [FAIL] Leak\r\nsrc/pool.rs:12 never returns connections.\r\n",
        "FAIL passed=false parse_error=None\nP1 src/pool.rs:12 \"Leak\" arch (41)",
    );
}

#[test]
fn unicode_titles_and_paths() {
    check(
        "## Summary\nCONCERNS\n### [CONCERN] Überschrift „Ziele“ fehlt\nIn docs/設計.md:5 fehlt der Abschnitt.\n",
        "CONCERNS passed=true parse_error=None\nP2 docs/設計.md:5 \"Überschrift „Ziele“ fehlt\" arch (36)",
    );
}

#[test]
fn truncated_mid_finding() {
    check(
        "## Summary\nFAIL\n\n## Findings\n### [FAIL] Race on shutdown\nThe worker in src/worker.rs:2",
        "FAIL passed=false parse_error=None\nP1 src/worker.rs:2 \"Race on shutdown\" arch (29)",
    );
}

#[test]
fn empty_answer_is_unknown() {
    check("", &format!("UNKNOWN passed=false {NO_VERDICT}"));
}

#[test]
fn summary_after_findings() {
    check(
        "### [CONCERN] Vague acceptance criteria\nTask 4.\n\n## Summary\nCONCERNS\n",
        "CONCERNS passed=true parse_error=None\nP2 - \"Vague acceptance criteria\" arch (7)",
    );
}

#[test]
fn ranges_with_en_dash_and_absolute_paths() {
    check(
        "## Summary\nFAIL\n### [FAIL] Unbounded loop\nSee /repo/src/loop.c:10–25 and ./src/other.c:3.\n",
        "FAIL passed=false parse_error=None\nP1 src/loop.c:10-25 \"Unbounded loop\" arch (47)",
    );
}

#[test]
fn untitled_finding() {
    check(
        "## Summary\nFAIL\n### [FAIL]\nSomething is off.\n",
        "FAIL passed=false parse_error=None\nP1 - \"(untitled finding)\" arch (17)",
    );
}

#[test]
fn untagged_blocks_are_kept_as_concerns_and_said() {
    // Every finding-shaped block is kept; the result says which it could not place.
    let text = "## Summary\nPASS\n### [WARN] Not a seed tag\nbody\n### Notes\ntext\n";
    check(
        text,
        "PASS passed=true parse_error=None\nP2 - \"[WARN] Not a seed tag\" arch (4)\nP2 - \"Notes\" arch (4)",
    );
    assert_eq!(
        parse(text).warnings,
        [
            "finding `[WARN] Not a seed tag` has no [PASS|CONCERN|FAIL] tag: kept as a CONCERN",
            "finding `Notes` has no [PASS|CONCERN|FAIL] tag: kept as a CONCERN",
        ]
    );
    // Before any summary or `## Findings`, a heading is the answer's own structure.
    check(
        "### Context\nprose\n## Summary\nPASS\n",
        "PASS passed=true parse_error=None",
    );
    // Findings with no summary: kept, UNKNOWN, never a pass.
    let text = "### [CONCERN] x\nsrc/a.rs:3 is wrong\n";
    check(
        text,
        "UNKNOWN passed=false parse_error=Some(\"no verdict: expected a '## Summary' section naming PASS, CONCERNS or FAIL\")\nP2 src/a.rs:3 \"x\" arch (19)",
    );
}

#[test]
fn first_summary_wins() {
    check(
        "## Summary\nPASS\n\n## Summary\nFAIL\n",
        "PASS passed=true parse_error=None",
    );
}

#[test]
fn reference_in_title_is_used() {
    check(
        "## Summary\nCONCERNS\n### [CONCERN] src/app.ts:7 swallows errors\nThe catch block is empty.\n",
        "CONCERNS passed=true parse_error=None\nP2 src/app.ts:7 \"src/app.ts:7 swallows errors\" arch (25)",
    );
}

#[test]
fn very_long_answer() {
    let mut text = String::from("## Summary\nCONCERNS\n## Findings\n");
    for i in 1..=300 {
        text.push_str(&format!(
            "### [CONCERN] Finding {i}\nIn src/f{i}.rs:{i} something.\n\n"
        ));
    }
    let r = parse(&text);
    assert_eq!(r.findings.len(), 300);
    assert_eq!(
        r.findings[299].location.as_ref().unwrap().display(),
        "src/f300.rs:300"
    );
    assert_eq!(r.verdict, crit_core::Verdict::Concerns);
}

#[test]
fn summary_text_is_kept() {
    let r = parse("## Summary\nFAIL: the plan skips migrations.\n\n## Findings\n");
    assert_eq!(r.summary, "FAIL: the plan skips migrations.");
}
