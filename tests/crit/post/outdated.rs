//! Comments left outdated by a push: GitHub shows them with `line: null`;
//! on GitLab they sit on an earlier diff whose lines changed since. A
//! finding still reported is commented on again on its current line, and
//! the old comment answered with where it went, marked, and resolved.

use crit_testkit::{FakeServer, GithubConfig, GitlabConfig};

use super::*;
use crate::support::stderr;

#[test]
fn github_an_outdated_comment_is_posted_again_and_the_old_thread_points_to_it() {
    let mut pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig::default());
    let token = GithubConfig::default().token;
    let first = pr.saved(&model, vec![unwrap_finding(), magic_finding()]);
    let out = pr.report_github(&model, &s, &first, &pr.head, &token, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let old_id = s.review_comments(7)[0]["id"].as_u64().unwrap();

    // A push rewrites line 10; the unwrap is still there.
    let head = pr.commit("src/lib.rs", &reworded_lib());
    s.push(7, &head, pr.files());
    let old = &s.review_comments(7)[0];
    assert_eq!(old["line"], Value::Null, "outdated, as GitHub shows it");
    assert_eq!(old["original_line"], 11);
    assert_eq!(
        s.review_comments(7)[1]["line"],
        12,
        "line 12 did not change"
    );

    let second = pr.saved(&model, vec![unwrap_finding(), magic_finding()]);
    let out = pr.report_github(&model, &s, &second, &head, &token, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        stderr(&out).contains("1 new inline comment(s), 1 kept"),
        "{}",
        show(&out)
    );
    let comments = s.review_comments(7);
    let new = comments
        .iter()
        .find(|c| {
            c["id"].as_u64() != Some(old_id)
                && body(c).contains("Unchecked unwrap")
                && c["in_reply_to_id"].is_null()
        })
        .unwrap();
    assert_eq!(
        (new["start_line"].as_u64(), new["line"].as_u64()),
        (Some(10), Some(11))
    );
    assert_eq!(new["commit_id"], head.as_str());
    let link = new["html_url"].as_str().unwrap();
    let reply = comments
        .iter()
        .find(|c| c["in_reply_to_id"].as_u64() == Some(old_id))
        .expect("a reply on the old thread");
    assert!(body(reply).contains(link), "{}", body(reply));
    let old = comments
        .iter()
        .find(|c| c["id"].as_u64() == Some(old_id))
        .unwrap();
    assert!(body(old).contains("**Moved**"), "{}", body(old));
    let thread = s
        .threads(7)
        .into_iter()
        .find(|t| t["comments"][0].as_u64() == Some(old_id))
        .unwrap();
    assert_eq!(thread["isResolved"], true);
    assert_eq!(
        comments
            .iter()
            .filter(|c| body(c).contains("Magic number"))
            .count(),
        1,
        "the comment still on its line is kept"
    );

    // Once moved, it stays moved: the next run posts nothing.
    let reviews = s.reviews(7).len();
    let out = pr.report_github(&model, &s, &second, &head, &token, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(s.reviews(7).len(), reviews, "{}", show(&out));
    assert!(
        stderr(&out).contains("0 new inline comment(s), 2 kept"),
        "{}",
        show(&out)
    );
}

#[test]
fn gitlab_a_comment_on_an_earlier_diff_whose_line_changed_is_posted_again() {
    let mut pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.gitlab(GitlabConfig::default());
    let first_head = pr.head.clone();
    let first = pr.saved(&model, vec![unwrap_finding(), magic_finding()]);
    let out = pr.report_gitlab(&model, &s, &first, &first_head);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let old = s.discussions(3)[0].clone();

    let head = pr.commit("src/lib.rs", &reworded_lib());
    s.push(3, &head, pr.files());
    s.add_compare(&first_head, &head, pr.diff_between(&first_head, &head));
    let second = pr.saved(&model, vec![unwrap_finding(), magic_finding()]);
    let out = pr.report_gitlab(&model, &s, &second, &head);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        stderr(&out).contains("1 new inline comment(s), 1 kept"),
        "{}",
        show(&out)
    );
    let discussions = s.discussions(3);
    let new = discussions
        .iter()
        .find(|d| d["id"] != old["id"] && body(&d["notes"][0]).contains("Unchecked unwrap"))
        .unwrap();
    assert_eq!(new["notes"][0]["position"]["head_sha"], head.as_str());
    let new_note = new["notes"][0]["id"].as_u64().unwrap();
    let old_now = discussions.iter().find(|d| d["id"] == old["id"]).unwrap();
    let notes = old_now["notes"].as_array().unwrap();
    assert_eq!(notes.len(), 2, "a reply in the old discussion");
    assert!(
        body(&notes[1]).contains(&format!("#note_{new_note}")),
        "{}",
        body(&notes[1])
    );
    assert!(body(&notes[0]).contains("**Moved**"));
    assert_eq!(notes[0]["resolved"], true);

    let before = s.discussions(3).len();
    let out = pr.report_gitlab(&model, &s, &second, &head);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(s.discussions(3).len(), before, "nothing posted twice");
}
