//! The verdict is the worse of the reviewer's own word and the one its
//! findings imply, at the levels `crit --help`'s gate table gives: a FAIL or
//! CONCERNS with no findings is not turned into a pass, findings are not
//! outvoted by a PASS, the markdown format's verdict counts, and `--compat
//! mala` says `passed` as mala's parser did (verdict == PASS).

use crate::support;

use crit_testkit::{FakeServer, Reply};
use serde_json::{Value, json};
use support::gate::{self, finding};
use support::{json_out, review_repo};

/// A reviewer's answer, the flags, and what the gate must say.
struct Row {
    name: &'static str,
    reply: Reply,
    flags: &'static [&'static str],
    exit: i32,
    verdict: &'static str,
}

fn answer(verdict: &str, summary: &str, findings: Vec<Value>) -> Reply {
    Reply::json(json!({"verdict": verdict, "summary": summary, "findings": findings}))
}

const F: &str = "src/api/users.rs";

fn rows() -> Vec<Row> {
    vec![
        Row {
            name: "FAIL with no findings, default gate",
            reply: answer("FAIL", "The handler leaks every user's data.", vec![]),
            flags: &[],
            exit: 1,
            verdict: "FAIL",
        },
        Row {
            name: "FAIL with no findings, --fail-on p0",
            reply: answer("FAIL", "The handler leaks every user's data.", vec![]),
            flags: &["--fail-on", "p0"],
            exit: 1,
            verdict: "FAIL",
        },
        Row {
            name: "FAIL with no findings, --fail-on p3",
            reply: answer("FAIL", "Broken.", vec![]),
            flags: &["--fail-on", "p3"],
            exit: 1,
            verdict: "FAIL",
        },
        Row {
            name: "FAIL with only a P3 nit",
            reply: answer("FAIL", "Broken.", vec![finding(F, 2, 3, "a name")]),
            flags: &[],
            exit: 1,
            verdict: "FAIL",
        },
        Row {
            name: "FAIL with only a P2",
            reply: answer("FAIL", "Broken.", vec![finding(F, 2, 2, "no test")]),
            flags: &[],
            exit: 1,
            verdict: "FAIL",
        },
        Row {
            name: "NEEDS_WORK (CONCERNS) with no findings, --fail-on concerns",
            reply: answer("NEEDS_WORK", "Not sure about the audit call.", vec![]),
            flags: &["--fail-on", "concerns"],
            exit: 1,
            verdict: "CONCERNS",
        },
        Row {
            name: "NEEDS_WORK (CONCERNS) with no findings, default gate",
            reply: answer("NEEDS_WORK", "Not sure about the audit call.", vec![]),
            flags: &[],
            exit: 0,
            verdict: "CONCERNS",
        },
        Row {
            name: "PASS with a P0 finding",
            reply: answer(
                "PASS",
                "Fine.",
                vec![finding(F, 2, 0, "panics on a missing user")],
            ),
            flags: &[],
            exit: 1,
            verdict: "FAIL",
        },
        Row {
            name: "PASS with a P1 finding, --fail-on p0",
            reply: answer("PASS", "Fine.", vec![finding(F, 2, 1, "panics")]),
            flags: &["--fail-on", "p0"],
            exit: 0,
            verdict: "FAIL",
        },
        Row {
            name: "PASS with a P2 finding, --fail-on p2",
            reply: answer("PASS", "Fine.", vec![finding(F, 2, 2, "no test")]),
            flags: &["--fail-on", "p2"],
            exit: 1,
            verdict: "CONCERNS",
        },
        Row {
            name: "PASS with a P2 finding, --fail-on concerns",
            reply: answer("PASS", "Fine.", vec![finding(F, 2, 2, "no test")]),
            flags: &["--fail-on", "concerns"],
            exit: 1,
            verdict: "CONCERNS",
        },
        Row {
            name: "an unknown verdict word",
            reply: answer("MAYBE", "Hmm.", vec![]),
            flags: &[],
            exit: 1,
            verdict: "UNKNOWN",
        },
        Row {
            name: "prose instead of the contract",
            reply: Reply::text("LGTM, ship it."),
            flags: &[],
            exit: 1,
            verdict: "UNKNOWN",
        },
    ]
}

#[test]
fn a_verdict_is_never_lowered_below_the_reviewers_word_or_its_findings() {
    let rows = rows();
    assert!(rows.len() >= 10);
    for row in rows {
        let dir = review_repo::repo();
        let d = dir.path();
        let server = FakeServer::start_blocking();
        server.push(row.reply);
        // An unreadable answer is asked again; the same again.
        for _ in 0..4 {
            server.push(Reply::text("LGTM, ship it."));
        }
        let out = support::crit(d, &server, None)
            .args([
                "review",
                "code",
                "--diff",
                "HEAD~1..HEAD",
                "--json",
                "--no-log",
                "--exit-code",
                "--verify",
                "off",
            ])
            .args(row.flags)
            .output()
            .unwrap();
        let name = row.name;
        let r = json_out(&out);
        assert_eq!(
            out.status.code(),
            Some(row.exit),
            "{name}: {}",
            support::show(&out)
        );
        assert_eq!(r["verdict"], row.verdict, "{name}: {r:#}");
        assert_eq!(r["passed"], row.exit == 0, "{name}");
        if row.verdict == "FAIL"
            && r["findings"]
                .as_array()
                .unwrap()
                .iter()
                .all(|f| f["severity"] != "P0" && f["severity"] != "P1")
        {
            // The summary is the reason a pipeline reads.
            assert!(
                r["summary"].as_str().unwrap().contains("Broken")
                    || r["summary"].as_str().unwrap().contains("leaks"),
                "{name}: {r:#}"
            );
        }
    }
}

