//! `crit review code --shard I/N` and `crit report merge` through the binary:
//! a real repository, crit-testkit's fake Anthropic server. Four shards of one
//! change, merged, hold exactly the unsharded run's findings (by fingerprint);
//! each shard's prompt holds only its own files, every file in exactly one;
//! merging is idempotent; a missing shard fails the gate.

use crate::support;

use std::collections::BTreeSet;
use std::path::Path;

use crit_testkit::{FakeServer, Reply};
use serde_json::{Value, json};
use support::{crit, git, init_repo, json_out, write};
use tempfile::TempDir;

const FILES: [(&str, usize); 7] = [
    ("src/a.py", 40),
    ("src/b.py", 3),
    ("src/c.py", 12),
    ("lib/d.py", 25),
    ("lib/e.py", 1),
    ("docs/f.md", 8),
    ("g.py", 17),
];

/// `main` holds the files; `HEAD` changes each by its own number of lines.
fn repo() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    for (path, _) in FILES {
        write(d, path, "first\n");
    }
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    git(d, &["checkout", "-q", "-b", "work"]);
    for (path, n) in FILES {
        let body: String = (0..n).map(|i| format!("line {i} of {path}\n")).collect();
        write(d, path, &format!("first\n{body}"));
    }
    git(d, &["commit", "-q", "-am", "grow"]);
    dir
}

/// What the model says about the whole change: one finding per file (a P1
/// on `src/c.py`), and one on a file the change does not touch.
fn answer() -> Reply {
    let mut findings: Vec<Value> = FILES
        .iter()
        .map(|(path, _)| {
            let priority = if *path == "src/c.py" { 1 } else { 2 };
            json!({"file_path": path, "line_start": 2, "line_end": 2, "priority": priority,
                "title": format!("Unbounded loop in {path}"), "body": "Why it matters."})
        })
        .collect();
    findings.push(
        json!({"file_path": "README.md", "line_start": 1, "line_end": 1, "priority": 3,
        "title": "Consider a changelog entry", "body": "b"}),
    );
    Reply::json(json!({"verdict": "FAIL", "summary": "s", "findings": findings}))
}

fn review(d: &Path, server: &FakeServer, shard: Option<&str>) -> Value {
    let mut cmd = crit(d, server, None);
    cmd.args([
        "review",
        "code",
        "--verify",
        "off",
        "--no-cache",
        "--diff",
        "main..HEAD",
        "--filter",
        "file",
        "--json",
        "--no-log",
    ]);
    if let Some(s) = shard {
        cmd.args(["--shard", s]);
    }
    json_out(&cmd.output().unwrap())
}

fn fingerprints(r: &Value) -> BTreeSet<String> {
    r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap().to_string())
        .collect()
}

/// The files whose patch a request carried.
fn files_in_prompt(body: &Value) -> BTreeSet<String> {
    let text = body["messages"].to_string();
    FILES
        .iter()
        .filter(|(p, _)| text.contains(&format!("diff --git a/{p} b/{p}")))
        .map(|(p, _)| (*p).to_string())
        .collect()
}

