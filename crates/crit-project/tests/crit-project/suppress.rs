//! `.crit/suppressions.yaml`: matching, expiry, and errors people can act on.

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crit_core::{Finding, Location, Severity};
use crit_project::suppress::{SuppressError, Suppressions};

/// Noon UTC on 2026-11-21.
fn today() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_795_219_200 + 12 * 3600)
}

fn parse(text: &str) -> Suppressions {
    Suppressions::parse(text, Path::new(".crit/suppressions.yaml")).unwrap()
}

fn error(text: &str) -> String {
    match Suppressions::parse(text, Path::new(".crit/suppressions.yaml")) {
        Err(e @ SuppressError::Invalid { .. }) => e.to_string(),
        Err(e) => panic!("unexpected error kind: {e}"),
        Ok(_) => panic!("accepted:\n{text}"),
    }
}

fn finding(title: &str, path: &str, line: u32) -> Finding {
    Finding::new(title, Severity::P2, "reviewer").with_location(Location::lines(path, line, line))
}

fn titles(fs: &[Finding]) -> Vec<&str> {
    fs.iter().map(|f| f.title.as_str()).collect()
}

#[test]
fn fingerprint_survives_a_line_shift() {
    let before = finding("Lock not held", "src/db.rs", 10);
    let after = finding("Lock not held", "src/db.rs", 57);
    assert_eq!(before.id, after.id);
    let s = parse(&format!(
        "suppressions:\n  - fingerprint: {}\n    reason: held by the caller\n    author: alice\n",
        before.id.to_uppercase()
    ));
    let other = finding("Lock not held", "src/other.rs", 57);
    let applied = s.apply(vec![after.clone(), other.clone()], today());
    assert_eq!(applied.kept, vec![other]);
    assert_eq!(applied.suppressed.len(), 1);
    let sup = &applied.suppressed[0];
    assert_eq!(sup.finding, after);
    assert_eq!(sup.reason, "held by the caller");
    assert_eq!(sup.author, "alice");
    assert_eq!(sup.rule, ".crit/suppressions.yaml:2");
    assert!(applied.expired.is_empty());
}

#[test]
fn a_finding_without_an_id_is_fingerprinted_before_matching() {
    let mut f = finding("Lock not held", "src/db.rs", 10);
    let id = std::mem::take(&mut f.id);
    let s = parse(&format!(
        "suppressions:\n  - fingerprint: \"{id}\"\n    reason: r\n    author: a\n"
    ));
    assert_eq!(s.apply(vec![f], today()).suppressed.len(), 1);
}

#[test]
fn title_glob_is_whole_title_and_case_insensitive() {
    let s = parse(
        "suppressions:\n  - title: \"missing DOCSTRING*\"\n    reason: legacy\n    author: bob\n",
    );
    let applied = s.apply(
        vec![
            finding("Missing docstring on parse()", "a.rs", 1),
            finding("[P3] Missing docstring", "b.rs", 2),
            finding("Function is missing docstring", "c.rs", 3),
        ],
        today(),
    );
    assert_eq!(titles(&applied.kept), ["Function is missing docstring"]);
    assert_eq!(applied.suppressed.len(), 2);
}

#[test]
fn slash_delimited_title_is_a_regex() {
    let s = parse(
        "suppressions:\n  - title: '/unwrap\\(\\) on (Option|Result)/'\n    reason: r\n    author: a\n",
    );
    let applied = s.apply(
        vec![
            finding("Unchecked unwrap() on Option in main", "a.rs", 1),
            finding("unwrap() on a Vec", "a.rs", 2),
        ],
        today(),
    );
    assert_eq!(titles(&applied.kept), ["unwrap() on a Vec"]);
}

#[test]
fn path_narrows_a_title_pattern() {
    let s = parse(
        "suppressions:\n  - title: \"Missing docstring*\"\n    path: \"src/legacy/**\"\n    reason: r\n    author: a\n",
    );
    let no_path = Finding::new("Missing docstring", Severity::P3, "r");
    let applied = s.apply(
        vec![
            finding("Missing docstring", "src/legacy/old/x.rs", 1),
            finding("Missing docstring", "./src/legacy/y.rs", 1),
            finding("Missing docstring", "src/new.rs", 1),
            no_path.clone(),
        ],
        today(),
    );
    assert_eq!(applied.suppressed.len(), 2);
    assert_eq!(
        applied.kept,
        vec![finding("Missing docstring", "src/new.rs", 1), no_path]
    );
}

#[test]
fn expiry_applies_through_the_day_then_is_reported() {
    let text = |date: &str| {
        format!(
            "suppressions:\n  - title: \"*\"\n    reason: \"tracked in #9\"\n    author: alice\n    expires: {date}\n"
        )
    };
    let f = || vec![finding("anything", "a.rs", 1)];
    for date in ["2026-11-21", "2026-11-22", "2030-01-01"] {
        let applied = parse(&text(date)).apply(f(), today());
        assert_eq!(applied.suppressed.len(), 1, "{date}");
        assert!(applied.expired.is_empty());
    }
    let applied = parse(&text("2026-11-20")).apply(f(), today());
    assert_eq!(applied.kept.len(), 1);
    assert_eq!(
        applied.expired,
        [".crit/suppressions.yaml:2: expired 2026-11-20 (alice: tracked in #9)"]
    );
}