#[test]
fn the_markdown_formats_verdict_fails_the_gate() {
    let cases = [
        ("## Summary\nFAIL\n\nThe design is broken.", &[][..], 1),
        ("## Summary\n**FAIL**\n\nThe design loses data.", &[][..], 1),
        (
            "## Summary\nVerdict: FAIL\n\nThe design is broken.",
            &[][..],
            1,
        ),
        (
            "## Summary\nCONCERNS\n\nThe design is vague.",
            &["--fail-on", "concerns"][..],
            1,
        ),
        (
            "## Summary\nPASS\n\nThe design holds.\n\n### [FAIL] Drops the users table\nData is lost.",
            &[][..],
            1,
        ),
    ];
    for (text, flags, exit) in cases {
        let dir = support::arch_project();
        let server = FakeServer::start_blocking();
        for _ in 0..4 {
            server.push(Reply::text(text));
        }
        let out = support::crit(dir.path(), &server, None)
            .args(support::ARCH_REVIEW)
            .args(["--exit-code", "--no-log"])
            .args(flags)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(exit),
            "{text:?}: {}",
            support::show(&out)
        );
        assert_eq!(json_out(&out)["passed"], false, "{text:?}");
    }
}

#[test]
fn compat_mala_passes_only_a_pass() {
    let cases: Vec<(&str, Reply, bool)> = vec![
        (
            "NEEDS_WORK with a P2",
            answer(
                "NEEDS_WORK",
                "Add a test.",
                vec![finding(F, 2, 2, "no test")],
            ),
            false,
        ),
        (
            "NEEDS_WORK with no findings",
            answer("NEEDS_WORK", "Add a test.", vec![]),
            false,
        ),
        (
            "PASS with a P2",
            answer("PASS", "Fine.", vec![finding(F, 2, 2, "no test")]),
            false,
        ),
        (
            "FAIL with no findings",
            answer("FAIL", "Broken.", vec![]),
            false,
        ),
        ("an unknown word", answer("MAYBE", "Hmm.", vec![]), false),
        ("PASS, nothing found", answer("PASS", "Fine.", vec![]), true),
    ];
    for (name, reply, passed) in cases {
        let dir = review_repo::repo();
        let server = FakeServer::start_blocking();
        server.push(reply);
        let out = support::crit(dir.path(), &server, None)
            .args([
                "review",
                "code",
                "--diff",
                "HEAD~1..HEAD",
                "--compat",
                "mala",
                "--no-log",
                "--verify",
                "off",
            ])
            .output()
            .unwrap();
        let r = json_out(&out);
        assert_eq!(r["passed"], passed, "{name}: {}", support::show(&out));
    }
    let _ = gate::gap_causes;
}

/// A review whose reviewer read nothing it finished never says it
/// reviewed a hunk: the coverage line says what reached no one.
#[test]
fn a_review_that_saw_nothing_never_says_it_reviewed_a_hunk() {
    let rows: Vec<(&str, Vec<Reply>)> = vec![
        (
            "the server fails",
            (0..6)
                .map(|_| Reply::api_error(500, "api_error", "boom"))
                .collect(),
        ),
        (
            "answers crit cannot read",
            (0..6).map(|_| Reply::text("Fine, I guess.")).collect(),
        ),
    ];
    for (name, replies) in rows {
        let dir = review_repo::repo();
        let server = FakeServer::start_blocking();
        server.push_all(replies);
        let out = support::crit(dir.path(), &server, None)
            .args([
                "review",
                "code",
                "--diff",
                "HEAD~1..HEAD",
                "--no-log",
                "--color",
                "never",
                "--exit-code",
            ])
            .output()
            .unwrap();
        assert!(
            matches!(out.status.code(), Some(1 | 3)),
            "{name}: {}",
            support::show(&out)
        );
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            support::stderr(&out)
        );
        assert!(!text.contains("1 hunk reviewed"), "{name}: {text}");
        let r = json_out(
            &support::crit(dir.path(), &server, None)
                .args([
                    "review",
                    "code",
                    "--diff",
                    "HEAD~1..HEAD",
                    "--no-log",
                    "--json",
                ])
                .output()
                .unwrap(),
        );
        assert_eq!(r["coverage"]["hunks_reviewed"], 0, "{name}: {r:#}");
    }
}
