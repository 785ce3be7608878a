//! How a `crit bench` run goes: every run reviews every case afresh unless
//! `--reuse`, one case is judged while the next is reviewed, and a judge
//! whose answers lack their fields says so.

use std::time::Duration;

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::json;

use crate::bench::{G1, bench, case, findings};
use crate::support::{self, json_out};

/// Review requests: those that are not the judge's.
fn reviews(server: &FakeServer) -> usize {
    server
        .model_requests()
        .iter()
        .filter(|r| r.body.to_string().contains("MARK-"))
        .count()
}

#[test]
fn two_runs_send_the_same_review_requests_unless_reuse() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let corpus = d.join("corpus");
    for n in ["p1", "p2"] {
        case(
            &corpus,
            n,
            "v.py",
            "v = 1\n",
            &format!("# MARK-{n}\nv = 2\n"),
            &[],
        );
    }
    let server = FakeServer::start_blocking();
    let script = || {
        for n in ["p1", "p2"] {
            server.push(Step::when_contains(format!("MARK-{n}")).reply(findings("v.py", &[])));
        }
    };
    let mut sent = Vec::new();
    for args in [
        &["--json"][..],
        &["--json"],
        &["--json", "--reuse"],
        &["--json", "--reuse"],
    ] {
        script();
        let before = reviews(&server);
        let out = bench(d, &server, args);
        assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
        sent.push(reviews(&server) - before);
    }
    // Each run reviews every case; with --reuse a second run takes the
    // unchanged hunks the first one passed from the cache.
    assert_eq!(sent[0], 2);
    assert_eq!(sent[1], sent[0]);
    assert_eq!(sent[2], 2);
    assert_eq!(sent[3], 0, "{sent:?}");
}

#[test]
fn one_case_is_judged_while_the_next_is_reviewed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let corpus = d.join("corpus");
    case(
        &corpus,
        "a1",
        "a.py",
        "a = 1\n",
        "# MARK-A1\na = 2\n",
        &[G1],
    );
    case(&corpus, "b2", "b.py", "b = 1\n", "# MARK-B2\nb = 2\n", &[]);
    let server = FakeServer::start_blocking();
    server
        .push(Step::when_contains("MARK-A1").reply(findings("a.py", &["negative slice of items"])));
    let slow = findings("b.py", &[]).delay(Duration::from_millis(800));
    server.push(Step::when_contains("MARK-B2").reply(slow));
    let needle = format!("{}\n(severity: {})\n</golden_comment>", G1.0, G1.1);
    let answer = json!({"reasoning": "r", "match": true, "confidence": 0.9});
    server.push(
        Step::when_contains(needle).reply(Reply::json(answer).delay(Duration::from_millis(800))),
    );
    let out = bench(d, &server, &["--json", "--jobs", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let reqs = server.model_requests();
    let judged = reqs
        .iter()
        .find(|r| r.body.to_string().contains("same underlying issue"))
        .unwrap();
    let next = reqs
        .iter()
        .find(|r| r.body.to_string().contains("MARK-B2"))
        .unwrap();
    assert!(
        judged.overlaps(next),
        "a1's judge and b2's review ran one after the other"
    );
}

#[test]
fn a_judge_answer_lacking_its_fields_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let corpus = d.join("corpus");
    case(
        &corpus,
        "one",
        "a.py",
        "a = 1\n",
        "# MARK-ONE\na = 2\n",
        &[G1],
    );
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("MARK-ONE").reply(findings("a.py", &["first"])));
    for _ in 0..4 {
        let lacking = Reply::json(json!({"reasoning": "r", "match": true}));
        server.push(Step::when_contains("same underlying issue").reply(lacking));
    }
    let out = bench(d, &server, &["--json"]);
    assert_eq!(out.status.code(), Some(3), "{}", support::stderr(&out));
    let r = json_out(&out);
    let reason = r["configurations"][0]["cases"][0]["reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(reason.contains("confidence"), "{reason}");
    assert!(!reason.contains("(max_turns)"), "{reason}");
}
