//! The hunk cache decides once the whole review is over: a change split into
//! two parts, the part holding `a_auth.rs` answers PASS, and a reviewer of
//! the other part (reading other files with its tools) reports a P0 in
//! `a_auth.rs`. After a one-line edit in the other part's file, the next
//! review must send `a_auth.rs` to a reviewer again and fail; it never takes
//! `a_auth.rs` from the cache and passes with the P0 gone. Each row is a way
//! the P0 could be reported; a control row shows the same layout is served
//! from the cache when nothing points into `a_auth.rs`.

use crate::support;

use std::path::Path;

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};
use support::gate::{self, finding};
use support::{git, json_out, write};

/// Lines only the request of `a_auth.rs`'s part holds, and only the other
/// part's.
const AUTH_MARK: &str = "check_token_marker";
const OTHER_MARK: &str = "other_module_marker";

/// A panel of two reviewers over a diff, as the `code` template reads it.
const DUO: &str = r#"name: duo
description: Two reviewers
system_prompt: You review code.
allowed_tools: [Read, Grep]
prompt_builder: code
inputs:
  optional:
    - name: diff
      description: Git ref to diff against
reviewers:
  - name: first-eye
    system_prompt: REVIEWER-ONE
  - name: second-eye
    system_prompt: REVIEWER-TWO
"#;

fn big(tag: &str, lines: usize) -> String {
    (0..lines)
        .map(|i| {
            format!(
                "let {tag}_{i} = compute_{tag}({i}, \"padding padding padding padding padding\");\n"
            )
        })
        .collect()
}

fn helpers() -> String {
    (1..=40)
        .map(|i| format!("fn helper_{i}() -> u32 {{ {i} }}\n"))
        .collect()
}

/// `main` holds 40 lines of `a_auth.rs`; the change appends to it (so its
/// first lines are outside any hunk) and adds `b_other.rs`, each big enough
/// that the two files go to two parts.
fn repo() -> tempfile::TempDir {
    let base = helpers();
    let auth = format!(
        "{base}fn {AUTH_MARK}(token: &str) -> bool {{ !token.is_empty() }}\n{}",
        big("auth", 1500)
    );
    let other = format!("fn {OTHER_MARK}() -> u32 {{ 1 }}\n{}", big("other", 1500));
    gate::change_repo(
        &[("a_auth.rs", Some(base.as_bytes()))],
        &[
            ("a_auth.rs", Some(auth.as_bytes())),
            ("b_other.rs", Some(other.as_bytes())),
        ],
    )
}

/// The one-line edit elsewhere: a line of `b_other.rs`, committed.
fn edit_elsewhere(d: &Path) {
    let p = d.join("b_other.rs");
    let text = std::fs::read_to_string(&p).unwrap();
    let text = text.replace("let other_700 =", "let other_seven_hundred =");
    std::fs::write(&p, text).unwrap();
    git(d, &["commit", "-q", "-am", "rename a variable"]);
}

fn review(d: &Path, home: &Path, server: &FakeServer, template: &str, extra: &[&str]) -> Value {
    let out = support::crit(d, server, None)
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("XDG_STATE_HOME", home.join("state"))
        .args([
            "review",
            template,
            "--diff",
            "main..HEAD",
            "--json",
            "--no-log",
        ])
        .args(extra)
        .output()
        .unwrap();
    json_out(&out)
}

/// `n` answers for requests holding `needle`.
fn answer(server: &FakeServer, needle: &str, reply: &Reply, n: usize) {
    for _ in 0..n {
        server.push(Step::when_contains(needle).reply(reply.clone()));
    }
}

fn p0(f: Value) -> Reply {
    Reply::json(json!({"verdict": "FAIL", "summary": "A blocker.", "findings": [f]}))
}

const P0_TITLE: &str = "tokens are never checked";

/// A P0 at `path`, line `line`.
fn p0_at(path: &str, line: u32) -> Value {
    finding(path, line, 0, P0_TITLE)
}

struct Row {
    name: &'static str,
    /// The first review fails (a dismissed finding leaves it passing).
    first_fails: bool,
    /// What the other part's reviewers answer in the first review, in order
    /// (a panel has two).
    other_first: Vec<Reply>,
    template: &'static str,
    extra: &'static [&'static str],
}

/// Runs the first review (the `a_auth.rs` part passes, the other part
/// answers `row.other_first`), the edit, then the second review in which a
/// reviewer that sees `a_auth.rs` reports the P0 and the other part passes.
/// Returns the second review's result and whether `a_auth.rs` was sent.
/// One server for both: its address is part of the cache's key.
fn two_reviews(row: &Row) -> (Value, bool) {
    let dir = repo();
    let d = dir.path();
    let home = tempfile::tempdir().unwrap();
    if row.template == "duo" {
        write(d, ".crit/templates/duo.yaml", DUO);
    }
    let reviewers = row.other_first.len();
    let server = FakeServer::start_blocking();
    answer(&server, AUTH_MARK, &Reply::json(support::pass()), reviewers);
    for r in &row.other_first {
        server.push(Step::when_contains(OTHER_MARK).reply(r.clone()));
    }
    let first = review(d, home.path(), &server, row.template, row.extra);
    let name = row.name;
    let reported: Vec<&Value> = ["findings", "dismissed"]
        .iter()
        .filter_map(|k| first[*k].as_array())
        .flatten()
        .map(|f| f.get("finding").unwrap_or(f))
        .collect();
    assert_eq!(reported.len(), 1, "{name}: the first review\n{first:#}");
    if name.contains("no location") {
        assert!(reported[0].get("location").is_none(), "{name}\n{first:#}");
    }
    if row.first_fails {
        assert_eq!(
            first["passed"], false,
            "{name}: the first review\n{first:#}"
        );
    }
    assert_eq!(
        server.model_requests().len(),
        2 * reviewers,
        "{name}: not two parts\n{first:#}"
    );
    edit_elsewhere(d);
    let before = server.model_requests().len();
    answer(&server, AUTH_MARK, &p0(p0_at("a_auth.rs", 42)), reviewers);
    answer(
        &server,
        OTHER_MARK,
        &Reply::json(support::pass()),
        reviewers,
    );
    let second = review(d, home.path(), &server, row.template, row.extra);
    let sent = server.model_requests()[before..]
        .iter()
        .any(|r| r.body.to_string().contains(AUTH_MARK));
    (second, sent)
}

