//! The REST routes: pull requests, files, reviews, comments.

use serde_json::{Value, json};

use super::shapes::user_json;
use super::{Github, IssueComment, MAX_BODY, Pull, Review, ReviewComment, Thread};
use crate::forge::hunks::{self, Shown};
use crate::forge::{Access, Answer, Call, ChangedFile, FaultKind, Forge, Paging};

fn error(status: u16, message: &str, doc: &str) -> Answer {
    Answer::json(
        status,
        json!({"message": message, "documentation_url": format!("https://docs.github.com/rest{doc}"), "status": status.to_string()}),
    )
}

pub(super) fn unprocessable(errors: Value) -> Answer {
    Answer::json(
        422,
        json!({"message": "Unprocessable Entity", "errors": errors,
               "documentation_url": "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request",
               "status": "422"}),
    )
}

pub(super) fn too_long(resource: &str) -> Answer {
    Answer::json(
        422,
        json!({"message": "Validation Failed", "errors": [{"resource": resource, "code": "custom", "field": "body",
               "message": "body is too long (maximum is 65536 characters)"}],
               "documentation_url": "https://docs.github.com/rest", "status": "422"}),
    )
}

impl Forge for Github {
    fn token(headers: &axum::http::HeaderMap) -> Option<String> {
        let v = headers.get("authorization")?.to_str().ok()?;
        v.strip_prefix("Bearer ")
            .or_else(|| v.strip_prefix("token "))
            .map(str::to_string)
    }

    fn unauthorized() -> Answer {
        error(401, "Bad credentials", "")
    }

    fn forbidden() -> Answer {
        error(403, "Resource not accessible by integration", "")
    }

    fn not_found() -> Answer {
        error(404, "Not Found", "")
    }

    fn fault(kind: &FaultKind) -> Answer {
        match kind {
            FaultKind::RateLimit { retry_after } => {
                let a = error(
                    403,
                    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0000:0000:0000000:0000000:00000000.",
                    "/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
                )
                .header("x-ratelimit-limit", 5000)
                .header("x-ratelimit-remaining", 4990)
                .header("x-ratelimit-resource", "core");
                match retry_after {
                    Some(s) => a.header("retry-after", s),
                    None => a,
                }
            }
            FaultKind::RateLimitUntil { reset_at } => error(
                403,
                "API rate limit exceeded for installation ID 1.",
                "/overview/rate-limits-for-the-rest-api",
            )
            .header("x-ratelimit-limit", 5000)
            .header("x-ratelimit-remaining", 0)
            .header("x-ratelimit-used", 5000)
            .header("x-ratelimit-reset", reset_at)
            .header("x-ratelimit-resource", "core"),
            FaultKind::Forbidden => Self::forbidden(),
            FaultKind::NotFound => Self::not_found(),
            FaultKind::ServerError(s) => error(*s, "Server Error", ""),
            FaultKind::Invalid => unprocessable(json!(["Line could not be resolved"])),
            FaultKind::NextLink(_) | FaultKind::ServerErrorAfter(_) => Self::not_found(),
        }
    }

    fn scoped(&self, path: &str) -> bool {
        let repo = format!("/repos/{}/{}", self.cfg.owner, self.cfg.repo);
        path == repo || path.starts_with(&format!("{repo}/"))
    }

    fn route(&mut self, call: &Call, base: &str, access: Access) -> Answer {
        let seg = call.segments();
        let m = call.method.as_str();
        match (m, seg.as_slice()) {
            ("GET", ["user"]) if self.cfg.user_endpoint => {
                Answer::json(200, user_json(&self.cfg.login))
            }
            ("GET", ["user"]) => error(
                403,
                "Resource not accessible by integration",
                "/users/users#get-the-authenticated-user",
            ),
            ("POST", ["graphql"]) => self.graphql(&call.body, access),
            (_, ["repos", o, r, rest @ ..]) if *o == self.cfg.owner && *r == self.cfg.repo => {
                self.repo_route(m, rest, call, base)
            }
            _ => Self::not_found(),
        }
    }
}

