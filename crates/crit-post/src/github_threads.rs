//! Resolving review threads on GitHub: REST has no way, so GraphQL lists
//! the pull request's threads and resolves those of crit's comments.

use serde_json::{Value, json};

use crate::error::PostError;
use crate::github::GithubPoster;
use crate::http::Api;

const THREADS_QUERY: &str = "query($owner: String!, $name: String!, $number: Int!, $cursor: String) { repository(owner: $owner, name: $name) { pullRequest(number: $number) { reviewThreads(first: 100, after: $cursor) { pageInfo { hasNextPage endCursor } nodes { id isResolved comments(first: 1) { nodes { databaseId } } } } } } }";
const RESOLVE_MUTATION: &str = "mutation($threadId: ID!) { resolveReviewThread(input: {threadId: $threadId}) { thread { id isResolved } } }";

const STATES_QUERY: &str = "query($owner: String!, $name: String!, $number: Int!, $cursor: String) { repository(owner: $owner, name: $name) { pullRequest(number: $number) { reviewThreads(first: 100, after: $cursor) { pageInfo { hasNextPage endCursor } nodes { id isResolved resolvedBy { login } comments(first: 1) { nodes { databaseId } } } } } } }";

impl GithubPoster {
    /// Each review thread's first comment and who resolved it (`None`:
    /// open).
    pub(crate) async fn thread_states(
        &mut self,
    ) -> Result<Vec<(u64, Option<String>)>, ThreadsError> {
        let url = self.ctx.graphql_url.clone();
        let mut out = Vec::new();
        let mut cursor = Value::Null;
        for _ in 0..50 {
            let vars = json!({"owner": self.ctx.owner, "name": self.ctx.repo, "number": self.ctx.number, "cursor": cursor});
            let answer = self
                .api
                .post_to(
                    &url,
                    &json!({"query": STATES_QUERY, "variables": vars}),
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
                let Some(first) = t
                    .pointer("/comments/nodes/0/databaseId")
                    .and_then(Value::as_u64)
                else {
                    continue;
                };
                let by = match t.get("isResolved").and_then(Value::as_bool) {
                    Some(true) => Some(
                        t.pointer("/resolvedBy/login")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string(),
                    ),
                    _ => None,
                };
                out.push((first, by));
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
        Ok(out)
    }

    /// Resolves the review threads of these comments; `Err` says why not.
    pub(crate) async fn resolve_threads(
        &mut self,
        comment_ids: &[u64],
    ) -> Result<usize, ThreadsError> {
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
pub(crate) enum ThreadsError {
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
