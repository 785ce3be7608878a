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
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
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
