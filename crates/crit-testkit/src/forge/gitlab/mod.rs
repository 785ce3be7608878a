//! A stand-in for GitLab's REST API (v4) around merge requests: the merge
//! request (with `diff_refs`) and its description, versions, diffs,
//! discussions (inline ones with a `position`), notes, resolving a
//! discussion, and the authenticated user.
//!
//! Faithful where a client can get it wrong: an inline discussion's
//! `position` must carry the merge request's `base_sha`, `start_sha` and
//! `head_sha`, `position_type: text`, and a `new_line` the diff shows; a
//! context line needs its `old_line` too and an added line must not have
//! one (GitLab's 400 "line_code can't be blank" otherwise); only a note's
//! author may edit it; lists are paginated with `x-next-page` and `Link`;
//! the throttle answers 429 "Retry later" with `Retry-After`. A position
//! may name an earlier version's refs: its line is checked against that
//! version's diff (`GET …/versions/:id` shows it). Comparing two commits
//! (`GET /projects/:id/repository/compare?from=&to=`) answers the
//! comparisons a test adds.

use std::collections::BTreeMap;

use serde_json::Value;

mod commits;
mod conversation;
mod routes;

use super::{Access, ChangedFile, Fault, ForgeRequest};

/// The project, the token and what it may do.
#[derive(Debug, Clone)]
pub struct GitlabConfig {
    /// `CI_PROJECT_ID`.
    pub project_id: u64,
    /// `CI_PROJECT_PATH`, also accepted (URL-encoded) in place of the id.
    pub project_path: String,
    pub token: String,
    /// Who the token acts as (a project access token's bot user).
    pub username: String,
    /// The token may resolve discussions.
    pub can_resolve: bool,
    pub access: Access,
}

impl Default for GitlabConfig {
    fn default() -> Self {
        GitlabConfig {
            project_id: 4242,
            project_path: "group/project".into(),
            token: "glpat-standInToken0123456789abcdef".into(),
            username: "project_4242_bot_5f3a".into(),
            can_resolve: true,
            access: Access::Write,
        }
    }
}

/// A merge request to serve.
#[derive(Debug, Clone)]
pub struct MergeRequestSpec {
    pub iid: u64,
    pub title: String,
    pub description: String,
    pub base_sha: String,
    pub start_sha: String,
    pub head_sha: String,
    pub files: Vec<ChangedFile>,
}

/// The stand-in server. Stops when dropped.
pub struct GitlabServer {
    served: super::Served<Gitlab>,
}

impl std::fmt::Debug for GitlabServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GitlabServer")
            .field("url", &self.url())
            .finish_non_exhaustive()
    }
}

impl GitlabServer {
    /// Starts serving on `127.0.0.1`. Panics if it cannot.
    pub fn start(config: GitlabConfig) -> Self {
        let token = config.token.clone();
        let access = config.access;
        let served = super::Served::start(&token, access, |_| Gitlab {
            cfg: config,
            mrs: BTreeMap::new(),
            compares: BTreeMap::new(),
            next_id: 5_000_001,
            events: 0,
            members: BTreeMap::new(),
            awards: BTreeMap::new(),
            repo: super::repo::Repo::new(),
        });
        GitlabServer { served }
    }

    /// The instance's URL (`CI_SERVER_URL`).
    pub fn url(&self) -> String {
        self.served.url()
    }

    /// `CI_API_V4_URL`.
    pub fn api_url(&self) -> String {
        format!("{}/api/v4", self.url())
    }

    pub fn add_merge_request(&self, spec: MergeRequestSpec) {
        self.served.with(|g| {
            let version = g.id();
            g.mrs.insert(
                spec.iid,
                Mr {
                    versions: vec![(
                        version,
                        spec.base_sha.clone(),
                        spec.start_sha.clone(),
                        spec.head_sha.clone(),
                        spec.files.clone(),
                    )],
                    spec,
                    discussions: Vec::new(),
                },
            );
        });
    }