fn merge(d: &Path, server: &FakeServer, files: &[&str], extra: &[&str]) -> std::process::Output {
    crit(d, server, None)
        .args(["report", "merge"])
        .args(files)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn four_shards_merged_equal_the_unsharded_review() {
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push_all((0..5).map(|_| answer()));
    let whole = review(d, &server, None);
    assert_eq!(
        whole["findings"].as_array().unwrap().len(),
        FILES.len(),
        "{whole:#}"
    );
    assert_eq!(whole["dismissed"].as_array().unwrap().len(), 1, "{whole:#}");

    let mut seen: Vec<BTreeSet<String>> = Vec::new();
    for i in 1..=4 {
        let r = review(d, &server, Some(&format!("{i}/4")));
        assert_eq!(r["inputs"]["shard"], format!("{i}/4"));
        std::fs::write(d.join(format!("shard{i}.json")), r.to_string()).unwrap();
    }
    for req in server.model_requests().iter().skip(1) {
        let files = files_in_prompt(&req.body);
        assert!(!files.is_empty(), "seven files fill four shards");
        assert!(
            req.body["messages"].to_string().contains("shard "),
            "the reviewer is told"
        );
        seen.push(files);
    }
    let all: BTreeSet<String> = seen.iter().flatten().cloned().collect();
    assert_eq!(all.len(), FILES.len(), "every file in some shard: {seen:?}");
    assert_eq!(
        seen.iter().map(BTreeSet::len).sum::<usize>(),
        FILES.len(),
        "no file in two shards: {seen:?}"
    );
    // Balanced by diff size: the 40-line file is alone in its shard.
    assert!(
        seen.contains(&BTreeSet::from(["src/a.py".to_string()])),
        "{seen:?}"
    );

    let shards = ["shard1.json", "shard2.json", "shard3.json", "shard4.json"];
    let out = merge(d, &server, &shards, &["--json"]);
    let merged = json_out(&out);
    assert_eq!(fingerprints(&merged), fingerprints(&whole));
    // Each shard dismissed the others' files; only what all of them dismissed stays.
    assert_eq!(merged["dismissed"], whole["dismissed"], "{merged:#}");
    assert_eq!(merged["inputs"]["shard"], "1,2,3,4/4");
    assert_eq!(merged["verdict"], "FAIL");
    assert_eq!(merged["passed"], false);
    let tokens = |r: &Value| r["usage"]["input_tokens"].as_u64().unwrap();
    let sum: u64 = shards
        .iter()
        .map(|s| {
            tokens(&serde_json::from_str(&std::fs::read_to_string(d.join(s)).unwrap()).unwrap())
        })
        .sum();
    assert_eq!(tokens(&merged), sum);

    // Idempotent: the merged result merged again, alone or with itself, is itself.
    std::fs::write(d.join("merged.json"), merged.to_string()).unwrap();
    let again = json_out(&merge(
        d,
        &server,
        &["merged.json", "merged.json"],
        &["--json"],
    ));
    assert_eq!(again, merged);
    let shuffled = [
        "shard3.json",
        "shard1.json",
        "shard4.json",
        "shard2.json",
        "shard1.json",
    ];
    assert_eq!(
        fingerprints(&json_out(&merge(d, &server, &shuffled, &["--json"]))),
        fingerprints(&merged)
    );
}

#[test]
fn the_gate_is_applied_once_and_a_missing_shard_fails_it() {
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push_all((0..4).map(|_| answer()));
    for i in 1..=4 {
        let r = review(d, &server, Some(&format!("{i}/4")));
        std::fs::write(d.join(format!("s{i}.json")), r.to_string()).unwrap();
    }
    let all = ["s1.json", "s2.json", "s3.json", "s4.json"];
    // The P1 is in one shard only; the merged gate sees it.
    let out = merge(d, &server, &all, &["--fail-on", "p1", "--format", "github"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("::error file=src/c.py,line=2,"), "{text}");
    let out = merge(d, &server, &all, &["--fail-on", "never"]);
    assert_eq!(out.status.code(), Some(0));
    // Without one shard the change was not all reviewed: no gate lets it pass.
    let out = merge(d, &server, &all[..3], &["--fail-on", "never", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = json_out(&out);
    assert_eq!(r["inputs"]["shard"], "1,2,3/4");
    assert!(
        r["summary"]
            .as_str()
            .unwrap()
            .starts_with("Missing shard(s) 4/4")
    );
}

#[test]
fn bad_shards_and_bad_merges_are_usage_errors_that_say_why() {
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    for bad in ["0/4", "5/4", "2", "a/b", "1/0"] {
        let out = crit(d, &server, None)
            .args([
                "review",
                "code",
                "--verify",
                "off",
                "--no-cache",
                "--diff",
                "main..HEAD",
                "--shard",
                bad,
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--shard"), "{bad}: {err}");
    }
    // Outside a repository there is no change, only the whole project: no shards.
    let plain = tempfile::tempdir().unwrap();
    let out = crit(plain.path(), &server, None)
        .args([
            "review",
            "code",
            "--all",
            "--verify",
            "off",
            "--no-cache",
            "--shard",
            "1/2",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("splits a change's files"));
    assert_eq!(server.model_requests().len(), 0);

    // Two different results for one shard: a retried job left both behind.
    server.push_all((0..2).map(|_| answer()));
    for name in ["x.json", "y.json"] {
        let r = review(d, &server, Some("1/2"));
        let mut r = r;
        r["summary"] = Value::from(name);
        std::fs::write(d.join(name), r.to_string()).unwrap();
    }
    let out = merge(d, &server, &["x.json", "y.json"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("shard 1/2 is in both x.json and y.json"),
        "{err}"
    );
    write(d, "broken.json", "{\"verdict\": ");
    let out = merge(d, &server, &["x.json", "broken.json"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("broken.json:1:"));
}

#[test]
fn a_shard_with_no_files_passes_without_asking_the_model() {
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    let r = review(d, &server, Some("9/9"));
    assert_eq!(r["verdict"], "PASS");
    assert_eq!(r["inputs"]["shard"], "9/9");
    assert_eq!(server.model_requests().len(), 0);
}