impl Github {
    pub(super) fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id - 1
    }

    pub(super) fn event(&mut self) -> u64 {
        self.events += 1;
        self.events
    }

    fn repo_route(&mut self, m: &str, rest: &[&str], call: &Call, base: &str) -> Answer {
        let number = |s: &str| s.parse::<u64>().ok();
        if let Some(answer) = self.git_route(m, rest, call) {
            return answer;
        }
        match (m, rest) {
            ("PATCH", ["pulls", "comments", id]) => match number(id) {
                Some(id) => self.edit_review_comment(id, &call.body),
                None => Self::not_found(),
            },
            ("PATCH", ["issues", "comments", id]) => match number(id) {
                Some(id) => self.edit_issue_comment(id, &call.body),
                None => Self::not_found(),
            },
            ("GET" | "POST", [kind @ ("pulls" | "issues"), "comments", id, "reactions"]) => {
                match number(id) {
                    Some(id) => self.reactions_route(m, kind, id, call, base),
                    None => Self::not_found(),
                }
            }
            (_, ["pulls" | "issues", n, ..])
                if number(n).is_none_or(|n| !self.pulls.contains_key(&n)) =>
            {
                Self::not_found()
            }
            ("GET", ["pulls", n]) => self.with_pull(n, |g, p| Answer::json(200, g.pull_json(p))),
            ("PATCH", ["pulls", n]) => self.edit_pull(n, &call.body),
            ("GET", ["pulls", n, "files"]) => {
                let files = self.with_pull(n, |g, p| {
                    Answer::json(
                        200,
                        Value::Array(p.spec.files.iter().map(|f| g.file_json(f)).collect()),
                    )
                });
                crate::forge::page(array(files.body), call, base, Paging::Github)
            }
            ("GET", ["pulls", n, "comments"]) => {
                let all = self.with_pull(n, |g, p| {
                    let shown = p.comments.iter().filter(|c| !c.pending);
                    Answer::json(
                        200,
                        Value::Array(shown.map(|c| g.comment_json(p, c)).collect()),
                    )
                });
                crate::forge::page(array(all.body), call, base, Paging::Github)
            }
            ("GET", ["pulls", n, "reviews"]) => {
                let all = self.with_pull(n, |g, p| {
                    Answer::json(
                        200,
                        Value::Array(p.reviews.iter().map(|r| g.review_json(p, r)).collect()),
                    )
                });
                crate::forge::page(array(all.body), call, base, Paging::Github)
            }
            ("GET", ["compare", basehead]) => self.compare(basehead),
            ("POST", ["pulls", n, "comments", id, "replies"]) => {
                let login = self.cfg.login.clone();
                match (number(n), number(id)) {
                    (Some(n), Some(id)) => self.reply(n, id, &login, &call.body),
                    _ => Self::not_found(),
                }
            }
            ("POST", ["pulls", n, "reviews"]) => {
                let login = self.cfg.login.clone();
                match number(n) {
                    Some(n) => self.create_review(n, &login, &call.body),
                    None => Self::not_found(),
                }
            }
            ("GET", ["issues", n, "comments"]) => {
                let all = self.with_pull(n, |g, p| {
                    Answer::json(
                        200,
                        Value::Array(
                            p.issue_comments
                                .iter()
                                .map(|c| g.issue_comment_json(p, c))
                                .collect(),
                        ),
                    )
                });
                crate::forge::page(array(all.body), call, base, Paging::Github)
            }
            ("POST", ["issues", n, "comments"]) => {
                let Some(body) = call.body.get("body").and_then(Value::as_str) else {
                    return unprocessable(json!(["body is missing"]));
                };
                if body.chars().count() > MAX_BODY {
                    return too_long("IssueComment");
                }
                let login = self.cfg.login.clone();
                let Some(n) = number(n) else {
                    return Self::not_found();
                };
                let id = self.add_issue_comment(n, &login, body);
                self.with_pull(&n.to_string(), |g, p| {
                    match p.issue_comments.iter().find(|c| c.id == id) {
                        Some(c) => Answer::json(201, g.issue_comment_json(p, c)),
                        None => Self::not_found(),
                    }
                })
            }
            _ => Self::not_found(),
        }
    }

    pub(super) fn with_pull(&self, n: &str, f: impl FnOnce(&Github, &Pull) -> Answer) -> Answer {
        match n.parse::<u64>().ok().and_then(|n| self.pulls.get(&n)) {
            Some(p) => f(self, p),
            None => Self::not_found(),
        }
    }

    fn edit_pull(&mut self, n: &str, body: &Value) -> Answer {
        let Some(p) = n.parse::<u64>().ok().and_then(|n| self.pulls.get_mut(&n)) else {
            return Self::not_found();
        };
        if let Some(text) = body.get("body").and_then(Value::as_str) {
            if text.chars().count() > MAX_BODY {
                return too_long("PullRequest");
            }
            p.spec.body = Some(text.to_string());
        }
        if let Some(title) = body.get("title").and_then(Value::as_str) {
            p.spec.title = title.to_string();
        }
        self.with_pull(n, |g, p| Answer::json(200, g.pull_json(p)))
    }

    pub(super) fn add_issue_comment(&mut self, n: u64, login: &str, body: &str) -> u64 {
        let id = self.id();
        let at = self.event();
        if let Some(p) = self.pulls.get_mut(&n) {
            p.issue_comments.push(IssueComment {
                id,
                user: login.to_string(),
                body: body.to_string(),
                created: at,
                updated: at,
            });
        }
        id
    }

    pub(super) fn edit_issue_comment(&mut self, id: u64, body: &Value) -> Answer {
        let Some(text) = body.get("body").and_then(Value::as_str) else {
            return unprocessable(json!(["body is missing"]));
        };
        if text.chars().count() > MAX_BODY {
            return too_long("IssueComment");
        }
        let at = self.event();
        for p in self.pulls.values_mut() {
            if let Some(c) = p.issue_comments.iter_mut().find(|c| c.id == id) {
                c.body = text.to_string();
                c.updated = at;
                let n = p.spec.number.to_string();
                return self.with_pull(&n, |g, p| {
                    match p.issue_comments.iter().find(|c| c.id == id) {
                        Some(c) => Answer::json(200, g.issue_comment_json(p, c)),
                        None => Self::not_found(),
                    }
                });
            }
        }
        Self::not_found()
    }

    pub(super) fn edit_review_comment(&mut self, id: u64, body: &Value) -> Answer {
        let Some(text) = body.get("body").and_then(Value::as_str) else {
            return unprocessable(json!(["body is missing"]));
        };
        if text.chars().count() > MAX_BODY {
            return too_long("PullRequestReviewComment");
        }
        let at = self.event();
        for p in self.pulls.values_mut() {
            if let Some(c) = p.comments.iter_mut().find(|c| c.id == id && !c.pending) {
                c.body = text.to_string();
                c.updated = at;
                let n = p.spec.number.to_string();
                return self.with_pull(&n, |g, p| match p.comments.iter().find(|c| c.id == id) {
                    Some(c) => Answer::json(200, g.comment_json(p, c)),
                    None => Self::not_found(),
                });
            }
        }
        Self::not_found()
    }

    /// `POST …/pulls/{n}/reviews`: all comments are checked first; one bad
    /// comment fails the whole review and nothing is created.
    pub(super) fn create_review(&mut self, n: u64, login: &str, body: &Value) -> Answer {
        let Some(pull) = self.pulls.get(&n) else {
            return Self::not_found();
        };
        let commit = match body.get("commit_id").and_then(Value::as_str) {
            Some(c) if !pull.commits.iter().any(|k| k == c) => {
                return unprocessable(json!(["Commit id is not part of the pull request"]));
            }
            Some(c) => c.to_string(),
            None => pull.spec.head_sha.clone(),
        };
        let state = match body.get("event").and_then(Value::as_str) {
            None => "PENDING",
            Some("COMMENT") => "COMMENTED",
            Some("APPROVE") => "APPROVED",
            Some("REQUEST_CHANGES") => "CHANGES_REQUESTED",
            Some(_) => return unprocessable(json!(["Event is not valid"])),
        };
        let text = body.get("body").and_then(Value::as_str).unwrap_or("");
        if text.chars().count() > MAX_BODY {
            return too_long("PullRequestReview");
        }
        let empty = Vec::new();
        let comments = body
            .get("comments")
            .and_then(Value::as_array)
            .unwrap_or(&empty);
        if text.trim().is_empty()
            && comments.is_empty()
            && matches!(state, "COMMENTED" | "CHANGES_REQUESTED")
        {
            return unprocessable(json!(["Body can't be blank"]));
        }
        let mut checked = Vec::new();
        let files = pull.files_at.get(&commit).unwrap_or(&pull.spec.files);
        for c in comments {
            let at = (
                c.get("path")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                c.get("line").and_then(Value::as_u64).unwrap_or(0) as u32,
            );
            if pull.unplaceable.contains(&at) {
                return Answer::json(
                    422,
                    json!({"message": "Validation Failed", "errors": [{"resource": "PullRequestReviewComment",
                        "code": "custom", "field": "pull_request_review_thread.line",
                        "message": "pull_request_review_thread.line must be part of the diff"}],
                        "documentation_url": "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request",
                        "status": "422"}),
                );
            }
            match check_comment(files, c) {
                Ok(ok) => checked.push(ok),
                Err(a) => return a,
            }
        }
        let review_id = self.id();
        let at = self.event();
        let pending = state == "PENDING";
        let mut made = Vec::new();
        for c in checked {
            let id = self.id();
            made.push(ReviewComment {
                id,
                review_id,
                pending,
                user: login.to_string(),
                commit_id: commit.clone(),
                created: at,
                updated: at,
                ..c
            });
        }
        let base_node = self.next_id;
        let Some(pull) = self.pulls.get_mut(&n) else {
            return Self::not_found();
        };
        for (i, c) in made.iter().enumerate() {
            pull.threads.push(Thread {
                id: format!("PRRT_kwDOstand{:08}", base_node + i as u64),
                resolved: false,
                resolved_by: None,
                comments: vec![c.id],
            });
        }
        pull.comments.extend(made);
        pull.reviews.push(Review {
            id: review_id,
            user: login.to_string(),
            body: text.to_string(),
            state,
            commit_id: commit,
            at,
        });
        let n = n.to_string();
        self.with_pull(&n, |g, p| match p.reviews.last() {
            Some(r) => Answer::json(200, g.review_json(p, r)),
            None => Self::not_found(),
        })
    }
}