#[test]
fn first_matching_entry_wins() {
    let s = parse(
        "suppressions:\n  - title: \"x*\"\n    reason: first\n    author: a\n  - title: \"*\"\n    reason: second\n    author: b\n",
    );
    let applied = s.apply(
        vec![finding("xyz", "a", 1), finding("abc", "a", 1)],
        today(),
    );
    let reasons: Vec<_> = applied
        .suppressed
        .iter()
        .map(|s| s.reason.as_str())
        .collect();
    assert_eq!(reasons, ["first", "second"]);
    assert_eq!(applied.suppressed[1].rule, ".crit/suppressions.yaml:5");
}

#[test]
fn empty_and_missing_files_suppress_nothing() {
    assert!(parse("").is_empty());
    assert!(parse("# nothing yet\n").is_empty());
    assert!(parse("suppressions:\n").is_empty());
    assert!(parse("suppressions: []\n").is_empty());
    let dir = tempfile::tempdir().unwrap();
    assert!(Suppressions::load(dir.path()).unwrap().is_empty());
}

#[test]
fn load_reads_the_project_file_and_names_it_in_errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".crit")).unwrap();
    let file = dir.path().join(".crit/suppressions.yaml");
    std::fs::write(
        &file,
        "suppressions:\n  - fingerprint: 1234567890123456\n    reason: r\n    author: a\n    expires: 2027-03-01\n",
    )
    .unwrap();
    assert_eq!(Suppressions::load(dir.path()).unwrap().len(), 1);
    std::fs::write(&file, "suppressions:\n  - title: x\n").unwrap();
    let e = Suppressions::load(dir.path()).unwrap_err().to_string();
    assert!(e.starts_with(".crit/suppressions.yaml:2:"), "{e}");
}

#[test]
fn every_error_says_where_and_what() {
    let cases: &[(&str, &str)] = &[
        (
            "suppressions:\n  - title: x\n    reason: r\n    author: a\n    owner: z\n",
            ".crit/suppressions.yaml:5:5: unknown field `owner`",
        ),
        (
            "suppression: []\n",
            ".crit/suppressions.yaml:1:1: unknown field `suppression`",
        ),
        (
            "suppressions:\n  - fingerprint: 9f2c41d07a3be815\n    title: x\n    reason: r\n    author: a\n",
            ".crit/suppressions.yaml:3:12: give `fingerprint` or `title`, not both",
        ),
        (
            "suppressions:\n  - reason: r\n    author: a\n",
            ".crit/suppressions.yaml:2:5: missing `fingerprint` (a finding's id) or `title`",
        ),
        (
            "suppressions:\n  - title: x\n    author: a\n",
            ".crit/suppressions.yaml:2:5: missing `reason`: say why",
        ),
        (
            "suppressions:\n  - title: x\n    reason: r\n",
            ".crit/suppressions.yaml:2:5: missing `author`: who dismissed",
        ),
        (
            "suppressions:\n  - title: x\n    reason: \"  \"\n    author: a\n",
            ".crit/suppressions.yaml:3:13: `reason` is empty",
        ),
        (
            "suppressions:\n  - fingerprint: 9f2c41d07a3be815\n    path: src/**\n    reason: r\n    author: a\n",
            ".crit/suppressions.yaml:3:11: `path` narrows a `title` pattern",
        ),
        (
            "suppressions:\n  - fingerprint: 9f2c41d0\n    reason: r\n    author: a\n",
            ".crit/suppressions.yaml:2:18: `9f2c41d0` is not a finding fingerprint: expected 16 hex digits",
        ),
        (
            "suppressions:\n  - title: \"/(unclosed/\"\n    reason: r\n    author: a\n",
            ".crit/suppressions.yaml:2:12: invalid regex `/(unclosed/`: unclosed group",
        ),
        (
            "suppressions:\n  - title: \"\"\n    reason: r\n    author: a\n",
            ".crit/suppressions.yaml:2:12: `title` is empty",
        ),
        (
            "suppressions:\n  - title: x\n    path: \"src/[a\"\n    reason: r\n    author: a\n",
            ".crit/suppressions.yaml:3:11: invalid path glob `src/[a`",
        ),
        (
            "suppressions:\n  - title: x\n    reason: r\n    author: a\n    expires: 2027-02-30\n",
            ".crit/suppressions.yaml:5:14: `2027-02-30` is not a date: write expires as YYYY-MM-DD",
        ),
        (
            "suppressions:\n  title: x\n",
            ".crit/suppressions.yaml:2:3:",
        ),
        ("suppressions:\n  - title: [x\n", ".crit/suppressions.yaml:"),
    ];
    for (text, want) in cases {
        let got = error(text);
        // `file:line:column: ` first; then the message, after any prefix the YAML
        // library adds to its own errors.
        let (at, message) = want.split_at(want.find(": ").map_or(want.len(), |i| i + 2));
        assert!(got.starts_with(at), "want {want:?}\n got {got:?}");
        assert!(got.contains(message), "want {want:?}\n got {got:?}");
        assert!(!got.contains('\n'), "one line: {got:?}");
    }
}

#[test]
fn error_message_snapshot() {
    insta::assert_snapshot!(error(
        "suppressions:\n  - fingerprint: 9f2c41d07a3be815\n    reason: held by caller\n    author: alice\n    expires: next week\n"
    ));
}
