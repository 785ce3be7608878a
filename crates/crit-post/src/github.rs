//! Posting to a GitHub pull request through the REST API (and GraphQL, to
//! resolve review threads).

use std::collections::BTreeMap;
use std::sync::Arc;

use crit_core::ReviewResult;
use reqwest::Method;
use serde_json::{Value, json};

use crate::comment::{inline_body, resolved_body};
use crate::context::GithubContext;
use crate::diff::FileDiff;
use crate::error::{Forge, PostError};
use crate::http::Api;
use crate::marker::{Marker, Markers};
use crate::pace::{Pacer, RealTime};
use crate::plan::{Earlier, Elsewhere, plan};
use crate::summary::{self, Outcome};
use crate::{DescribeReport, PostOptions, PostReport};

/// Who a workflow's token posts as; it cannot ask (`GET /user` is 403).
const WORKFLOW_BOT: &str = "github-actions[bot]";

const THREADS_QUERY: &str = "query($owner: String!, $name: String!, $number: Int!, $cursor: String) { repository(owner: $owner, name: $name) { pullRequest(number: $number) { reviewThreads(first: 100, after: $cursor) { pageInfo { hasNextPage endCursor } nodes { id isResolved comments(first: 1) { nodes { databaseId } } } } } } }";
const RESOLVE_MUTATION: &str = "mutation($threadId: ID!) { resolveReviewThread(input: {threadId: $threadId}) { thread { id isResolved } } }";

/// Posts review results and descriptions to one pull request.
#[derive(Debug)]
pub struct GithubPoster {
    ctx: GithubContext,
    options: PostOptions,
    markers: Markers,
    api: Api,
}

impl GithubPoster {
    pub fn new(ctx: GithubContext, options: PostOptions) -> Result<Self, PostError> {
        Self::with_pacer(ctx, options, Arc::new(RealTime))
    }

    /// With the clock and sleep to wait with (tests: waits without sleeping).
    pub fn with_pacer(
        ctx: GithubContext,
        options: PostOptions,
        pacer: Arc<dyn Pacer>,
    ) -> Result<Self, PostError> {
        let patience = options.patience.clone();
        let api = Api::new(
            Forge::Github,
            &ctx.api_url,
            ctx.token.clone(),
            &ctx.token_source,
            pacer,
            patience,
        )?;
        Ok(GithubPoster {
            markers: Markers::new(options.scope.as_deref()),
            ctx,
            options,
            api,
        })
    }

    fn repo(&self, rest: &str) -> String {
        format!("/repos/{}/{}{rest}", self.ctx.owner, self.ctx.repo)
    }

    fn pull(&self, rest: &str) -> String {
        self.repo(&format!("/pulls/{}{rest}", self.ctx.number))
    }

