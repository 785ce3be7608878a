//! Posting a review result to a pull or merge request.
//!
//! One run of [`GithubPoster::post`] (or [`GitlabPoster::post`]):
//! - puts each finding on the line of the diff it is about, as one
//!   pull-request review with every inline comment batched (GitLab: one
//!   discussion per comment, positioned on the line), with a committable
//!   suggestion when the finding carries one that applies;
//! - posts nothing for a finding it already commented on (the finding's
//!   fingerprint rides in the comment as a hidden marker), and marks the
//!   comments whose findings are gone as resolved (the comment is edited;
//!   the review thread or discussion is resolved when the token may);
//! - keeps at most `max_comments` inline comments, most severe first;
//! - writes one summary comment (verdict, counts, coverage, cost, the
//!   findings not on a line, what was dismissed and why), edited in place
//!   on every later run;
//! - honours rate limits within a bounded wait, and returns a typed error
//!   when the token may not write ([`PostError::is_permission`]): the caller
//!   still has the result to write.
//!
//! Every text a model or the repository wrote is made inert for markdown
//! first ([`inert`]), and the token is in nothing crit-post returns,
//! formats or sends but the one `Authorization` header.
//!
//! [`update_description`] / the posters' `describe` keep a section of the
//! pull request's description that crit owns, leaving the author's text.

// A library never writes to the terminal: what it has to say goes to its caller.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![warn(unreachable_pub)]

mod answering;
mod comment;
mod context;
mod describe;
mod destination;
mod diff;
mod error;
mod failure;
mod forge;
mod github;
mod github_threads;
mod github_write;
mod gitlab;
mod gitlab_versions;
mod gitlab_write;
mod http;
pub mod inert;
mod marker;
mod pace;
mod plan;
mod repository;
mod repository_github;
mod repository_gitlab;
mod respond;
mod respond_catchup;
mod respond_github;
mod respond_gitlab;
mod revision;
mod since;
mod summary;

pub use answering::{Pending, Responder, Rules, Waiting};
pub use context::{GithubContext, GitlabContext};
pub use destination::{Choice, Destination, DestinationError};
pub use error::{ContextError, ForgeKind, PostError};
pub use github::GithubPoster;
pub use gitlab::GitlabPoster;
pub use http::Stats;
pub use pace::{Pacer, Patience, RealTime, Sleep};
pub use plan::Elsewhere;
pub use repository::{BaseFile, Change, Proposed, Repository};
pub use respond::{Command, Heard, Said, asks, command, disputes};
pub use respond_catchup::{Remembered, dismissal_marker};
pub use respond_github::{Reacted, inert_text, not_allowed};
pub use since::{LastReview, Since};

/// Most inline comments crit keeps open when not told otherwise: a review
/// with more is read in its summary, not in a wall of comments.
pub const DEFAULT_MAX_COMMENTS: usize = 30;

/// How to post.
#[derive(Debug, Clone, Default)]
pub struct PostOptions {
    /// Most inline comments crit keeps open on the pull request (those of
    /// earlier runs still reported count); the rest are listed in the
    /// summary. Most severe first. `None`: [`DEFAULT_MAX_COMMENTS`].
    pub max_comments: Option<usize>,
    /// The account whose earlier comments are crit's. `None`: asked of the
    /// API; a GitHub installation token (a workflow's or an App's), which
    /// cannot ask, takes the account its summary recorded (by that same
    /// account), else `github-actions[bot]` until its first comment says
    /// who it is. Comments by anyone else are never taken for crit's,
    /// whatever markers they hold.
    pub author: Option<String>,
    /// Keeps two crit posters on one pull request apart (their markers
    /// differ); `[A-Za-z0-9._-]`.
    pub scope: Option<String>,
    /// `None`: the forge's default ([`Patience::github`], [`Patience::gitlab`]).
    pub patience: Option<Patience>,
}

/// What one run did.
#[derive(Debug, Clone, PartialEq)]
pub struct PostReport {
    pub forge: ForgeKind,
    /// Inline comments posted by this run.
    pub inline_posted: usize,
    /// Inline comments of earlier runs whose findings are still reported.
    pub inline_kept: usize,
    /// Earlier comments marked resolved (their findings are gone).
    pub resolved: usize,
    /// Review threads (GitHub) or discussions (GitLab) resolved.
    pub threads_resolved: usize,
    /// Findings listed in the summary instead of on a line, and why.
    pub in_summary: Vec<(String, Elsewhere)>,
    /// The summary comment's web address, when the forge gave one.
    pub summary_url: Option<String>,
    /// True when the summary was new; false when an earlier one was edited.
    pub summary_created: bool,
    /// What went less well than asked without failing the run.
    pub notes: Vec<String>,
    /// Writes that still failed after their retries (the rest was sent):
    /// the run did not post everything, and says so with exit 3.
    pub failed: Vec<String>,
    /// The summary's text when it could not be posted (a CI job can still
    /// show it, e.g. in its step summary).
    pub unposted_summary: Option<String>,
    pub stats: Stats,
}

impl PostReport {
    /// Everything was posted.
    pub fn complete(&self) -> bool {
        self.failed.is_empty() && self.unposted_summary.is_none()
    }
}

/// What writing crit's section of the description did.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeReport {
    /// False when the section already read the same (nothing was sent).
    pub changed: bool,
    pub stats: Stats,
}

/// `body` with crit's section between its markers set to `section`,
/// leaving the author's text around it alone; idempotent. `section` is
/// markdown a model wrote: its structure is kept, anything that acts (HTML,
/// mentions, remote images, quick actions) is made inert.
pub fn update_description(body: &str, section: &str, scope: Option<&str>) -> String {
    describe::update_body(body, section, &marker::Markers::new(scope))
}
