//! A stand-in for GitHub's REST API (v3) and the two GraphQL operations a
//! review poster uses: pull requests, their files, reviews with batched
//! inline comments, review comments, issue comments, the authenticated user,
//! and review threads (listed and resolved through GraphQL).
//!
//! Faithful where a client can get it wrong: a review without `event` stays
//! PENDING (its comments are not shown); an inline comment on a line the
//! diff does not show fails the whole review with 422 "Line could not be
//! resolved"; a multi-line comment must stay within one hunk; bodies over
//! 65,536 characters are 422; lists are paginated (`per_page`, `page`, a
//! `Link` header); a workflow token's `GET /user` is 403 (an App's
//! installation token too: its comments are by `NAME[bot]`); GraphQL
//! reports a refused mutation as `errors` with status 200. A review may name
//! an earlier commit of the pull request (`commit_id`): its comments are
//! checked against that commit's diff. After a push, a comment whose line
//! the new diff no longer shows with the same text is outdated: `line` and
//! `start_line` are `null`, `original_line` keeps where it was. Comparing two
//! commits (`GET /compare/A...B`) answers the base and any commit of the pull
//! request, and the comparisons a test adds.

use std::collections::BTreeMap;

use serde_json::{Value, json};

mod compare;
mod conversation;
mod git;
mod graphql;
mod rest;
mod shapes;

use super::{Access, ChangedFile, Fault, ForgeRequest};

/// The repository, the token and what it may do.
#[derive(Debug, Clone)]
pub struct GithubConfig {
    pub owner: String,
    pub repo: String,
    pub token: String,
    /// Who the token acts as: `github-actions[bot]` for a workflow's token.
    pub login: String,
    /// `GET /user` answers (a personal token); false: 403, as for a
    /// workflow's or an app's installation token.
    pub user_endpoint: bool,
    /// GraphQL `resolveReviewThread` is allowed.
    pub can_resolve_threads: bool,
    pub access: Access,
}

impl Default for GithubConfig {
    fn default() -> Self {
        GithubConfig {
            owner: "octo-org".into(),
            repo: "hello-world".into(),
            token: "ghs_standInToken0123456789abcdefABCDEF".into(),
            login: "github-actions[bot]".into(),
            user_endpoint: false,
            can_resolve_threads: true,
            access: Access::Write,
        }
    }
}

/// A pull request to serve.
#[derive(Debug, Clone)]
pub struct PullSpec {
    pub number: u64,
    pub title: String,
    pub body: Option<String>,
    pub head_sha: String,
    pub base_sha: String,
    pub files: Vec<ChangedFile>,
}

/// The stand-in server. Stops when dropped.
pub struct GithubServer {
    served: super::Served<Github>,
}

impl std::fmt::Debug for GithubServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GithubServer")
            .field("url", &self.url())
            .finish_non_exhaustive()
    }
}

impl GithubServer {
    /// Starts serving on `127.0.0.1`. Panics if it cannot (a test cannot go
    /// on without it).
    pub fn start(config: GithubConfig) -> Self {
        let token = config.token.clone();
        let access = config.access;
        let served = super::Served::start(&token, access, |base| Github {
            cfg: config,
            base: base.to_string(),
            pulls: BTreeMap::new(),
            compares: BTreeMap::new(),
            next_id: 1_000_001,
            events: 0,
            associations: BTreeMap::new(),
            reactions: BTreeMap::new(),
            repo: super::repo::Repo::new(),
        });
        GithubServer { served }
    }

    /// `GITHUB_API_URL`.
    pub fn url(&self) -> String {
        self.served.url()
    }

    /// `GITHUB_GRAPHQL_URL`.
    pub fn graphql_url(&self) -> String {
        format!("{}/graphql", self.url())
    }

    pub fn add_pull(&self, spec: PullSpec) {
        self.served.with(|g| {
            let pull = Pull {
                commits: vec![spec.head_sha.clone()],
                files_at: BTreeMap::from([(spec.head_sha.clone(), spec.files.clone())]),
                unplaceable: Vec::new(),
                spec,
                reviews: Vec::new(),
                comments: Vec::new(),
                issue_comments: Vec::new(),
                threads: Vec::new(),
            };
            g.pulls.insert(pull.spec.number, pull);
        });
    }

    /// A new head commit with these files (a push to the pull request).
    pub fn push(&self, number: u64, head_sha: &str, files: Vec<ChangedFile>) {
        self.served.with(|g| {
            if let Some(p) = g.pulls.get_mut(&number) {
                p.spec.head_sha = head_sha.to_string();
                p.files_at.insert(head_sha.to_string(), files.clone());
                p.spec.files = files;
                p.commits.push(head_sha.to_string());
            }
        });
    }

    /// What `GET /compare/{from}...{to}` answers: these files.
    pub fn add_compare(&self, from: &str, to: &str, files: Vec<ChangedFile>) {
        self.served.with(|g| {
            g.compares.insert((from.to_string(), to.to_string()), files);
        });
    }

    /// GitHub cannot resolve this line of the pull request although its
    /// diff shows it (as when the diff it checks differs from the one a
    /// client read): any review with a comment there is refused with 422.
    pub fn unplaceable(&self, number: u64, path: &str, line: u32) {
        self.served.with(|g| {
            if let Some(p) = g.pulls.get_mut(&number) {
                p.unplaceable.push((path.to_string(), line));
            }
        });
    }

    pub fn fail(&self, fault: Fault) {
        self.served.fail(fault);
    }

    pub fn set_access(&self, access: Access) {
        self.served.set_access(access);
    }

