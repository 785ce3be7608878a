//! The writes of a GitHub run that must not blank it: the review of inline
//! comments (sent again, after checking what arrived, on a server error;
//! one comment at a time when GitHub refuses the batch), stale comments
//! pointed at their findings' new ones, and the summary.

use std::collections::HashMap;

use reqwest::Method;
use serde_json::{Value, json};

use crate::comment::{inline_body, moved_body, moved_words, resolved_body};
use crate::error::{ForgeKind, PostError};
use crate::forge::degrade;
use crate::forge::{Forge, Seen, Sent};
use crate::github::{GithubPoster, author, str_at};
use crate::http::{Api, Stats};
use crate::marker::{Marker, Markers};
use crate::plan::{Earlier, Elsewhere, Plan};

impl GithubPoster {
    /// Sends `plan.new` as one review on `commit`; what GitHub refuses or
    /// keeps failing moves to `plan.elsewhere` (and is noted), the rest is
    /// posted once. Returns the account GitHub says wrote them.
    async fn send_review(
        &mut self,
        plan: &mut Plan<'_, u64>,
        commit: &str,
        me: &str,
        notes: &mut Vec<String>,
        failed: &mut Vec<String>,
    ) -> Result<Option<String>, PostError> {
        let mut sent = Sent::default();
        if plan.new.is_empty() {
            return Ok(None);
        }
        let bodies: Vec<Value> = plan.new.iter().map(|i| self.comment_json(i)).collect();
        let mut pending: Vec<usize> = (0..bodies.len()).collect();
        let mut refused: Vec<(usize, String)> = Vec::new();
        let mut last_error = String::new();
        for attempt in 0..self.api.max_attempts() {
            if attempt > 0 {
                self.api.backoff(attempt - 1, "post the review").await?;
                // The failed request may have been done: what arrived is
                // not sent again.
                let there = self.arrived(me).await?;
                pending.retain(|&i| !there.contains(str_at(&bodies[i], "/body")));
            }
            if pending.is_empty() {
                break;
            }
            let batch: Vec<Value> = pending.iter().map(|&i| bodies[i].clone()).collect();
            match self.post_review(commit, batch).await {
                Ok(v) => {
                    sent.login = login_of(&v).or(sent.login);
                    pending.clear();
                    break;
                }
                // One comment GitHub cannot place refuses the whole review:
                // each is sent on its own, so only that one is left out.
                Err(PostError::Rejected { status: 422, .. }) => {
                    let mut again = Vec::new();
                    for i in std::mem::take(&mut pending) {
                        match self.post_review(commit, vec![bodies[i].clone()]).await {
                            Ok(v) => sent.login = login_of(&v).or(sent.login),
                            Err(PostError::Rejected {
                                status: 422,
                                message,
                                ..
                            }) => refused.push((i, message)),
                            Err(e) if e.is_transient() => {
                                last_error = e.to_string();
                                again.push(i);
                            }
                            Err(e) => return Err(e),
                        }
                    }
                    pending = again;
                    if pending.is_empty() {
                        break;
                    }
                }
                Err(e) if e.is_transient() => last_error = e.to_string(),
                Err(e) => return Err(e),
            }
        }
        let mut out: HashMap<usize, Elsewhere> = HashMap::new();
        for (i, message) in &refused {
            let at = plan.new[*i].finding.location.as_ref().map(|l| l.display());
            notes.push(format!(
                "GitHub refused the inline comment on {} ({message}); its finding is listed below instead.",
                at.as_deref().unwrap_or("a line")
            ));
            out.insert(*i, Elsewhere::Refused);
        }
        for &i in &pending {
            let at = plan.new[i].finding.location.as_ref().map(|l| l.display());
            failed.push(format!(
                "the inline comment on {} ({last_error})",
                at.as_deref().unwrap_or("a line")
            ));
            out.insert(i, Elsewhere::NotPosted);
        }
        let new = std::mem::take(&mut plan.new);
        for (i, inline) in new.into_iter().enumerate() {
            match out.get(&i) {
                Some(why) => plan.elsewhere.push((inline.finding, *why)),
                None => plan.new.push(inline),
            }
        }
        Ok(sent.login)
    }

