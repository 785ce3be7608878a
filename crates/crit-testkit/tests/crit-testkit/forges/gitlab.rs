use crit_testkit::{
    Access, ChangedFile, Fault, GitlabConfig, GitlabServer, MergeRequestSpec, TokenSeen,
};
use serde_json::{Value, json};

use super::{Got, PATCH, client, send};

fn server(cfg: GitlabConfig) -> GitlabServer {
    let s = GitlabServer::start(cfg);
    s.add_merge_request(MergeRequestSpec {
        iid: 3,
        title: "Add a thing".into(),
        description: "Author's words.".into(),
        base_sha: "base0".into(),
        start_sha: "start0".into(),
        head_sha: "head1".into(),
        files: vec![ChangedFile::modified("src/main.rs", PATCH)],
    });
    s
}

fn mr(s: &GitlabServer, rest: &str) -> String {
    format!("{}/projects/4242/merge_requests/3{rest}", s.api_url())
}

async fn call(method: reqwest::Method, url: &str, body: Option<Value>) -> Got {
    let req = client()
        .request(method, url)
        .header("PRIVATE-TOKEN", GitlabConfig::default().token);
    send(match body {
        Some(b) => req.json(&b),
        None => req,
    })
    .await
}

fn position(new_line: u32, old_line: Option<u32>) -> Value {
    json!({"base_sha": "base0", "start_sha": "start0", "head_sha": "head1", "position_type": "text",
           "new_path": "src/main.rs", "old_path": "src/main.rs", "new_line": new_line, "old_line": old_line})
}

#[tokio::test]
async fn the_merge_request_its_versions_and_diffs() {
    let s = server(GitlabConfig::default());
    let got = call(reqwest::Method::GET, &mr(&s, ""), None).await;
    assert_eq!(
        got.body["diff_refs"],
        json!({"base_sha": "base0", "head_sha": "head1", "start_sha": "start0"})
    );
    let by_path = call(
        reqwest::Method::GET,
        &format!("{}/projects/group%2Fproject/merge_requests/3", s.api_url()),
        None,
    )
    .await;
    assert_eq!(by_path.body["iid"], 3);
    let versions = call(reqwest::Method::GET, &mr(&s, "/versions"), None).await;
    assert_eq!(versions.body[0]["head_commit_sha"], "head1");
    let diffs = call(reqwest::Method::GET, &mr(&s, "/diffs"), None).await;
    assert_eq!(diffs.body[0]["new_path"], "src/main.rs");
    assert_eq!(diffs.body[0]["diff"], PATCH);
    assert_eq!(diffs.header("x-total"), Some("1"));
    assert_eq!(diffs.header("x-next-page"), Some(""));
    let put = call(
        reqwest::Method::PUT,
        &mr(&s, ""),
        Some(json!({"description": "new"})),
    )
    .await;
    assert_eq!(put.body["description"], "new");
    s.push(
        3,
        "head2",
        vec![ChangedFile::modified("src/main.rs", PATCH)],
    );
    let versions = call(reqwest::Method::GET, &mr(&s, "/versions"), None).await;
    assert_eq!(versions.body.as_array().unwrap().len(), 2);
    assert_eq!(versions.body[0]["head_commit_sha"], "head2", "newest first");
}

#[tokio::test]
async fn inline_discussions_need_a_position_gitlab_accepts() {
    let s = server(GitlabConfig::default());
    let added = call(
        reqwest::Method::POST,
        &mr(&s, "/discussions"),
        Some(json!({"body": "on an added line", "position": position(2, None)})),
    )
    .await;
    assert_eq!(added.status, 201, "{}", added.body);
    assert_eq!(added.body["notes"][0]["type"], "DiffNote");
    assert_eq!(added.body["notes"][0]["resolvable"], true);
    assert_eq!(added.body["notes"][0]["position"]["new_line"], 2);
    let context = call(
        reqwest::Method::POST,
        &mr(&s, "/discussions"),
        Some(json!({"body": "on a context line", "position": position(4, Some(2))})),
    )
    .await;
    assert_eq!(context.status, 201, "{}", context.body);
    for bad in [
        position(4, None),
        position(2, Some(1)),
        position(10, None),
        {
            let mut p = position(2, None);
            p["head_sha"] = json!("stale");
            p
        },
        {
            let mut p = position(2, None);
            p["new_path"] = json!("other.rs");
            p
        },
    ] {
        let got = call(
            reqwest::Method::POST,
            &mr(&s, "/discussions"),
            Some(json!({"body": "x", "position": bad})),
        )
        .await;
        assert_eq!(got.status, 400, "{bad}");
        assert!(got.body["message"].as_str().unwrap().contains("line_code"));
    }
    assert_eq!(s.discussions(3).len(), 2);
    let did = added.body["id"].as_str().unwrap();
    let resolved = call(
        reqwest::Method::PUT,
        &format!("{}?resolved=true", mr(&s, &format!("/discussions/{did}"))),
        None,
    )
    .await;
    assert_eq!(resolved.status, 200);
    assert_eq!(resolved.body["notes"][0]["resolved"], true);
    assert_eq!(
        resolved.body["notes"][0]["resolved_by"]["username"],
        GitlabConfig::default().username
    );
    let nid = added.body["notes"][0]["id"].as_u64().unwrap();
    let edited = call(
        reqwest::Method::PUT,
        &mr(&s, &format!("/discussions/{did}/notes/{nid}")),
        Some(json!({"body": "edited"})),
    )
    .await;
    assert_eq!(edited.body["body"], "edited");
}

