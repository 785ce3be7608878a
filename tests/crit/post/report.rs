//! The fork-safe pattern: a review job with no write access saves the
//! result; a posting job, which has no checkout of the change, posts it with
//! `crit report RESULT.json --post …`.

use crit_testkit::{FakeServer, GithubConfig, GitlabConfig};
use serde_json::{Value, json};

use super::*;
use crate::support::stderr;

/// The review job: `--out result.json`, no token, no posting.
fn review_job(pr: &Pr, model: &FakeServer) -> PathBuf {
    model.push(answer(vec![
        unwrap_finding(),
        magic_finding(),
        outside_finding(),
    ]));
    let saved = pr.runner.path().join("artifact/result.json");
    let out = support::crit(pr.path(), model, None)
        .env("CI", "true")
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", pr.event())
        .args(REVIEW)
        .args(["--out"])
        .arg(&saved)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    saved
}

/// A directory with nothing of the change in it.
fn posting_job_dir() -> TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn a_saved_result_is_posted_by_a_job_on_workflow_run() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let saved = review_job(&pr, &model);
    let s = pr.github(GithubConfig::default());
    let job = posting_job_dir();
    // The posting job runs on the review's `workflow_run`: no pull request in
    // the event (a fork's is never named), the number from the artifact.
    let event = job.path().join("event.json");
    std::fs::write(
        &event,
        json!({"action": "completed", "workflow_run": {"event": "pull_request",
            "head_sha": pr.head, "conclusion": "success", "pull_requests": []}})
        .to_string(),
    )
    .unwrap();
    let out = support::crit(job.path(), &model, None)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", "workflow_run")
        .env("GITHUB_EVENT_PATH", &event)
        .env("GITHUB_REPOSITORY", "octo-org/hello-world")
        .env("GITHUB_API_URL", s.url())
        .env("GITHUB_TOKEN", GithubConfig::default().token)
        .env("CRIT_PULL_REQUEST", "7")
        .args(["report"])
        .arg(&saved)
        .args([
            "--post",
            "github",
            "--fail-on",
            "p1",
            "--format",
            "markdown",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "the gate: {}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Unchecked unwrap"),
        "the result is written: {}",
        show(&out)
    );
    let review = s
        .requests()
        .into_iter()
        .find(|r| r.path.ends_with("/pulls/7/reviews"))
        .unwrap();
    assert_eq!(
        review.body["commit_id"],
        pr.head.as_str(),
        "the reviewed commit"
    );
    let comments = s.review_comments(7);
    assert_eq!(comments.len(), 2);
    assert!(body(&comments[0]).contains(&format!("```suggestion\n{SUGGESTION}```")));
    assert_eq!(s.issue_comments(7).len(), 1);
    assert!(stderr(&out).contains("posted to GitHub pull request #7"));
    assert_eq!(model.model_requests().len(), 1, "no second review");

    // Posting it again: nothing new, the summary edited.
    let again = support::crit(job.path(), &model, None)
        .env("GITHUB_EVENT_PATH", &event)
        .env("GITHUB_REPOSITORY", "octo-org/hello-world")
        .env("GITHUB_API_URL", s.url())
        .env("GITHUB_TOKEN", GithubConfig::default().token)
        .args(["report"])
        .arg(&saved)
        .args(["--post", "github", "--pull-request", "7", "--json"])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(0), "{}", show(&again));
    assert_eq!(s.review_comments(7).len(), 2);
    assert_eq!(s.issue_comments(7).len(), 1);
    assert!(stderr(&again).contains("(edited)"), "{}", show(&again));
}

#[test]
fn the_pull_request_number_is_checked() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let saved = review_job(&pr, &model);
    let s = pr.github(GithubConfig::default());
    let job = posting_job_dir();
    for bad in ["7; rm -rf /", "0", "-3"] {
        let out = support::crit(job.path(), &model, None)
            .env("GITHUB_REPOSITORY", "octo-org/hello-world")
            .env("GITHUB_API_URL", s.url())
            .env("GITHUB_TOKEN", GithubConfig::default().token)
            .env("CRIT_PULL_REQUEST", bad)
            .args(["report"])
            .arg(&saved)
            .args(["--post", "github"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", show(&out));
    }
    assert!(s.requests().is_empty());
}

#[test]
fn a_saved_result_is_posted_to_a_merge_request() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let saved = review_job(&pr, &model);
    let s = pr.gitlab(GitlabConfig::default());
    let job = posting_job_dir();
    let out = support::crit(job.path(), &model, None)
        .env("CI_API_V4_URL", s.api_url())
        .env("CI_PROJECT_ID", "4242")
        .env("CI_MERGE_REQUEST_IID", "3")
        .env("CRIT_GITLAB_POSTER", GitlabConfig::default().token)
        .args(["report"])
        .arg(&saved)
        .args([
            "--post",
            "gitlab",
            "--gitlab-token-env",
            "CRIT_GITLAB_POSTER",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let notes: Vec<_> = s
        .discussions(3)
        .iter()
        .map(|d| d["notes"][0].clone())
        .collect();
    assert_eq!(notes.len(), 3, "two inline, one summary");
    assert!(body(&notes[0]).contains(&format!("```suggestion:-0+1\n{SUGGESTION}```")));
    assert!(stderr(&out).contains("posted to GitLab merge request !3"));
}

#[test]
fn a_shard_is_not_posted_alone() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let saved = review_job(&pr, &model);
    let s = pr.github(GithubConfig::default());
    let mut result: Value = serde_json::from_slice(&std::fs::read(&saved).unwrap()).unwrap();
    let post = |result: &Value| {
        std::fs::write(&saved, result.to_string()).unwrap();
        support::crit(pr.runner.path(), &model, None)
            .env("GITHUB_EVENT_PATH", pr.event())
            .env("GITHUB_REPOSITORY", "octo-org/hello-world")
            .env("GITHUB_API_URL", s.url())
            .env("GITHUB_TOKEN", GithubConfig::default().token)
            .args(["report"])
            .arg(&saved)
            .args(["--post", "github", "--json"])
            .output()
            .unwrap()
    };
    result["inputs"]["shard"] = json!("2/4");
    let out = post(&result);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(stderr(&out).contains("crit report merge"), "{}", show(&out));
    assert!(s.requests().is_empty());
    // The merged shards are the whole review.
    result["inputs"]["shard"] = json!("1,2,3,4/4");
    let out = post(&result);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(s.issue_comments(7).len(), 1);
    // And a review of one shard does not post.
    let out = pr
        .github_crit(&model, &s)
        .args(REVIEW)
        .args(["--post", "github", "--shard", "1/2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(stderr(&out).contains("crit report merge"));
    assert_eq!(model.model_requests().len(), 1, "only the first review ran");
}
