use crit_testkit::{Access, ChangedFile, Fault, GithubConfig, GithubServer, PullSpec, TokenSeen};
use serde_json::json;

use super::{Got, PATCH, client, send};

fn server(cfg: GithubConfig) -> GithubServer {
    let s = GithubServer::start(cfg);
    s.add_pull(PullSpec {
        number: 7,
        title: "Add a thing".into(),
        body: Some("Author's words.".into()),
        head_sha: "head1".into(),
        base_sha: "base0".into(),
        files: vec![
            ChangedFile::modified("src/main.rs", PATCH),
            ChangedFile {
                path: "logo.png".into(),
                previous_path: None,
                status: "added".into(),
                patch: None,
            },
        ],
    });
    s
}

fn repo(s: &GithubServer, rest: &str) -> String {
    format!("{}/repos/octo-org/hello-world{rest}", s.url())
}

async fn get(_: &GithubServer, url: &str) -> Got {
    let token = GithubConfig::default().token;
    send(client().get(url).bearer_auth(token)).await
}

async fn write(
    s: &GithubServer,
    method: reqwest::Method,
    url: &str,
    body: serde_json::Value,
) -> Got {
    let _ = s;
    let token = GithubConfig::default().token;
    send(client().request(method, url).bearer_auth(token).json(&body)).await
}

#[tokio::test]
async fn pulls_files_and_the_body() {
    let s = server(GithubConfig::default());
    let pull = get(&s, &repo(&s, "/pulls/7")).await;
    assert_eq!(pull.status, 200);
    assert_eq!(pull.body["head"]["sha"], "head1");
    assert_eq!(pull.body["body"], "Author's words.");
    let files = get(&s, &repo(&s, "/pulls/7/files")).await;
    assert_eq!(files.body[0]["filename"], "src/main.rs");
    assert_eq!(files.body[0]["additions"], 3);
    assert_eq!(files.body[0]["status"], "modified");
    assert!(
        files.body[1].get("patch").is_none(),
        "a binary file has no patch"
    );
    let patched = write(
        &s,
        reqwest::Method::PATCH,
        &repo(&s, "/pulls/7"),
        json!({"body": "new"}),
    )
    .await;
    assert_eq!(patched.body["body"], "new");
    assert_eq!(s.pull(7).unwrap()["body"], "new");
    assert_eq!(get(&s, &repo(&s, "/pulls/8")).await.status, 404);
    assert_eq!(
        get(&s, &format!("{}/repos/other/repo/pulls/7", s.url()))
            .await
            .status,
        404
    );
}

#[tokio::test]
async fn a_review_batches_inline_comments_and_opens_threads() {
    let s = server(GithubConfig::default());
    let review = json!({"commit_id": "head1", "event": "COMMENT", "body": "crit", "comments": [
        {"path": "src/main.rs", "line": 3, "side": "RIGHT", "start_line": 2, "start_side": "RIGHT", "body": "two lines"},
        {"path": "src/main.rs", "line": 21, "side": "RIGHT", "body": "added"},
        {"path": "src/main.rs", "line": 20, "side": "RIGHT", "body": "context"}]});
    let got = write(
        &s,
        reqwest::Method::POST,
        &repo(&s, "/pulls/7/reviews"),
        review,
    )
    .await;
    assert_eq!(got.status, 200, "{}", got.body);
    assert_eq!(got.body["state"], "COMMENTED");
    assert_eq!(got.body["user"]["login"], "github-actions[bot]");
    assert_eq!(got.body["user"]["type"], "Bot");
    let comments = get(&s, &repo(&s, "/pulls/7/comments")).await;
    let c = &comments.body[0];
    assert_eq!(
        (c["line"].clone(), c["start_line"].clone()),
        (json!(3), json!(2))
    );
    assert_eq!(c["pull_request_review_id"], got.body["id"]);
    assert_eq!(c["side"], "RIGHT");
    assert_eq!(comments.body.as_array().unwrap().len(), 3);
    assert_eq!(s.threads(7).len(), 3);
    // A comment on its own: the review comment edit endpoint.
    let id = c["id"].as_u64().unwrap();
    let edited = write(
        &s,
        reqwest::Method::PATCH,
        &repo(&s, &format!("/pulls/comments/{id}")),
        json!({"body": "edited"}),
    )
    .await;
    assert_eq!(edited.status, 200);
    assert_eq!(s.review_comments(7)[0]["body"], "edited");
}

