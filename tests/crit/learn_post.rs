//! `crit learn --post github|gitlab` through the binary against the stand-in
//! forges: the learnings opened as a pull or merge request from crit's
//! branch, one commit on the default branch's head holding the default
//! branch's file with the learnings added; a second run updates the same
//! branch and request; the team's words are inert in the description.

use std::path::Path;
use std::process::Output;

use crit_testkit::{Access, FakeServer, GithubConfig, GithubServer, GitlabConfig, GitlabServer};

use crate::learn::{history, project};
use crate::support::{self, write};

const FILE: &str = ".crit/learnings.yaml";
const BASE_FILE: &str = "# the team's own\nlearnings:\n  - id: ours\n    rule: Tests may unwrap.\n";
const HOSTILE_WORDS: &str =
    "parse() checks the length first, cc @octo-org/security <img src=https://evil.example/x.png>";

fn github_learn(d: &Path, s: &GithubServer, token: &str) -> Output {
    let model = FakeServer::start_blocking();
    support::crit(d, &model, None)
        .env_remove("ANTHROPIC_API_KEY")
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_REPOSITORY", "octo-org/hello-world")
        .env("GITHUB_API_URL", s.url())
        .env("GITHUB_TOKEN", token)
        .args(["learn", "--post", "github"])
        .output()
        .unwrap()
}

fn gitlab_learn(d: &Path, s: &GitlabServer) -> Output {
    let model = FakeServer::start_blocking();
    support::crit(d, &model, None)
        .env_remove("ANTHROPIC_API_KEY")
        .env("GITLAB_CI", "true")
        .env("CI_API_V4_URL", s.api_url())
        .env("CI_PROJECT_ID", "4242")
        .env("GITLAB_TOKEN", GitlabConfig::default().token)
        .args(["learn", "--post", "gitlab"])
        .output()
        .unwrap()
}

#[test]
fn learn_post_github_opens_one_pull_request_from_the_default_branch_and_updates_it() {
    let dir = project();
    let d = dir.path();
    history(d, HOSTILE_WORDS);
    // The working tree's file is not what the pull request starts from.
    write(
        d,
        FILE,
        "learnings:\n  - id: local-only\n    rule: only here\n",
    );
    let s = GithubServer::start(GithubConfig::default());
    let main = s.seed_files("main", &[(FILE, BASE_FILE), ("README.md", "hello\n")]);
    let token = GithubConfig::default().token;

    let out = github_learn(d, &s, &token);
    let err = support::stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("Opened pull request #1 from crit/learnings into main"),
        "{err}"
    );
    assert!(!err.contains(&token), "{err}");
    let pulls = s.opened_pulls();
    assert_eq!(pulls.len(), 1, "{pulls:?}");
    assert_eq!(pulls[0]["head"]["ref"], "crit/learnings");
    assert_eq!(pulls[0]["base"]["ref"], "main");
    let files = s.files_on("crit/learnings").unwrap();
    let text = &files[FILE];
    assert!(text.starts_with(BASE_FILE), "{text}");
    assert!(text.contains("src/parse/**/*.rs"), "{text}");
    assert!(!text.contains("local-only"), "{text}");
    assert_eq!(files["README.md"], "hello\n", "the rest of main is kept");
    assert_eq!(
        s.branch_head("crit/learnings").unwrap().1,
        vec![main.clone()]
    );
    // The team's words are in the description, inert: no image, no mention.
    let body = pulls[0]["body"].as_str().unwrap();
    assert!(body.contains("parse() checks the length first"), "{body}");
    assert!(!body.contains("<img"), "{body}");
    assert!(!body.contains("@octo-org/security"), "{body}");
    assert!(
        body.contains("https://github.com/o/r/pull/7#discussion_r1"),
        "{body}"
    );

    // Again with nothing new: the same pull request, no new commit.
    let head = s.branch_head("crit/learnings").unwrap().0;
    let out = github_learn(d, &s, &token);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    assert!(support::stderr(&out).contains("Already up to date: pull request #1"));
    assert_eq!(s.branch_head("crit/learnings").unwrap().0, head);
    assert_eq!(s.opened_pulls().len(), 1);

    // main moves on: the branch is rebuilt on it, the pull request updated.
    let main2 = s.seed_files("main", &[("CHANGELOG.md", "1.0\n")]);
    let out = github_learn(d, &s, &token);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    assert!(support::stderr(&out).contains("Updated pull request #1"));
    assert_eq!(s.branch_head("crit/learnings").unwrap().1, vec![main2]);
    assert_eq!(
        s.files_on("crit/learnings").unwrap()["CHANGELOG.md"],
        "1.0\n"
    );
    assert_eq!(s.opened_pulls().len(), 1);
    let creates = s
        .requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/pulls"))
        .count();
    assert_eq!(creates, 1);
}