    /// Posts `result`: see the crate's documentation for what one run does.
    pub async fn post(&mut self, result: &ReviewResult) -> Result<PostReport, PostError> {
        let me = self.identity().await?;
        let head = match self.ctx.head_sha.clone() {
            Some(h) => h,
            None => {
                let pr = self
                    .api
                    .get(&self.pull(""), "read the pull request")
                    .await?;
                str_at(&pr, "/head/sha").to_string()
            }
        };
        let diffs = self.diffs().await?;
        let comments = self
            .api
            .get_all(
                &self.pull("/comments"),
                "list the pull request's review comments",
            )
            .await?;
        let earlier = self.earlier(&comments, &me);
        let issue_comments = self
            .api
            .get_all(
                &self.repo(&format!("/issues/{}/comments", self.ctx.number)),
                "list the pull request's comments",
            )
            .await?;
        let summary_id = issue_comments
            .iter()
            .find(|c| {
                author(c) == me && self.markers.read(str_at(c, "/body")) == Some(Marker::Summary)
            })
            .and_then(|c| c.get("id").and_then(Value::as_u64));

        let mut plan = plan(result, &diffs, earlier, self.options.max_comments);
        let mut notes = crate::summary::left_open_note(plan.left_open);
        let mut posted = 0;
        if !plan.new.is_empty() {
            let comments: Vec<Value> = plan
                .new
                .iter()
                .map(|i| {
                    let mut c = json!({"path": i.finding.path().unwrap_or("").trim_start_matches("./"),
                        "line": i.anchor.end, "side": "RIGHT",
                        "body": inline_body(&self.markers, i, Forge::Github)});
                    if i.anchor.start < i.anchor.end {
                        c["start_line"] = json!(i.anchor.start);
                        c["start_side"] = json!("RIGHT");
                    }
                    c
                })
                .collect();
            let mut review = json!({"event": "COMMENT", "comments": comments,
                "body": format!("crit put {} comment(s) on lines of this change; the summary is in the conversation.", comments.len())});
            if !head.is_empty() {
                review["commit_id"] = json!(head);
            }
            match self
                .api
                .write(
                    Method::POST,
                    &self.pull("/reviews"),
                    &review,
                    "post the review",
                )
                .await
            {
                Ok(_) => posted = plan.new.len(),
                // One comment GitHub cannot place fails the whole review:
                // nothing is lost, the findings go to the summary.
                Err(PostError::Rejected {
                    status: 422,
                    message,
                    ..
                }) => {
                    notes.push(format!("GitHub refused the inline comments ({message}); they are listed below instead."));
                    plan.elsewhere
                        .extend(plan.new.drain(..).map(|i| (i.finding, Elsewhere::Refused)));
                }
                Err(e) => return Err(e),
            }
        }
        let mut resolved_ids = Vec::new();
        for e in &plan.resolve {
            let body = resolved_body(&self.markers, &e.key, &e.body, Some(&head));
            let path = self.repo(&format!("/pulls/comments/{}", e.handle));
            self.api
                .write(
                    Method::PATCH,
                    &path,
                    &json!({"body": body}),
                    "mark a comment resolved",
                )
                .await?;
            resolved_ids.push(e.handle);
        }
        let threads_resolved = match resolved_ids.is_empty() {
            true => 0,
            false => match self.resolve_threads(&resolved_ids).await {
                Ok(n) => n,
                Err(why) => {
                    notes.push(format!("The comments say they are resolved, but their review threads stay open: {why}"));
                    0
                }
            },
        };
        let body = summary::body(
            &self.markers,
            result,
            &Outcome {
                head: Some(&head),
                new_inline: posted,
                kept_inline: plan.kept,
                elsewhere: &plan.elsewhere,
                resolved: resolved_ids.len(),
                notes: &notes,
            },
        );
        let saved = match summary_id {
            Some(id) => {
                let path = self.repo(&format!("/issues/comments/{id}"));
                self.api
                    .write(
                        Method::PATCH,
                        &path,
                        &json!({"body": body}),
                        "edit the summary comment",
                    )
                    .await?
            }
            None => {
                let path = self.repo(&format!("/issues/{}/comments", self.ctx.number));
                self.api
                    .write(
                        Method::POST,
                        &path,
                        &json!({"body": body}),
                        "post the summary comment",
                    )
                    .await?
            }
        };
        Ok(PostReport {
            forge: Forge::Github,
            inline_posted: posted,
            inline_kept: plan.kept,
            resolved: resolved_ids.len(),
            threads_resolved,
            in_summary: plan
                .elsewhere
                .iter()
                .map(|(f, w)| (f.id.clone(), *w))
                .collect(),
            summary_url: saved
                .get("html_url")
                .and_then(Value::as_str)
                .map(str::to_string),
            summary_created: summary_id.is_none(),
            notes,
            stats: self.api.stats.clone(),
        })
    }

    /// Sets crit's section of the pull request's description to `section`
    /// (markdown), leaving the author's text alone; sends nothing when it
    /// already reads so.
    pub async fn describe(&mut self, section: &str) -> Result<DescribeReport, PostError> {
        let pr = self
            .api
            .get(&self.pull(""), "read the pull request")
            .await?;
        let body = str_at(&pr, "/body");
        let updated = crate::describe::update_body(body, section, &self.markers);
        let changed = updated != body;
        if changed {
            self.api
                .write(
                    Method::PATCH,
                    &self.pull(""),
                    &json!({"body": updated}),
                    "edit the pull request's description",
                )
                .await?;
        }
        Ok(DescribeReport {
            changed,
            stats: self.api.stats.clone(),
        })
    }

    /// The login whose comments are crit's.
    async fn identity(&mut self) -> Result<String, PostError> {
        if let Some(a) = &self.options.author {
            return Ok(a.clone());
        }
        match self.api.get("/user", "find the token's account").await {
            Ok(user) => match user.get("login").and_then(Value::as_str) {
                Some(login) => Ok(login.to_string()),
                None => Err(self.api.protocol("find the token's account", "no login")),
            },
            // An installation token (a workflow's) may not ask who it is.
            Err(PostError::Permission { status: 403, .. }) => Ok(WORKFLOW_BOT.to_string()),
            Err(e) => Err(e),
        }
    }

