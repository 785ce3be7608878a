//! Where to post, chosen once from the CI environment for every front end
//! (the command line, Python): which forge, which pull or merge request,
//! which token, as whom. A missing variable is an error before any review
//! spends a token.

use std::path::PathBuf;
use std::sync::Arc;

use crit_core::ReviewResult;
use crit_core::redact::Redactor;
use crit_llm::Env;

use crate::answering::Responder;
use crate::error::{ContextError, ForgeKind, PostError};
use crate::pace::{Pacer, RealTime};
use crate::since::LastReview;
use crate::{DescribeReport, GithubContext, GithubPoster, GitlabContext, GitlabPoster};
use crate::{PostOptions, PostReport};

/// The variable naming the pull request when the event does not (the
/// fork-safe pattern's posting job).
const PULL_REQUEST_VAR: &str = "CRIT_PULL_REQUEST";

/// The variable naming the GitHub account crit posts as.
const GITHUB_LOGIN_VAR: &str = "CRIT_GITHUB_LOGIN";

/// What the caller chose beyond the environment.
#[derive(Debug, Clone, Default)]
pub struct Choice {
    /// The variable holding the token [default: `GITHUB_TOKEN` or
    /// `GITLAB_TOKEN`].
    pub token_var: Option<String>,
    /// GitHub: the pull request, when the event does not name one [else
    /// `CRIT_PULL_REQUEST`].
    pub pull_request: Option<u64>,
    /// GitHub: the account crit's comments are by, when its token cannot
    /// say [else `CRIT_GITHUB_LOGIN`].
    pub github_login: Option<String>,
    /// Most inline comments kept open [default: 30].
    pub max_comments: Option<usize>,
}