#[test]
fn learn_post_github_proposes_nothing_the_default_branch_already_has() {
    let dir = project();
    let d = dir.path();
    history(d, "validated upstream");
    let s = GithubServer::start(GithubConfig::default());
    let token = GithubConfig::default().token;
    let out = github_learn(d, &s, &token);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    // Merged: main now holds the branch's file.
    let merged = s.files_on("crit/learnings").unwrap()[FILE].clone();
    s.seed_files("main", &[(FILE, &merged)]);
    let before = s.requests().len();
    let out = github_learn(d, &s, &token);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    assert!(support::stderr(&out).contains("No learnings to propose"));
    assert!(s.requests()[before..].iter().all(|r| !r.is_write()));
}

#[test]
fn learn_post_github_with_a_read_only_token_exits_3_and_opens_nothing() {
    let dir = project();
    let d = dir.path();
    history(d, "validated upstream");
    let s = GithubServer::start(GithubConfig {
        access: Access::Read,
        ..GithubConfig::default()
    });
    let out = github_learn(d, &s, &GithubConfig::default().token);
    let err = support::stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("proposing the learnings on GitHub repository octo-org/hello-world"),
        "{err}"
    );
    assert!(s.opened_pulls().is_empty());
    assert!(s.files_on("crit/learnings").is_none());
}

#[test]
fn learn_post_needs_a_repository_not_a_pull_request() {
    let dir = project();
    let d = dir.path();
    history(d, "validated upstream");
    let model = FakeServer::start_blocking();
    let out = support::crit(d, &model, None)
        .env("GITHUB_TOKEN", "ghs_x")
        .args(["learn", "--post", "github"])
        .output()
        .unwrap();
    let err = support::stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("GITHUB_REPOSITORY is not set"), "{err}");
    assert!(!err.contains("GITHUB_EVENT_PATH"), "{err}");
    let out = support::crit(d, &model, None)
        .args(["learn", "--post", "github", "--write"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn learn_post_gitlab_opens_one_merge_request_and_a_second_run_keeps_it() {
    let dir = project();
    let d = dir.path();
    history(d, HOSTILE_WORDS);
    let s = GitlabServer::start(GitlabConfig::default());
    let main = s.seed_files("main", &[("README.md", "hello\n")]);

    let out = gitlab_learn(d, &s);
    let err = support::stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("Opened merge request !1 from crit/learnings into main"),
        "{err}"
    );
    let mrs = s.opened_merge_requests();
    assert_eq!(mrs.len(), 1, "{mrs:?}");
    assert_eq!(mrs[0]["source_branch"], "crit/learnings");
    assert_eq!(mrs[0]["target_branch"], "main");
    let desc = mrs[0]["description"].as_str().unwrap();
    assert!(!desc.contains("<img"), "{desc}");
    let files = s.files_on("crit/learnings").unwrap();
    assert!(files[FILE].contains("src/parse/**/*.rs"), "{}", files[FILE]);
    assert_eq!(files["README.md"], "hello\n");
    assert_eq!(s.branch_head("crit/learnings").unwrap().1, vec![main]);
    // The file did not exist on main: the commit's action creates it.
    let commit = s
        .requests()
        .into_iter()
        .find(|r| r.method == "POST" && r.path.ends_with("/repository/commits"))
        .unwrap();
    assert_eq!(commit.body["actions"][0]["action"], "create");
    assert_eq!(commit.body["start_branch"], "main");

    let head = s.branch_head("crit/learnings").unwrap().0;
    let out = gitlab_learn(d, &s);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    assert!(support::stderr(&out).contains("Already up to date: merge request !1"));
    assert_eq!(s.branch_head("crit/learnings").unwrap().0, head);

    // The team merged its own learnings file meanwhile: updated on top of it.
    let main2 = s.seed_files("main", &[(FILE, BASE_FILE)]);
    let out = gitlab_learn(d, &s);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    assert!(support::stderr(&out).contains("Updated merge request !1"));
    assert_eq!(s.branch_head("crit/learnings").unwrap().1, vec![main2]);
    let text = s.files_on("crit/learnings").unwrap()[FILE].clone();
    assert!(text.starts_with(BASE_FILE), "{text}");
    assert_eq!(s.opened_merge_requests().len(), 1);
}
