//! What can go wrong while posting, as typed errors with a way out in
//! their words. None of them holds the token: every text a server sent is
//! cleaned of it and of control characters before it is kept.

use std::time::Duration;

/// Which forge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum ForgeKind {
    /// A GitHub pull request, from the GitHub Actions environment
    Github,
    /// A GitLab merge request, from the GitLab CI environment
    Gitlab,
}

impl ForgeKind {
    /// Its name on crit's command line (`--post github`) and in its logs.
    pub fn name(self) -> &'static str {
        match self {
            ForgeKind::Github => "github",
            ForgeKind::Gitlab => "gitlab",
        }
    }

    /// A pull or merge request, as people on this forge write it
    /// (`pull request #12`, `merge request !12`).
    pub fn request(self, number: u64) -> String {
        match self {
            ForgeKind::Github => format!("pull request #{number}"),
            ForgeKind::Gitlab => format!("merge request !{number}"),
        }
    }
}

impl std::fmt::Display for ForgeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ForgeKind::Github => "GitHub",
            ForgeKind::Gitlab => "GitLab",
        })
    }
}

/// The environment does not say where to post.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContextError {
    #[error("{var} is not set: {hint}")]
    Missing { var: String, hint: &'static str },
    #[error("{var} is not usable: {reason}")]
    Invalid { var: String, reason: String },
    #[error("the event in GITHUB_EVENT_PATH ({path}) cannot be read: {reason}")]
    Event { path: String, reason: String },
    #[error(
        "the event in GITHUB_EVENT_PATH is not about a pull request, so there is nothing to post to (crit posts on `pull_request`, `pull_request_target` and pull-request comment events)"
    )]
    NotAPullRequest,
}

/// Posting failed.
#[derive(Debug, thiserror::Error)]
pub enum PostError {
    #[error(transparent)]
    Context(#[from] ContextError),
    /// 401, 403 or 404: the token may not do this (or cannot see it).
    #[error("{forge} refused to let crit {action} ({status}: {message}): {hint}")]
    Permission {
        forge: ForgeKind,
        status: u16,
        action: String,
        message: String,
        hint: String,
    },
    /// The forge asked for a longer wait than the run has left.
    #[error(
        "{forge}'s rate limit: it asked crit to wait {wait:.0?} before it may {action}, more than the {left:.0?} left of the {limit:.0?} crit waits in one run"
    )]
    RateLimited {
        forge: ForgeKind,
        action: String,
        wait: Duration,
        left: Duration,
        limit: Duration,
    },
    /// Any other answer that is not a success.
    #[error("{forge} answered {status} when crit tried to {action}: {message}")]
    Rejected {
        forge: ForgeKind,
        status: u16,
        action: String,
        message: String,
    },
    #[error("crit cannot reach {forge} to {action}: {message}")]
    Network {
        forge: ForgeKind,
        action: String,
        message: String,
    },
    /// An answer crit cannot read (not JSON, not the documented shape).
    #[error(
        "{forge}'s answer when crit tried to {action} is not what its API documents: {message}"
    )]
    Protocol {
        forge: ForgeKind,
        action: String,
        message: String,
    },
    /// The HTTP client could not be set up.
    #[error("cannot set up the HTTP client: {0}")]
    Setup(String),
    /// Something this forge does not do.
    #[error("{forge} does not support {what}")]
    Unsupported {
        forge: ForgeKind,
        what: &'static str,
    },
}

impl PostError {
    /// The token lacks a permission (or the pull request is out of its
    /// reach): a configuration to change, not a run to retry.
    pub fn is_permission(&self) -> bool {
        matches!(self, PostError::Permission { .. })
    }

    /// A server error or a lost connection: the write may or may not have
    /// been done, and sending it again (after checking) may work.
    pub fn is_transient(&self) -> bool {
        matches!(self, PostError::Rejected { status, .. } if *status >= 500)
            || matches!(self, PostError::Network { .. })
    }
}

/// What to do about a refusal, per forge and status.
pub(crate) fn permission_hint(forge: ForgeKind, status: u16, token_source: &str) -> String {
    match (forge, status) {
        (_, 401) => format!(
            "the token from {token_source} was not accepted (expired, revoked or mistyped?)"
        ),
        (ForgeKind::Github, 403) => "the workflow's token needs `permissions: pull-requests: write` and `issues: write`; a pull request from a fork only gets a read-only token, so save the result in the review job and post it from a job that has write access".to_string(),
        (ForgeKind::Github, _) => format!(
            "the repository or pull request does not exist, or the token from {token_source} cannot see it"
        ),
        (ForgeKind::Gitlab, 403) => "the token needs the `api` scope and at least the Developer role in the project to comment on merge requests".to_string(),
        (ForgeKind::Gitlab, _) => format!(
            "the project or merge request does not exist, or the token from {token_source} cannot see it"
        ),
    }
}

/// A server's words, fit to keep: without the token, without control
/// characters, one line, at most 300 characters.
pub(crate) fn server_words(text: &str, secret: &str) -> String {
    let text = crate::http::scrub(text, secret);
    let clean = crit_core::terminal::sanitize(&text);
    let one: String = clean.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = one.chars().take(300).collect();
    if one.chars().count() > 300 {
        out.push('…');
    }
    out
}
