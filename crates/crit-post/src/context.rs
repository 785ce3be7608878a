//! Where to post, read from the environment as GitHub Actions and GitLab CI
//! set it. The environment comes in as data (the caller takes one snapshot
//! of the process's); only the GitHub event file is read here.

use std::path::Path;

use crit_llm::{Env, Secret};
use serde_json::Value;

use crate::error::ContextError;

/// A GitHub pull request to post to, and the token to post with.
#[derive(Debug, Clone)]
pub struct GithubContext {
    /// `GITHUB_API_URL` (`https://api.github.com` when unset).
    pub api_url: String,
    /// `GITHUB_GRAPHQL_URL`, else derived from the API URL.
    pub graphql_url: String,
    pub owner: String,
    pub repo: String,
    /// The pull request's number.
    pub number: u64,
    /// The head commit the event names; `None` (a comment event) has the
    /// poster ask the API.
    pub head_sha: Option<String>,
    pub token: Secret,
    /// The variable the token came from, for messages.
    pub token_source: String,
}

/// A GitLab merge request to post to, and the token to post with.
#[derive(Debug, Clone)]
pub struct GitlabContext {
    /// `CI_API_V4_URL`.
    pub api_url: String,
    /// `CI_PROJECT_ID` (a number, or the URL-encoded path).
    pub project: String,
    /// `CI_MERGE_REQUEST_IID`.
    pub iid: u64,
    /// The commit the pipeline reviewed: `CI_MERGE_REQUEST_SOURCE_BRANCH_SHA`
    /// (a merged results pipeline), else `CI_COMMIT_SHA`; `None` has the
    /// poster take the merge request's head.
    pub head_sha: Option<String>,
    pub token: Secret,
    pub token_source: String,
}

impl GithubContext {
    /// From the Actions environment: `GITHUB_API_URL`, `GITHUB_REPOSITORY`,
    /// `GITHUB_EVENT_PATH` (the pull request's number and head commit) and
    /// the token in `token_var` (`GITHUB_TOKEN` when `None`).
    pub fn from_env(env: &Env, token_var: Option<&str>) -> Result<Self, ContextError> {
        let path = required(
            env,
            "GITHUB_EVENT_PATH",
            "crit reads the pull request from the event file GitHub Actions writes; run it in a workflow on a pull request",
        )?;
        Self::from_event(env, token_var, &read_event(path)?)
    }

    /// [`GithubContext::from_env`] with the event's JSON given.
    pub fn from_event(
        env: &Env,
        token_var: Option<&str>,
        event: &str,
    ) -> Result<Self, ContextError> {
        let event = parse_event(env, event)?;
        let (number, head_sha) = pull_of(&event)?;
        Self::build(env, token_var, number, head_sha)
    }

    /// The context for pull request `number`, whatever the event names: the
    /// job that posts a saved result in the fork-safe pattern runs on a
    /// `workflow_run` event, which names no pull request from a fork. The
    /// head commit is the event's when it is about this pull request, the
    /// reviewed run's (`workflow_run.head_sha`) on a `workflow_run` event,
    /// else the poster asks the API.
    pub fn for_pull_request(
        env: &Env,
        token_var: Option<&str>,
        number: u64,
    ) -> Result<Self, ContextError> {
        let head_sha = match env.non_empty("GITHUB_EVENT_PATH") {
            None => None,
            Some(path) => head_for(&parse_event(env, &read_event(path)?)?, number),
        };
        Self::build(env, token_var, number, head_sha)
    }

    fn build(
        env: &Env,
        token_var: Option<&str>,
        number: u64,
        head_sha: Option<String>,
    ) -> Result<Self, ContextError> {
        let GithubRepository {
            owner,
            repo,
            api_url,
        } = GithubRepository::from_env(env)?;
        let graphql_url = match env.non_empty("GITHUB_GRAPHQL_URL") {
            Some(u) => base_url("GITHUB_GRAPHQL_URL", u)?,
            None => graphql_from_api(&api_url),
        };
        let (token, token_source) = token(
            env,
            token_var.unwrap_or("GITHUB_TOKEN"),
            "give the job's token to crit (`env: GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}`) or name the variable holding one",
        )?;
        Ok(GithubContext {
            api_url,
            graphql_url,
            owner,
            repo,
            number,
            head_sha,
            token,
            token_source,
        })
    }
}

