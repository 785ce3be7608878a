//! A repository to propose a change to, rather than a request to post on:
//! `crit learn --post` reads a file from the default branch and opens (or
//! updates) a pull or merge request from a branch of crit's own that holds
//! the file's new text. The branch is always one commit on the default
//! branch's head, so a second run updates the same branch and the same
//! request instead of opening another.

use std::sync::Arc;

use base64::Engine;
use crit_llm::{Env, Secret};
use serde_json::Value;

use crate::context::{GithubRepository, base_url, required, token};
use crate::destination::DestinationError;
use crate::error::{ContextError, ForgeKind, PostError};
use crate::http::{Api, Stats};
use crate::pace::{Pacer, RealTime};

/// One file's new text, proposed from `branch`.
#[derive(Debug, Clone)]
pub struct Change {
    /// crit's branch (`crit/learnings`).
    pub branch: String,
    /// The file, relative to the repository's root.
    pub path: String,
    pub text: String,
    pub title: String,
    /// The request's description: markdown crit wrote; anything from the
    /// team goes through [`crate::inert`] first.
    pub body: String,
    pub message: String,
}

/// A file as the default branch holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct BaseFile {
    /// The default branch's name.
    pub branch: String,
    /// Its head commit.
    pub commit: String,
    /// The file's text; `None` when the branch has no such file.
    pub text: Option<String>,
}

/// What proposing did.
#[derive(Debug, Clone, PartialEq)]
pub struct Proposed {
    /// The pull request's number, the merge request's iid.
    pub number: u64,
    pub url: Option<String>,
    /// A new request; false: an open one from the branch was updated.
    pub created: bool,
    /// The branch got a new commit; false: it already held this text on
    /// the default branch's head.
    pub branch_changed: bool,
    pub stats: Stats,
}

#[derive(Debug, Clone)]
pub(crate) enum Target {
    Github {
        api_url: String,
        owner: String,
        repo: String,
    },
    Gitlab {
        api_url: String,
        project: String,
    },
}

/// A repository on a forge, and the token to write to it with.
#[derive(Clone)]
pub struct Repository {
    pub(crate) target: Target,
    token: Secret,
    token_source: String,
    pacer: Arc<dyn Pacer>,
}

impl std::fmt::Debug for Repository {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repository")
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

impl Repository {
    /// The repository `forge`'s CI environment in `env` names: GitHub's
    /// `GITHUB_REPOSITORY` and `GITHUB_API_URL`, GitLab's `CI_API_V4_URL`
    /// and `CI_PROJECT_ID`; the token in `token_var` (`GITHUB_TOKEN` or
    /// `GITLAB_TOKEN` when `None`). Any event will do: no pull or merge
    /// request is needed.
    pub fn from_env(
        env: &Env,
        forge: ForgeKind,
        token_var: Option<&str>,
    ) -> Result<Self, DestinationError> {
        let (target, (token, token_source)) = match forge {
            ForgeKind::Github => {
                let GithubRepository {
                    owner,
                    repo,
                    api_url,
                } = GithubRepository::from_env(env)?;
                let target = Target::Github {
                    api_url,
                    owner,
                    repo,
                };
                let t = token(
                    env,
                    token_var.unwrap_or("GITHUB_TOKEN"),
                    "give the job a token that may push a branch and open a pull request (`permissions: contents: write, pull-requests: write`), or name the variable holding one",
                )?;
                (target, t)
            }
            ForgeKind::Gitlab => {
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
                    }
                    .into());
                }
                let target = Target::Gitlab {
                    api_url: base_url("CI_API_V4_URL", api)?,
                    project: project.to_string(),
                };
                let t = token(
                    env,
                    token_var.unwrap_or("GITLAB_TOKEN"),
                    "store a project access token (scope `api`, role Developer) as a masked CI/CD variable, or name the variable holding one",
                )?;
                (target, t)
            }
        };
        crit_core::redact::Redactor::process().learn(token.expose(), "forge-token");
        Ok(Repository {
            target,
            token,
            token_source,
            pacer: Arc::new(RealTime),
        })
    }

    /// With the clock and sleep to wait with (tests: waits without sleeping).
    pub fn with_pacer(mut self, pacer: Arc<dyn Pacer>) -> Self {
        self.pacer = pacer;
        self
    }

    pub fn forge(&self) -> ForgeKind {
        match &self.target {
            Target::Github { .. } => ForgeKind::Github,
            Target::Gitlab { .. } => ForgeKind::Gitlab,
        }
    }

    /// The repository, in words.
    pub fn place(&self) -> String {
        match &self.target {
            Target::Github { owner, repo, .. } => format!("GitHub repository {owner}/{repo}"),
            Target::Gitlab { project, .. } => format!("GitLab project {project}"),
        }
    }

    /// `path` as the default branch holds it.
    pub async fn read(&self, path: &str) -> Result<BaseFile, PostError> {
        let mut api = self.api()?;
        match &self.target {
            Target::Github { owner, repo, .. } => {
                crate::repository_github::read(&mut api, &format!("/repos/{owner}/{repo}"), path)
                    .await
            }
            Target::Gitlab { project, .. } => {
                crate::repository_gitlab::read(&mut api, &format!("/projects/{project}"), path)
                    .await
            }
        }
    }

    /// Puts `change` on its branch as one commit on `base` (unless the
    /// branch already holds exactly that) and opens a request from it to the
    /// default branch, or updates the open one.
    pub async fn propose(&self, base: &BaseFile, change: &Change) -> Result<Proposed, PostError> {
        let mut api = self.api()?;
        let mut done = match &self.target {
            Target::Github { owner, repo, .. } => {
                let at = format!("/repos/{owner}/{repo}");
                crate::repository_github::propose(&mut api, &at, owner, base, change).await?
            }
            Target::Gitlab { project, .. } => {
                let at = format!("/projects/{project}");
                crate::repository_gitlab::propose(&mut api, &at, base, change).await?
            }
        };
        done.stats = api.stats.clone();
        Ok(done)
    }

    fn api(&self) -> Result<Api, PostError> {
        let base = match &self.target {
            Target::Github { api_url, .. } | Target::Gitlab { api_url, .. } => api_url,
        };
        Api::new(
            self.forge(),
            base,
            self.token.clone(),
            &self.token_source,
            self.pacer.clone(),
            None,
        )
    }
}

/// The forge said there is no such thing (a branch, a file).
pub(crate) fn is_not_found(e: &PostError) -> bool {
    matches!(
        e,
        PostError::Permission { status: 404, .. } | PostError::Rejected { status: 404, .. }
    )
}

/// A string field of an answer, or the protocol error naming it.
pub(crate) fn field(
    api: &Api,
    v: &Value,
    pointer: &str,
    action: &str,
) -> Result<String, PostError> {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| api.protocol(action, &format!("the answer has no {pointer}")))
}

/// A file's text from the base64 the forges' file APIs answer with.
pub(crate) fn decoded(api: &Api, content: &str, action: &str) -> Result<String, PostError> {
    let compact: String = content.chars().filter(|c| !c.is_whitespace()).collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(compact.as_bytes())
        .map_err(|_| api.protocol(action, "the file's content is not base64"))?;
    String::from_utf8(bytes).map_err(|_| api.protocol(action, "the file is not UTF-8 text"))
}

/// `s` as one path segment: everything but unreserved characters (and `/`
/// when `keep_slash`) percent-encoded.
pub(crate) fn segment(s: &str, keep_slash: bool) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) || (keep_slash && b == b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
