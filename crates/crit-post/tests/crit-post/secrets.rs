//! The token is in nothing crit-post produces: not in what it sends (but
//! the one header), posts, returns, formats or fails with.

use crit_post::{GithubContext, GitlabContext, PostOptions};
use crit_testkit::{Access, Fault, GithubConfig, GitlabConfig};

use crate::support::*;

/// Each connection's bytes hold the token only in its `authorization`
/// header lines, once per request.
fn token_only_in_headers(connections: Vec<Vec<u8>>, token: &str, requests: usize) {
    let all = String::from_utf8_lossy(&connections.concat()).into_owned();
    assert_eq!(all.matches(token).count(), requests, "once per request");
    let header = format!("authorization: Bearer {token}\r\n");
    assert_eq!(all.matches(&header).count(), requests);
    assert!(!all.replace(&header, "").contains(token));
}

#[tokio::test]
async fn github_the_token_is_in_nothing_crit_produced() {
    let token = GithubConfig::default().token;
    let s = github_server(GithubConfig::default());
    let clock = TestClock::at(1_800_000_000);
    let mut r = first_result();
    // A review that quotes the token (a model told to leak it) posts it redacted.
    r.findings[0].body = format!("The token is {token}, see?");
    r.summary = format!("leak: {token}");
    let mut produced = Vec::new();
    let mut poster = github(&s, &clock, options());
    produced.push(format!("{poster:?}"));
    let report = poster.post(&r).await.unwrap();
    produced.push(format!("{report:?}"));
    produced.push(format!(
        "{:?}",
        poster.describe(&format!("desc {token}")).await.unwrap()
    ));
    s.push(7, HEAD2, files(LIB_PATCH_FIXED));
    produced.push(format!(
        "{:?}",
        github(&s, &clock, options())
            .post(&fixed_result())
            .await
            .unwrap()
    ));
    s.fail(Fault::rate_limit(9999).on("PATCH", "/issues/comments/"));
    let err = github(&s, &clock, PostOptions::default())
        .post(&first_result())
        .await
        .unwrap_err();
    produced.push(format!("{err} {err:?}"));
    s.set_access(Access::Read);
    let err = github(&s, &clock, options())
        .post(&first_result())
        .await
        .unwrap_err();
    produced.push(format!("{err} {err:?}"));
    let ctx: GithubContext = github_ctx(&s, &token);
    produced.push(format!("{ctx:?}"));
    for text in &produced {
        assert!(!text.contains(&token), "{text}");
    }
    let mut posted: Vec<String> = s
        .review_comments(7)
        .iter()
        .map(|c| c["body"].to_string())
        .collect();
    posted.extend(s.issue_comments(7).iter().map(|c| c["body"].to_string()));
    posted.push(s.pull(7).unwrap()["body"].to_string());
    for b in &posted {
        assert!(!b.contains(&token), "{b}");
    }
    let sent: Vec<String> = s.requests().iter().map(|r| r.body.to_string()).collect();
    assert!(
        sent.iter()
            .any(|b| b.contains("The token is [redacted], see?"))
    );
    assert!(sent.iter().any(|b| b.contains("desc [redacted]")));
    for req in s.requests() {
        assert!(!req.body.to_string().contains(&token));
        assert!(req.headers.values().all(|v| !v.contains(&token)));
    }
    token_only_in_headers(s.raw_connections(), &token, s.requests().len());
}

#[tokio::test]
async fn gitlab_the_token_is_in_nothing_crit_produced() {
    let token = GitlabConfig::default().token;
    let s = gitlab_server(GitlabConfig::default());
    let clock = TestClock::at(1_800_000_000);
    let mut r = first_result();
    r.findings[1].body = format!("token {token}");
    let mut poster = gitlab(&s, &clock, options());
    let mut produced = vec![format!("{poster:?}")];
    produced.push(format!("{:?}", poster.post(&r).await.unwrap()));
    s.set_access(Access::Read);
    let err = gitlab(&s, &clock, options())
        .post(&fixed_result())
        .await
        .unwrap_err();
    produced.push(format!("{err} {err:?}"));
    let ctx: GitlabContext = gitlab_ctx(&s, &token);
    produced.push(format!("{ctx:?}"));
    for text in &produced {
        assert!(!text.contains(&token), "{text}");
    }
    for n in s.notes(3) {
        assert!(!n["body"].as_str().unwrap().contains(&token));
    }
    token_only_in_headers(s.raw_connections(), &token, s.requests().len());
}
