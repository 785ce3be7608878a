//! The writes of a GitLab run that must not blank it: one discussion per
//! inline comment (one that fails does not stop the rest; those failing
//! with a server error are sent again after checking what arrived), stale
//! discussions pointed at their findings' new ones, and the summary note.

use std::collections::HashMap;

use reqwest::Method;
use serde_json::{Value, json};

use crate::comment::{inline_body, moved_body, moved_words};
use crate::error::{ForgeKind, PostError};
use crate::forge::degrade;
use crate::forge::{Forge, Seen, Sent};
use crate::gitlab::{Diff, GitlabPoster, Thread};
use crate::http::{Api, Stats};
use crate::marker::Markers;
use crate::plan::{Earlier, Elsewhere, Plan};

impl GitlabPoster {
    /// Opens a discussion for each of `plan.new`, positioned on the diff
    /// `at` (the reviewed version); what GitLab refuses or keeps failing
    /// moves to `plan.elsewhere`. Returns each posted key's note id.
    async fn open_discussions(
        &mut self,
        plan: &mut Plan<'_, Thread>,
        at: &Diff,
        me: &str,
        notes: &mut Vec<String>,
        failed: &mut Vec<String>,
    ) -> Result<HashMap<String, u64>, PostError> {
        let mut links = HashMap::new();
        let bodies: Vec<Value> = plan
            .new
            .iter()
            .map(|i| self.discussion_json(i, at))
            .collect();
        let mut pending: Vec<usize> = (0..bodies.len()).collect();
        let mut out: HashMap<usize, Elsewhere> = HashMap::new();
        let mut last_error = String::new();
        for attempt in 0..self.api.max_attempts() {
            if pending.is_empty() {
                break;
            }
            if attempt > 0 {
                self.api
                    .backoff(attempt - 1, "post an inline comment")
                    .await?;
                // A failed request may have been done: what arrived is not
                // sent again.
                let there = self.arrived(me).await?;
                pending.retain(|&i| match there.get(body_of(&bodies[i])) {
                    Some(id) => {
                        links.insert(plan.new[i].key.clone(), *id);
                        false
                    }
                    None => true,
                });
            }
            let mut again = Vec::new();
            for i in std::mem::take(&mut pending) {
                let done = self
                    .api
                    .write(
                        Method::POST,
                        &self.mr("/discussions"),
                        &bodies[i],
                        "post an inline comment",
                    )
                    .await;
                match done {
                    Ok(v) => {
                        if let Some(id) = v.pointer("/notes/0/id").and_then(Value::as_u64) {
                            links.insert(plan.new[i].key.clone(), id);
                        }
                    }
                    // GitLab cannot place it: the finding goes to the summary.
                    Err(PostError::Rejected {
                        status: 400,
                        message,
                        ..
                    }) => {
                        out.insert(i, Elsewhere::Refused);
                        notes.push(format!("GitLab refused an inline comment ({message}); its finding is listed below instead."));
                    }
                    Err(e) if e.is_transient() => {
                        last_error = e.to_string();
                        again.push(i);
                    }
                    Err(e) => return Err(e),
                }
            }
            pending = again;
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
        Ok(links)
    }

    fn discussion_json(&self, inline: &crate::plan::Inline<'_>, at: &Diff) -> Value {
        let path = inline.finding.path().unwrap_or("").trim_start_matches("./");
        let old_path = at.files.get(path).map(|(o, _)| o.as_str()).unwrap_or(path);
        let mut position = json!({"base_sha": at.base, "start_sha": at.start, "head_sha": at.head,
            "position_type": "text", "new_path": path, "old_path": old_path, "new_line": inline.anchor.start});
        if let Some(old) = inline.anchor.start_old {
            position["old_line"] = json!(old);
        }
        json!({"body": inline_body(&self.markers, inline, ForgeKind::Gitlab), "position": position})
    }

    /// The first notes of the discussions now on the merge request by `me`:
    /// body to note id.
    async fn arrived(&mut self, me: &str) -> Result<HashMap<String, u64>, PostError> {
        let discussions = self
            .api
            .get_all(
                &self.mr("/discussions"),
                "list the merge request's discussions",
            )
            .await?;
        Ok(discussions
            .iter()
            .filter_map(|d| d.pointer("/notes/0"))
            .filter(|n| n.pointer("/author/username").and_then(Value::as_str) == Some(me))
            .filter_map(|n| Some((body_of(n).to_string(), n.get("id")?.as_u64()?)))
            .collect())
    }

    /// Points a stale discussion at its finding's new place: a reply saying
    /// where, its marker resolved, the discussion resolved (when the token
    /// may).
    async fn point_on(
        &mut self,
        e: &Earlier<Thread>,
        link: Option<&str>,
        failed: &mut Vec<String>,
    ) -> Result<(), PostError> {
        let t = &e.handle;
        let reply = self.mr(&format!("/discussions/{}/notes", t.discussion));
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
        let path = self.mr(&format!("/discussions/{}/notes/{}", t.discussion, t.note));
        let body = moved_body(&self.markers, &e.key, &e.body, link);
        let done = self
            .api
            .write(
                Method::PUT,
                &path,
                &json!({"body": body}),
                "mark an outdated comment moved",
            )
            .await;
        degrade(done, "marking an outdated comment moved", failed)?;
        let path = self.mr(&format!("/discussions/{}", t.discussion));
        let done = self
            .api
            .write(
                Method::PUT,
                &path,
                &json!({"resolved": true}),
                "resolve a discussion",
            )
            .await;
        match done {
            Err(PostError::Permission { .. }) => Ok(()),
            other => degrade(other, "resolving an outdated discussion", failed).map(|_| ()),
        }
    }
}

fn body_of(v: &Value) -> &str {
    v.get("body").and_then(Value::as_str).unwrap_or("")
}

impl Forge for GitlabPoster {
    type Handle = Thread;
    type View = Diff;