    /// Every request answered, in order.
    pub fn requests(&self) -> Vec<ForgeRequest> {
        self.served.requests()
    }

    /// The bytes received on each connection (request lines, headers and
    /// bodies, as sent).
    pub fn raw_connections(&self) -> Vec<Vec<u8>> {
        self.served.wire().connections()
    }

    /// The pull request as `GET /repos/{owner}/{repo}/pulls/{n}` shows it.
    pub fn pull(&self, number: u64) -> Option<Value> {
        self.served
            .with(|g| g.pulls.get(&number).map(|p| g.pull_json(p)))
    }

    /// Submitted and pending reviews.
    pub fn reviews(&self, number: u64) -> Vec<Value> {
        self.served.with(|g| {
            g.pulls
                .get(&number)
                .map(|p| p.reviews.iter().map(|r| g.review_json(p, r)).collect())
                .unwrap_or_default()
        })
    }

    /// Review comments, pending ones included.
    pub fn review_comments(&self, number: u64) -> Vec<Value> {
        self.served.with(|g| {
            g.pulls
                .get(&number)
                .map(|p| p.comments.iter().map(|c| g.comment_json(p, c)).collect())
                .unwrap_or_default()
        })
    }

    pub fn issue_comments(&self, number: u64) -> Vec<Value> {
        self.served.with(|g| {
            g.pulls
                .get(&number)
                .map(|p| {
                    p.issue_comments
                        .iter()
                        .map(|c| g.issue_comment_json(p, c))
                        .collect()
                })
                .unwrap_or_default()
        })
    }

    /// Review threads: `{id, isResolved, comments: [ids]}`.
    pub fn threads(&self, number: u64) -> Vec<Value> {
        self.served.with(|g| {
            g.pulls
                .get(&number)
                .map(|p| {
                    p.threads
                        .iter()
                        .map(|t| json!({"id": t.id, "isResolved": t.resolved, "comments": t.comments}))
                        .collect()
                })
                .unwrap_or_default()
        })
    }

    /// A commit on `branch` (made if missing) with these files changed;
    /// its id.
    pub fn seed_files(&self, branch: &str, files: &[(&str, &str)]) -> String {
        self.served.with(|g| g.repo.seed(branch, files))
    }

    /// What `branch` holds, path to text; `None` when there is no such branch.
    pub fn files_on(&self, branch: &str) -> Option<BTreeMap<String, String>> {
        self.served.with(|g| g.repo.files_on(branch))
    }

    /// The commit `branch` points at and its parents.
    pub fn branch_head(&self, branch: &str) -> Option<(String, Vec<String>)> {
        self.served.with(|g| {
            let head = g.repo.branches.get(branch)?.clone();
            let parents = g.repo.commits.get(&head)?.parents.clone();
            Some((head, parents))
        })
    }

    /// Pull requests opened through the API, as `GET …/pulls/{n}` shows them.
    pub fn opened_pulls(&self) -> Vec<Value> {
        self.served.with(|g| {
            let all = g.repo.opened.clone();
            all.iter().map(|o| g.opened_json(o)).collect()
        })
    }

    /// An issue comment written by someone else; returns its id.
    pub fn seed_issue_comment(&self, number: u64, login: &str, body: &str) -> u64 {
        self.served
            .with(|g| g.add_issue_comment(number, login, body))
    }

    /// A review comment on `path` line `line` (right side) written by
    /// someone else, in a review of its own; returns its id.
    pub fn seed_review_comment(
        &self,
        number: u64,
        login: &str,
        path: &str,
        line: u32,
        body: &str,
    ) -> u64 {
        self.served.with(|g| {
            let review = json!({"event": "COMMENT", "body": "", "comments": [
                {"path": path, "line": line, "side": "RIGHT", "body": body}]});
            g.create_review(number, login, &review);
            g.next_id - 1
        })
    }
}

pub(crate) struct Github {
    cfg: GithubConfig,
    base: String,
    pulls: BTreeMap<u64, Pull>,
    compares: BTreeMap<(String, String), Vec<ChangedFile>>,
    next_id: u64,
    events: u64,
    /// `author_association` by login (`NONE` when not set).
    associations: BTreeMap<String, String>,
    /// Reactions by the id of the comment they are on.
    reactions: BTreeMap<u64, Vec<conversation::Reaction>>,
    /// Branches, commits and the pull requests opened through the API.
    repo: super::repo::Repo,
}

struct Pull {
    spec: PullSpec,
    commits: Vec<String>,
    /// The pull request's files at each of its commits.
    files_at: BTreeMap<String, Vec<ChangedFile>>,
    /// Lines GitHub refuses to place a comment on.
    unplaceable: Vec<(String, u32)>,
    reviews: Vec<Review>,
    comments: Vec<ReviewComment>,
    issue_comments: Vec<IssueComment>,
    threads: Vec<Thread>,
}

struct Review {
    id: u64,
    user: String,
    body: String,
    state: &'static str,
    commit_id: String,
    at: u64,
}

struct ReviewComment {
    id: u64,
    review_id: u64,
    pending: bool,
    user: String,
    path: String,
    line: u32,
    side: String,
    start_line: Option<u32>,
    start_side: Option<String>,
    body: String,
    commit_id: String,
    diff_hunk: String,
    in_reply_to: Option<u64>,
    created: u64,
    updated: u64,
}

struct IssueComment {
    id: u64,
    user: String,
    body: String,
    created: u64,
    updated: u64,
}

struct Thread {
    id: String,
    resolved: bool,
    /// Who resolved it.
    resolved_by: Option<String>,
    comments: Vec<u64>,
}

const MAX_BODY: usize = 65_536;