/// The environment and the choice do not make a place to post.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DestinationError {
    #[error(transparent)]
    Context(#[from] ContextError),
    #[error("{what} is for GitHub; {instead}")]
    GithubOnly {
        what: &'static str,
        instead: &'static str,
    },
    #[error("{from} is not a pull request number: {value}")]
    PullRequest { from: &'static str, value: String },
    #[error("pull request 0 does not exist; pull requests are numbered from 1")]
    PullRequestZero,
    #[error("{from} is not a GitHub account's name: {value}")]
    Login { from: &'static str, value: String },
}

#[derive(Debug, Clone)]
enum Target {
    Github(GithubContext),
    Gitlab(GitlabContext),
}

/// A pull or merge request to post to, the token to post with, and how.
#[derive(Clone)]
pub struct Destination {
    target: Target,
    options: PostOptions,
    /// `GITHUB_STEP_SUMMARY`: where a summary that could not be posted goes.
    step_summary: Option<PathBuf>,
    /// In GitHub Actions (`GITHUB_ACTIONS=true`).
    actions: bool,
    pacer: Arc<dyn Pacer>,
}

impl Destination {
    /// The pull (GitHub Actions) or merge (GitLab CI) request `forge`'s CI
    /// environment in `env` names. From here on the token is one of the
    /// secrets crit redacts from everything it prints and writes.
    pub fn from_env(
        env: &Env,
        forge: ForgeKind,
        choice: &Choice,
    ) -> Result<Self, DestinationError> {
        let var = choice.token_var.as_deref();
        let target = match forge {
            ForgeKind::Github => {
                let ctx = match pull_request(env, choice)? {
                    Some(n) => GithubContext::for_pull_request(env, var, n),
                    None => GithubContext::from_env(env, var),
                }?;
                Target::Github(ctx)
            }
            ForgeKind::Gitlab => {
                if choice.pull_request.is_some() {
                    return Err(DestinationError::GithubOnly {
                        what: "a pull request number",
                        instead: "on GitLab the merge request is CI_MERGE_REQUEST_IID",
                    });
                }
                if choice.github_login.is_some() {
                    return Err(DestinationError::GithubOnly {
                        what: "the account to post as",
                        instead: "on GitLab crit asks the API who its token is",
                    });
                }
                Target::Gitlab(GitlabContext::from_env(env, var)?)
            }
        };
        let author = match forge {
            ForgeKind::Github => github_login(env, choice)?,
            ForgeKind::Gitlab => None,
        };
        let dest = Destination {
            target,
            options: PostOptions {
                max_comments: choice.max_comments,
                author,
                ..PostOptions::default()
            },
            step_summary: env.non_empty("GITHUB_STEP_SUMMARY").map(PathBuf::from),
            actions: env.non_empty("GITHUB_ACTIONS") == Some("true"),
            pacer: Arc::new(RealTime),
        };
        dest.teach(Redactor::process());
        Ok(dest)
    }

    /// With the clock and sleep to wait with (tests: waits without sleeping).
    pub fn with_pacer(mut self, pacer: Arc<dyn Pacer>) -> Self {
        self.pacer = pacer;
        self
    }

    pub fn forge(&self) -> ForgeKind {
        match &self.target {
            Target::Github(_) => ForgeKind::Github,
            Target::Gitlab(_) => ForgeKind::Gitlab,
        }
    }

    /// Has `redactor` redact the token (a review's own redactor, so that
    /// not even a reviewed file holding it shows it to the model).
    pub fn teach(&self, redactor: &Redactor) {
        let token = match &self.target {
            Target::Github(c) => c.token.expose(),
            Target::Gitlab(c) => c.token.expose(),
        };
        redactor.learn(token, "forge-token");
    }

    /// The pull or merge request, in words.
    pub fn place(&self) -> String {
        match &self.target {
            Target::Github(c) => format!("GitHub pull request #{}", c.number),
            Target::Gitlab(c) => format!("GitLab merge request !{}", c.iid),
        }
    }

    /// `GITHUB_STEP_SUMMARY`, where a summary that could not be posted may
    /// still be shown.
    pub fn step_summary(&self) -> Option<&std::path::Path> {
        self.step_summary.as_deref()
    }

    /// Running in GitHub Actions, whose log turns `::error` lines into
    /// annotations.
    pub fn in_actions(&self) -> bool {
        self.actions
    }

    /// Posts `result`: see the crate's documentation for what one run does.
    pub async fn post(&self, result: &ReviewResult) -> Result<PostReport, PostError> {
        match &self.target {
            Target::Github(ctx) => self.github(ctx)?.post(result).await,
            Target::Gitlab(ctx) => self.gitlab(ctx)?.post(result).await,
        }
    }

    /// Writes `section` into crit's part of the request's description,
    /// leaving the author's text alone.
    pub async fn describe(&self, section: &str) -> Result<DescribeReport, PostError> {
        match &self.target {
            Target::Github(ctx) => self.github(ctx)?.describe(section).await,
            Target::Gitlab(ctx) => self.gitlab(ctx)?.describe(section).await,
        }
    }

    /// What crit's own summary there records of the last review.
    pub async fn last_review(&self) -> Result<Option<LastReview>, PostError> {
        match &self.target {
            Target::Github(ctx) => self.github(ctx)?.last_review().await,
            Target::Gitlab(ctx) => self.gitlab(ctx)?.last_review().await,
        }
    }

    /// What answers the comments on the pull or merge request.
    pub fn responder(&self) -> Result<Responder, PostError> {
        Ok(match &self.target {
            Target::Github(ctx) => Responder::Github(self.github(ctx)?),
            Target::Gitlab(ctx) => Responder::Gitlab(self.gitlab(ctx)?),
        })
    }

    fn github(&self, ctx: &GithubContext) -> Result<GithubPoster, PostError> {
        GithubPoster::with_pacer(ctx.clone(), self.options.clone(), self.pacer.clone())
    }

    fn gitlab(&self, ctx: &GitlabContext) -> Result<GitlabPoster, PostError> {
        GitlabPoster::with_pacer(ctx.clone(), self.options.clone(), self.pacer.clone())
    }
}

impl std::fmt::Debug for Destination {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Destination")
            .field("target", &self.target)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// The pull request asked for, else `CRIT_PULL_REQUEST`.
fn pull_request(env: &Env, choice: &Choice) -> Result<Option<u64>, DestinationError> {
    let n = match (choice.pull_request, env.non_empty(PULL_REQUEST_VAR)) {
        (Some(n), _) => n,
        (None, Some(v)) => v
            .trim()
            .parse::<u64>()
            .map_err(|_| DestinationError::PullRequest {
                from: PULL_REQUEST_VAR,
                value: v.to_string(),
            })?,
        (None, None) => return Ok(None),
    };
    match n {
        0 => Err(DestinationError::PullRequestZero),
        n => Ok(Some(n)),
    }
}

/// The account asked for, else `CRIT_GITHUB_LOGIN`: a GitHub account's name.
fn github_login(env: &Env, choice: &Choice) -> Result<Option<String>, DestinationError> {
    let (given, from) = match (&choice.github_login, env.non_empty(GITHUB_LOGIN_VAR)) {
        (Some(l), _) => (l.trim().to_string(), "the account to post as"),
        (None, Some(l)) => (l.trim().to_string(), GITHUB_LOGIN_VAR),
        (None, None) => return Ok(None),
    };
    let name = given.strip_suffix("[bot]").unwrap_or(&given);
    let ok = !name.is_empty()
        && name.len() <= 100
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    match ok {
        true => Ok(Some(given)),
        false => Err(DestinationError::Login { from, value: given }),
    }
}