impl GitlabContext {
    /// From the GitLab CI environment of a merge request pipeline:
    /// `CI_API_V4_URL`, `CI_PROJECT_ID`, `CI_MERGE_REQUEST_IID`, and the
    /// token in `token_var` (`GITLAB_TOKEN` when `None`).
    pub fn from_env(env: &Env, token_var: Option<&str>) -> Result<Self, ContextError> {
        let api = required(
            env,
            "CI_API_V4_URL",
            "GitLab CI sets it; outside CI, set it to https://HOST/api/v4",
        )?;
        let project = required(env, "CI_PROJECT_ID", "GitLab CI sets it")?;
        if !project
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"%-_.".contains(&b))
        {
            return Err(ContextError::Invalid {
                var: "CI_PROJECT_ID".into(),
                reason: "expected a project id or a URL-encoded path".into(),
            });
        }
        let iid = required(
            env,
            "CI_MERGE_REQUEST_IID",
            "GitLab sets it in merge request pipelines only (`rules: - if: $CI_PIPELINE_SOURCE == \"merge_request_event\"`)",
        )?;
        let iid = iid
            .trim()
            .parse::<u64>()
            .map_err(|_| ContextError::Invalid {
                var: "CI_MERGE_REQUEST_IID".into(),
                reason: "expected a number".into(),
            })?;
        let (token, token_source) = token(
            env,
            token_var.unwrap_or("GITLAB_TOKEN"),
            "store a project access token (scope `api`, role Developer) as a masked CI/CD variable, or name the variable holding one",
        )?;
        let head_sha = ["CI_MERGE_REQUEST_SOURCE_BRANCH_SHA", "CI_COMMIT_SHA"]
            .iter()
            .filter_map(|v| env.non_empty(v))
            .map(str::trim)
            .find(|s| crate::revision::is_sha(s))
            .map(str::to_ascii_lowercase);
        Ok(GitlabContext {
            api_url: base_url("CI_API_V4_URL", api)?,
            project: project.to_string(),
            iid,
            head_sha,
            token,
            token_source,
        })
    }
}

/// The repository GitHub Actions names (`GITHUB_REPOSITORY`) and its API.
pub(crate) struct GithubRepository {
    pub owner: String,
    pub repo: String,
    pub api_url: String,
}

impl GithubRepository {
    pub(crate) fn from_env(env: &Env) -> Result<Self, ContextError> {
        let repository = required(
            env,
            "GITHUB_REPOSITORY",
            "set it to OWNER/REPO (GitHub Actions sets it)",
        )?;
        let (owner, repo) = repository
            .split_once('/')
            .filter(|(o, r)| name_ok(o) && name_ok(r))
            .ok_or_else(|| ContextError::Invalid {
                var: "GITHUB_REPOSITORY".into(),
                reason: "expected OWNER/REPO".into(),
            })?;
        let api_url = match env.non_empty("GITHUB_API_URL") {
            Some(u) => base_url("GITHUB_API_URL", u)?,
            None => "https://api.github.com".to_string(),
        };
        Ok(GithubRepository {
            owner: owner.to_string(),
            repo: repo.to_string(),
            api_url,
        })
    }
}

pub(crate) fn required<'e>(
    env: &'e Env,
    var: &str,
    hint: &'static str,
) -> Result<&'e str, ContextError> {
    env.non_empty(var).ok_or_else(|| ContextError::Missing {
        var: var.to_string(),
        hint,
    })
}

pub(crate) fn token(
    env: &Env,
    var: &str,
    hint: &'static str,
) -> Result<(Secret, String), ContextError> {
    let value = required(env, var, hint)?.trim();
    if value.bytes().any(|b| !b.is_ascii_graphic()) {
        return Err(ContextError::Invalid {
            var: var.to_string(),
            reason: "a token is printable ASCII without spaces".into(),
        });
    }
    Ok((Secret::new(value), var.to_string()))
}

pub(crate) fn name_ok(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
}

/// An `http(s)://` URL without a trailing slash, query or fragment.
pub(crate) fn base_url(var: &str, value: &str) -> Result<String, ContextError> {
    let v = value.trim().trim_end_matches('/');
    let lower = v.to_ascii_lowercase();
    let ok = (lower.starts_with("https://") || lower.starts_with("http://"))
        && !v.contains(['?', '#', ' '])
        && v.split("://").nth(1).is_some_and(|rest| !rest.is_empty());
    if ok {
        Ok(v.to_string())
    } else {
        Err(ContextError::Invalid {
            var: var.to_string(),
            reason: "expected an http(s) URL".into(),
        })
    }
}

