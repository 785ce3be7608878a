//! Configuration and convention files in a hostile checkout that never end
//! (`/dev/zero`): crit stops at its input cap with an error naming the file,
//! or leaves out what is not a regular file (templates, agent definitions),
//! instead of reading until memory runs out.

use crate::support;

use std::time::Duration;

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::json;
use support::{git, init_repo, write};

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, "src/lib.rs", "pub fn one() -> u32 { 1 }\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    write(d, "src/lib.rs", "pub fn one() -> u32 { 2 }\n");
    dir
}

fn endless(d: &std::path::Path, rel: &str) {
    let p = d.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &p).unwrap();
}

#[test]
fn endless_project_files_stop_at_the_cap() {
    for rel in [
        ".crit/config.yaml",
        ".crit/suppressions.yaml",
        ".crit/templates/code.yaml",
        ".claude/agents/reviewer.md",
        ".crit/run.yaml",
    ] {
        let dir = repo();
        let d = dir.path();
        endless(d, rel);
        let server = FakeServer::start_blocking();
        server.push(Step::reply(Reply::json(
            json!({"verdict": "PASS", "summary": "ok", "findings": []}),
        )));
        let args: &[&str] = if rel.ends_with("run.yaml") || rel.contains("agents") {
            &["run", "Review it", "--json", "--no-log"]
        } else {
            &["review", "code", "--uncommitted", "--json", "--no-log"]
        };
        // The project's settings are trusted, so every file is really read.
        support::crit(d, &server, None)
            .args(["trust", "--yes"])
            .output()
            .unwrap();
        let out = support::crit(d, &server, None)
            .args(args)
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let said_so = err.contains("limit") || err.contains("not UTF-8") || err.contains("larger");
        assert!(
            said_so || out.status.code() == Some(0),
            "{rel}: {:?}\n{err}",
            out.status
        );
        if out.status.code() != Some(0) {
            assert!(
                err.contains(rel.rsplit('/').next().unwrap()),
                "{rel}: names the file: {err}"
            );
        }
        if rel.ends_with(".yaml") && !rel.contains("templates") {
            // Exactly one clear line: the file, then what is wrong.
            let line = err.lines().find(|l| l.starts_with("crit: ")).unwrap();
            assert_eq!(line.matches("larger than").count(), 1, "{line}");
            assert_eq!(out.status.code(), Some(2), "{err}");
        }
    }
}
