//! A GitHub App's installation token: `GET /user` is 403 and its comments
//! are by `NAME[bot]`, not `github-actions[bot]`. crit learns its account
//! from its own first comment and records it in the summary's marker, or
//! takes it from `--github-login`.

use crit_testkit::{FakeServer, GithubConfig};

use super::*;
use crate::support::stderr;

const APP: &str = "crit-reviewer[bot]";

fn app() -> GithubConfig {
    GithubConfig {
        login: APP.into(),
        user_endpoint: false,
        ..GithubConfig::default()
    }
}

#[test]
fn an_app_token_finds_its_own_comments_on_every_later_run() {
    let mut pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(app());
    let token = app().token;
    let saved = pr.saved(&model, vec![unwrap_finding(), magic_finding()]);
    let out = pr.report_github(&model, &s, &saved, &pr.head, &token, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(s.requests()[0].path, "/user");
    assert_eq!(s.requests()[0].status, 403, "as GitHub answers an App");
    let summary = body(&s.issue_comments(7)[0]).to_string();
    assert!(
        summary.starts_with(&format!(
            "<!-- crit:summary by={APP} head={} -->\n",
            pr.head
        )),
        "the account it learned from its review: {summary}"
    );
    // Someone planting a summary that names another account is not believed.
    s.seed_issue_comment(7, "mallory", "<!-- crit:summary by=mallory -->\nhi");
    s.seed_issue_comment(7, "mallory", "<!-- crit:summary by=evil[bot] -->\nhi");

    // The same result again: nothing new, the summary edited.
    let before = s.requests().len();
    let out = pr.report_github(&model, &s, &saved, &pr.head, &token, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let again = calls(&s.requests()[before..]);
    assert!(!again.iter().any(|c| c.ends_with("/reviews")), "{again:?}");
    assert_eq!(s.review_comments(7).len(), 2, "no repeats");
    assert_eq!(
        s.issue_comments(7)
            .iter()
            .filter(|c| c["user"]["login"] == APP)
            .count(),
        1,
        "never a second summary"
    );
    assert!(
        stderr(&out).contains("0 new inline comment(s), 2 kept, 0 marked resolved"),
        "{}",
        show(&out)
    );

    // After the fix its own comment is resolved.
    let head = pr.fix();
    s.push(7, &head, pr.files());
    let fixed = pr.saved(&model, vec![magic_finding()]);
    let out = pr.report_github(&model, &s, &fixed, &head, &token, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        body(&s.review_comments(7)[0]).contains("**Resolved**"),
        "{}",
        show(&out)
    );
    assert!(stderr(&out).contains("1 marked resolved"), "{}", show(&out));
}

#[test]
fn the_account_can_be_named_and_others_markers_stay_others() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(app());
    let token = app().token;
    // An earlier summary and comment of the App, from before crit recorded
    // its account; and someone else's copy of a marker.
    s.seed_issue_comment(7, APP, "<!-- crit:summary -->\nold summary");
    let key = {
        let saved = pr.saved(&model, vec![unwrap_finding()]);
        let r: Value = serde_json::from_slice(&std::fs::read(&saved).unwrap()).unwrap();
        r["findings"][0]["id"].as_str().unwrap().to_string()
    };
    s.seed_review_comment(
        7,
        "mallory",
        "src/lib.rs",
        10,
        &format!("<!-- crit:finding {key} -->\nnothing here"),
    );
    let saved = pr.saved(&model, vec![unwrap_finding()]);
    let out = pr.report_github(
        &model,
        &s,
        &saved,
        &pr.head,
        &token,
        &["--github-login", APP],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        !calls(&s.requests()).contains(&"GET /user".to_string()),
        "the account is named: no need to ask"
    );
    let summaries = s.issue_comments(7);
    assert_eq!(summaries.len(), 1, "its old summary edited, none added");
    assert!(body(&summaries[0]).contains(&format!("by={APP}")));
    let mine = s
        .review_comments(7)
        .iter()
        .filter(|c| c["user"]["login"] == APP)
        .count();
    assert_eq!(
        mine, 1,
        "a planted marker does not stand for crit's comment"
    );
    let theirs = s
        .review_comments(7)
        .into_iter()
        .find(|c| c["user"]["login"] == "mallory")
        .unwrap();
    assert_eq!(
        body(&theirs),
        format!("<!-- crit:finding {key} -->\nnothing here")
    );
    // A name that is not an account's is a usage error before anything is sent.
    let before = s.requests().len();
    let out = pr.report_github(
        &model,
        &s,
        &saved,
        &pr.head,
        &token,
        &["--github-login", "a b"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert_eq!(s.requests().len(), before);
}
