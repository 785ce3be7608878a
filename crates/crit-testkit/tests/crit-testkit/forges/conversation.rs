//! The conversation around crit's comments: replies people write, their
//! author associations or access levels, reactions and award emoji,
//! threads a person resolved, and the Actions payloads of comment events.

use crit_testkit::{
    ChangedFile, GithubConfig, GithubServer, GitlabConfig, GitlabServer, MergeRequestSpec, PullSpec,
};
use serde_json::json;

use super::{PATCH, client, send};

fn github() -> GithubServer {
    let s = GithubServer::start(GithubConfig::default());
    s.add_pull(PullSpec {
        number: 7,
        title: "Add a thing".into(),
        body: None,
        head_sha: "head1".into(),
        base_sha: "base0".into(),
        files: vec![ChangedFile::modified("src/main.rs", PATCH)],
    });
    s
}

#[tokio::test]
async fn github_replies_reactions_associations_and_events() {
    let s = github();
    let token = GithubConfig::default().token;
    let repo = |rest: &str| format!("{}/repos/octo-org/hello-world{rest}", s.url());
    let finding = s.seed_review_comment(7, "github-actions[bot]", "src/main.rs", 2, "finding");
    s.set_association("dev", "MEMBER");
    let reply = s.seed_reply(7, "dev", finding, "false positive: checked in parse()");
    assert!(reply > 0);
    let listed = send(client().get(repo("/pulls/7/comments")).bearer_auth(&token)).await;
    let got = listed.body.as_array().unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!(got[1]["in_reply_to_id"], finding);
    assert_eq!(got[1]["author_association"], "MEMBER");
    assert_eq!(got[0]["author_association"], "NONE");

    s.react(finding, "dev", "-1");
    let posted = send(
        client()
            .post(repo(&format!("/pulls/comments/{finding}/reactions")))
            .bearer_auth(&token)
            .json(&json!({"content": "eyes"})),
    )
    .await;
    assert_eq!(posted.status, 201);
    assert_eq!(posted.body["user"]["login"], "github-actions[bot]");
    let again = send(
        client()
            .post(repo(&format!("/pulls/comments/{finding}/reactions")))
            .bearer_auth(&token)
            .json(&json!({"content": "eyes"})),
    )
    .await;
    assert_eq!(again.status, 200, "the same reaction again is not new");
    let bad = send(
        client()
            .post(repo(&format!("/pulls/comments/{finding}/reactions")))
            .bearer_auth(&token)
            .json(&json!({"content": "thumbsup"})),
    )
    .await;
    assert_eq!(bad.status, 422);
    let down = send(
        client()
            .get(repo(&format!(
                "/pulls/comments/{finding}/reactions?content=-1"
            )))
            .bearer_auth(&token),
    )
    .await;
    assert_eq!(down.body.as_array().unwrap().len(), 1);
    assert_eq!(down.body[0]["user"]["login"], "dev");
    assert_eq!(s.review_comments(7)[0]["reactions"]["-1"], 1);

    let event = s.comment_event(7, reply).unwrap();
    assert_eq!(event["action"], "created");
    assert_eq!(event["comment"]["in_reply_to_id"], finding);
    assert_eq!(event["pull_request"]["number"], 7);
    assert_eq!(event["sender"]["login"], "dev");
    let said = s.seed_issue_comment(7, "dev", "/crit help");
    let event = s.comment_event(7, said).unwrap();
    assert_eq!(event["issue"]["number"], 7);
    assert!(event["issue"]["pull_request"].is_object());
    let edited = s.edit_comment(7, said, "/crit review").unwrap();
    assert_eq!(edited["action"], "edited");
    assert_eq!(edited["changes"]["body"]["from"], "/crit help");
    assert_eq!(edited["comment"]["body"], "/crit review");

    s.resolve_thread_of(7, finding, "dev");
    assert_eq!(s.threads(7)[0]["isResolved"], true);
}

#[tokio::test]
async fn gitlab_replies_awards_members_and_resolving() {
    let s = GitlabServer::start(GitlabConfig::default());
    s.add_merge_request(MergeRequestSpec {
        iid: 3,
        title: "Add a thing".into(),
        description: String::new(),
        base_sha: "base0".into(),
        start_sha: "start0".into(),
        head_sha: "head1".into(),
        files: vec![ChangedFile::modified("src/main.rs", PATCH)],
    });
    let token = GitlabConfig::default().token;
    let mr = |rest: &str| format!("{}/projects/4242/merge_requests/3{rest}", s.api_url());
    let opened = send(
        client()
            .post(mr("/discussions"))
            .header("PRIVATE-TOKEN", &token)
            .json(&json!({"body": "finding"})),
    )
    .await;
    assert_eq!(opened.status, 201);
    let note = opened.body["notes"][0]["id"].as_u64().unwrap();
    let reply = s.seed_reply(3, note, "dev", "why?");
    assert!(reply > 0);
    let d = &s.discussions(3)[0];
    assert_eq!(d["notes"][1]["author"]["username"], "dev");
    assert_eq!(d["notes"][1]["body"], "why?");

    s.award(note, "dev", "thumbsdown");
    let awards = send(
        client()
            .get(mr(&format!("/notes/{note}/award_emoji")))
            .header("PRIVATE-TOKEN", &token),
    )
    .await;
    assert_eq!(awards.body[0]["name"], "thumbsdown");
    assert_eq!(awards.body[0]["user"]["username"], "dev");
    assert_eq!(awards.body[0]["awardable_type"], "Note");

    s.set_access_level("dev", 30);
    let id = d["notes"][1]["author"]["id"].as_u64().unwrap();
    let member = send(
        client()
            .get(format!("{}/projects/4242/members/all/{id}", s.api_url()))
            .header("PRIVATE-TOKEN", &token),
    )
    .await;
    assert_eq!(member.body["access_level"], 30);
    let stranger = send(
        client()
            .get(format!("{}/projects/4242/members/all/1", s.api_url()))
            .header("PRIVATE-TOKEN", &token),
    )
    .await;
    assert_eq!(stranger.status, 404);

    s.edit_note(3, reply, "why not?");
    s.resolve_discussion_of(3, note, "dev");
    let d = &s.discussions(3)[0];
    assert_eq!(d["notes"][1]["body"], "why not?");
    assert_eq!(d["notes"][0]["resolved_by"]["username"], "dev");
}
