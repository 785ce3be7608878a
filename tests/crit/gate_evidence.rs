//! Checks that can only remove or lower a finding act only on positive
//! proof. The evidence check dismisses a finding only when the file it
//! names is a readable text file of the project and neither it nor the diff
//! holds the quote; a path with a diff prefix, a file with a byte that is not
//! UTF-8, a decoy copy of the line, lines off by any amount: the finding
//! stays, at its severity. The verifier refutes or lowers only by quoting
//! the code that shows it; without that the finding is kept, "disputed",
//! and still fails the gate. Each row is a hostile answer from crit-testkit.

use crate::support;

mod slips;

use std::path::Path;

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};
use support::gate;

const SINK: &str = "let query = format!(\"SELECT * FROM users WHERE name = '{}'\", name);";

/// A line of code two lines above the sink.
const GUARD: &str = "let name = name.trim();";

/// `src/auth.rs` in the base; the change adds the SQL built from input at
/// line 12 (with `extra` bytes appended to the file).
fn repo(extra: &[u8], decoy: bool) -> tempfile::TempDir {
    repo_with(SINK, extra, decoy)
}

/// [`repo`], with `added` for the line the change adds at line 12.
fn repo_with(added: &str, extra: &[u8], decoy: bool) -> tempfile::TempDir {
    let mut base = String::new();
    for n in 1..=20 {
        match n {
            // Code near the sink, for a verifier to quote.
            10 => base.push_str(&format!("{GUARD}\n")),
            _ => base.push_str(&format!("// line {n}\n")),
        }
    }
    let mut lines: Vec<String> = base.lines().map(str::to_string).collect();
    lines[11] = added.to_string();
    if decoy {
        // A commented copy of the line, far from it.
        lines[1] = format!("// {SINK}");
    }
    let mut changed = lines.join("\n").into_bytes();
    changed.push(b'\n');
    changed.extend_from_slice(extra);
    gate::change_repo(
        &[
            ("src/auth.rs", Some(base.as_bytes())),
            ("src/other.rs", Some(b"fn other() {}\n")),
        ],
        &[("src/auth.rs", Some(&changed))],
    )
}

fn p0(path: &str, line: u32, quote: &str) -> Value {
    json!({"file_path": path, "line_start": line, "line_end": line, "priority": 0,
        "title": "SQL built from user input", "body": "Use a bound parameter.",
        "evidence": quote})
}

fn fail(f: Value) -> Reply {
    Reply::json(json!({"verdict": "FAIL", "summary": "Injectable.", "findings": [f]}))
}

/// Runs the review (`--verify off`: the evidence check alone).
fn run(d: &Path, server: &FakeServer, extra: &[&str]) -> (std::process::Output, Value) {
    let mut args = vec!["--verify", "off"];
    args.extend_from_slice(extra);
    gate::gated(d, server, &args)
}

fn assert_kept_p0(name: &str, out: &std::process::Output, r: &Value) {
    assert_eq!(out.status.code(), Some(1), "{name}: {}", support::show(out));
    let f = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["title"].as_str().unwrap().contains("SQL built"))
        .unwrap_or_else(|| panic!("{name}: the finding is gone\n{r:#}"));
    assert_eq!(f["severity"], "P0", "{name}: {f:#}");
    assert!(
        r["dismissed"].as_array().is_none_or(Vec::is_empty),
        "{name}: {r:#}"
    );
}