#[tokio::test]
async fn a_review_without_an_event_stays_pending() {
    let s = server(GithubConfig::default());
    let review =
        json!({"body": "x", "comments": [{"path": "src/main.rs", "line": 2, "body": "c"}]});
    let got = write(
        &s,
        reqwest::Method::POST,
        &repo(&s, "/pulls/7/reviews"),
        review,
    )
    .await;
    assert_eq!(got.body["state"], "PENDING");
    assert!(got.body.get("submitted_at").is_none());
    let comments = get(&s, &repo(&s, "/pulls/7/comments")).await;
    assert_eq!(comments.body, json!([]), "pending comments are not shown");
}

#[tokio::test]
async fn one_comment_off_the_diff_fails_the_whole_review() {
    let s = server(GithubConfig::default());
    for (comment, error) in [
        (
            json!({"path": "src/main.rs", "line": 10, "body": "c"}),
            "Line could not be resolved",
        ),
        (
            json!({"path": "src/main.rs", "line": 21, "start_line": 3, "body": "c"}),
            "Start line could not be resolved",
        ),
        (
            json!({"path": "nope.rs", "line": 1, "body": "c"}),
            "Path could not be resolved",
        ),
        (
            json!({"path": "logo.png", "line": 1, "body": "c"}),
            "Line could not be resolved",
        ),
        (
            json!({"path": "src/main.rs", "line": 5, "side": "LEFT", "body": "c"}),
            "Line could not be resolved",
        ),
    ] {
        let review = json!({"event": "COMMENT", "body": "b", "comments": [
            {"path": "src/main.rs", "line": 2, "body": "fine"}, comment]});
        let got = write(
            &s,
            reqwest::Method::POST,
            &repo(&s, "/pulls/7/reviews"),
            review,
        )
        .await;
        assert_eq!(got.status, 422);
        assert_eq!(got.body["errors"][0], error);
    }
    assert!(s.reviews(7).is_empty());
    assert!(s.review_comments(7).is_empty());
    let stale = json!({"commit_id": "nope", "event": "COMMENT", "body": "b"});
    let got = write(
        &s,
        reqwest::Method::POST,
        &repo(&s, "/pulls/7/reviews"),
        stale,
    )
    .await;
    assert_eq!(got.status, 422);
    let long = json!({"event": "COMMENT", "body": "x".repeat(65_537)});
    assert_eq!(
        write(
            &s,
            reqwest::Method::POST,
            &repo(&s, "/pulls/7/reviews"),
            long
        )
        .await
        .status,
        422
    );
}

#[tokio::test]
async fn issue_comments_list_create_edit_and_paginate() {
    let s = server(GithubConfig::default());
    for i in 0..5 {
        s.seed_issue_comment(7, "someone", &format!("c{i}"));
    }
    let made = write(
        &s,
        reqwest::Method::POST,
        &repo(&s, "/issues/7/comments"),
        json!({"body": "mine"}),
    )
    .await;
    assert_eq!(made.status, 201);
    assert_eq!(made.body["user"]["login"], "github-actions[bot]");
    let id = made.body["id"].as_u64().unwrap();
    let page1 = get(&s, &repo(&s, "/issues/7/comments?per_page=2")).await;
    assert_eq!(page1.body.as_array().unwrap().len(), 2);
    let link = page1.header("link").unwrap().to_string();
    let next = link
        .split(", ")
        .find(|l| l.ends_with("rel=\"next\""))
        .unwrap();
    let next = next.trim_start_matches('<').split('>').next().unwrap();
    assert!(next.starts_with(&s.url()), "absolute links: {link}");
    assert!(link.contains("page=3>; rel=\"last\""), "{link}");
    let page2 = get(&s, next).await;
    assert_eq!(page2.body[0]["body"], "c2");
    let page3 = get(&s, &repo(&s, "/issues/7/comments?per_page=2&page=3")).await;
    assert_eq!(page3.body[1]["body"], "mine");
    assert!(!page3.header("link").unwrap().contains("rel=\"next\""));
    let one_page = get(&s, &repo(&s, "/issues/7/comments")).await;
    assert!(one_page.header("link").is_none(), "no Link when all fits");
    let edited = write(
        &s,
        reqwest::Method::PATCH,
        &repo(&s, &format!("/issues/comments/{id}")),
        json!({"body": "again"}),
    )
    .await;
    assert_eq!(edited.body["body"], "again");
    assert_eq!(s.issue_comments(7)[5]["body"], "again");
    let long = write(
        &s,
        reqwest::Method::POST,
        &repo(&s, "/issues/7/comments"),
        json!({"body": "é".repeat(65_537)}),
    )
    .await;
    assert_eq!(long.status, 422);
    assert!(
        long.body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("too long")
    );
}

