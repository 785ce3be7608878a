//! `crit review code --post gitlab` in a merge request pipeline.

use crit_testkit::{Access, FakeServer, Fault, GitlabConfig, TokenSeen};
use serde_json::Value;

use super::*;
use crate::support::{json_out, stderr};

const MR: &str = "/api/v4/projects/4242/merge_requests/3";

fn first_notes(discussions: &[Value]) -> Vec<Value> {
    discussions.iter().map(|d| d["notes"][0].clone()).collect()
}

fn post(pr: &Pr, model: &FakeServer, s: &crit_testkit::GitlabServer, extra: &[&str]) -> Output {
    pr.gitlab_crit(model, s)
        .args(REVIEW)
        .args(["--post", "gitlab"])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn a_first_run_opens_positioned_discussions_with_a_suggestion_and_one_summary_note() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.gitlab(GitlabConfig::default());
    model.push(answer(vec![
        unwrap_finding(),
        magic_finding(),
        outside_finding(),
    ]));
    let out = post(&pr, &model, &s, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(json_out(&out)["findings"].as_array().unwrap().len(), 3);
    let prompt = model.model_requests()[0].body.to_string();
    assert!(
        prompt.contains("let n = v.unwrap();"),
        "the merge request's change: {prompt}"
    );
    assert_eq!(
        after_catch_up(calls(&s.requests()), &GITLAB_CATCH_UP),
        [
            "GET /api/v4/user".to_string(),
            format!("GET {MR}"),
            format!("GET {MR}/diffs"),
            format!("GET {MR}/discussions"),
            format!("POST {MR}/discussions"),
            format!("POST {MR}/discussions"),
            format!("POST {MR}/notes"),
        ]
    );
    assert!(s.requests().iter().all(|r| r.token == TokenSeen::Expected));
    let notes = first_notes(&s.discussions(3));
    assert_eq!(notes.len(), 3);
    let unwrap = &notes[0];
    assert_eq!(unwrap["type"], "DiffNote");
    let pos = &unwrap["position"];
    assert_eq!(pos["new_path"], "src/lib.rs");
    assert_eq!(pos["new_line"], 10);
    assert_eq!(pos["head_sha"], pr.head.as_str());
    assert!(
        body(unwrap).contains(&format!("```suggestion:-0+1\n{SUGGESTION}```")),
        "{}",
        body(unwrap)
    );
    assert_eq!(notes[1]["position"]["new_line"], 12);
    let summary = body(&notes[2]);
    assert!(
        summary.starts_with(&format!(
            "<!-- crit:summary head={} -->\n### ❌ crit code: FAIL",
            pr.head
        )),
        "{summary}"
    );
    assert!(summary.contains("| P2 | `src/lib.rs:4-6` | get ignores its key |"));
    assert!(
        stderr(&out).contains("crit: posted to GitLab merge request !3: 2 new inline comment(s)"),
        "{}",
        show(&out)
    );
}

#[test]
fn a_second_run_posts_nothing_new_and_edits_the_summary_note() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.gitlab(GitlabConfig::default());
    model.push(answer(vec![unwrap_finding(), magic_finding()]));
    assert_eq!(post(&pr, &model, &s, &[]).status.code(), Some(0));
    let before = s.requests().len();
    model.push(answer(vec![unwrap_finding(), magic_finding()]));
    let out = post(&pr, &model, &s, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let second = calls(&s.requests()[before..]);
    assert!(!second.iter().any(|c| c.starts_with("POST")), "{second:?}");
    assert!(
        second
            .last()
            .unwrap()
            .starts_with(&format!("PUT {MR}/notes/")),
        "{second:?}"
    );
    assert_eq!(s.discussions(3).len(), 3, "two inline, one summary");
    assert!(stderr(&out).contains("0 new inline comment(s), 2 kept"));
}

#[test]
fn after_the_fix_the_discussion_is_marked_and_resolved() {
    let mut pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.gitlab(GitlabConfig::default());
    model.push(answer(vec![unwrap_finding(), magic_finding()]));
    assert_eq!(post(&pr, &model, &s, &[]).status.code(), Some(0));
    let head = pr.fix();
    s.push(3, &head, pr.files());
    model.push(answer(vec![magic_finding()]));
    let out = post(&pr, &model, &s, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let notes = first_notes(&s.discussions(3));
    let old = body(&notes[0]);
    assert!(
        old.contains("**Resolved**: crit no longer reports this"),
        "{old}"
    );
    assert!(old.contains(&head[..12]), "{old}");
    assert_eq!(notes[0]["resolved"], true);
    assert_eq!(notes[1]["resolved"], false);
}

#[test]
fn max_comments_on_gitlab() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.gitlab(GitlabConfig::default());
    model.push(answer(vec![magic_finding(), unwrap_finding()]));
    let out = post(&pr, &model, &s, &["--max-comments", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let notes = first_notes(&s.discussions(3));
    assert_eq!(notes.len(), 2, "one inline, one summary");
    assert!(body(&notes[0]).contains("Unchecked unwrap"));
    assert!(body(&notes[1]).contains("| Magic number | over the cap on inline comments |"));
}

#[test]
fn gitlabs_throttle_is_waited_out_as_retry_after_says() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.gitlab(GitlabConfig::default());
    s.fail(Fault::rate_limit(1).on("POST", "/discussions"));
    model.push(answer(vec![unwrap_finding()]));
    let out = post(&pr, &model, &s, &["-v"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let statuses: Vec<u16> = s
        .requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/discussions"))
        .map(|r| r.status)
        .collect();
    assert_eq!(statuses, [429, 201]);
    assert_eq!(first_notes(&s.discussions(3)).len(), 2);
    assert!(
        stderr(&out).contains("1 retried, waits [1s]"),
        "{}",
        show(&out)
    );
}

#[test]
fn a_reporters_token_is_a_clear_error_and_the_result_is_kept() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.gitlab(GitlabConfig {
        access: Access::Read,
        ..GitlabConfig::default()
    });
    model.push(answer(vec![unwrap_finding()]));
    let out = post(&pr, &model, &s, &[]);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert_eq!(json_out(&out)["findings"].as_array().unwrap().len(), 1);
    let err = stderr(&out);
    assert!(
        err.contains(
            "crit: posting not permitted: GitLab refused to let crit post an inline comment (403"
        ),
        "{err}"
    );
    assert!(err.contains("Developer role"), "{err}");
    assert!(s.discussions(3).is_empty());
}

#[test]
fn outside_a_merge_request_pipeline_nothing_runs() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.gitlab(GitlabConfig::default());
    let out = pr
        .gitlab_crit(&model, &s)
        .env_remove("CI_MERGE_REQUEST_IID")
        .args(REVIEW)
        .args(["--post", "gitlab"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        stderr(&out).contains("merge request pipelines"),
        "{}",
        show(&out)
    );
    let out = pr
        .gitlab_crit(&model, &s)
        .args(REVIEW)
        .args(["--post", "gitlab", "--pull-request", "3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(model.model_requests().is_empty());
    assert!(s.requests().is_empty());
}