#[test]
fn a_true_blocker_is_never_dropped_on_weak_evidence() {
    let abs = |d: &Path| d.join("src/auth.rs").display().to_string();
    type PathFor = Box<dyn Fn(&Path) -> String>;
    type Row = (&'static str, &'static [u8], bool, PathFor, u32, String);
    let rows: Vec<Row> = vec![
        (
            "a b/ prefix",
            b"",
            false,
            Box::new(|_| "b/src/auth.rs".into()),
            12,
            SINK.into(),
        ),
        (
            "an a/ prefix",
            b"",
            false,
            Box::new(|_| "a/src/auth.rs".into()),
            12,
            SINK.into(),
        ),
        (
            "a ./ prefix",
            b"",
            false,
            Box::new(|_| "./src/auth.rs".into()),
            12,
            SINK.into(),
        ),
        (
            "the absolute path",
            b"",
            false,
            Box::new(abs),
            12,
            SINK.into(),
        ),
        (
            "the file name alone",
            b"",
            false,
            Box::new(|_| "auth.rs".into()),
            12,
            SINK.into(),
        ),
        (
            "a byte that is not UTF-8 in the file",
            b"// caf\xe9\n",
            false,
            Box::new(|_| "src/auth.rs".into()),
            12,
            SINK.into(),
        ),
        (
            "a byte that is not UTF-8 and a quote not quite there",
            b"// caf\xe9\n",
            false,
            Box::new(|_| "src/auth.rs".into()),
            12,
            "let query = format!(\"SELECT * FROM users WHERE name = '{}'\", user_name);".into(),
        ),
        (
            "a decoy copy, lines off by 10",
            b"",
            true,
            Box::new(|_| "src/auth.rs".into()),
            2,
            SINK.into(),
        ),
        (
            "a decoy copy, the right lines",
            b"",
            true,
            Box::new(|_| "src/auth.rs".into()),
            12,
            SINK.into(),
        ),
        (
            "lines off by 1",
            b"",
            false,
            Box::new(|_| "src/auth.rs".into()),
            13,
            SINK.into(),
        ),
        (
            "lines off by 4",
            b"",
            false,
            Box::new(|_| "src/auth.rs".into()),
            16,
            SINK.into(),
        ),
        (
            "lines off by 50",
            b"",
            false,
            Box::new(|_| "src/auth.rs".into()),
            62,
            SINK.into(),
        ),
        (
            "the quote with other white space",
            b"",
            false,
            Box::new(|_| "src/auth.rs".into()),
            12,
            "let   query =\n   format!(\"SELECT * FROM users WHERE name = '{}'\",\tname);".into(),
        ),
        (
            "the quote with the prompt's line numbers and markers",
            b"",
            false,
            Box::new(|_| "src/auth.rs".into()),
            12,
            format!("  12 + {SINK}"),
        ),
        (
            "a file that does not exist",
            b"",
            false,
            Box::new(|_| "src/missing.rs".into()),
            12,
            "something else".into(),
        ),
        (
            "a path outside the project",
            b"",
            false,
            Box::new(|_| "../../../../etc/hostname".into()),
            1,
            "something else".into(),
        ),
        (
            "a directory",
            b"",
            false,
            Box::new(|_| "src".into()),
            1,
            "something else".into(),
        ),
        (
            "the wrong file of the project, the quote in the diff",
            b"",
            false,
            Box::new(|_| "src/other.rs".into()),
            1,
            SINK.into(),
        ),
    ];
    assert!(rows.len() >= 10);
    for (name, extra, decoy, path, line, quote) in rows {
        let dir = repo(extra, decoy);
        let d = dir.path();
        let server = FakeServer::start_blocking();
        server.push(fail(p0(&path(d), line, &quote)));
        let (out, r) = run(d, &server, &[]);
        assert_kept_p0(name, &out, &r);
    }
}

/// The one thing the evidence check may do: a text file of the project,
/// read, and the quote in neither it nor the diff. The proof is in
/// `dismissed`, and so the gate passes.
#[test]
fn a_quote_proven_absent_is_dismissed_with_its_proof() {
    let dir = repo(b"", false);
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(fail(p0("src/auth.rs", 12, "eval(request.body)")));
    let (out, r) = run(d, &server, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", support::show(&out));
    let dis = &r["dismissed"][0];
    assert_eq!(dis["cause"], "evidence_not_found", "{r:#}");
    assert!(
        dis["proof"].as_str().unwrap().contains("src/auth.rs"),
        "{dis:#}"
    );
    assert_eq!(dis["finding"]["severity"], "P0");
}

/// A symlink in the checkout pointing outside it: never read, never proof.
#[test]
fn a_symlink_out_of_the_project_is_no_proof() {
    let dir = repo(b"", false);
    let d = dir.path();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("x.rs"), "nothing here\n").unwrap();
    std::os::unix::fs::symlink(outside.path().join("x.rs"), d.join("src/link.rs")).unwrap();
    let server = FakeServer::start_blocking();
    server.push(fail(p0("src/link.rs", 1, "eval(request.body)")));
    let (out, r) = run(d, &server, &[]);
    assert_kept_p0("a symlink out of the project", &out, &r);
}

