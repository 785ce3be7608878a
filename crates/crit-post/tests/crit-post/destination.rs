//! `Destination::from_env`: which forge, request, token and account, from
//! the CI environment as data, for every front end; then a post through it.

use crit_llm::Env;
use crit_post::{Choice, Destination, DestinationError, ForgeKind};
use crit_testkit::{GithubConfig, GitlabConfig, TokenSeen};

use crate::support::*;

fn gitlab_env(s: &crit_testkit::GitlabServer, extra: &[(&str, &str)]) -> Env {
    let mut pairs: Vec<(String, String)> = [
        ("GITLAB_CI", "true"),
        ("CI_API_V4_URL", s.api_url().as_str()),
        ("CI_PROJECT_ID", "4242"),
        ("CI_MERGE_REQUEST_IID", "3"),
        ("GITLAB_TOKEN", GitlabConfig::default().token.as_str()),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    pairs.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    Env::from_pairs(pairs)
}

#[tokio::test]
async fn a_gitlab_pipeline_names_the_merge_request_and_the_post_goes_there() {
    let s = gitlab_server(GitlabConfig::default());
    let dest = Destination::from_env(&gitlab_env(&s, &[]), ForgeKind::Gitlab, &Choice::default())
        .unwrap()
        .with_pacer(TestClock::at(1_800_000_000));
    assert_eq!(dest.forge(), ForgeKind::Gitlab);
    assert_eq!(dest.place(), "GitLab merge request !3");
    assert!(!format!("{dest:?}").contains(&GitlabConfig::default().token));
    let report = dest.post(&first_result()).await.unwrap();
    assert_eq!(report.forge, ForgeKind::Gitlab);
    assert_eq!(report.inline_posted, 2);
    assert!(s.requests().iter().all(|r| r.token == TokenSeen::Expected));
    let last = dest.last_review().await.unwrap().unwrap();
    assert_eq!(last.head, HEAD, "the summary records the reviewed head");
}

#[test]
fn what_the_environment_does_not_allow_is_refused_before_anything_is_sent() {
    let s = gitlab_server(GitlabConfig::default());
    let github_only = Choice {
        github_login: Some("crit-app[bot]".into()),
        ..Choice::default()
    };
    assert!(matches!(
        Destination::from_env(&gitlab_env(&s, &[]), ForgeKind::Gitlab, &github_only),
        Err(DestinationError::GithubOnly { .. })
    ));
    let no_token = Env::from_pairs([("CI_API_V4_URL", s.api_url())]);
    assert!(matches!(
        Destination::from_env(&no_token, ForgeKind::Gitlab, &Choice::default()),
        Err(DestinationError::Context(_))
    ));
    let gh = GithubConfig::default();
    let github_env = |pr: &str, login: &str| {
        Env::from_pairs([
            ("GITHUB_REPOSITORY", "octo-org/hello-world"),
            ("GITHUB_TOKEN", gh.token.as_str()),
            ("CRIT_PULL_REQUEST", pr),
            ("CRIT_GITHUB_LOGIN", login),
        ])
    };
    assert_eq!(
        Destination::from_env(&github_env("0", ""), ForgeKind::Github, &Choice::default())
            .unwrap_err(),
        DestinationError::PullRequestZero
    );
    assert!(matches!(
        Destination::from_env(
            &github_env("seven", ""),
            ForgeKind::Github,
            &Choice::default()
        ),
        Err(DestinationError::PullRequest { .. })
    ));
    assert!(matches!(
        Destination::from_env(
            &github_env("7", "a b"),
            ForgeKind::Github,
            &Choice::default()
        ),
        Err(DestinationError::Login { .. })
    ));
    let ok = Destination::from_env(
        &github_env("7", "crit-app[bot]"),
        ForgeKind::Github,
        &Choice::default(),
    )
    .unwrap();
    assert_eq!(ok.place(), "GitHub pull request #7");
}
