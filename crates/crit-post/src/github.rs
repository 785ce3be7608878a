//! Posting to a GitHub pull request through the REST API (and GraphQL, to
//! resolve review threads).

use std::collections::BTreeMap;
use std::sync::Arc;

use crit_core::ReviewResult;
use reqwest::Method;
use serde_json::{Value, json};

use crate::context::GithubContext;
use crate::diff::FileDiff;
use crate::error::{ForgeKind, PostError};
use crate::forge::Seen;
use crate::http::Api;
use crate::marker::{Marker, Markers, Recorded};
use crate::pace::{Pacer, RealTime};
use crate::plan::{ChangedSince, Earlier};
use crate::revision;
use crate::since::LastReview;
use crate::{DescribeReport, PostOptions, PostReport};

/// Who a workflow's token posts as; it cannot ask (`GET /user` is 403).
pub(crate) const WORKFLOW_BOT: &str = "github-actions[bot]";

/// Posts review results and descriptions to one pull request.
#[derive(Debug)]
pub struct GithubPoster {
    pub(crate) ctx: GithubContext,
    pub(crate) options: PostOptions,
    pub(crate) markers: Markers,
    pub(crate) api: Api,
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
            ForgeKind::Github,
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

    pub(crate) fn repo(&self, rest: &str) -> String {
        format!("/repos/{}/{}{rest}", self.ctx.owner, self.ctx.repo)
    }

    pub(crate) fn pull(&self, rest: &str) -> String {
        self.repo(&format!("/pulls/{}{rest}", self.ctx.number))
    }

    /// Posts `result`: see the crate's documentation for what one run does.
    pub async fn post(&mut self, result: &ReviewResult) -> Result<PostReport, PostError> {
        crate::forge::post(self, result).await
    }