    fn comment_json(&self, i: &crate::plan::Inline<'_>) -> Value {
        let mut c = json!({"path": i.finding.path().unwrap_or("").trim_start_matches("./"),
            "line": i.anchor.end, "side": "RIGHT",
            "body": inline_body(&self.markers, i, ForgeKind::Github)});
        if i.anchor.start < i.anchor.end {
            c["start_line"] = json!(i.anchor.start);
            c["start_side"] = json!("RIGHT");
        }
        c
    }

    async fn post_review(
        &mut self,
        commit: &str,
        comments: Vec<Value>,
    ) -> Result<Value, PostError> {
        let n = comments.len();
        let mut review = json!({"event": "COMMENT", "comments": comments,
            "body": format!("crit put {n} comment(s) on lines of this change; the summary is in the conversation.")});
        if !commit.is_empty() {
            review["commit_id"] = json!(commit);
        }
        self.api
            .write(
                Method::POST,
                &self.pull("/reviews"),
                &review,
                "post the review",
            )
            .await
    }

    /// The bodies of the review comments with crit's markers now on the
    /// pull request (by `me`, or the very text crit sent).
    async fn arrived(&mut self, me: &str) -> Result<std::collections::HashSet<String>, PostError> {
        let comments = self
            .api
            .get_all(
                &self.pull("/comments"),
                "list the pull request's review comments",
            )
            .await?;
        Ok(comments
            .iter()
            .filter(|c| author(c) == me || str_at(c, "/user/type") == "Bot")
            .map(|c| str_at(c, "/body").to_string())
            .collect())
    }

    /// The web address of crit's open comment for each finding key.
    async fn comment_links(&mut self, me: &str) -> HashMap<String, String> {
        let Ok(comments) = self
            .api
            .get_all(
                &self.pull("/comments"),
                "list the pull request's review comments",
            )
            .await
        else {
            return HashMap::new();
        };
        comments
            .iter()
            .filter(|c| author(c) == me && !c.get("line").is_none_or(Value::is_null))
            .filter_map(|c| match self.markers.read(str_at(c, "/body"))? {
                Marker::Finding {
                    key,
                    resolved: false,
                } => Some((key, str_at(c, "/html_url").to_string())),
                _ => None,
            })
            .collect()
    }

    /// Points a stale comment at its finding's new place: a reply saying
    /// where, its marker resolved. True when its thread may be resolved.
    async fn point_on(
        &mut self,
        e: &Earlier<u64>,
        link: Option<&str>,
        failed: &mut Vec<String>,
    ) -> Result<bool, PostError> {
        let reply = self.pull(&format!("/comments/{}/replies", e.handle));
        let done = self
            .api
            .write(
                Method::POST,
                &reply,
                &json!({"body": moved_words(link)}),
                "reply to an outdated comment",
            )
            .await;
        degrade(done, "a reply on an outdated comment", failed)?;
        let body = moved_body(&self.markers, &e.key, &e.body, link);
        let path = self.repo(&format!("/pulls/comments/{}", e.handle));
        let done = self
            .api
            .write(
                Method::PATCH,
                &path,
                &json!({"body": body}),
                "mark an outdated comment moved",
            )
            .await;
        Ok(degrade(done, "marking an outdated comment moved", failed)?.is_some())
    }
}

fn login_of(v: &Value) -> Option<String> {
    v.pointer("/user/login")
        .and_then(Value::as_str)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
}

impl Forge for GithubPoster {
    type Handle = u64;
    type View = ();

    fn kind(&self) -> ForgeKind {
        ForgeKind::Github
    }

    fn markers(&self) -> &Markers {
        &self.markers
    }

