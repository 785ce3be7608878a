//! The secret-name judgement and the redactor against a labelled corpus of
//! real assignments (Django, Rails, Spring, Laravel, Node dotenv samples,
//! GitHub Actions, Kubernetes, Docker Compose, shells). Every miss is listed;
//! the test fails when there are more than recorded here. The aim is no false
//! negative on a real secret and as few false positives as possible.

use crit_core::redact::{Redactor, is_secret_key};

const CORPUS: &str = include_str!("data/secret_assignments.tsv");

/// Misses accepted today; lower them when the rules improve, never raise them
/// without saying why. The five names judged secret that are not: a flag
/// (`mail.smtp.auth`, `id-token: write`), Pusher's app key (public by
/// design, but "app key" is Laravel's secret `APP_KEY` too), and Helm's
/// `passwordKey` (the name of an entry in a Secret). Their values are not
/// redacted: none looks like a credential.
const NAME_FALSE_POSITIVES: usize = 5;
const NAME_FALSE_NEGATIVES: usize = 0;
const LINE_FALSE_POSITIVES: usize = 0;
const LINE_FALSE_NEGATIVES: usize = 0;

/// The recorded limits may be zero; this keeps the comparison one.
fn at_most(found: usize, limit: usize) -> bool {
    found <= limit
}

struct Entry<'a> {
    label: &'a str,
    source: &'a str,
    key: &'a str,
    line: &'a str,
}

fn entries() -> Vec<Entry<'static>> {
    CORPUS
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            assert_eq!(cols.len(), 4, "four columns: {l:?}");
            assert!(
                ["secret", "secret-name", "secret-value", "public"].contains(&cols[0]),
                "label: {l:?}"
            );
            Entry {
                label: cols[0],
                source: cols[1],
                key: cols[2],
                line: cols[3],
            }
        })
        .collect()
}

#[test]
fn the_corpus_is_large_and_covers_every_source() {
    let all = entries();
    assert!(all.len() >= 200, "{} entries", all.len());
    for source in [
        "django",
        "rails",
        "spring",
        "laravel",
        ".env",
        "github actions",
        "kubernetes",
    ] {
        assert!(
            all.iter().filter(|e| e.source.contains(source)).count() >= 10,
            "too few from {source}"
        );
    }
    for label in ["secret", "secret-name", "secret-value", "public"] {
        assert!(all.iter().any(|e| e.label == label), "{label}");
    }
}

#[test]
fn secret_names_by_their_words() {
    let mut fp = Vec::new();
    let mut fn_ = Vec::new();
    for e in entries() {
        let want = matches!(e.label, "secret" | "secret-name");
        match (want, is_secret_key(e.key)) {
            (false, true) => fp.push(format!("{} ({})", e.key, e.source)),
            (true, false) => fn_.push(format!("{} ({})", e.key, e.source)),
            _ => {}
        }
    }
    eprintln!(
        "secret names: {} false positives {fp:?}, {} false negatives {fn_:?}",
        fp.len(),
        fn_.len()
    );
    assert!(
        at_most(fn_.len(), NAME_FALSE_NEGATIVES),
        "false negatives: {fn_:#?}"
    );
    assert!(
        at_most(fp.len(), NAME_FALSE_POSITIVES),
        "false positives: {fp:#?}"
    );
}

#[test]
fn secret_values_in_assignments_are_redacted_and_nothing_else() {
    let redactor = Redactor::new();
    let mut fp = Vec::new();
    let mut fn_ = Vec::new();
    for e in entries() {
        let found = redactor.redact(e.line).found;
        let want = matches!(e.label, "secret" | "secret-value");
        match (want, found.is_empty()) {
            (false, false) => fp.push(format!("{} ({})", e.line.trim(), e.source)),
            (true, true) => fn_.push(format!("{} ({})", e.line.trim(), e.source)),
            _ => {}
        }
    }
    eprintln!(
        "assignments: {} false positives {fp:?}, {} false negatives {fn_:?}",
        fp.len(),
        fn_.len()
    );
    assert!(
        at_most(fn_.len(), LINE_FALSE_NEGATIVES),
        "false negatives: {fn_:#?}"
    );
    assert!(
        at_most(fp.len(), LINE_FALSE_POSITIVES),
        "false positives: {fp:#?}"
    );
}