    /// What the pull request holds: who crit is, the reviewed revision and
    /// its diff (and what changed since, when the head moved), crit's
    /// earlier comments and summaries.
    pub(crate) async fn seen(&mut self, result: &ReviewResult) -> Result<Seen<u64, ()>, PostError> {
        let asked = self.identity().await?;
        let pr = self
            .api
            .get(&self.pull(""), "read the pull request")
            .await?;
        let current = str_at(&pr, "/head/sha").to_string();
        let reviewed = self
            .ctx
            .head_sha
            .clone()
            .or_else(|| revision::named_in(result))
            .unwrap_or_else(|| current.clone());
        let moved = !current.is_empty() && !revision::same_commit(&reviewed, &current);
        let (diffs, changed) = match moved {
            false => (self.diffs().await?, None),
            true => {
                let base = str_at(&pr, "/base/sha").to_string();
                let (d, c) = self.diffs_since(&base, &reviewed, &current).await?;
                (d, Some(c))
            }
        };
        let comments = self
            .api
            .get_all(
                &self.pull("/comments"),
                "list the pull request's review comments",
            )
            .await?;
        let issue_comments = self
            .api
            .get_all(
                &self.repo(&format!("/issues/{}/comments", self.ctx.number)),
                "list the pull request's comments",
            )
            .await?;
        let (me, confirmed) = match asked {
            Some(login) => (login, true),
            None => match self.recorded_login(&issue_comments) {
                Some(login) => (login, true),
                None => (WORKFLOW_BOT.to_string(), false),
            },
        };
        let earlier = self.earlier(&comments, &me);
        let summaries = issue_comments
            .iter()
            .filter(|c| {
                matches!(
                    self.markers.read(str_at(c, "/body")),
                    Some(Marker::Summary(_))
                )
            })
            .filter_map(|c| Some((author(c).to_string(), c.get("id")?.as_u64()?)))
            .collect();
        Ok(Seen {
            me,
            confirmed,
            pinned: reviewed.clone(),
            reviewed,
            current,
            moved,
            diffs,
            changed,
            earlier,
            summaries,
            view: (),
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

    /// The login whose comments are crit's, when the setting or the API
    /// says; `None` for an installation token, which may not ask.
    pub(crate) async fn identity(&mut self) -> Result<Option<String>, PostError> {
        if let Some(a) = &self.options.author {
            return Ok(Some(a.clone()));
        }
        match self.api.get("/user", "find the token's account").await {
            Ok(user) => match user.get("login").and_then(Value::as_str) {
                Some(login) => Ok(Some(login.to_string())),
                None => Err(self.api.protocol("find the token's account", "no login")),
            },
            Err(PostError::Permission { status: 403, .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The account an earlier summary recorded as crit's, when that summary
    /// is that account's own and the account is an App's (a `Bot`): a
    /// person cannot make crit take their comments for its own.
    fn recorded_login(&self, issue_comments: &[Value]) -> Option<String> {
        issue_comments.iter().find_map(|c| {
            let by = match self.markers.read(str_at(c, "/body"))? {
                Marker::Summary(r) => r.by?,
                Marker::Finding { .. } => return None,
            };
            let bot = str_at(c, "/user/type") == "Bot" && by.ends_with("[bot]");
            (bot && author(c) == by).then_some(by)
        })
    }

    /// crit's summary comment (by `me`), and what its marker records.
    fn summary_recorded<'c>(
        &self,
        issue_comments: &'c [Value],
        me: &str,
    ) -> Option<(&'c Value, Recorded)> {
        issue_comments.iter().find_map(|c| {
            if author(c) != me {
                return None;
            }
            match self.markers.read(str_at(c, "/body"))? {
                Marker::Summary(r) => Some((c, r)),
                Marker::Finding { .. } => None,
            }
        })
    }

    /// What crit's summary on the pull request records of the last review,
    /// read only from crit's own account's summary; `None` when there is
    /// none, or it records no head.
    pub async fn last_review(&mut self) -> Result<Option<LastReview>, PostError> {
        let asked = self.identity().await?;
        let issue_comments = self
            .api
            .get_all(
                &self.repo(&format!("/issues/{}/comments", self.ctx.number)),
                "list the pull request's comments",
            )
            .await?;
        // Narrowing a review on a marker's word needs crit's account from
        // the token or `--github-login`, or a workflow's own token: not the
        // account a summary records of itself, which another App's bot can
        // claim in a marker naming HEAD, leaving the commits since unreviewed.
        let me = asked.unwrap_or_else(|| WORKFLOW_BOT.to_string());
        Ok(self
            .summary_recorded(&issue_comments, &me)
            .and_then(|(_, r)| r.last_review()))
    }

    /// The diff of the reviewed commit (`base...reviewed`) and the lines
    /// changed from it to the current head, through the compare API.
    async fn diffs_since(
        &mut self,
        base: &str,
        reviewed: &str,
        current: &str,
    ) -> Result<(BTreeMap<String, FileDiff>, ChangedSince), PostError> {
        let at = self.compare(base, reviewed).await?;
        let diffs = at
            .iter()
            .filter_map(|f| {
                let patch = f.get("patch")?.as_str()?;
                Some((
                    f.get("filename")?.as_str()?.to_string(),
                    FileDiff::parse(patch),
                ))
            })
            .collect();
        let changed = match self.compare(reviewed, current).await {
            Ok(files) => revision::changed_since(files.iter().map(|f| {
                let status = str_at(f, "/status");
                revision::Compared {
                    old_path: f
                        .get("previous_filename")
                        .and_then(Value::as_str)
                        .unwrap_or(str_at(f, "/filename")),
                    patch: f.get("patch").and_then(Value::as_str),
                    whole: matches!(status, "removed" | "renamed"),
                }
            })),
            // A history rewritten past the reviewed commit: nothing is known
            // to be unchanged.
            Err(PostError::Permission { status: 404, .. }) => ChangedSince {
                unknown: true,
                ..ChangedSince::default()
            },
            Err(e) => return Err(e),
        };
        Ok((diffs, changed))
    }

    /// The files of `GET /compare/{from}...{to}`.
    async fn compare(&mut self, from: &str, to: &str) -> Result<Vec<Value>, PostError> {
        let path = self.repo(&format!("/compare/{from}...{to}"));
        let answer = self
            .api
            .get(&path, "compare the reviewed commit with the pull request")
            .await?;
        Ok(answer
            .get("files")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default())
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
                        // Outdated by a push: GitHub no longer puts it on a line.
                        stale: c.get("line").is_some_and(Value::is_null),
                        handle: c.get("id")?.as_u64()?,
                    }),
                    Marker::Summary { .. } => None,
                }
            })
            .collect()
    }
}

pub(crate) fn author(c: &Value) -> &str {
    str_at(c, "/user/login")
}

pub(crate) fn str_at<'v>(v: &'v Value, pointer: &str) -> &'v str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}
