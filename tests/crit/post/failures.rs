//! A failing write degrades, never blanks: a server error is retried with
//! backoff after checking what arrived (a 502 may come after the write went
//! through); what still fails is left out, the rest is sent, the summary (or,
//! failing that, the job's step summary) says what is missing, and the run
//! exits 3.

use crit_testkit::{FakeServer, Fault, GithubConfig, GitlabConfig};

use super::*;
use crate::support::{json_out, stderr};

#[test]
fn github_a_502_on_a_review_that_went_through_does_not_post_it_twice() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig::default());
    s.fail(Fault::server_error_after(502).on("POST", "/pulls/7/reviews"));
    let saved = pr.saved(&model, vec![unwrap_finding(), magic_finding()]);
    let out = pr.report_github(
        &model,
        &s,
        &saved,
        &pr.head,
        &GithubConfig::default().token,
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(s.reviews(7).len(), 1, "one review, not two");
    assert_eq!(s.review_comments(7).len(), 2);
    let after: Vec<String> = calls(&s.requests())
        .into_iter()
        .skip_while(|c| !c.ends_with("/reviews"))
        .collect();
    assert_eq!(
        after[..3],
        [
            "POST /repos/octo-org/hello-world/pulls/7/reviews".to_string(),
            "GET /repos/octo-org/hello-world/pulls/7/comments".to_string(),
            "POST /repos/octo-org/hello-world/issues/7/comments".to_string(),
        ],
        "what arrived is checked before anything is sent again"
    );
    assert!(
        stderr(&out).contains("2 new inline comment(s)"),
        "{}",
        show(&out)
    );
}

#[test]
fn github_a_review_that_keeps_failing_is_listed_in_the_summary_and_exits_3() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig::default());
    s.fail(
        Fault::server_error(502)
            .on("POST", "/pulls/7/reviews")
            .times(10),
    );
    let saved = pr.saved(
        &model,
        vec![unwrap_finding(), magic_finding(), outside_finding()],
    );
    let out = pr.report_github(
        &model,
        &s,
        &saved,
        &pr.head,
        &GithubConfig::default().token,
        &[],
    );
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert_eq!(
        json_out(&out)["findings"].as_array().unwrap().len(),
        3,
        "the result is written"
    );
    let tries = s
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/reviews"))
        .count();
    assert_eq!(tries, 4, "bounded retries");
    let summary = body(&s.issue_comments(7)[0]).to_string();
    assert!(
        summary.contains(
            "| Unchecked unwrap on user input | crit could not post the inline comment |"
        ),
        "{summary}"
    );
    assert!(
        summary.contains("Not posted: the inline comment on src/lib.rs:10-11"),
        "{summary}"
    );
    assert!(
        summary.contains("| get ignores its key | outside the change |"),
        "the rest as ever"
    );
    let err = stderr(&out);
    assert!(
        err.contains("posting incomplete: the inline comment on src/lib.rs:10-11"),
        "{err}"
    );
    assert!(
        err.contains("The result is written; nothing was lost"),
        "{err}"
    );
}

#[test]
fn github_a_summary_that_cannot_be_posted_goes_to_the_step_summary() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig::default());
    s.fail(
        Fault::server_error(502)
            .on("POST", "/issues/7/comments")
            .times(10),
    );
    let saved = pr.saved(&model, vec![unwrap_finding(), magic_finding()]);
    let step = pr.runner.path().join("step_summary.md");
    std::fs::write(&step, "earlier step\n").unwrap();
    let out = pr
        .report_github_cmd(
            &model,
            &s,
            &saved,
            &pr.head,
            &GithubConfig::default().token,
            &[],
        )
        .env("GITHUB_STEP_SUMMARY", &step)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert_eq!(
        s.review_comments(7).len(),
        2,
        "the comments were still sent"
    );
    assert!(s.issue_comments(7).is_empty());
    let kept = std::fs::read_to_string(&step).unwrap();
    assert!(
        kept.starts_with("earlier step\n<!-- crit:summary"),
        "{kept}"
    );
    assert!(kept.contains("crit code: FAIL"), "{kept}");
    let err = stderr(&out);
    assert!(
        err.contains("::error title=crit could not post everything::posting incomplete: the summary did not reach GitHub pull request #7; the summary is in the job's step summary"),
        "{err}"
    );
}

#[test]
fn gitlab_a_500_on_one_discussion_does_not_stop_the_others() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.gitlab(GitlabConfig::default());
    s.fail(Fault::server_error(500).on("POST", "/discussions"));
    let saved = pr.saved(&model, vec![unwrap_finding(), magic_finding()]);
    let out = pr.report_gitlab(&model, &s, &saved, &pr.head);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let statuses: Vec<u16> = s
        .requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/discussions"))
        .map(|r| r.status)
        .collect();
    assert_eq!(
        statuses,
        [500, 201, 201],
        "the next one sent, the failed one again"
    );
    assert_eq!(s.discussions(3).len(), 3, "two inline, the summary");
    assert!(
        stderr(&out).contains("2 new inline comment(s)"),
        "{}",
        show(&out)
    );
}

#[test]
fn gitlab_a_summary_that_keeps_failing_still_leaves_the_comments_and_exits_3() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.gitlab(GitlabConfig::default());
    s.fail(
        Fault::server_error(500)
            .on("POST", "/merge_requests/3/notes")
            .times(10),
    );
    s.fail(Fault::server_error_after(500).on("POST", "/discussions"));
    let saved = pr.saved(&model, vec![unwrap_finding(), magic_finding()]);
    let out = pr.report_gitlab(&model, &s, &saved, &pr.head);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    let discussions = s.discussions(3);
    assert_eq!(discussions.len(), 2, "both inline comments, each once");
    let err = stderr(&out);
    assert!(
        err.contains("posting incomplete: the summary did not reach GitLab merge request !3"),
        "{err}"
    );
}
