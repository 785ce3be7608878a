//! `crit bench` against a hostile corpus, through the binary: a case's
//! files reached through a symbolic link are refused, never sent to the
//! judge.

use std::os::unix::fs::symlink;
use std::path::Path;

use crit_testkit::{FakeServer, Step};
use serde_json::json;

use crate::bench::{G1, bench, case, findings};
use crate::support::{self, write};

#[test]
fn a_case_read_through_a_symlink_is_refused() {
    let secret = "SECRET-OUTSIDE-THE-CORPUS";
    let variants: [(&str, fn(&Path, &Path)); 4] = [
        ("golden.json", |case, outside| {
            std::fs::remove_file(case.join("golden.json")).unwrap();
            symlink(outside.join("golden.json"), case.join("golden.json")).unwrap();
        }),
        ("case.json", |case, outside| {
            let text = std::fs::read_to_string(case.join("case.json")).unwrap();
            std::fs::write(outside.join("case.json"), text).unwrap();
            std::fs::remove_file(case.join("case.json")).unwrap();
            symlink(outside.join("case.json"), case.join("case.json")).unwrap();
        }),
        ("repo", |case, outside| {
            std::fs::rename(case.join("repo"), outside.join("repo")).unwrap();
            symlink(outside.join("repo"), case.join("repo")).unwrap();
        }),
        ("cases/one", |case, outside| {
            std::fs::rename(case, outside.join("one")).unwrap();
            symlink(outside.join("one"), case).unwrap();
        }),
    ];
    for (what, plant) in variants {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let corpus = d.join("corpus");
        case(&corpus, "one", "a.py", "a = 1\n", "a = 2\n", &[G1]);
        let outside = d.join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        write(
            &outside,
            "golden.json",
            &json!({"pr_title": "t", "url": "u", "comments": [{"comment": secret, "severity": "High"}]})
                .to_string(),
        );
        plant(&corpus.join("cases/one"), &outside);
        let server = FakeServer::start_blocking();
        server.push(Step::when_contains("a.py").reply(findings("a.py", &["a finding"])));
        let out = bench(d, &server, &["--json"]);
        let err = support::stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{what}: {err}");
        assert!(err.contains("symbolic link"), "{what}: {err}");
        assert!(err.contains(what), "{what}: {err}");
        assert!(
            server.model_requests().is_empty(),
            "{what}: a model was asked"
        );
    }
}