#[tokio::test]
async fn notes_are_listed_created_and_edited_by_their_author_only() {
    let s = server(GitlabConfig::default());
    let theirs = s.seed_note(3, "mallory", "<!-- crit:summary -->");
    for i in 0..3 {
        s.seed_note(3, "someone", &format!("n{i}"));
    }
    let made = call(
        reqwest::Method::POST,
        &mr(&s, "/notes"),
        Some(json!({"body": "mine"})),
    )
    .await;
    assert_eq!(made.status, 201);
    assert_eq!(made.body["type"], Value::Null);
    assert_eq!(
        made.body["author"]["username"],
        GitlabConfig::default().username
    );
    let newest_first = call(reqwest::Method::GET, &mr(&s, "/notes?per_page=2"), None).await;
    assert_eq!(newest_first.body[0]["body"], "mine");
    assert_eq!(newest_first.header("x-next-page"), Some("2"));
    assert_eq!(newest_first.header("x-total-pages"), Some("3"));
    assert!(
        newest_first
            .header("link")
            .unwrap()
            .contains("rel=\"next\"")
    );
    let asc = call(
        reqwest::Method::GET,
        &mr(&s, "/notes?sort=asc&per_page=100"),
        None,
    )
    .await;
    assert_eq!(asc.body[0]["id"], theirs);
    let id = made.body["id"].as_u64().unwrap();
    let edited = call(
        reqwest::Method::PUT,
        &mr(&s, &format!("/notes/{id}")),
        Some(json!({"body": "again"})),
    )
    .await;
    assert_eq!(edited.body["body"], "again");
    let refused = call(
        reqwest::Method::PUT,
        &mr(&s, &format!("/notes/{theirs}")),
        Some(json!({"body": "x"})),
    )
    .await;
    assert_eq!(refused.status, 403);
    let discussions = call(
        reqwest::Method::GET,
        &mr(&s, "/discussions?per_page=100"),
        None,
    )
    .await;
    assert_eq!(discussions.body.as_array().unwrap().len(), 5);
    assert_eq!(discussions.body[0]["individual_note"], true);
}

#[tokio::test]
async fn tokens_access_and_faults() {
    let s = server(GitlabConfig::default());
    let wrong = send(
        client()
            .get(mr(&s, ""))
            .header("PRIVATE-TOKEN", "glpat-wrong"),
    )
    .await;
    assert_eq!(
        (wrong.status, wrong.body["message"].as_str()),
        (401, Some("401 Unauthorized"))
    );
    let bearer = send(
        client()
            .get(mr(&s, ""))
            .bearer_auth(GitlabConfig::default().token),
    )
    .await;
    assert_eq!(bearer.status, 200);
    let me = call(reqwest::Method::GET, &format!("{}/user", s.api_url()), None).await;
    assert_eq!(me.body["bot"], true);
    s.fail(Fault::rate_limit(3).on("POST", "/notes"));
    let limited = call(
        reqwest::Method::POST,
        &mr(&s, "/notes"),
        Some(json!({"body": "x"})),
    )
    .await;
    assert_eq!(limited.status, 429);
    assert_eq!(limited.header("retry-after"), Some("3"));
    assert_eq!(limited.body, json!("Retry later\n"));
    assert_eq!(
        call(
            reqwest::Method::POST,
            &mr(&s, "/notes"),
            Some(json!({"body": "x"}))
        )
        .await
        .status,
        201
    );
    s.set_access(Access::Read);
    let denied = call(
        reqwest::Method::POST,
        &mr(&s, "/notes"),
        Some(json!({"body": "x"})),
    )
    .await;
    assert_eq!(
        (denied.status, denied.body["message"].as_str()),
        (403, Some("403 Forbidden"))
    );
    s.set_access(Access::None);
    assert_eq!(
        call(reqwest::Method::GET, &mr(&s, ""), None).await.status,
        404
    );
    let records = s.requests();
    assert_eq!(records[0].token, TokenSeen::Wrong);
    assert!(
        records
            .iter()
            .all(|r| r.header("private-token").is_none() && r.header("authorization").is_none())
    );
    let no_resolve = server(GitlabConfig {
        can_resolve: false,
        ..GitlabConfig::default()
    });
    let d = call(
        reqwest::Method::POST,
        &mr(&no_resolve, "/discussions"),
        Some(json!({"body": "x", "position": position(2, None)})),
    )
    .await;
    let did = d.body["id"].as_str().unwrap();
    let got = call(
        reqwest::Method::PUT,
        &mr(&no_resolve, &format!("/discussions/{did}")),
        Some(json!({"resolved": true})),
    )
    .await;
    assert_eq!(got.status, 403);
}