#[tokio::test]
async fn tokens_and_access() {
    let s = server(GithubConfig::default());
    let bad = send(client().get(repo(&s, "/pulls/7")).bearer_auth("ghp_wrong")).await;
    assert_eq!(
        (bad.status, bad.body["message"].as_str()),
        (401, Some("Bad credentials"))
    );
    let none = send(client().get(repo(&s, "/pulls/7"))).await;
    assert_eq!(none.status, 401);
    let user = get(&s, &format!("{}/user", s.url())).await;
    assert_eq!(user.status, 403, "a workflow token has no user");
    s.set_access(Access::Read);
    assert_eq!(get(&s, &repo(&s, "/pulls/7")).await.status, 200);
    let denied = write(
        &s,
        reqwest::Method::POST,
        &repo(&s, "/issues/7/comments"),
        json!({"body": "x"}),
    )
    .await;
    assert_eq!(denied.status, 403);
    assert_eq!(
        denied.body["message"],
        "Resource not accessible by integration"
    );
    s.set_access(Access::None);
    assert_eq!(get(&s, &repo(&s, "/pulls/7")).await.status, 404);
    let seen: Vec<TokenSeen> = s.requests().iter().map(|r| r.token).collect();
    assert_eq!(&seen[..2], [TokenSeen::Wrong, TokenSeen::Missing]);
    assert!(seen[2..].iter().all(|t| *t == TokenSeen::Expected));
    assert!(
        s.requests()
            .iter()
            .all(|r| r.header("authorization").is_none())
    );
    let personal = GithubServer::start(GithubConfig {
        user_endpoint: true,
        login: "octocat".into(),
        ..GithubConfig::default()
    });
    let me = get(&personal, &format!("{}/user", personal.url())).await;
    assert_eq!(
        (me.status, me.body["login"].as_str()),
        (200, Some("octocat"))
    );
}

#[tokio::test]
async fn the_wire_holds_every_byte_sent() {
    let s = server(GithubConfig::default());
    write(
        &s,
        reqwest::Method::POST,
        &repo(&s, "/issues/7/comments"),
        json!({"body": "hello wire"}),
    )
    .await;
    let raw: Vec<u8> = s.raw_connections().concat();
    let text = String::from_utf8_lossy(&raw);
    assert!(
        text.starts_with("POST /repos/octo-org/hello-world/issues/7/comments HTTP/1.1\r\n"),
        "{text}"
    );
    assert!(text.contains(&format!(
        "authorization: Bearer {}",
        GithubConfig::default().token
    )));
    assert!(text.contains("hello wire"));
}

