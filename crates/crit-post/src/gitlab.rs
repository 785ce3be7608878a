//! Posting to a GitLab merge request through the REST API (v4).

use std::collections::BTreeMap;
use std::sync::Arc;

use crit_core::ReviewResult;
use reqwest::Method;
use serde_json::{Value, json};

use crate::comment::resolved_body;
use crate::context::GitlabContext;
use crate::diff::FileDiff;
use crate::error::{ForgeKind, PostError};
use crate::forge::Seen;
use crate::forge::degrade;
use crate::http::Api;
use crate::marker::{Marker, Markers, Recorded};
use crate::pace::{Pacer, RealTime};
use crate::plan::Earlier;
use crate::revision;
use crate::since::LastReview;
use crate::{DescribeReport, PostOptions, PostReport};

/// A discussion and its first note.
#[derive(Debug, Clone)]
pub(crate) struct Thread {
    pub discussion: String,
    pub note: u64,
}

/// An earlier comment of crit's and where it sits: the head of the diff it
/// was put on, and its line.
pub(crate) type Placed = (Earlier<Thread>, Option<(String, u32)>);

/// Each new path's old path and hunks, from GitLab's diff objects.
pub(crate) fn files_of(diffs: &[Value]) -> BTreeMap<String, (String, FileDiff)> {
    diffs
        .iter()
        .filter_map(|d| {
            let new = d.get("new_path")?.as_str()?.to_string();
            let old = d
                .get("old_path")
                .and_then(Value::as_str)
                .unwrap_or(&new)
                .to_string();
            let patch = d.get("diff").and_then(Value::as_str).unwrap_or("");
            Some((new, (old, FileDiff::parse(patch))))
        })
        .collect()
}

/// A version of the merge request's diff: its refs and each new path's old
/// path and hunks.
#[derive(Clone)]
pub(crate) struct Diff {
    pub base: String,
    pub start: String,
    pub head: String,
    pub files: BTreeMap<String, (String, FileDiff)>,
    /// The merge request's page, for links to its notes.
    pub web_url: Option<String>,
}

/// Posts review results and descriptions to one merge request.
#[derive(Debug)]
pub struct GitlabPoster {
    pub(crate) ctx: GitlabContext,
    pub(crate) options: PostOptions,
    pub(crate) markers: Markers,
    pub(crate) api: Api,
}

impl GitlabPoster {
    pub fn new(ctx: GitlabContext, options: PostOptions) -> Result<Self, PostError> {
        Self::with_pacer(ctx, options, Arc::new(RealTime))
    }

    /// With the clock and sleep to wait with (tests: waits without sleeping).
    pub fn with_pacer(
        ctx: GitlabContext,
        options: PostOptions,
        pacer: Arc<dyn Pacer>,
    ) -> Result<Self, PostError> {
        let patience = options.patience.clone();
        let api = Api::new(
            ForgeKind::Gitlab,
            &ctx.api_url,
            ctx.token.clone(),
            &ctx.token_source,
            pacer,
            patience,
        )?;
        Ok(GitlabPoster {
            markers: Markers::new(options.scope.as_deref()),
            ctx,
            options,
            api,
        })
    }

    pub(crate) fn mr(&self, rest: &str) -> String {
        format!(
            "/projects/{}/merge_requests/{}{rest}",
            self.ctx.project, self.ctx.iid
        )
    }

    /// Posts `result`: see the crate's documentation for what one run does.
    pub async fn post(&mut self, result: &ReviewResult) -> Result<PostReport, PostError> {
        crate::forge::post(self, result).await
    }

    /// What the merge request holds: who crit is, the reviewed version and
    /// its diff (and what changed since, when the head moved), crit's
    /// earlier discussions and summary note.
    pub(crate) async fn seen(
        &mut self,
        result: &ReviewResult,
    ) -> Result<Seen<Thread, Diff>, PostError> {
        let me = self.identity().await?;
        let current = self.diff().await?;
        let reviewed = self
            .ctx
            .head_sha
            .clone()
            .or_else(|| revision::named_in(result))
            .unwrap_or_else(|| current.head.clone());
        let moved = !revision::same_commit(&reviewed, &current.head);
        let (diff, changed) = match moved {
            false => (current.clone(), None),
            true => self.at_version(&reviewed, &current).await?,
        };
        let discussions = self
            .api
            .get_all(
                &self.mr("/discussions"),
                "list the merge request's discussions",
            )
            .await?;
        let (found, summary_note) = self.earlier(&discussions, &me);
        let earlier = self.mark_stale(found, &diff.head).await?;
        let diffs: BTreeMap<String, FileDiff> = diff
            .files
            .iter()
            .map(|(path, (_, d))| (path.clone(), d.clone()))
            .collect();
        let summaries = summary_note
            .map(|(t, _)| vec![(me.clone(), t.note)])
            .unwrap_or_default();
        Ok(Seen {
            me,
            confirmed: true,
            reviewed,
            current: current.head,
            pinned: diff.head.clone(),
            moved,
            diffs,
            changed,
            earlier,
            summaries,
            view: diff,
        })
    }

    /// Sets crit's section of the merge request's description to `section`
    /// (markdown), leaving the author's text alone; sends nothing when it
    /// already reads so.
    pub async fn describe(&mut self, section: &str) -> Result<DescribeReport, PostError> {
        let mr = self.api.get(&self.mr(""), "read the merge request").await?;
        let body = mr.get("description").and_then(Value::as_str).unwrap_or("");
        let updated = crate::describe::update_body(body, section, &self.markers);
        let changed = updated != body;
        if changed {
            self.api
                .write(
                    Method::PUT,
                    &self.mr(""),
                    &json!({"description": updated}),
                    "edit the merge request's description",
                )
                .await?;
        }
        Ok(DescribeReport {
            changed,
            stats: self.api.stats.clone(),
        })
    }

