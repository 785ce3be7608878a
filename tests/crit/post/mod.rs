//! `--post github|gitlab` through the binary: a real repository with a pull
//! request's change, crit-testkit's fake model server for the review, and
//! its stand-in GitHub and GitLab APIs for posting, with the environment
//! GitHub Actions and GitLab CI set.

mod action;
mod describe;
mod failures;
mod github;
mod github_answers;
mod gitlab;
mod gitlab_answers;
mod identity;
mod moved;
mod outdated;
mod refused;
mod report;
mod respond;
mod respond_kind;
mod respond_settings;
mod respond_threads;
mod secrets;
mod since;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crit_testkit::{
    ChangedFile, FakeServer, GithubConfig, GithubServer, GitlabConfig, GitlabServer,
    MergeRequestSpec, PullSpec, Reply,
};
use serde_json::{Value, json};
use tempfile::TempDir;

use crate::support::{self, git, init_repo, show, write};

/// `src/lib.rs` on `main`.
const BASE_LIB: &str = "pub struct Config;

impl Config {
    pub fn get(&self, _key: &str) -> Option<String> {
        None
    }

    pub fn port(&self) -> u16 {
        let v = self.get(\"port\");
        8080
    }
}
";

/// The pull request's version: lines 10-13 are new.
const HEAD_LIB: &str = "pub struct Config;

impl Config {
    pub fn get(&self, _key: &str) -> Option<String> {
        None
    }

    pub fn port(&self) -> u16 {
        let v = self.get(\"port\");
        let n = v.unwrap();
        let p: u16 = n.parse().unwrap();
        let fallback = 8080;
        if p == 0 { fallback } else { p }
    }
}
";

/// A push that rewrites line 10 (the unwrap stays).
pub fn reworded_lib() -> String {
    HEAD_LIB.replace("let n = v.unwrap();", "let n = v.unwrap(); // the port")
}

/// A push that changes line 12 only.
pub fn new_default_lib() -> String {
    HEAD_LIB.replace("let fallback = 8080;", "let fallback = 8081;")
}

/// After the fix: the unwraps are gone.
const FIXED_LIB: &str = "pub struct Config;

impl Config {
    pub fn get(&self, _key: &str) -> Option<String> {
        None
    }