#[tokio::test]
async fn scripted_faults() {
    let s = server(GithubConfig::default());
    s.fail(Fault::rate_limit(7).on("POST", "/reviews"));
    s.fail(Fault::rate_limit_until(1_900_000_000).on("GET", "/files"));
    s.fail(Fault::server_error(502).on("GET", "/comments").times(2));
    s.fail(Fault::next_link("http://elsewhere.invalid/steal").on("GET", "/issues/7/comments"));
    let review = json!({"event": "COMMENT", "body": "b"});
    let limited = write(
        &s,
        reqwest::Method::POST,
        &repo(&s, "/pulls/7/reviews"),
        review.clone(),
    )
    .await;
    assert_eq!(limited.status, 403);
    assert_eq!(limited.header("retry-after"), Some("7"));
    assert!(
        limited.body["message"]
            .as_str()
            .unwrap()
            .contains("secondary rate limit")
    );
    let ok = write(
        &s,
        reqwest::Method::POST,
        &repo(&s, "/pulls/7/reviews"),
        review,
    )
    .await;
    assert_eq!(ok.status, 200, "the fault was used up");
    let primary = get(&s, &repo(&s, "/pulls/7/files")).await;
    assert_eq!(primary.header("x-ratelimit-remaining"), Some("0"));
    assert_eq!(primary.header("x-ratelimit-reset"), Some("1900000000"));
    assert_eq!(get(&s, &repo(&s, "/pulls/7/comments")).await.status, 502);
    assert_eq!(get(&s, &repo(&s, "/pulls/7/comments")).await.status, 502);
    assert_eq!(get(&s, &repo(&s, "/pulls/7/comments")).await.status, 200);
    let linked = get(&s, &repo(&s, "/issues/7/comments")).await;
    assert_eq!(linked.status, 200);
    assert_eq!(
        linked.header("link"),
        Some("<http://elsewhere.invalid/steal>; rel=\"next\"")
    );
    s.fail(Fault::invalid().on("POST", "/reviews"));
    let refused = write(
        &s,
        reqwest::Method::POST,
        &repo(&s, "/pulls/7/reviews"),
        json!({"event": "COMMENT", "body": "b"}),
    )
    .await;
    assert_eq!(refused.status, 422);
    assert_eq!(refused.body["errors"][0], "Line could not be resolved");
    let forbidden = GithubServer::start(GithubConfig::default());
    forbidden.fail(Fault::forbidden());
    assert_eq!(
        get(&forbidden, &format!("{}/user", forbidden.url()))
            .await
            .status,
        403
    );
}

#[tokio::test]
async fn review_threads_through_graphql() {
    let s = server(GithubConfig::default());
    let review = json!({"event": "COMMENT", "body": "b", "comments": [
        {"path": "src/main.rs", "line": 2, "body": "one"}, {"path": "src/main.rs", "line": 3, "body": "two"}]});
    write(
        &s,
        reqwest::Method::POST,
        &repo(&s, "/pulls/7/reviews"),
        review,
    )
    .await;
    let gql = format!("{}/graphql", s.url());
    let query = json!({"query": "query($owner:String!,$name:String!,$number:Int!,$cursor:String){repository(owner:$owner,name:$name){pullRequest(number:$number){reviewThreads(first:1,after:$cursor){pageInfo{hasNextPage endCursor} nodes{id isResolved comments(first:1){nodes{databaseId}}}}}}}",
        "variables": {"owner": "octo-org", "name": "hello-world", "number": 7, "first": 1}});
    let page = write(&s, reqwest::Method::POST, &gql, query.clone()).await;
    let threads = &page.body["data"]["repository"]["pullRequest"]["reviewThreads"];
    assert_eq!(threads["pageInfo"]["hasNextPage"], true);
    let first = threads["nodes"][0].clone();
    assert_eq!(first["isResolved"], false);
    assert_eq!(
        first["comments"]["nodes"][0]["databaseId"],
        s.review_comments(7)[0]["id"]
    );
    let mut next = query;
    next["variables"]["cursor"] = threads["pageInfo"]["endCursor"].clone();
    let page2 = write(&s, reqwest::Method::POST, &gql, next).await;
    let t2 = &page2.body["data"]["repository"]["pullRequest"]["reviewThreads"];
    assert_eq!(t2["pageInfo"]["hasNextPage"], false);
    assert_ne!(t2["nodes"][0]["id"], first["id"]);
    let resolve = json!({"query": "mutation($threadId:ID!){resolveReviewThread(input:{threadId:$threadId}){thread{id isResolved}}}",
        "variables": {"threadId": first["id"]}});
    let done = write(&s, reqwest::Method::POST, &gql, resolve.clone()).await;
    assert_eq!(
        done.body["data"]["resolveReviewThread"]["thread"]["isResolved"],
        true
    );
    assert_eq!(s.threads(7)[0]["isResolved"], true);
    let refused = GithubServer::start(GithubConfig {
        can_resolve_threads: false,
        ..GithubConfig::default()
    });
    let got = write(
        &refused,
        reqwest::Method::POST,
        &format!("{}/graphql", refused.url()),
        resolve,
    )
    .await;
    assert_eq!(got.status, 200, "GraphQL refuses with 200 and errors");
    assert_eq!(got.body["errors"][0]["type"], "FORBIDDEN");
}