/// The verifier's answers: the structured decision it gives.
fn verifier(decision: Value) -> Step {
    Step::when_contains("The finding to check").reply(Reply::json(decision))
}

#[test]
fn the_verifiers_word_without_proof_keeps_the_finding() {
    let rows: Vec<(&str, Vec<Step>)> = vec![
        (
            "refuted, no code quoted",
            vec![verifier(
                json!({"outcome": "refuted", "reason": "It is fine."}),
            )],
        ),
        (
            "refuted, a quote not in the file",
            vec![verifier(
                json!({"outcome": "refuted", "reason": "Sanitised.",
            "disproof": {"file_path": "src/auth.rs", "quote": "let name = sanitize(name);"}}),
            )],
        ),
        (
            "refuted, a file outside the project",
            vec![verifier(
                json!({"outcome": "refuted", "reason": "See there.",
            "disproof": {"file_path": "/etc/hostname", "quote": "localhost"}}),
            )],
        ),
        (
            "refuted, a file that does not exist",
            vec![verifier(
                json!({"outcome": "refuted", "reason": "See there.",
            "disproof": {"file_path": "src/validate.rs", "quote": "fn validate"}}),
            )],
        ),
        (
            "refuted, an empty quote",
            vec![verifier(json!({"outcome": "refuted", "reason": "Fine.",
            "disproof": {"file_path": "src/auth.rs", "quote": "   "}}))],
        ),
        (
            "refuted, a comment far from the finding",
            vec![verifier(
                json!({"outcome": "refuted", "reason": "Only a comment.",
            "disproof": {"file_path": "src/auth.rs", "quote": "// line 1"}}),
            )],
        ),
        (
            "refuted, a comment next to the finding",
            vec![verifier(
                json!({"outcome": "refuted", "reason": "Only a comment.",
            "disproof": {"file_path": "src/auth.rs", "quote": "// line 13"}}),
            )],
        ),
        (
            "refuted, the finding's own line quoted back",
            vec![verifier(
                json!({"outcome": "refuted", "reason": "It is fine as written.",
            "disproof": {"file_path": "src/auth.rs", "quote": SINK}}),
            )],
        ),
        (
            "refuted, code from another file",
            vec![verifier(
                json!({"outcome": "refuted", "reason": "Checked there.",
            "disproof": {"file_path": "src/other.rs", "quote": "fn other() {}"}}),
            )],
        ),
        (
            "lowered to P2, a comment far from the finding",
            vec![verifier(
                json!({"outcome": "downgraded", "priority": 2, "reason": "Minor.",
            "disproof": {"file_path": "src/auth.rs", "quote": "// line 1"}}),
            )],
        ),
        (
            "lowered to P3, no code quoted",
            vec![verifier(
                json!({"outcome": "downgraded", "priority": 3, "reason": "Minor."}),
            )],
        ),
        (
            "lowered to P2, a quote not in the file",
            vec![verifier(
                json!({"outcome": "downgraded", "priority": 2, "reason": "Minor.",
            "disproof": {"file_path": "src/auth.rs", "quote": "// only admins reach this"}}),
            )],
        ),
        (
            "an answer crit cannot read",
            vec![
                Step::when_contains("The finding to check")
                    .reply(Reply::text("I think it is fine.")),
            ],
        ),
        (
            "an unknown outcome",
            vec![verifier(json!({"outcome": "dismissed", "reason": "Nah."}))],
        ),
        (
            "the verifier's server fails",
            vec![
                Step::when_contains("The finding to check").reply(Reply::api_error(
                    500,
                    "api_error",
                    "boom",
                )),
            ],
        ),
        (
            "confirmed",
            vec![verifier(json!({"outcome": "confirmed", "reason": "Real."}))],
        ),
    ];
    assert!(rows.len() >= 10);
    for (name, steps) in rows {
        let dir = repo(b"", false);
        let d = dir.path();
        let server = FakeServer::start_blocking();
        server.push(Step::when_contains("SELECT * FROM users").reply(fail(p0(
            "src/auth.rs",
            12,
            SINK,
        ))));
        for _ in 0..4 {
            for s in &steps {
                server.push(s.clone());
            }
        }
        let (out, r) = gate::gated(d, &server, &["--verify", "blocking"]);
        assert_kept_p0(name, &out, &r);
        let asked = server
            .model_requests()
            .iter()
            .any(|q| q.body.to_string().contains("The finding to check"));
        assert!(asked, "{name}: the verifier was not asked");
        // The progress line says what the answer did, never "UNKNOWN".
        let err = support::stderr(&out);
        let line = err
            .lines()
            .find(|l| l.contains("verifier: “"))
            .unwrap_or_else(|| panic!("{name}: no verifier line\n{err}"));
        assert!(
            !err.lines()
                .any(|l| l.contains("verifier:") && l.contains("UNKNOWN")),
            "{name}: {err}"
        );
        assert!(
            line.contains("kept") || line.contains("confirmed"),
            "{name}: {line}"
        );
        if name.starts_with("refuted") || name.starts_with("lowered") {
            let f = &r["findings"][0];
            assert_eq!(f["verification"]["outcome"], "disputed", "{name}: {f:#}");
        }
    }
}

