//! The posting algorithm, written once over what each forge's API does
//! ([`Forge`]): read what the pull or merge request holds, plan where each
//! finding goes, send the inline comments, point stale comments at their
//! findings' new ones, resolve the comments whose findings are gone, and
//! save the one summary. A forge says how; the order, the notes, what a
//! failed write costs and what the report says are decided here.

use std::collections::{BTreeMap, HashMap};

use crit_core::ReviewResult;
use serde_json::Value;

use crate::PostReport;
use crate::diff::FileDiff;
use crate::error::{ForgeKind, PostError};
use crate::http::{Api, Stats};
use crate::marker::Markers;
use crate::plan::{ChangedSince, Earlier, Elsewhere, Plan, plan};
use crate::revision;
use crate::summary::{self, Outcome};

/// What a pull or merge request holds before this run posts.
pub(crate) struct Seen<H, V> {
    /// The account whose comments are crit's (as asked, recorded or guessed).
    pub me: String,
    /// False while `me` is a guess (a GitHub installation token cannot
    /// ask): the forge's answer to the first write settles it.
    pub confirmed: bool,
    /// The commit the result reviewed.
    pub reviewed: String,
    /// The request's head now.
    pub current: String,
    /// The head the comments are pinned to and the summary records.
    pub pinned: String,
    /// The head moved on after the review.
    pub moved: bool,
    /// The diff of the pinned revision, per file.
    pub diffs: BTreeMap<String, FileDiff>,
    /// The lines changed since the pinned revision, when the head moved.
    pub changed: Option<ChangedSince>,
    /// crit's own inline comments of earlier runs.
    pub earlier: Vec<Earlier<H>>,
    /// Every comment carrying crit's summary marker: its author and id.
    pub summaries: Vec<(String, u64)>,
    /// What else the forge needs to post (GitLab: the reviewed version's
    /// refs).
    pub view: V,
}

/// What sending the inline comments did.
#[derive(Debug, Default)]
pub(crate) struct Sent {
    /// The account the forge says wrote them.
    pub login: Option<String>,
    /// The web address of each new comment, by finding key, when the
    /// answers gave one.
    pub links: HashMap<String, String>,
}

/// One forge's API, as the posting algorithm uses it.
pub(crate) trait Forge {
    /// How the forge names an earlier comment (an id; a discussion and its
    /// note).
    type Handle: Clone;
    /// What else [`Forge::read`] found that only this forge's writes use.
    type View;

    fn kind(&self) -> ForgeKind;
    fn markers(&self) -> &Markers;
    /// Most inline comments to keep open.
    fn max_comments(&self) -> usize;
    fn stats(&self) -> Stats;
    /// Whether the summary's marker records the account (GitLab's tokens
    /// can always ask who they are).
    fn records_author(&self) -> bool;

    /// Who crit is, which revision was reviewed, its diff, and crit's
    /// earlier comments and summary.
    async fn read(
        &mut self,
        result: &ReviewResult,
    ) -> Result<Seen<Self::Handle, Self::View>, PostError>;

    /// Sends `plan.new`, pinned to `pinned`; what the forge refuses or keeps
    /// failing moves to `plan.elsewhere` (refusals noted, failures listed).
    async fn send_inline(
        &mut self,
        plan: &mut Plan<'_, Self::Handle>,
        seen: &Seen<Self::Handle, Self::View>,
        me: &str,
        notes: &mut Vec<String>,
        failed: &mut Vec<String>,
    ) -> Result<Sent, PostError>;

    /// The web address of crit's open comment for each finding key, for
    /// pointing stale comments there.
    async fn links(&mut self, sent: &Sent, me: &str) -> HashMap<String, String>;

    /// Points a stale comment at its finding's new place; true when its
    /// thread is left for [`Forge::resolve`] to resolve.
    async fn supersede(
        &mut self,
        e: &Earlier<Self::Handle>,
        link: Option<&str>,
        failed: &mut Vec<String>,
    ) -> Result<bool, PostError>;

    /// Marks `gone`'s comments resolved (as of `head`) and resolves their
    /// threads, and those of `superseded`: how many comments were edited
    /// and how many threads resolved.
    async fn resolve(
        &mut self,
        gone: &[Earlier<Self::Handle>],
        superseded: Vec<Self::Handle>,
        head: &str,
        notes: &mut Vec<String>,
        failed: &mut Vec<String>,
    ) -> Result<(usize, usize), PostError>;

    /// The client all of this forge's requests go through (its waits and
    /// attempts).
    fn api(&mut self) -> &mut Api;

    /// What the forge calls the summary ("comment", "note").
    fn summary_noun(&self) -> &'static str;

    /// Sets summary `id`'s text to `body`.
    async fn edit_summary(&mut self, id: u64, body: &str) -> Result<Value, PostError>;

    /// Posts `body` as a new summary.
    async fn create_summary(&mut self, body: &str) -> Result<Value, PostError>;

    /// The summary reading `body` by `me` now on the request, if a post
    /// that seemed to fail arrived after all.
    async fn find_summary(&mut self, body: &str, me: &str) -> Result<Option<Value>, PostError>;

    /// The saved summary's web address.
    fn summary_url(&self, saved: &Value, view: &Self::View) -> Option<String>;

    /// The account the forge says wrote the saved summary.
    fn summary_author(&self, saved: &Value) -> Option<String>;
}

/// crit's summary among `summaries`, by `me`.
fn summary_of(summaries: &[(String, u64)], me: &str) -> Option<u64> {
    summaries.iter().find(|(by, _)| by == me).map(|(_, id)| *id)
}

