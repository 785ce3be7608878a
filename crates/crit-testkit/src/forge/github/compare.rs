//! Comparing two commits and replying in a review comment's thread.

use serde_json::{Value, json};

use super::rest::{too_long, unprocessable};
use super::{Github, MAX_BODY, ReviewComment};
use crate::forge::{Answer, Forge};

impl Github {
    /// `GET …/compare/{from}...{to}`.
    pub(super) fn compare(&self, basehead: &str) -> Answer {
        let Some((from, to)) = basehead.split_once("...") else {
            return Self::not_found();
        };
        let files = self
            .compares
            .get(&(from.to_string(), to.to_string()))
            .cloned()
            .or_else(|| {
                self.pulls.values().find_map(|p| {
                    (p.spec.base_sha == from)
                        .then(|| p.files_at.get(to).cloned())
                        .flatten()
                })
            });
        let Some(files) = files else {
            return Self::not_found();
        };
        let (o, r) = (&self.cfg.owner, &self.cfg.repo);
        Answer::json(
            200,
            json!({"url": format!("{}/repos/{o}/{r}/compare/{basehead}", self.base),
                "html_url": format!("https://github.com/{o}/{r}/compare/{basehead}"),
                "base_commit": {"sha": from}, "merge_base_commit": {"sha": from},
                "status": "ahead", "ahead_by": 1, "behind_by": 0, "total_commits": 1, "commits": [],
                "files": files.iter().map(|f| self.file_json(f)).collect::<Vec<_>>()}),
        )
    }

    /// `POST …/pulls/{n}/comments/{id}/replies`: a reply in the comment's thread.
    pub(super) fn reply(&mut self, n: u64, id: u64, login: &str, body: &Value) -> Answer {
        let Some(text) = body.get("body").and_then(Value::as_str) else {
            return unprocessable(json!(["body is missing"]));
        };
        if text.chars().count() > MAX_BODY {
            return too_long("PullRequestReviewComment");
        }
        let new_id = self.id();
        let at = self.event();
        let Some(p) = self.pulls.get_mut(&n) else {
            return Self::not_found();
        };
        let Some(parent) = p.comments.iter().find(|c| c.id == id && !c.pending) else {
            return Self::not_found();
        };
        let reply = ReviewComment {
            id: new_id,
            review_id: parent.review_id,
            pending: false,
            user: login.to_string(),
            path: parent.path.clone(),
            line: parent.line,
            side: parent.side.clone(),
            start_line: None,
            start_side: None,
            body: text.to_string(),
            commit_id: parent.commit_id.clone(),
            diff_hunk: parent.diff_hunk.clone(),
            in_reply_to: Some(id),
            created: at,
            updated: at,
        };
        if let Some(t) = p.threads.iter_mut().find(|t| t.comments.contains(&id)) {
            t.comments.push(new_id);
        }
        p.comments.push(reply);
        let n = n.to_string();
        self.with_pull(&n, |g, p| {
            match p.comments.iter().find(|c| c.id == new_id) {
                Some(c) => Answer::json(201, g.comment_json(p, c)),
                None => Self::not_found(),
            }
        })
    }
}