/// With the code that shows it, the verifier's refutation stands: the
/// finding moves to `dismissed` with the quote and where crit found it;
/// a lowered one says what it was.
#[test]
fn the_verifier_refutes_or_lowers_with_the_code_that_shows_it() {
    let dir = repo(b"", false);
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("SELECT * FROM users").reply(fail(p0(
        "src/auth.rs",
        12,
        SINK,
    ))));
    server.push(verifier(
        json!({"outcome": "refuted", "reason": "The name is trimmed first.",
        "disproof": {"file_path": "src/auth.rs", "quote": GUARD}}),
    ));
    let (out, r) = gate::gated(d, &server, &["--verify", "blocking"]);
    assert_eq!(out.status.code(), Some(0), "{}", support::show(&out));
    let dis = &r["dismissed"][0];
    assert_eq!(dis["cause"], "not_confirmed", "{r:#}");
    assert!(dis["proof"].as_str().unwrap().contains(GUARD), "{dis:#}");
    let err = support::stderr(&out);
    assert!(
        err.contains("refuted with the code that disproves it"),
        "{err}"
    );

    let dir = repo(b"", false);
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("SELECT * FROM users").reply(fail(p0(
        "src/auth.rs",
        12,
        SINK,
    ))));
    server.push(verifier(
        json!({"outcome": "downgraded", "priority": 2, "reason": "Only a test helper.",
        "disproof": {"file_path": "src/auth.rs", "quote": GUARD}}),
    ));
    let (out, r) = gate::gated(d, &server, &["--verify", "blocking"]);
    assert_eq!(out.status.code(), Some(0), "{}", support::show(&out));
    let f = &r["findings"][0];
    assert_eq!(f["severity"], "P2", "{f:#}");
    assert_eq!(f["verification"]["reported_severity"], "P0", "{f:#}");
    assert!(support::stderr(&out).contains("lowered from P0 to P2"));
    // What a check lowered is in `dismissed` as reported, with its proof.
    let dis = &r["dismissed"][0];
    assert_eq!(dis["cause"], "lowered", "{r:#}");
    assert_eq!(dis["finding"]["severity"], "P0", "{dis:#}");
    assert!(dis["proof"].as_str().unwrap().contains(GUARD), "{dis:#}");
}

