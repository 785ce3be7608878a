//! `crit bench mine` on a scripted history: findings acted on, dismissed
//! and suppressed, told apart from the audit log and git with no model.

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::json;

use crate::bench::f;
use crate::support::{self, git, init_repo, json_out, write};

const APP: &str = "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\nf = 6\n";

/// The reviewer's answer in the `mine` history: three findings on lines 2,
/// 4 and 6 of app.py.
fn three_findings() -> Reply {
    let at = |line: u32, title: &str| {
        json!({"file_path": "app.py", "line_start": line, "line_end": line, "priority": 2,
               "title": title, "body": "b"})
    };
    Reply::json(
        json!({"verdict": "NEEDS_WORK", "summary": "s", "findings": [
            at(2, "fix-me-a"), at(4, "leave-me-b"), at(6, "suppress-me-c")
        ]}),
    )
}

#[test]
fn mine_tells_acted_on_from_dismissed_and_suppressed_in_a_scripted_history() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, "app.py", "a = 0\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    write(d, "app.py", APP);
    git(d, &["commit", "-q", "-am", "the change"]);
    let server = FakeServer::start_blocking();
    let review = || {
        server.push(Step::reply(three_findings()));
        let out = support::crit(d, &server, None)
            .args([
                "review",
                "code",
                "--diff",
                "HEAD~1..HEAD",
                "--no-cache",
                "--json",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{}",
            support::stderr(&out)
        );
        json_out(&out)
    };
    review();
    // The team suppresses one finding; the next review dismisses it.
    write(
        d,
        ".crit/suppressions.yaml",
        "suppressions:\n  - title: \"suppress-me-c\"\n    reason: not a problem here\n    author: alice\n",
    );
    support::crit(d, &server, None)
        .args(["trust", "--yes"])
        .assert()
        .success();
    let second = review();
    assert_eq!(second["dismissed"][0]["cause"], "suppressed");
    // Line 2 is fixed; line 4 is left as it was.
    write(d, "app.py", &APP.replace("b = 2", "b = 20"));
    git(d, &["commit", "-q", "-am", "fix b"]);
    let audit: String = std::fs::read_dir(d.join(".state/crit/audit"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    // The suppression is feedback too: one line, with the team's reason.
    let feedback: Vec<serde_json::Value> = std::fs::read_dir(d.join(".state/crit/audit/feedback"))
        .unwrap()
        .flat_map(|e| {
            let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
            text.lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(feedback.len(), 1, "{feedback:?}");
    assert_eq!(feedback[0]["kind"], "suppression");
    assert_eq!(feedback[0]["outcome"], "noted");
    assert_eq!(feedback[0]["path"], "app.py");
    assert_eq!(feedback[0]["severity"], "P2");
    assert_eq!(
        feedback[0]["fingerprint"],
        second["dismissed"][0]["finding"]["id"]
    );
    assert!(
        feedback[0]["text"]
            .as_str()
            .unwrap()
            .contains("not a problem here"),
        "{feedback:?}"
    );
    assert!(audit.contains("\"flagged\""), "{audit}");
    for text in ["fix-me-a", "leave-me-b", "b = 2"] {
        assert!(
            !audit.contains(text),
            "the audit log holds no finding or code text: {text}"
        );
    }
    let out = support::crit(d, &server, None)
        .args(["bench", "mine", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let m = json_out(&out);
    assert_eq!(m["reviews"], 2);
    assert_eq!(m["findings"], 3);
    let o = &m["overall"];
    assert_eq!(
        (
            o["acted_on"].clone(),
            o["dismissed"].clone(),
            o["suppressed"].clone(),
            o["unknown"].clone()
        ),
        (json!(1), json!(1), json!(1), json!(0))
    );
    assert!((f(&o["precision"]) - 1.0 / 3.0).abs() < 1e-9);
    assert_eq!(m["by_severity"][0]["name"], "P2");
    assert_eq!(m["by_reviewer"][0]["acted_on"], 1);
    // The table says the same.
    let out = support::crit(d, &server, None)
        .args(["bench", "mine", "--since", "2d"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("all findings"), "{text}");
    assert!(text.contains("severity P2"), "{text}");
}

#[test]
fn mine_reports_precision_per_reviewer_from_the_teams_reactions_and_disputes() {
    use crate::support::feedback::{event, script};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, "app.py", "a = 0\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    let (s1, s2, y1) = ("00000000000000a1", "00000000000000a2", "00000000000000b1");
    let mut other = event("reaction", "up", y1, "style", "dave");
    other["repo"] = json!("ffffffffffffffff");
    script(
        d,
        &[
            // security: 👍 twice, 👎 once, a dispute kept and one dismissed.
            event("reaction", "up", s1, "security", "alice"),
            event("reaction", "up", s1, "security", "bob"),
            event("reaction", "down", s2, "security", "carol"),
            event("dispute", "kept", s1, "security", "carol"),
            event("dispute", "dismissed", s2, "security", "carol"),
            // style: alice changes her mind (her last reaction counts), and a
            // resolved thread, recorded twice, counts once and not in precision.
            event("reaction", "up", y1, "style", "alice"),
            event("reaction", "down", y1, "style", "alice"),
            event("reaction", "down", y1, "style", "bob"),
            event("resolved_unchanged", "noted", y1, "style", "bob"),
            event("resolved_unchanged", "noted", y1, "style", "bob"),
            // Another project's feedback is not this one's.
            other,
        ],
    );
    let server = FakeServer::start_blocking();
    let out = support::crit(d, &server, None)
        .args(["bench", "mine", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let m = json_out(&out);
    let fb = &m["feedback"];
    assert_eq!(fb["events"], 8, "{fb}");
    assert_eq!(fb["findings"], 3);
    let by = |name: &str| {
        fb["by_reviewer"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["name"] == name)
            .unwrap()
            .clone()
    };
    let sec = by("security");
    assert_eq!(
        [
            &sec["up"],
            &sec["down"],
            &sec["disputes_kept"],
            &sec["disputes_dismissed"]
        ],
        [&json!(2), &json!(1), &json!(1), &json!(1)]
    );
    assert!((f(&sec["precision"]) - 3.0 / 5.0).abs() < 1e-9, "{sec}");
    let style = by("style");
    assert_eq!((&style["up"], &style["down"]), (&json!(0), &json!(2)));
    assert_eq!(style["resolved_unchanged"], 1);
    assert_eq!(f(&style["precision"]), 0.0);
    assert!((f(&fb["overall"]["precision"]) - 3.0 / 7.0).abs() < 1e-9);
    // The table says the same.
    let out = support::crit(d, &server, None)
        .args(["bench", "mine"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("From the team's feedback: 8 events"),
        "{text}"
    );
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("reviewer security") && l.contains("0.60"));
    assert!(row.is_some(), "{text}");
}