    async fn diffs(&mut self) -> Result<BTreeMap<String, FileDiff>, PostError> {
        let files = self
            .api
            .get_all(&self.pull("/files"), "list the pull request's files")
            .await?;
        Ok(files
            .iter()
            .filter_map(|f| {
                let patch = f.get("patch")?.as_str()?;
                Some((
                    f.get("filename")?.as_str()?.to_string(),
                    FileDiff::parse(patch),
                ))
            })
            .collect())
    }

    /// crit's own inline comments of earlier runs (not replies, not anyone
    /// else's).
    fn earlier(&self, comments: &[Value], me: &str) -> Vec<Earlier<u64>> {
        comments
            .iter()
            .filter(|c| author(c) == me && c.get("in_reply_to_id").is_none_or(Value::is_null))
            .filter_map(|c| {
                let body = str_at(c, "/body");
                match self.markers.read(body)? {
                    Marker::Finding { key, resolved } => Some(Earlier {
                        key,
                        resolved,
                        body: body.to_string(),
                        path: c.get("path").and_then(Value::as_str).map(str::to_string),
                        handle: c.get("id")?.as_u64()?,
                    }),
                    Marker::Summary => None,
                }
            })
            .collect()
    }

    /// Resolves the review threads of these comments; `Err` says why not.
    async fn resolve_threads(&mut self, comment_ids: &[u64]) -> Result<usize, ThreadsError> {
        let url = self.ctx.graphql_url.clone();
        let mut threads = Vec::new();
        let mut cursor = Value::Null;
        for _ in 0..50 {
            let vars = json!({"owner": self.ctx.owner, "name": self.ctx.repo, "number": self.ctx.number, "cursor": cursor});
            let answer = self
                .api
                .post_to(
                    &url,
                    &json!({"query": THREADS_QUERY, "variables": vars}),
                    "list the review threads",
                )
                .await?;
            let page = answer
                .pointer("/data/repository/pullRequest/reviewThreads")
                .filter(|p| p.is_object())
                .ok_or_else(|| graphql_error(&self.api, &answer))?;
            for t in page
                .get("nodes")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let first = t
                    .pointer("/comments/nodes/0/databaseId")
                    .and_then(Value::as_u64);
                let open = t.get("isResolved").and_then(Value::as_bool) == Some(false);
                if let (Some(id), Some(first), true) =
                    (t.get("id").and_then(Value::as_str), first, open)
                    && comment_ids.contains(&first)
                {
                    threads.push(id.to_string());
                }
            }
            match page
                .pointer("/pageInfo/hasNextPage")
                .and_then(Value::as_bool)
            {
                Some(true) => {
                    cursor = page
                        .pointer("/pageInfo/endCursor")
                        .cloned()
                        .unwrap_or(Value::Null)
                }
                _ => break,
            }
        }
        let mut done = 0;
        for id in threads {
            let body = json!({"query": RESOLVE_MUTATION, "variables": {"threadId": id}});
            let answer = self
                .api
                .post_to(&url, &body, "resolve a review thread")
                .await?;
            if answer
                .pointer("/data/resolveReviewThread/thread")
                .is_none_or(Value::is_null)
            {
                return Err(graphql_error(&self.api, &answer));
            }
            done += 1;
        }
        Ok(done)
    }
}

/// Why resolved comments' review threads stay open.
#[derive(Debug, thiserror::Error)]
enum ThreadsError {
    #[error(transparent)]
    Post(#[from] PostError),
    /// GraphQL's refusal (status 200 with `errors`), in GitHub's words.
    #[error(
        "GitHub did not let crit resolve them ({words}); the token needs `pull-requests: write`"
    )]
    Refused { words: String },
}

/// GraphQL's reason for a refusal (status 200 with `errors`).
fn graphql_error(api: &Api, answer: &Value) -> ThreadsError {
    let message = answer
        .pointer("/errors/0/message")
        .and_then(Value::as_str)
        .unwrap_or("GitHub's answer had no data");
    ThreadsError::Refused {
        words: api.words(message),
    }
}

fn author(c: &Value) -> &str {
    str_at(c, "/user/login")
}

fn str_at<'v>(v: &'v Value, pointer: &str) -> &'v str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}