fn array(v: Value) -> Vec<Value> {
    match v {
        Value::Array(a) => a,
        _ => Vec::new(),
    }
}

/// One inline comment of a review, checked against the diff.
fn check_comment(files: &[ChangedFile], c: &Value) -> Result<ReviewComment, Answer> {
    let path = c.get("path").and_then(Value::as_str).unwrap_or("");
    let body = c.get("body").and_then(Value::as_str).unwrap_or("");
    if body.chars().count() > MAX_BODY {
        return Err(too_long("PullRequestReviewComment"));
    }
    let Some(file) = files.iter().find(|f| f.path == path) else {
        return Err(unprocessable(json!(["Path could not be resolved"])));
    };
    let shown = file.patch.as_deref().map(hunks::shown).unwrap_or_default();
    let line_of = |key: &str| {
        c.get(key)
            .and_then(Value::as_u64)
            .and_then(|l| u32::try_from(l).ok())
    };
    let Some(line) = line_of("line") else {
        return Err(unprocessable(json!(["Line could not be resolved"])));
    };
    let side = c
        .get("side")
        .and_then(Value::as_str)
        .unwrap_or("RIGHT")
        .to_string();
    let at = |l: u32, s: &str| -> Option<Shown> { hunks::find(&shown, l, s == "RIGHT") };
    let Some(end) = at(line, &side) else {
        return Err(unprocessable(json!(["Line could not be resolved"])));
    };
    let start_line = line_of("start_line");
    let start_side = c
        .get("start_side")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| start_line.map(|_| side.clone()));
    if let (Some(sl), Some(ss)) = (start_line, start_side.as_deref()) {
        match at(sl, ss) {
            Some(start) if start.hunk == end.hunk && sl < line => {}
            _ => return Err(unprocessable(json!(["Start line could not be resolved"]))),
        }
    }
    let header = file
        .patch
        .as_deref()
        .and_then(|p| p.lines().filter(|l| l.starts_with("@@")).nth(end.hunk))
        .unwrap_or("")
        .to_string();
    Ok(ReviewComment {
        id: 0,
        review_id: 0,
        pending: false,
        user: String::new(),
        path: path.to_string(),
        line,
        side,
        start_line,
        start_side: start_line.and(start_side),
        body: body.to_string(),
        commit_id: String::new(),
        diff_hunk: header,
        in_reply_to: None,
        created: 0,
        updated: 0,
    })
}