    /// A new head commit with these files: a new version of the diff.
    pub fn push(&self, iid: u64, head_sha: &str, files: Vec<ChangedFile>) {
        self.served.with(|g| {
            let version = g.id();
            if let Some(mr) = g.mrs.get_mut(&iid) {
                mr.spec.head_sha = head_sha.to_string();
                mr.spec.files = files.clone();
                mr.versions.push((
                    version,
                    mr.spec.base_sha.clone(),
                    mr.spec.start_sha.clone(),
                    head_sha.to_string(),
                    files,
                ));
            }
        });
    }

    /// What `GET /projects/:id/repository/compare?from=FROM&to=TO` answers:
    /// these files.
    pub fn add_compare(&self, from: &str, to: &str, files: Vec<ChangedFile>) {
        self.served.with(|g| {
            g.compares.insert((from.to_string(), to.to_string()), files);
        });
    }

    pub fn fail(&self, fault: Fault) {
        self.served.fail(fault);
    }

    pub fn set_access(&self, access: Access) {
        self.served.set_access(access);
    }

    pub fn requests(&self) -> Vec<ForgeRequest> {
        self.served.requests()
    }

    /// The bytes received on each connection.
    pub fn raw_connections(&self) -> Vec<Vec<u8>> {
        self.served.wire().connections()
    }

    pub fn merge_request(&self, iid: u64) -> Option<Value> {
        self.served
            .with(|g| g.mrs.get(&iid).map(|mr| g.mr_json(mr)))
    }

    /// Every discussion, oldest first.
    pub fn discussions(&self, iid: u64) -> Vec<Value> {
        self.served.with(|g| {
            g.mrs
                .get(&iid)
                .map(|mr| {
                    mr.discussions
                        .iter()
                        .map(|d| g.discussion_json(mr, d))
                        .collect()
                })
                .unwrap_or_default()
        })
    }

    /// Every note, oldest first.
    pub fn notes(&self, iid: u64) -> Vec<Value> {
        self.served.with(|g| {
            g.mrs
                .get(&iid)
                .map(|mr| g.all_notes(mr, true))
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

    /// Merge requests opened through the API, as GitLab shows them.
    pub fn opened_merge_requests(&self) -> Vec<Value> {
        self.served.with(|g| {
            let all = g.repo.opened.clone();
            all.iter().map(|o| g.opened_mr_json(o)).collect()
        })
    }

    /// A note written by someone else; returns its id.
    pub fn seed_note(&self, iid: u64, username: &str, body: &str) -> u64 {
        self.served
            .with(|g| g.add_discussion(iid, username, body, None, true))
    }
}

pub(crate) struct Gitlab {
    cfg: GitlabConfig,
    mrs: BTreeMap<u64, Mr>,
    compares: BTreeMap<(String, String), Vec<ChangedFile>>,
    next_id: u64,
    events: u64,
    /// Project members' access levels by username (10 Guest … 50 Owner).
    members: BTreeMap<String, u64>,
    /// Award emoji by the id of the note they are on.
    awards: BTreeMap<u64, Vec<conversation::Award>>,
    /// Branches, commits and the merge requests opened through the API.
    repo: super::repo::Repo,
}

struct Mr {
    spec: MergeRequestSpec,
    /// (id, base, start, head, files), oldest first.
    versions: Vec<(u64, String, String, String, Vec<ChangedFile>)>,
    discussions: Vec<Discussion>,
}

struct Discussion {
    id: String,
    individual: bool,
    notes: Vec<Note>,
}

struct Note {
    id: u64,
    kind: Option<&'static str>,
    body: String,
    author: String,
    created: u64,
    updated: u64,
    resolvable: bool,
    resolved_by: Option<String>,
    position: Option<Value>,
}

const MAX_NOTE: usize = 1_000_000;
