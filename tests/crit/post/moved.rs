//! The pull request moved on after the review: every post is pinned to the
//! reviewed commit, the summary says so, and only findings whose lines are
//! unchanged since (by the forge's compare API) are put on lines.

use crit_testkit::{FakeServer, GithubConfig, GitlabConfig};

use super::*;

#[test]
fn github_comments_are_pinned_to_the_reviewed_commit_and_changed_lines_left_off() {
    let mut pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig::default());
    let reviewed = pr.head.clone();
    let saved = pr.saved(&model, vec![unwrap_finding(), magic_finding()]);
    // A push lands while the review job runs: line 12 changes.
    let head = pr.commit("src/lib.rs", &new_default_lib());
    s.push(7, &head, pr.files());
    s.add_compare(&reviewed, &head, pr.diff_between(&reviewed, &head));

    let out = pr.report_github(
        &model,
        &s,
        &saved,
        &reviewed,
        &GithubConfig::default().token,
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let compares: Vec<String> = calls(&s.requests())
        .into_iter()
        .filter(|c| c.contains("/compare/"))
        .collect();
    assert_eq!(
        compares,
        [
            format!(
                "GET /repos/octo-org/hello-world/compare/{}...{reviewed}",
                pr.base
            ),
            format!("GET /repos/octo-org/hello-world/compare/{reviewed}...{head}"),
        ]
    );
    let review = s
        .requests()
        .into_iter()
        .find(|r| r.path.ends_with("/reviews"))
        .unwrap();
    assert_eq!(
        review.body["commit_id"],
        reviewed.as_str(),
        "pinned to what was reviewed"
    );
    let comments = s.review_comments(7);
    assert_eq!(comments.len(), 1);
    assert!(body(&comments[0]).contains("Unchecked unwrap"));
    assert_eq!(comments[0]["commit_id"], reviewed.as_str());
    let summary = body(&s.issue_comments(7)[0]).to_string();
    assert!(
        summary.contains("has moved on since the review"),
        "{summary}"
    );
    assert!(
        summary.contains(&reviewed[..12]) && summary.contains(&head[..12]),
        "{summary}"
    );
    assert!(
        summary.contains("| Magic number | its lines changed after the review |"),
        "{summary}"
    );
}

#[test]
fn gitlab_positions_are_the_reviewed_versions_and_changed_lines_left_off() {
    let mut pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.gitlab(GitlabConfig::default());
    let reviewed = pr.head.clone();
    let saved = pr.saved(&model, vec![unwrap_finding(), magic_finding()]);
    let head = pr.commit("src/lib.rs", &new_default_lib());
    s.push(3, &head, pr.files());
    s.add_compare(&reviewed, &head, pr.diff_between(&reviewed, &head));

    let out = pr.report_gitlab(&model, &s, &saved, &reviewed);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let seen = calls(&s.requests());
    assert!(seen.iter().any(|c| c.ends_with("/versions")), "{seen:?}");
    assert!(
        seen.iter().any(|c| c.ends_with("/repository/compare")),
        "{seen:?}"
    );
    let discussions = s.discussions(3);
    assert_eq!(discussions.len(), 2, "one inline, the summary");
    let pos = &discussions[0]["notes"][0]["position"];
    assert_eq!(pos["head_sha"], reviewed.as_str(), "the reviewed version");
    assert_eq!(pos["base_sha"], pr.base.as_str());
    assert_eq!(pos["new_line"], 10);
    let summary = body(&discussions[1]["notes"][0]).to_string();
    assert!(
        summary.contains("has moved on since the review"),
        "{summary}"
    );
    assert!(
        summary.contains("| Magic number | its lines changed after the review |"),
        "{summary}"
    );
}