    pub fn port(&self) -> u16 {
        let v = self.get(\"port\");
        let n = v.unwrap_or_default();
        let p: u16 = n.parse().unwrap_or(0);
        let fallback = 8080;
        if p == 0 { fallback } else { p }
    }
}
";

/// The suggestion for lines 10-11.
pub const SUGGESTION: &str =
    "        let n = v.unwrap_or_default();\n        let p: u16 = n.parse().unwrap_or(0);\n";

/// A repository whose branch `feature` is a pull request against `main`.
pub struct Pr {
    pub dir: TempDir,
    pub base: String,
    pub head: String,
    /// Where the runner's files go: the event, the result, …
    pub runner: TempDir,
}

impl Pr {
    pub fn new() -> Pr {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        init_repo(d);
        write(d, "src/lib.rs", BASE_LIB);
        git(d, &["add", "-A"]);
        git(d, &["commit", "-q", "-m", "base"]);
        let base = rev(d, "HEAD");
        git(d, &["checkout", "-q", "-b", "feature"]);
        write(d, "src/lib.rs", HEAD_LIB);
        git(d, &["commit", "-q", "-am", "read the port"]);
        let head = rev(d, "HEAD");
        Pr {
            dir,
            base,
            head,
            runner: tempfile::tempdir().unwrap(),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Commits the fix; the new head.
    pub fn fix(&mut self) -> String {
        self.commit("src/lib.rs", FIXED_LIB)
    }

    /// Commits `text` as `rel` on the branch; the new head.
    pub fn commit(&mut self, rel: &str, text: &str) -> String {
        write(self.path(), rel, text);
        git(self.path(), &["add", "-A"]);
        git(self.path(), &["commit", "-q", "-m", "more"]);
        self.head = rev(self.path(), "HEAD");
        self.head.clone()
    }

    /// The change as the forge lists it: `src/lib.rs` with its hunks.
    pub fn files(&self) -> Vec<ChangedFile> {
        let out = Command::new("git")
            .args([
                "diff",
                "--no-color",
                &self.base,
                &self.head,
                "--",
                "src/lib.rs",
            ])
            .current_dir(self.path())
            .output()
            .unwrap();
        let diff = String::from_utf8(out.stdout).unwrap();
        let hunks = &diff[diff.find("@@").unwrap()..];
        vec![ChangedFile::modified(
            "src/lib.rs",
            hunks.trim_end_matches('\n'),
        )]
    }

    /// What changed from commit `from` to `to`, as a forge's compare API
    /// lists it.
    pub fn diff_between(&self, from: &str, to: &str) -> Vec<ChangedFile> {
        let out = Command::new("git")
            .args(["diff", "--no-color", from, to, "--", "src/lib.rs"])
            .current_dir(self.path())
            .output()
            .unwrap();
        let diff = String::from_utf8(out.stdout).unwrap();
        match diff.find("@@") {
            Some(at) => vec![ChangedFile::modified(
                "src/lib.rs",
                diff[at..].trim_end_matches('\n'),
            )],
            None => Vec::new(),
        }
    }

    /// The review job at the current head: its result saved (no posting).
    pub fn saved(&self, model: &FakeServer, findings: Vec<Value>) -> PathBuf {
        model.push(answer(findings));
        let path = self
            .runner
            .path()
            .join(format!("result-{}.json", self.head));
        let out = support::crit(self.path(), model, None)
            .env("CI", "true")
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_EVENT_NAME", "pull_request")
            .env("GITHUB_EVENT_PATH", self.event())
            .args(REVIEW)
            .args(["--fail-on", "never", "--out"])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        path
    }

    /// `crit report SAVED --post github` from a posting job whose event
    /// names `head` as the reviewed commit (a `workflow_run`).
    pub fn report_github(
        &self,
        model: &FakeServer,
        s: &GithubServer,
        saved: &Path,
        head: &str,
        token: &str,
        extra: &[&str],
    ) -> Output {
        self.report_github_cmd(model, s, saved, head, token, extra)
            .output()
            .unwrap()
    }

    /// [`Pr::report_github`], not run yet.
    pub fn report_github_cmd(
        &self,
        model: &FakeServer,
        s: &GithubServer,
        saved: &Path,
        head: &str,
        token: &str,
        extra: &[&str],
    ) -> assert_cmd::Command {
        let event = self.runner.path().join("run-event.json");
        let run = json!({"action": "completed", "workflow_run": {"event": "pull_request",
            "head_sha": head, "conclusion": "success", "pull_requests": []}});
        std::fs::write(&event, run.to_string()).unwrap();
        let mut c = support::crit(self.path(), model, None);
        c.env("GITHUB_ACTIONS", "true")
            .env("GITHUB_EVENT_NAME", "workflow_run")
            .env("GITHUB_EVENT_PATH", &event)
            .env("GITHUB_REPOSITORY", "octo-org/hello-world")
            .env("GITHUB_API_URL", s.url())
            .env("GITHUB_TOKEN", token)
            .env("CRIT_PULL_REQUEST", "7")
            .args(["report"])
            .arg(saved)
            .args(["--post", "github", "--fail-on", "never", "--json"])
            .args(extra);
        c
    }

    /// `crit report SAVED --post gitlab` from a pipeline of commit `head`.
    pub fn report_gitlab(
        &self,
        model: &FakeServer,
        s: &GitlabServer,
        saved: &Path,
        head: &str,
    ) -> Output {
        support::crit(self.path(), model, None)
            .env("GITLAB_CI", "true")
            .env("CI_API_V4_URL", s.api_url())
            .env("CI_PROJECT_ID", "4242")
            .env("CI_MERGE_REQUEST_IID", "3")
            .env("CI_COMMIT_SHA", head)
            .env("GITLAB_TOKEN", GitlabConfig::default().token)
            .args(["report"])
            .arg(saved)
            .args(["--post", "gitlab", "--fail-on", "never", "--json"])
            .output()
            .unwrap()
    }

    /// A `pull_request` event for pull request 7 at the current head.
    pub fn event(&self) -> PathBuf {
        let event = json!({"action": "synchronize", "number": 7, "pull_request": {
            "number": 7,
            "base": {"ref": "main", "sha": self.base},
            "head": {"ref": "feature", "sha": self.head}}});
        let path = self.runner.path().join("event.json");
        std::fs::write(&path, event.to_string()).unwrap();
        path
    }

    /// `crit` in GitHub Actions on this pull request, the model at `model`
    /// and the API at `forge`.
    pub fn github_crit(&self, model: &FakeServer, forge: &GithubServer) -> assert_cmd::Command {
        let mut c = support::crit(self.path(), model, None);
        c.env("CI", "true")
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_EVENT_NAME", "pull_request")
            .env("GITHUB_EVENT_PATH", self.event())
            .env("GITHUB_REPOSITORY", "octo-org/hello-world")
            .env("GITHUB_BASE_REF", "main")
            .env("GITHUB_API_URL", forge.url())
            .env("GITHUB_TOKEN", GithubConfig::default().token);
        c
    }

    /// `crit` in a GitLab merge request pipeline (merge request 3).
    pub fn gitlab_crit(&self, model: &FakeServer, forge: &GitlabServer) -> assert_cmd::Command {
        let mut c = support::crit(self.path(), model, None);
        c.env("CI", "true")
            .env("GITLAB_CI", "true")
            .env("CI_PIPELINE_SOURCE", "merge_request_event")
            .env("CI_MERGE_REQUEST_DIFF_BASE_SHA", &self.base)
            .env("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "main")
            .env("CI_API_V4_URL", forge.api_url())
            .env("CI_PROJECT_ID", "4242")
            .env("CI_MERGE_REQUEST_IID", "3")
            .env("GITLAB_TOKEN", GitlabConfig::default().token);
        c
    }

    /// The GitHub stand-in serving pull request 7 of this change.
    pub fn github(&self, cfg: GithubConfig) -> GithubServer {
        let s = GithubServer::start(cfg);
        s.add_pull(PullSpec {
            number: 7,
            title: "Read the port from the config".into(),
            body: Some("Reads the port.".into()),
            head_sha: self.head.clone(),
            base_sha: self.base.clone(),
            files: self.files(),
        });
        s
    }

    /// The GitLab stand-in serving merge request 3 of this change.
    pub fn gitlab(&self, cfg: GitlabConfig) -> GitlabServer {
        let s = GitlabServer::start(cfg);
        s.add_merge_request(MergeRequestSpec {
            iid: 3,
            title: "Read the port from the config".into(),
            description: "Reads the port.".into(),
            base_sha: self.base.clone(),
            start_sha: self.base.clone(),
            head_sha: self.head.clone(),
            files: self.files(),
        });
        s
    }
}

fn rev(d: &Path, r: &str) -> String {
    let out = Command::new("git")
        .args(["rev-parse", r])
        .current_dir(d)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// The review's flags in every run: one model request per review.
pub const REVIEW: [&str; 6] = ["review", "code", "--verify", "off", "--no-cache", "--json"];

pub fn finding(start: u32, end: u32, priority: u8, title: &str) -> Value {
    json!({"file_path": "src/lib.rs", "line_start": start, "line_end": end,
        "priority": priority, "title": title, "body": "Why it matters."})
}

/// The unchecked unwraps (lines 10-11), with a suggestion.
pub fn unwrap_finding() -> Value {
    let mut f = finding(10, 11, 1, "[P1] Unchecked unwrap on user input");
    f["suggestion"] = json!(SUGGESTION);
    f
}

/// The magic number on line 12.
pub fn magic_finding() -> Value {
    finding(12, 12, 2, "[P2] Magic number")
}

/// Lines 4-6: not in the diff.
pub fn outside_finding() -> Value {
    finding(4, 6, 2, "[P2] get ignores its key")
}

/// The reviewer's answer, through the structured-output tool (whose schema
/// offers `suggestion`).
pub fn answer(findings: Vec<Value>) -> Reply {
    let verdict = if findings.is_empty() { "PASS" } else { "FAIL" };
    let doc =
        json!({"verdict": verdict, "summary": "The port parsing panics.", "findings": findings});
    Reply::json(doc).usage(1000, 200, 0, 0)
}

/// `METHOD path` of each request.
pub fn calls(requests: &[crit_testkit::ForgeRequest]) -> Vec<String> {
    requests
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect()
}

pub fn body(v: &Value) -> &str {
    v["body"].as_str().unwrap()
}

/// What a `--post` run reads first on GitHub: the comments crit has yet to
/// answer.
pub const GITHUB_CATCH_UP: [&str; 3] = [
    "GET /user",
    "GET /repos/octo-org/hello-world/pulls/7/comments",
    "GET /repos/octo-org/hello-world/issues/7/comments",
];

/// What a `--post` run reads first on GitLab: the notes crit has yet to
/// answer.
pub const GITLAB_CATCH_UP: [&str; 2] = [
    "GET /api/v4/user",
    "GET /api/v4/projects/4242/merge_requests/3/discussions",
];

/// `calls` after the reads a `--post` run makes first to answer what waits
/// (`reads`), which must be there.
pub fn after_catch_up(calls: Vec<String>, reads: &[&str]) -> Vec<String> {
    assert!(
        calls.len() >= reads.len() && calls[..reads.len()] == *reads,
        "the run reads what waits first: {calls:?}"
    );
    calls[reads.len()..].to_vec()
}