    fn max_comments(&self) -> usize {
        self.options
            .max_comments
            .unwrap_or(crate::DEFAULT_MAX_COMMENTS)
    }

    fn stats(&self) -> Stats {
        self.api.stats.clone()
    }

    fn records_author(&self) -> bool {
        true
    }

    async fn read(&mut self, result: &crit_core::ReviewResult) -> Result<Seen<u64, ()>, PostError> {
        self.seen(result).await
    }

    async fn send_inline(
        &mut self,
        plan: &mut Plan<'_, u64>,
        seen: &Seen<u64, ()>,
        me: &str,
        notes: &mut Vec<String>,
        failed: &mut Vec<String>,
    ) -> Result<Sent, PostError> {
        let login = self
            .send_review(plan, &seen.pinned, me, notes, failed)
            .await?;
        Ok(Sent {
            login,
            links: HashMap::new(),
        })
    }

    async fn links(&mut self, _sent: &Sent, me: &str) -> HashMap<String, String> {
        self.comment_links(me).await
    }

    async fn supersede(
        &mut self,
        e: &Earlier<u64>,
        link: Option<&str>,
        failed: &mut Vec<String>,
    ) -> Result<bool, PostError> {
        self.point_on(e, link, failed).await
    }

    async fn resolve(
        &mut self,
        gone: &[Earlier<u64>],
        superseded: Vec<u64>,
        head: &str,
        notes: &mut Vec<String>,
        failed: &mut Vec<String>,
    ) -> Result<(usize, usize), PostError> {
        let mut ids = superseded;
        let mut resolved = 0;
        for e in gone {
            let body = resolved_body(&self.markers, &e.key, &e.body, Some(head));
            let path = self.repo(&format!("/pulls/comments/{}", e.handle));
            let done = self
                .api
                .write(
                    Method::PATCH,
                    &path,
                    &json!({"body": body}),
                    "mark a comment resolved",
                )
                .await;
            if degrade(done, "marking a comment resolved", failed)?.is_some() {
                ids.push(e.handle);
                resolved += 1;
            }
        }
        let threads = match ids.is_empty() {
            true => 0,
            false => match self.resolve_threads(&ids).await {
                Ok(n) => n,
                Err(why) => {
                    notes.push(format!("The comments say they are resolved, but their review threads stay open: {why}"));
                    0
                }
            },
        };
        Ok((resolved, threads))
    }

    fn api(&mut self) -> &mut Api {
        &mut self.api
    }

    fn summary_noun(&self) -> &'static str {
        "comment"
    }

    async fn edit_summary(&mut self, id: u64, body: &str) -> Result<Value, PostError> {
        let path = self.repo(&format!("/issues/comments/{id}"));
        self.api
            .write(
                Method::PATCH,
                &path,
                &json!({"body": body}),
                "edit the summary comment",
            )
            .await
    }

    async fn create_summary(&mut self, body: &str) -> Result<Value, PostError> {
        let path = self.repo(&format!("/issues/{}/comments", self.ctx.number));
        self.api
            .write(
                Method::POST,
                &path,
                &json!({"body": body}),
                "post the summary comment",
            )
            .await
    }

    async fn find_summary(&mut self, body: &str, me: &str) -> Result<Option<Value>, PostError> {
        let path = self.repo(&format!("/issues/{}/comments", self.ctx.number));
        let there = self
            .api
            .get_all(&path, "list the pull request's comments")
            .await?;
        Ok(there.into_iter().find(|c| {
            str_at(c, "/body") == body && (author(c) == me || str_at(c, "/user/type") == "Bot")
        }))
    }

    fn summary_url(&self, saved: &Value, _view: &()) -> Option<String> {
        saved
            .get("html_url")
            .and_then(Value::as_str)
            .map(str::to_string)
    }

    fn summary_author(&self, saved: &Value) -> Option<String> {
        saved
            .pointer("/user/login")
            .and_then(Value::as_str)
            .map(str::to_string)
    }
}