    fn kind(&self) -> ForgeKind {
        ForgeKind::Gitlab
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
        false
    }

    async fn read(
        &mut self,
        result: &crit_core::ReviewResult,
    ) -> Result<Seen<Thread, Diff>, PostError> {
        self.seen(result).await
    }

    async fn send_inline(
        &mut self,
        plan: &mut Plan<'_, Thread>,
        seen: &Seen<Thread, Diff>,
        me: &str,
        notes: &mut Vec<String>,
        failed: &mut Vec<String>,
    ) -> Result<Sent, PostError> {
        let ids = self
            .open_discussions(plan, &seen.view, me, notes, failed)
            .await?;
        let page = seen.view.web_url.as_deref().unwrap_or("");
        Ok(Sent {
            login: None,
            links: ids
                .into_iter()
                .map(|(key, id)| (key, format!("{page}#note_{id}")))
                .collect(),
        })
    }

    async fn links(&mut self, sent: &Sent, _me: &str) -> HashMap<String, String> {
        sent.links.clone()
    }

    async fn supersede(
        &mut self,
        e: &Earlier<Thread>,
        link: Option<&str>,
        failed: &mut Vec<String>,
    ) -> Result<bool, PostError> {
        // Its discussion is resolved with it.
        self.point_on(e, link, failed).await.map(|()| false)
    }

    async fn resolve(
        &mut self,
        gone: &[Earlier<Thread>],
        _superseded: Vec<Thread>,
        head: &str,
        notes: &mut Vec<String>,
        failed: &mut Vec<String>,
    ) -> Result<(usize, usize), PostError> {
        self.resolve_gone(gone, head, notes, failed).await
    }

    fn api(&mut self) -> &mut Api {
        &mut self.api
    }

    fn summary_noun(&self) -> &'static str {
        "note"
    }

    async fn edit_summary(&mut self, id: u64, body: &str) -> Result<Value, PostError> {
        let path = self.mr(&format!("/notes/{id}"));
        self.api
            .write(
                Method::PUT,
                &path,
                &json!({"body": body}),
                "edit the summary note",
            )
            .await
    }

    async fn create_summary(&mut self, body: &str) -> Result<Value, PostError> {
        self.api
            .write(
                Method::POST,
                &self.mr("/notes"),
                &json!({"body": body}),
                "post the summary note",
            )
            .await
    }

    async fn find_summary(&mut self, body: &str, me: &str) -> Result<Option<Value>, PostError> {
        let there = self.arrived(me).await?;
        Ok(there.get(body).map(|id| json!({"id": id})))
    }

    fn summary_url(&self, saved: &Value, view: &Diff) -> Option<String> {
        let id = saved.get("id").and_then(Value::as_u64)?;
        Some(format!("{}#note_{id}", view.web_url.as_deref()?))
    }

    fn summary_author(&self, _saved: &Value) -> Option<String> {
        None
    }
}
