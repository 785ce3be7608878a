use std::path::PathBuf;

use super::*;
use crate::check::SourceKind;

fn check(id: &str, pattern: &str, rule: MatchRule) -> Check {
    Check {
        id: id.into(),
        pattern: pattern.into(),
        match_rule: rule,
        fix: None,
        reason: String::new(),
        reject_if_persists: false,
        source: SourceKind::SessionChecks,
        origin: PathBuf::from("checks.yaml"),
    }
}

fn matches(pattern: &str, rule: MatchRule, text: &str) -> bool {
    let set = CheckSet::compile(vec![check("c", pattern, rule)]).unwrap();
    !set.scan(text).matches(0).is_empty()
}

#[test]
fn literal_is_an_exact_case_sensitive_substring() {
    assert!(matches(
        "console.log",
        MatchRule::Literal,
        "we call console.log here"
    ));
    assert!(!matches(
        "console.log",
        MatchRule::Literal,
        "we call Console.Log here"
    ));
    assert!(
        !matches(
            "console.log",
            MatchRule::Literal,
            "we call consoleXlog here"
        ),
        "a dot is not a wildcard"
    );
    assert!(matches(
        "SELECT *",
        MatchRule::Literal,
        "run SELECT * FROM t"
    ));
}

#[test]
fn regex_uses_regex_syntax() {
    assert!(matches(": any", MatchRule::Regex, "let x: any = 1"));
    assert!(matches(r"\bTODO\(\w+\)", MatchRule::Regex, "see TODO(bob)"));
    assert!(!matches(r"\bTODO\(\w+\)", MatchRule::Regex, "see TODO()"));
    assert!(
        matches(r"(?P<n>\d{3})-\d{4}", MatchRule::Regex, "call 555-1234"),
        "Python named groups"
    );
}

#[test]
fn prescriptive_examples_from_the_seed() {
    assert!(matches(
        "eval",
        MatchRule::Prescriptive,
        "We use eval for parsing"
    ));
    assert!(!matches(
        "eval",
        MatchRule::Prescriptive,
        "We don't use eval"
    ));
    assert!(!matches(
        "eval",
        MatchRule::Prescriptive,
        "Unlike eval, JSON.parse is safe"
    ));
}

#[test]
fn prescriptive_every_negation_word() {
    for neg in [
        "not",
        "don't",
        "doesn't",
        "won't",
        "shouldn't",
        "cannot",
        "can't",
        "instead of",
        "rather than",
        "unlike",
        "avoid",
        "ruled out",
        "DON’T",
    ] {
        let text = format!("We {neg} eval here");
        assert!(!matches("eval", MatchRule::Prescriptive, &text), "{text}");
    }
    // Near after the pattern counts; far after, another line, or a longer word does not.
    assert!(!matches(
        "eval",
        MatchRule::Prescriptive,
        "eval is not allowed"
    ));
    assert!(matches(
        "eval",
        MatchRule::Prescriptive,
        "eval parses the whole config file quickly, not slowly"
    ));
    assert!(matches(
        "eval",
        MatchRule::Prescriptive,
        "We do not like it.\nWe use eval."
    ));
    assert!(matches(
        "eval",
        MatchRule::Prescriptive,
        "Take a note: we use eval"
    ));
}

#[test]
fn negation_aware_looks_at_the_sentence() {
    for neg in [
        "not",
        "doesn't",
        "unlike",
        "cannot",
        "don't",
        "won't",
        "shouldn't",
        "ruled out",
    ] {
        let text = format!("The cache {neg} uses global state. Next sentence.");
        assert!(
            !matches("global state", MatchRule::NegationAware, &text),
            "{text}"
        );
    }
    assert!(matches(
        "global state",
        MatchRule::NegationAware,
        "This is not ideal. We use global state."
    ));
    assert!(!matches(
        "global state",
        MatchRule::NegationAware,
        "We use global state, which was\nruled out."
    ));
    // "avoid" is a prescriptive word, not a negation_aware one.
    assert!(matches(
        "global state",
        MatchRule::NegationAware,
        "Avoid global state."
    ));
}

#[test]
fn negation_inside_the_pattern_does_not_negate_it() {
    assert!(matches(
        "do not test",
        MatchRule::Prescriptive,
        "We do not test the parser"
    ));
    assert!(matches(
        "do not test",
        MatchRule::NegationAware,
        "We do not test the parser."
    ));
}

#[test]
fn one_pass_over_many_checks_reports_first_failure_in_order() {
    let checks = vec![
        check("a", "alpha", MatchRule::Literal),
        check("b", "be+ta", MatchRule::Regex),
        check("c", "gamma", MatchRule::Literal),
        check("d", "alph", MatchRule::Literal),
    ];
    let set = CheckSet::compile(checks).unwrap();
    let scan = set.scan("gamma then beeeta then alpha");
    let (i, hits) = scan.first_failure(|_| false).unwrap();
    assert_eq!(set.checks()[i].id, "a");
    assert_eq!(hits, vec![23..28]);
    let (i, _) = scan.first_failure(|c| c.id == "a").unwrap();
    assert_eq!(set.checks()[i].id, "b");
    let ids: Vec<&str> = scan
        .failures(|_| false)
        .iter()
        .map(|(i, _)| set.checks()[*i].id.as_str())
        .collect();
    assert_eq!(
        ids,
        vec!["a", "b", "c", "d"],
        "overlapping literals all hit"
    );
}

#[test]
fn duplicate_patterns_in_different_checks_both_match() {
    let set = CheckSet::compile(vec![
        check("x", "dup", MatchRule::Literal),
        check("y", "dup", MatchRule::Literal),
    ])
    .unwrap();
    assert_eq!(set.scan("a dup").failures(|_| false).len(), 2);
}

#[test]
fn regex_with_lookaround_joins_the_scan() {
    let checks = vec![
        check("fast", r"\bTODO\b", MatchRule::Regex),
        check("fancy", r"(?<![\w.])any(?!\w)", MatchRule::Regex),
    ];
    let set = CheckSet::compile(checks).unwrap();
    let scan = set.scan("x: any; company; many; TODO");
    assert_eq!(scan.matches(0), vec![23..27]);
    assert_eq!(scan.matches(1), vec![3..6]);
}