/// An answer in the templates' markdown format whose blocker names no file:
/// a finding with no location.
fn blocker_without_location() -> Reply {
    Reply::text(
        "## Summary\nFAIL\n\n## Findings\n\n### [FAIL] Tokens are never checked\n\
         The login accepts any token it is given.\n",
    )
}

#[test]
fn a_p0_another_part_found_keeps_its_file_out_of_the_cache() {
    let pass = || Reply::json(support::pass());
    let rows = vec![
        Row {
            name: "the other part's reviewer reports a P0 in a_auth.rs",
            first_fails: true,
            other_first: vec![p0(p0_at("a_auth.rs", 42))],
            template: "code",
            extra: &["--verify", "off"],
        },
        Row {
            name: "one reviewer of a panel reports it, the other passes",
            first_fails: true,
            other_first: vec![pass(), p0(p0_at("a_auth.rs", 42))],
            template: "duo",
            extra: &["--verify", "off"],
        },
        Row {
            name: "the finding is dismissed by the evidence check",
            first_fails: false,
            other_first: vec![p0(json!({"file_path": "a_auth.rs", "line_start": 42,
                "line_end": 42, "priority": 0, "title": P0_TITLE, "body": "b",
                "evidence": "this text is not in the file at all"}))],
            template: "code",
            extra: &["--verify", "off"],
        },
        Row {
            name: "the finding is dismissed by the diff filter",
            first_fails: false,
            other_first: vec![p0(p0_at("a_auth.rs", 5))],
            template: "code",
            extra: &["--verify", "off", "--filter", "added"],
        },
        Row {
            name: "spelled ./a_auth.rs",
            first_fails: true,
            other_first: vec![p0(p0_at("./a_auth.rs", 42))],
            template: "code",
            extra: &["--verify", "off"],
        },
        Row {
            name: "spelled A_AUTH.RS",
            first_fails: true,
            other_first: vec![p0(p0_at("A_AUTH.RS", 42))],
            template: "code",
            extra: &["--verify", "off"],
        },
        Row {
            name: "spelled src/../a_auth.rs",
            first_fails: true,
            other_first: vec![p0(p0_at("src/../a_auth.rs", 42))],
            template: "code",
            extra: &["--verify", "off"],
        },
        Row {
            name: "spelled b/a_auth.rs, as git's diff names it",
            first_fails: true,
            other_first: vec![p0(p0_at("b/a_auth.rs", 42))],
            template: "code",
            extra: &["--verify", "off"],
        },
        Row {
            name: "a finding with no location",
            first_fails: true,
            other_first: vec![blocker_without_location()],
            template: "code",
            extra: &["--verify", "off"],
        },
        Row {
            name: "a finding on a line outside any hunk of a_auth.rs",
            first_fails: true,
            other_first: vec![p0(p0_at("a_auth.rs", 5))],
            template: "code",
            extra: &["--verify", "off"],
        },
        Row {
            name: "a P3 nit, the other part still saying PASS",
            first_fails: false,
            other_first: vec![Reply::json(json!({"verdict": "PASS", "summary": "ok",
                "findings": [finding("a_auth.rs", 42, 3, "a name")]}))],
            template: "code",
            extra: &["--verify", "off"],
        },
    ];
    assert!(rows.len() >= 10);
    let mut failed = Vec::new();
    for row in &rows {
        let (second, sent) = two_reviews(row);
        let restored = second["findings"]
            .as_array()
            .is_some_and(|a| a.iter().any(|f| f["title"] == P0_TITLE));
        if !(sent || restored) || second["passed"] != false {
            failed.push(format!("{}\n{second:#}", row.name));
        }
    }
    assert!(
        failed.is_empty(),
        "a_auth.rs came from the cache without its P0, and the review passed:\n{}",
        failed.join("\n\n")
    );
}

/// The same layout, with the other part's P0 in its own file: `a_auth.rs`
/// is served from the cache (so the rows above test the decision, not a
/// layout the cache never serves).
#[test]
fn a_part_no_finding_points_into_is_served_from_the_cache() {
    let row = Row {
        name: "the P0 is in b_other.rs",
        first_fails: true,
        other_first: vec![p0(p0_at("b_other.rs", 3))],
        template: "code",
        extra: &["--verify", "off"],
    };
    let (second, sent) = two_reviews(&row);
    assert!(!sent, "a_auth.rs was sent again\n{second:#}");
    assert!(
        second["coverage"]["lines_cached"].as_u64().unwrap_or(0) > 1000,
        "{second:#}"
    );
    assert_eq!(second["passed"], true, "{second:#}");
}
