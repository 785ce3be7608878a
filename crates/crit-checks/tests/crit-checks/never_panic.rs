//! Property tests: whatever markdown or YAML a user writes, the table parser,
//! the structure and fix code, the matcher and the state file never panic.

use std::path::{Path, PathBuf};

use crit_checks::fix;
use crit_checks::table::{self, Flavor};
use crit_checks::text::Structure;
use crit_checks::{Check, CheckSet, FixAction, MatchRule, SourceKind, State};
use proptest::prelude::*;

const FRAGMENTS: &[&str] = &[
    "|",
    "| ",
    "`",
    "``",
    "\\|",
    "---",
    "|---|---|",
    ":",
    "\n",
    "\n\n",
    "\r\n",
    "# ",
    "## H\n",
    "- ",
    "* ",
    "1. ",
    "2) ",
    "  ",
    "\t",
    "```\n",
    "~~~\n",
    ". ",
    "? ",
    "! ",
    ".",
    "eval",
    "eval()",
    "not ",
    "don't ",
    "unlike ",
    "If you write...",
    "STOP because...",
    "Code Pattern",
    "Text Pattern",
    "Old",
    "New",
    "é",
    "字",
    "。",
    "\u{3000}",
    "“",
    "”",
    "'",
    "’",
    "x",
    "word ",
    "e.g. ",
];

fn markdown() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(FRAGMENTS), 0..80).prop_map(|v| v.concat())
}

fn check(id: &str, pattern: &str, rule: MatchRule, fix: Option<FixAction>) -> Check {
    Check {
        id: id.into(),
        pattern: pattern.into(),
        match_rule: rule,
        fix,
        reason: String::new(),
        reject_if_persists: false,
        source: SourceKind::SessionChecks,
        origin: PathBuf::from("checks.yaml"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn tables_never_panic(md in markdown()) {
        for flavor in [Flavor::ClaudeMd, Flavor::Rules] {
            for row in table::parse(&md, flavor) {
                prop_assert!(!row.pattern.is_empty());
            }
        }
    }

    #[test]
    fn structure_holds_every_offset(md in markdown()) {
        let s = Structure::new(&md);
        for (i, _) in md.char_indices() {
            let sentence = s.sentence_at(&md, i);
            prop_assert!(sentence.start <= sentence.end && sentence.end <= md.len());
            let para = s.paragraph_at(i);
            prop_assert!(para.start <= i && i < para.end.max(i + 1) && para.end <= md.len());
        }
    }

    #[test]
    fn fixes_never_panic_and_removals_shrink(md in markdown(), pat in prop::sample::select(&["eval", "e", ". ", "|", "é", "\n"][..])) {
        let hits: Vec<_> = md.match_indices(pat).map(|(i, m)| i..i + m.len()).collect();
        let _ = fix::apply(&md, &FixAction::Replace { with: "JSON".into() }, &hits);
        for action in [FixAction::RemoveSentence, FixAction::RemoveParagraph] {
            if let Some(edit) = fix::apply(&md, &action, &hits) {
                prop_assert!(edit.text.len() < md.len(), "{action:?} on {md:?} gave {:?}", edit.text);
            }
        }
    }

    #[test]
    fn matching_never_panics(md in markdown()) {
        let checks = vec![
            check("a", "eval", MatchRule::Literal, None),
            check("b", "eval", MatchRule::Prescriptive, None),
            check("c", "eval", MatchRule::NegationAware, None),
            check("d", r"e\w+", MatchRule::Regex, None),
            check("e", "é", MatchRule::NegationAware, None),
        ];
        let set = CheckSet::compile(checks).unwrap();
        let scan = set.scan(&md);
        for (i, hits) in scan.failures(|_| false) {
            for h in hits {
                prop_assert!(md.is_char_boundary(h.start) && md.is_char_boundary(h.end), "check {i}");
            }
        }
    }

    #[test]
    fn state_files_never_panic(text in "\\PC{0,200}") {
        let _ = State::parse_or_reset(Path::new("state.yaml"), &text);
    }
}