/// Posts `result` through `forge`: see the crate's documentation for what
/// one run does.
pub(crate) async fn post<F: Forge>(
    forge: &mut F,
    result: &ReviewResult,
) -> Result<PostReport, PostError> {
    let mut seen = forge.read(result).await?;
    let mut me = seen.me.clone();
    let mut confirmed = seen.confirmed;
    let mut summary_id = summary_of(&seen.summaries, &me);
    let earlier = std::mem::take(&mut seen.earlier);
    let mut plan = plan(
        result,
        &seen.diffs,
        earlier,
        Some(forge.max_comments()),
        seen.changed.as_ref(),
    );
    let mut notes = summary::left_open_note(plan.left_open, result);
    if seen.moved {
        let n = plan
            .elsewhere
            .iter()
            .filter(|(_, w)| *w == Elsewhere::ChangedSince)
            .count();
        notes.push(revision::moved_note(&seen.reviewed, &seen.current, n));
    }
    let mut failed = Vec::new();
    let sent = forge
        .send_inline(&mut plan, &seen, &me, &mut notes, &mut failed)
        .await?;
    let posted = plan.new.len();
    if let Some(login) = sent.login.clone().filter(|_| !confirmed) {
        if login != me {
            // The guess was not this token's account: nothing read as
            // crit's was, so nothing of it is edited.
            me = login;
            plan.resolve.clear();
            plan.superseded.clear();
            summary_id = summary_of(&seen.summaries, &me);
        }
        confirmed = true;
    }
    let links = match plan.superseded.is_empty() {
        true => HashMap::new(),
        false => forge.links(&sent, &me).await,
    };
    let mut superseded = Vec::new();
    for e in std::mem::take(&mut plan.superseded) {
        let link = links.get(&e.key).map(String::as_str);
        if forge.supersede(&e, link, &mut failed).await? {
            superseded.push(e.handle.clone());
        }
    }
    let (resolved, threads_resolved) = forge
        .resolve(
            &plan.resolve,
            superseded,
            &seen.pinned,
            &mut notes,
            &mut failed,
        )
        .await?;
    let markers = forge.markers().clone();
    let outcome = |by: Option<&str>, failed: &[String]| {
        let mut all = notes.clone();
        all.extend(failed.iter().map(|f| format!("Not posted: {f}.")));
        summary::body(
            &markers,
            result,
            &Outcome {
                head: Some(&seen.pinned),
                by,
                new_inline: posted,
                kept_inline: plan.kept,
                elsewhere: &plan.elsewhere,
                resolved,
                notes: &all,
            },
        )
    };
    let records = forge.records_author();
    let body = outcome((records && confirmed).then_some(me.as_str()), &failed);
    let saved = save_summary(forge, summary_id, &body, &me).await?;
    let mut unposted_summary = None;
    match &saved {
        Some(v) if records && !confirmed => {
            // The summary's own author is the account to record.
            if let Some(login) = forge.summary_author(v) {
                let body = outcome(Some(&login), &failed);
                let id = v.get("id").and_then(Value::as_u64);
                if save_summary(forge, id, &body, &login).await?.is_none() {
                    failed.push("recording crit's account in the summary".into());
                }
            }
        }
        Some(_) => {}
        None => unposted_summary = Some(body),
    }
    Ok(PostReport {
        forge: forge.kind(),
        inline_posted: posted,
        inline_kept: plan.kept,
        resolved,
        threads_resolved,
        in_summary: plan
            .elsewhere
            .iter()
            .map(|(f, w)| (f.id.clone(), *w))
            .collect(),
        summary_url: saved
            .as_ref()
            .and_then(|s| forge.summary_url(s, &seen.view)),
        summary_created: summary_id.is_none(),
        notes,
        failed,
        unposted_summary,
        stats: forge.stats(),
    })
}

/// Edits summary `id` or posts a new one, sent again on a server error
/// after checking it did not arrive; `None`: it could not be saved.
async fn save_summary<F: Forge>(
    forge: &mut F,
    id: Option<u64>,
    body: &str,
    me: &str,
) -> Result<Option<Value>, PostError> {
    let mut failed = Vec::new();
    if let Some(id) = id {
        let done = forge.edit_summary(id, body).await;
        return degrade(done, "the summary", &mut failed);
    }
    let what = format!("post the summary {}", forge.summary_noun());
    for attempt in 0..forge.api().max_attempts() {
        if attempt > 0 {
            forge.api().backoff(attempt - 1, &what).await?;
            if let Some(there) = forge.find_summary(body, me).await? {
                return Ok(Some(there));
            }
        }
        match forge.create_summary(body).await {
            Ok(v) => return Ok(Some(v)),
            Err(e) if e.is_transient() => {}
            Err(e) => return degrade(Err(e), "the summary", &mut failed),
        }
    }
    Ok(None)
}

/// `Ok(Some(answer))`, or `Ok(None)` with the failure listed when the
/// forge kept failing or refused: the rest of the run goes on. A missing
/// permission or a spent rate limit ends the run.
pub(crate) fn degrade(
    done: Result<Value, PostError>,
    what: &str,
    failed: &mut Vec<String>,
) -> Result<Option<Value>, PostError> {
    match done {
        Ok(v) => Ok(Some(v)),
        Err(
            e @ (PostError::Rejected { .. }
            | PostError::Network { .. }
            | PostError::Protocol { .. }),
        ) => {
            failed.push(format!("{what} ({e})"));
            Ok(None)
        }
        Err(e) => Err(e),
    }
}
