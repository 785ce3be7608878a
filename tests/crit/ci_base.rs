//! `crit review code` with no scope in a pull/merge request job reviews the
//! request's change, from each CI's variables (GitHub Actions, GitLab,
//! Bitbucket), else the branch's upstream; a shallow clone gets a message
//! naming the setting to change; `crit config` says where the base came from.

use crate::support;

use std::path::Path;
use std::process::Output;

use assert_cmd::Command;
use crit_testkit::{FakeServer, Reply};
use serde_json::{Value, json};
use support::{crit, git, init_repo, json_out, write};
use tempfile::TempDir;

/// `main` gets `later.txt` after the branch `pr` forked and changed
/// `src/app.py`: only the latter is the request's change.
fn forked() -> (TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, "src/app.py", "def run():\n    return 1\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    git(d, &["checkout", "-q", "-b", "pr"]);
    write(d, "src/app.py", "def run():\n    return eval(input())\n");
    git(d, &["commit", "-q", "-am", "pr change"]);
    git(d, &["checkout", "-q", "main"]);
    write(d, "later.txt", "landed on main after the fork\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "main moves on"]);
    git(d, &["checkout", "-q", "pr"]);
    // As a CI clone has it: the base branch as a remote-tracking ref.
    let main = rev(d, "main");
    git(d, &["update-ref", "refs/remotes/origin/main", &main]);
    (dir, main)
}

/// Variables a CI sets for the job.
type Vars = Vec<(&'static str, String)>;

fn rev(d: &Path, name: &str) -> String {
    let out = std::process::Command::new("git")
        .args(["rev-parse", name])
        .current_dir(d)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn pass() -> Reply {
    Reply::json(json!({"verdict": "PASS", "summary": "ok", "findings": []}))
}

fn event(dir: &Path, base_sha: &str) -> String {
    let path = dir.join("event.json");
    std::fs::write(
        &path,
        json!({"pull_request": {"base": {"sha": base_sha, "ref": "main"}}}).to_string(),
    )
    .unwrap();
    path.display().to_string()
}

fn review(d: &Path, server: &FakeServer, env: &[(&str, String)]) -> Output {
    let mut c: Command = crit(d, server, None);
    for (k, v) in env {
        c.env(k, v);
    }
    c.args([
        "review",
        "code",
        "--verify",
        "off",
        "--no-cache",
        "--json",
        "--no-log",
        "-v",
    ])
    .output()
    .unwrap()
}

/// The review saw the request's change and nothing that landed on main.
fn reviewed_the_change(out: &Output, server: &FakeServer, expected_diff: &str) -> Value {
    let r = json_out(out);
    assert_eq!(
        r["verdict"],
        "PASS",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(r["inputs"]["diff"], expected_diff);
    let user = server.model_requests()[0].body["messages"][0].to_string();
    assert!(
        user.contains("src/app.py") && user.contains("eval(input())"),
        "{user}"
    );
    assert!(
        !user.contains("later.txt"),
        "main's own commit is not the change: {user}"
    );
    r
}

#[test]
fn each_ci_names_the_base_of_its_request() {
    let (dir, main) = forked();
    let d = dir.path();
    let aside = tempfile::tempdir().unwrap();
    let sha_diff = format!("{main}...HEAD");
    let cases: Vec<(&str, Vars, &str)> = vec![
        (
            "GitHub event file",
            vec![
                ("GITHUB_ACTIONS", "true".into()),
                ("GITHUB_EVENT_PATH", event(aside.path(), &main)),
            ],
            "GITHUB_EVENT_PATH",
        ),
        (
            "GitHub base ref",
            vec![
                ("GITHUB_ACTIONS", "true".into()),
                ("GITHUB_BASE_REF", "main".into()),
            ],
            "GITHUB_BASE_REF",
        ),
        (
            "GitLab",
            vec![
                ("GITLAB_CI", "true".into()),
                ("CI_MERGE_REQUEST_DIFF_BASE_SHA", main.clone()),
            ],
            "CI_MERGE_REQUEST_DIFF_BASE_SHA",
        ),
        (
            "Bitbucket",
            vec![
                ("BITBUCKET_BUILD_NUMBER", "12".into()),
                ("BITBUCKET_PR_DESTINATION_BRANCH", "main".into()),
            ],
            "BITBUCKET_PR_DESTINATION_BRANCH",
        ),
    ];
    for (name, env, var) in cases {
        let server = FakeServer::start_blocking();
        server.push(pass());
        let mut env = env;
        env.push(("CI", "true".into()));
        let out = review(d, &server, &env);
        reviewed_the_change(&out, &server, &sha_diff);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(err.contains(&format!("from {var})")), "{name}: {err}");
        // `crit config` says where the base came from.
        let mut c = crit(d, &server, None);
        for (k, v) in &env {
            c.env(k, v);
        }
        let doc: Value =
            serde_json::from_slice(&c.args(["config", "--json"]).output().unwrap().stdout).unwrap();
        let rows = doc["rules"].as_array().unwrap();
        let base = rows.iter().find(|r| r["key"] == "base").unwrap();
        assert!(
            base["value"].as_str().unwrap().contains(&main[..7]),
            "{name}: {base}"
        );
        assert!(
            base["source"].as_str().unwrap().ends_with(var),
            "{name}: {base}"
        );
        let rules = rows.iter().find(|r| r["key"] == "rules").unwrap();
        assert!(
            rules["source"].as_str().unwrap().ends_with(var),
            "{name}: {rules}"
        );
    }
}

/// No request, but the branch has an upstream behind it: that is the base.
/// No upstream either: the project is surveyed, as outside CI.
#[test]
fn otherwise_the_upstream_else_a_survey() {
    let (dir, main) = forked();
    let d = dir.path();
    git(d, &["config", "branch.pr.remote", "."]);
    git(d, &["config", "branch.pr.merge", "refs/heads/main"]);
    let server = FakeServer::start_blocking();
    server.push(pass());
    let out = review(d, &server, &[("CI", "true".into())]);
    reviewed_the_change(&out, &server, &format!("{main}...HEAD"));

    git(d, &["config", "--unset", "branch.pr.remote"]);
    let server = FakeServer::start_blocking();
    server.push(pass());
    let out = review(d, &server, &[("CI", "true".into())]);
    let r = json_out(&out);
    assert_eq!(r["inputs"].get("diff"), None, "{r}");
    let user = server.model_requests()[0].body["messages"][0].to_string();
    assert!(user.contains("survey the project"), "{user}");
}

/// A shallow clone lacks the base (or the history to it): the message says
/// which setting of that CI fetches enough.
#[test]
fn a_shallow_clone_says_which_fetch_depth_to_set() {
    let (dir, main) = forked();
    let origin = format!("file://{}", dir.path().display());
    let aside = tempfile::tempdir().unwrap();
    let single = aside.path().join("single");
    let both = aside.path().join("both");
    std::fs::create_dir_all(&single).unwrap();
    std::fs::create_dir_all(&both).unwrap();
    git(
        &single,
        &[
            "clone", "-q", "--depth", "1", "--branch", "pr", &origin, ".",
        ],
    );
    git(
        &both,
        &[
            "clone",
            "-q",
            "--depth",
            "1",
            "--no-single-branch",
            "--branch",
            "pr",
            &origin,
            ".",
        ],
    );
    let cases: Vec<(&Path, Vars, &str)> = vec![
        (
            &single,
            vec![
                ("GITHUB_ACTIONS", "true".into()),
                ("GITHUB_EVENT_PATH", event(aside.path(), &main)),
            ],
            "set `fetch-depth: 0` on the actions/checkout step",
        ),
        (
            &single,
            vec![
                ("GITLAB_CI", "true".into()),
                ("CI_MERGE_REQUEST_DIFF_BASE_SHA", main.clone()),
            ],
            "set `GIT_DEPTH: 0` in the job's `variables`",
        ),
        (
            &single,
            vec![
                ("BITBUCKET_BUILD_NUMBER", "3".into()),
                ("BITBUCKET_PR_DESTINATION_BRANCH", "main".into()),
            ],
            "set `clone: depth: full` in bitbucket-pipelines.yml",
        ),
        // The base is there (fetched at depth 1) but not the history to it.
        (
            &both,
            vec![
                ("GITHUB_ACTIONS", "true".into()),
                ("GITHUB_BASE_REF", "main".into()),
            ],
            "set `fetch-depth: 0` on the actions/checkout step",
        ),
    ];
    for (i, (clone, env, fix)) in cases.into_iter().enumerate() {
        let server = FakeServer::start_blocking();
        let mut env = env;
        env.push(("CI", "true".into()));
        let out = review(clone, &server, &env);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "case {i}: {err}");
        assert!(
            err.contains("shallow clone") && err.contains(fix),
            "case {i}: {err}"
        );
        assert!(
            server.requests().is_empty(),
            "case {i}: no review without the change"
        );
    }
}
