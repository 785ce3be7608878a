//! One comment GitHub cannot place refuses the whole review (422): crit
//! sends each comment on its own, so only that one moves to the summary,
//! with GitHub's reason.

use crit_testkit::{FakeServer, GithubConfig, GitlabConfig};

use super::*;
use crate::support::stderr;

#[test]
fn github_one_comment_it_cannot_place_leaves_the_others_inline() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig::default());
    s.unplaceable(7, "src/lib.rs", 12);
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
    let reviews: Vec<(usize, u16)> = s
        .requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/reviews"))
        .map(|r| (r.body["comments"].as_array().unwrap().len(), r.status))
        .collect();
    assert_eq!(
        reviews,
        [(2, 422), (1, 200), (1, 422)],
        "the batch refused whole, then each comment on its own"
    );
    let comments = s.review_comments(7);
    assert_eq!(comments.len(), 1);
    assert!(body(&comments[0]).contains("Unchecked unwrap"));
    let summary = body(&s.issue_comments(7)[0]).to_string();
    assert!(
        summary
            .contains("| P2 | `src/lib.rs:12` | Magic number | the inline comment was refused |"),
        "{summary}"
    );
    assert!(
        summary.contains("pull_request_review_thread.line must be part of the diff"),
        "GitHub's reason: {summary}"
    );
    assert!(
        stderr(&out).contains(
            "1 new inline comment(s), 0 kept, 0 marked resolved; 1 finding(s) in the summary"
        ),
        "{}",
        show(&out)
    );
}

#[test]
fn gitlab_one_discussion_it_cannot_place_leaves_the_others() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.gitlab(GitlabConfig::default());
    s.fail(crit_testkit::Fault::invalid().on("POST", "/discussions"));
    let saved = pr.saved(&model, vec![unwrap_finding(), magic_finding()]);
    let out = pr.report_gitlab(&model, &s, &saved, &pr.head);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let discussions = s.discussions(3);
    assert_eq!(discussions.len(), 2, "one inline, the summary");
    assert!(body(&discussions[0]["notes"][0]).contains("Magic number"));
    let summary = body(&discussions[1]["notes"][0]).to_string();
    assert!(
        summary.contains("| Unchecked unwrap on user input | the inline comment was refused |"),
        "{summary}"
    );
    assert!(summary.contains("line_code"), "GitLab's reason: {summary}");
}
