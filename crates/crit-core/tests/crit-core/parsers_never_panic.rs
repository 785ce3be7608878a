//! Property tests: whatever a model sends, the parsers return a result — never a
//! panic — and that result fails closed when it is not understood.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crit_core::contract::{self, Contract, ParseContext};
use proptest::prelude::*;

const FRAGMENTS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    ":",
    ",",
    "```json\n",
    "```",
    "\n",
    "## Summary\n",
    "### [FAIL] ",
    "### [CONCERN] ",
    "PASS",
    "FAIL",
    "NEEDS_WORK",
    "CONCERNS",
    "\"verdict\"",
    "\"findings\"",
    "\"file_path\"",
    "\"line_start\"",
    "\"line_end\"",
    "\"priority\"",
    "\"title\"",
    "\"body\"",
    "\"code_location\"",
    "\"line_range\"",
    "0",
    "1",
    "-3",
    "1e999",
    "null",
    "true",
    "\\",
    "\\u0000",
    "src/a.rs:12",
    "é",
    "🚀",
    "\u{feff}",
    "\r\n",
];

fn answer() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        prop::collection::vec(prop::sample::select(FRAGMENTS), 0..60).prop_map(|v| v.concat()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn findings_json_never_panics(text in answer()) {
        let r = contract::into_result("t", Contract::FindingsJson, &text, &ParseContext::new("r"));
        prop_assert_eq!(&r.raw_output, &text);
        prop_assert!(!r.fatal_error);
        if r.parse_error.is_some() {
            prop_assert!(!r.passed);
        }
    }

    #[test]
    fn markdown_never_panics(text in answer()) {
        let r = contract::into_result("t", Contract::Markdown, &text, &ParseContext::new("r"));
        prop_assert_eq!(&r.raw_output, &text);
        if r.verdict == crit_core::Verdict::Unknown {
            prop_assert!(!r.passed);
            prop_assert!(r.parse_error.is_some());
        }
    }

    #[test]
    fn fingerprints_ignore_line_numbers(title in "[a-z ]{1,30}", a in 1u32..10_000, b in 1u32..10_000) {
        use crit_core::{Finding, Location, Severity};
        let f1 = Finding::new(title.clone(), Severity::P1, "r").with_location(Location::lines("x.rs", a, a));
        let f2 = Finding::new(title, Severity::P2, "r").with_location(Location::lines("x.rs", b, b + 3));
        prop_assert_eq!(f1.id, f2.id);
    }
}