/// `https://api.github.com/graphql`; on GitHub Enterprise Server the REST
/// API is `…/api/v3` and GraphQL `…/api/graphql`.
fn graphql_from_api(api: &str) -> String {
    match api.strip_suffix("/api/v3") {
        Some(host) => format!("{host}/api/graphql"),
        None => format!("{api}/graphql"),
    }
}

fn read_event(path: &str) -> Result<String, ContextError> {
    crit_core::files::read_to_string(Path::new(path)).map_err(|e| ContextError::Event {
        path: path.to_string(),
        reason: e.to_string(),
    })
}

fn parse_event(env: &Env, event: &str) -> Result<Value, ContextError> {
    serde_json::from_str(event).map_err(|e| ContextError::Event {
        path: env.get("GITHUB_EVENT_PATH").unwrap_or("").to_string(),
        reason: format!("not JSON: {e}"),
    })
}

/// A commit id as an event gives it.
fn sha_at(v: &Value, pointer: &str) -> Option<String> {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .filter(|s| s.len() >= 7 && s.len() <= 64 && s.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(str::to_string)
}

/// The head commit `event` gives for pull request `number`: its own on a
/// pull request event about it, the reviewed run's on a `workflow_run`.
fn head_for(event: &Value, number: u64) -> Option<String> {
    if let Some(run) = event.get("workflow_run").filter(|r| r.is_object()) {
        return sha_at(run, "/head_sha");
    }
    match pull_of(event) {
        Ok((n, head)) if n == number => head,
        _ => None,
    }
}

/// The pull request's number and head commit from an event: a
/// `pull_request`/`pull_request_target` event, or a comment on one.
fn pull_of(event: &Value) -> Result<(u64, Option<String>), ContextError> {
    if let Some(pr) = event.get("pull_request").filter(|p| p.is_object()) {
        let number = pr
            .get("number")
            .or_else(|| event.get("number"))
            .and_then(Value::as_u64)
            .ok_or(ContextError::NotAPullRequest)?;
        return Ok((number, sha_at(pr, "/head/sha")));
    }
    let issue = event.get("issue").ok_or(ContextError::NotAPullRequest)?;
    if issue.get("pull_request").is_none_or(Value::is_null) {
        return Err(ContextError::NotAPullRequest);
    }
    let number = issue
        .get("number")
        .and_then(Value::as_u64)
        .ok_or(ContextError::NotAPullRequest)?;
    Ok((number, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Env {
        Env::from_pairs([
            ("GITHUB_REPOSITORY", "octo-org/hello-world"),
            ("GITHUB_API_URL", "https://ghe.example/api/v3/"),
            ("GITHUB_TOKEN", "ghs_abcdefgh12345678"),
            ("GITHUB_EVENT_PATH", "/x/event.json"),
        ])
    }

    const PR_EVENT: &str = r#"{"action":"synchronize","number":7,"pull_request":{"number":7,"head":{"sha":"0123456789abcdef0123456789abcdef01234567"}}}"#;

    #[test]
    fn a_pull_request_event() {
        let ctx = GithubContext::from_event(&env(), None, PR_EVENT).unwrap();
        assert_eq!(
            (ctx.owner.as_str(), ctx.repo.as_str(), ctx.number),
            ("octo-org", "hello-world", 7)
        );
        assert_eq!(
            ctx.head_sha.as_deref(),
            Some("0123456789abcdef0123456789abcdef01234567")
        );
        assert_eq!(ctx.api_url, "https://ghe.example/api/v3");
        assert_eq!(ctx.graphql_url, "https://ghe.example/api/graphql");
        assert_eq!(ctx.token.expose(), "ghs_abcdefgh12345678");
        assert!(!format!("{ctx:?}").contains("ghs_abcdefgh12345678"));
    }

    #[test]
    fn a_comment_on_a_pull_request() {
        let event = r#"{"issue":{"number":9,"pull_request":{"url":"x"}},"comment":{"body":"hi"}}"#;
        let ctx = GithubContext::from_event(&env(), None, event).unwrap();
        assert_eq!((ctx.number, ctx.head_sha), (9, None));
        let issue = r#"{"issue":{"number":9},"comment":{"body":"hi"}}"#;
        assert_eq!(
            GithubContext::from_event(&env(), None, issue).unwrap_err(),
            ContextError::NotAPullRequest
        );
        assert_eq!(
            GithubContext::from_event(&env(), None, r#"{"ref":"refs/heads/main"}"#).unwrap_err(),
            ContextError::NotAPullRequest
        );
    }

    #[test]
    fn what_is_missing_is_named() {
        let named = GithubContext::from_event(&env(), Some("CRIT_TOKEN"), PR_EVENT).unwrap_err();
        assert!(
            matches!(&named, ContextError::Missing { var, .. } if var == "CRIT_TOKEN"),
            "{named}"
        );
        let mut e = env();
        e.remove("GITHUB_REPOSITORY");
        assert!(
            GithubContext::from_event(&e, None, PR_EVENT)
                .unwrap_err()
                .to_string()
                .starts_with("GITHUB_REPOSITORY is not set")
        );
        let e = env().with("GITHUB_REPOSITORY", "no-slash");
        assert!(matches!(
            GithubContext::from_event(&e, None, PR_EVENT),
            Err(ContextError::Invalid { .. })
        ));
        let e = env().with("GITHUB_API_URL", "file:///etc");
        assert!(matches!(
            GithubContext::from_event(&e, None, PR_EVENT),
            Err(ContextError::Invalid { .. })
        ));
        let e = env().with("GITHUB_TOKEN", "two words");
        let err = GithubContext::from_event(&e, None, PR_EVENT)
            .unwrap_err()
            .to_string();
        assert!(!err.contains("two words"), "{err}");
        assert!(GithubContext::from_event(&env(), None, "not json").is_err());
        let missing_file = GithubContext::from_env(
            &env().with("GITHUB_EVENT_PATH", "/nonexistent/crit-event.json"),
            None,
        );
        assert!(matches!(missing_file, Err(ContextError::Event { .. })));
    }

    #[test]
    fn a_pull_request_named_by_the_caller() {
        // The fork-safe posting job: a workflow_run event, the number from the review's artifact.
        let run = r#"{"action":"completed","workflow_run":{"event":"pull_request","head_sha":"89abcdef89abcdef89abcdef89abcdef89abcdef","pull_requests":[]}}"#;
        let dir = std::env::temp_dir().join(format!("crit-post-ctx-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("event.json");
        std::fs::write(&path, run).unwrap();
        let e = env().with("GITHUB_EVENT_PATH", path.display().to_string());
        let ctx = GithubContext::for_pull_request(&e, None, 12).unwrap();
        assert_eq!(ctx.number, 12);
        assert_eq!(
            ctx.head_sha.as_deref(),
            Some("89abcdef89abcdef89abcdef89abcdef89abcdef")
        );
        assert!(matches!(
            GithubContext::from_env(&e, None),
            Err(ContextError::NotAPullRequest)
        ));
        // A pull request event about another pull request lends no head.
        std::fs::write(&path, PR_EVENT).unwrap();
        let other = GithubContext::for_pull_request(&e, None, 8).unwrap();
        assert_eq!((other.number, other.head_sha), (8, None));
        let same = GithubContext::for_pull_request(&e, None, 7).unwrap();
        assert!(same.head_sha.is_some());
        // No event file: the poster asks the API for the head.
        let mut none = env();
        none.remove("GITHUB_EVENT_PATH");
        let ctx = GithubContext::for_pull_request(&none, None, 3).unwrap();
        assert_eq!((ctx.number, ctx.head_sha), (3, None));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn default_urls() {
        let mut e = env();
        e.remove("GITHUB_API_URL");
        let ctx = GithubContext::from_event(&e, None, PR_EVENT).unwrap();
        assert_eq!(ctx.api_url, "https://api.github.com");
        assert_eq!(ctx.graphql_url, "https://api.github.com/graphql");
    }

    #[test]
    fn gitlab_ci() {
        let e = Env::from_pairs([
            ("CI_API_V4_URL", "https://gitlab.example/api/v4"),
            ("CI_PROJECT_ID", "4242"),
            ("CI_MERGE_REQUEST_IID", "3"),
            ("GITLAB_TOKEN", "glpat-abcdefgh1234"),
        ]);
        let ctx = GitlabContext::from_env(&e, None).unwrap();
        assert_eq!((ctx.project.as_str(), ctx.iid), ("4242", 3));
        let mut no_mr = e.clone();
        no_mr.remove("CI_MERGE_REQUEST_IID");
        let err = GitlabContext::from_env(&no_mr, None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("merge request pipelines"), "{err}");
        let bad = e.clone().with("CI_PROJECT_ID", "../../x?y");
        assert!(GitlabContext::from_env(&bad, None).is_err());
        assert!(GitlabContext::from_env(&e, Some("MY_TOKEN")).is_err());
    }
}