/// Suppressions relax the gate, so a suppressions file the project's rules
/// do not allow (untrusted, as the change wrote it) removes nothing; a
/// trusted one moves the finding to `dismissed` with the entry as proof.
#[test]
fn only_trusted_suppressions_remove_a_finding() {
    let entries: Vec<(&str, String)> = vec![
        (
            "a title wildcard",
            "  - title: \"*\"\n    reason: noise\n    author: agent\n".into(),
        ),
        (
            "the exact title",
            "  - title: \"SQL built from user input\"\n    reason: fine\n    author: agent\n"
                .into(),
        ),
        (
            "a regular expression",
            "  - title: \"/.*/\"\n    reason: fine\n    author: agent\n".into(),
        ),
        (
            "a path glob over everything",
            "  - title: \"*\"\n    path: \"**\"\n    reason: fine\n    author: agent\n".into(),
        ),
        (
            "a tagged title",
            "  - title: \"[P0] SQL*\"\n    reason: fine\n    author: agent\n".into(),
        ),
        (
            "an entry that never expires",
            "  - title: \"SQL*\"\n    reason: fine\n    author: agent\n    expires: 2999-01-01\n"
                .into(),
        ),
    ];
    for (name, entry) in &entries {
        for committed in [false, true] {
            let dir = repo(b"", false);
            let d = dir.path();
            let text = format!("suppressions:\n{entry}");
            support::write(d, ".crit/suppressions.yaml", &text);
            if committed {
                support::git(d, &["add", ".crit/suppressions.yaml"]);
                support::git(d, &["commit", "-q", "-m", "quiet"]);
            }
            let server = FakeServer::start_blocking();
            server.push(fail(p0("src/auth.rs", 12, SINK)));
            let (out, r) = run(d, &server, &[]);
            assert_kept_p0(&format!("{name} (committed: {committed})"), &out, &r);
        }
    }
    // Trusted, the same entry applies, and says so.
    let dir = repo(b"", false);
    let d = dir.path();
    support::write(
        d,
        ".crit/suppressions.yaml",
        "suppressions:\n  - title: \"SQL built from user input\"\n    reason: tracked elsewhere\n    author: alice\n",
    );
    let server = FakeServer::start_blocking();
    let trust = support::crit(d, &server, None)
        .args(["trust", "--yes"])
        .output()
        .unwrap();
    assert!(trust.status.success(), "{}", support::show(&trust));
    server.push(fail(p0("src/auth.rs", 12, SINK)));
    let (out, r) = run(d, &server, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", support::show(&out));
    let dis = &r["dismissed"][0];
    assert_eq!(dis["cause"], "suppressed", "{r:#}");
    assert!(!dis["proof"].as_str().unwrap().is_empty());
}

/// A true blocker that cites the project's rule in its own words (or a rule
/// the project does not have) keeps failing the gate: a misquoted rule
/// proves the quote wrong, not the finding. It is marked, and says so.
#[test]
fn a_paraphrased_or_unknown_convention_keeps_a_true_blocker() {
    for rule in [
        "Queries use bound parameters, never string formatting.",
        "All SQL must be parameterised.",
        "There is no such rule in this project.",
    ] {
        let dir = repo(b"", false);
        let d = dir.path();
        support::write(
            d,
            "CLAUDE.md",
            "# Conventions\n\nSQL is always built with bound parameters; formatting user input into a query is forbidden.\n",
        );
        let server = FakeServer::start_blocking();
        let mut f = p0("src/auth.rs", 12, SINK);
        f["convention"] = json!(rule);
        server.push(fail(f));
        let (out, r) = run(d, &server, &[]);
        assert_kept_p0(rule, &out, &r);
        let kept = &r["findings"][0];
        assert_eq!(kept["verification"]["outcome"], "unchecked", "{kept:#}");
        assert!(
            kept["body"]
                .as_str()
                .unwrap()
                .contains("not in the project's conventions"),
            "{kept:#}"
        );
    }
}