    /// What crit's summary on the merge request records of the last
    /// review, read only from crit's own account's summary; `None` when
    /// there is none, or it records no head.
    pub async fn last_review(&mut self) -> Result<Option<LastReview>, PostError> {
        let me = self.identity().await?;
        let discussions = self
            .api
            .get_all(
                &self.mr("/discussions"),
                "list the merge request's discussions",
            )
            .await?;
        let (_, summary) = self.earlier(&discussions, &me);
        Ok(summary.and_then(|(_, r)| r.last_review()))
    }

    pub(crate) async fn identity(&mut self) -> Result<String, PostError> {
        if let Some(a) = &self.options.author {
            return Ok(a.clone());
        }
        let user = self.api.get("/user", "find the token's account").await?;
        match user.get("username").and_then(Value::as_str) {
            Some(u) => Ok(u.to_string()),
            None => Err(self.api.protocol("find the token's account", "no username")),
        }
    }

    async fn diff(&mut self) -> Result<Diff, PostError> {
        let mr = self.api.get(&self.mr(""), "read the merge request").await?;
        let refs = |key: &str| {
            mr.pointer(&format!("/diff_refs/{key}"))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let (Some(base), Some(start), Some(head)) =
            (refs("base_sha"), refs("start_sha"), refs("head_sha"))
        else {
            return Err(self.api.protocol(
                "read the merge request",
                "it has no diff_refs yet (GitLab is still preparing its diff)",
            ));
        };
        let diffs = self
            .api
            .get_all(&self.mr("/diffs"), "list the merge request's changes")
            .await?;
        let files = files_of(&diffs);
        let web_url = mr
            .get("web_url")
            .and_then(Value::as_str)
            .filter(|u| u.starts_with("https://") || u.starts_with("http://"))
            .map(str::to_string);
        Ok(Diff {
            base,
            start,
            head,
            files,
            web_url,
        })
    }

    /// crit's own inline discussions of earlier runs, and its summary note.
    #[allow(clippy::type_complexity)]
    fn earlier(
        &self,
        discussions: &[Value],
        me: &str,
    ) -> (
        Vec<(Earlier<Thread>, Option<(String, u32)>)>,
        Option<(Thread, Recorded)>,
    ) {
        let mut earlier = Vec::new();
        let mut summary = None;
        for d in discussions {
            let Some(first) = d.pointer("/notes/0") else {
                continue;
            };
            if first.pointer("/author/username").and_then(Value::as_str) != Some(me) {
                continue;
            }
            let (Some(discussion), Some(note)) = (
                d.get("id").and_then(Value::as_str),
                first.get("id").and_then(Value::as_u64),
            ) else {
                continue;
            };
            let thread = Thread {
                discussion: discussion.to_string(),
                note,
            };
            let body = first.get("body").and_then(Value::as_str).unwrap_or("");
            let inline = first.get("type").and_then(Value::as_str) == Some("DiffNote");
            match self.markers.read(body) {
                Some(Marker::Summary(r)) if summary.is_none() && !inline => {
                    summary = Some((thread, r))
                }
                Some(Marker::Finding { key, resolved }) if inline => {
                    // Where it sits: a line of the diff of this head.
                    let at = first
                        .pointer("/position/head_sha")
                        .and_then(Value::as_str)
                        .zip(
                            first
                                .pointer("/position/new_line")
                                .and_then(Value::as_u64)
                                .and_then(|l| u32::try_from(l).ok()),
                        )
                        .map(|(h, l)| (h.to_string(), l));
                    let e = Earlier {
                        key,
                        resolved,
                        body: body.to_string(),
                        path: first
                            .pointer("/position/new_path")
                            .and_then(Value::as_str)
                            .map(str::to_string),
                        stale: false,
                        handle: thread,
                    };
                    earlier.push((e, at));
                }
                _ => {}
            }
        }
        (earlier, summary)
    }

    /// Marks each comment resolved and resolves its discussion (when the
    /// token may; if not, once noted, the rest only get their bodies edited).
    pub(crate) async fn resolve_gone(
        &mut self,
        gone: &[Earlier<Thread>],
        head: &str,
        notes: &mut Vec<String>,
        failed: &mut Vec<String>,
    ) -> Result<(usize, usize), PostError> {
        let (mut edited, mut resolved) = (0, 0);
        let mut may_resolve = true;
        for e in gone {
            let t = &e.handle;
            let body = resolved_body(&self.markers, &e.key, &e.body, Some(head));
            let path = self.mr(&format!("/discussions/{}/notes/{}", t.discussion, t.note));
            let done = self
                .api
                .write(
                    Method::PUT,
                    &path,
                    &json!({"body": body}),
                    "mark a comment resolved",
                )
                .await;
            if degrade(done, "marking a comment resolved", failed)?.is_none() {
                continue;
            }
            edited += 1;
            if !may_resolve {
                continue;
            }
            let path = self.mr(&format!("/discussions/{}", t.discussion));
            match self
                .api
                .write(
                    Method::PUT,
                    &path,
                    &json!({"resolved": true}),
                    "resolve a discussion",
                )
                .await
            {
                Ok(_) => resolved += 1,
                Err(e @ PostError::Permission { .. }) => {
                    may_resolve = false;
                    notes.push(format!(
                        "The comments say they are resolved, but their discussions stay open: {e}"
                    ));
                }
                Err(e) => {
                    degrade(Err(e), "resolving a discussion", failed)?;
                }
            }
        }
        Ok((edited, resolved))
    }
}
