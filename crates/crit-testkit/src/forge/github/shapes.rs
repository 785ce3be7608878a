//! The JSON GitHub answers with, for each kind of object.

use serde_json::{Value, json};

use super::{Github, IssueComment, Pull, Review, ReviewComment};
use crate::forge::ChangedFile;

pub(super) fn user_json(login: &str) -> Value {
    let bot = login.ends_with("[bot]");
    json!({"login": login, "id": login.len() as u64 * 7919, "node_id": format!("U_{login}"),
           "type": if bot { "Bot" } else { "User" }, "site_admin": false})
}

impl Github {
    pub(super) fn pull_json(&self, p: &Pull) -> Value {
        let (o, r, n) = (&self.cfg.owner, &self.cfg.repo, p.spec.number);
        json!({"url": format!("{}/repos/{o}/{r}/pulls/{n}", self.base), "id": n * 101, "node_id": format!("PR_{n}"),
               "html_url": format!("https://github.com/{o}/{r}/pull/{n}"), "number": n, "state": "open",
               "title": p.spec.title, "body": p.spec.body, "user": user_json("octocat"),
               "head": {"ref": "feature", "sha": p.spec.head_sha, "label": format!("{o}:feature")},
               "base": {"ref": "main", "sha": p.spec.base_sha, "label": format!("{o}:main")}})
    }

    pub(super) fn file_json(&self, f: &ChangedFile) -> Value {
        let (added, removed) = f.counts();
        let (o, r) = (&self.cfg.owner, &self.cfg.repo);
        let mut v = json!({"sha": "0123456789abcdef0123456789abcdef01234567", "filename": f.path, "status": f.status,
            "additions": added, "deletions": removed, "changes": added + removed,
            "blob_url": format!("https://github.com/{o}/{r}/blob/head/{}", f.path),
            "raw_url": format!("https://github.com/{o}/{r}/raw/head/{}", f.path),
            "contents_url": format!("{}/repos/{o}/{r}/contents/{}?ref=head", self.base, f.path)});
        if let Some(patch) = &f.patch {
            v["patch"] = json!(patch);
        }
        if let Some(prev) = &f.previous_path {
            v["previous_filename"] = json!(prev);
        }
        v
    }

    pub(super) fn review_json(&self, p: &Pull, r: &Review) -> Value {
        let (o, rp, n) = (&self.cfg.owner, &self.cfg.repo, p.spec.number);
        let mut v = json!({"id": r.id, "node_id": format!("PRR_kwDOstand{:08}", r.id), "user": user_json(&r.user),
            "body": r.body, "state": r.state, "commit_id": r.commit_id, "author_association": self.association(&r.user),
            "html_url": format!("https://github.com/{o}/{rp}/pull/{n}#pullrequestreview-{}", r.id),
            "pull_request_url": format!("{}/repos/{o}/{rp}/pulls/{n}", self.base)});
        if r.state != "PENDING" {
            v["submitted_at"] = json!(crate::forge::timestamp(r.at));
        }
        v
    }

    /// Whether a push left `c` outdated: the pull request's diff no longer
    /// shows its line with the text it had.
    fn outdated(p: &Pull, c: &ReviewComment) -> bool {
        if c.commit_id == p.spec.head_sha || c.side != "RIGHT" {
            return false;
        }
        let text = |files: &[ChangedFile], line: u32| {
            files
                .iter()
                .find(|f| f.path == c.path)
                .and_then(|f| f.patch.as_deref())
                .and_then(|patch| crate::forge::hunks::new_text(patch, line))
        };
        let then = p
            .files_at
            .get(&c.commit_id)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let lines = c.start_line.unwrap_or(c.line)..=c.line;
        lines.into_iter().any(|l| {
            let before = text(then, l);
            before.is_none() || before != text(&p.spec.files, l)
        })
    }

    pub(super) fn comment_json(&self, p: &Pull, c: &ReviewComment) -> Value {
        let (o, r, n) = (&self.cfg.owner, &self.cfg.repo, p.spec.number);
        let outdated = Self::outdated(p, c);
        let mut v = json!({"url": format!("{}/repos/{o}/{r}/pulls/comments/{}", self.base, c.id),
            "pull_request_review_id": c.review_id, "id": c.id, "node_id": format!("PRRC_kwDOstand{:08}", c.id),
            "diff_hunk": c.diff_hunk, "path": c.path, "commit_id": c.commit_id, "original_commit_id": c.commit_id,
            "user": user_json(&c.user), "body": c.body,
            "created_at": crate::forge::timestamp(c.created), "updated_at": crate::forge::timestamp(c.updated),
            "html_url": format!("https://github.com/{o}/{r}/pull/{n}#discussion_r{}", c.id),
            "pull_request_url": format!("{}/repos/{o}/{r}/pulls/{n}", self.base),
            "author_association": self.association(&c.user), "reactions": self.reactions_summary(c.id), "start_line": c.start_line, "original_start_line": c.start_line,
            "start_side": c.start_side, "line": c.line, "original_line": c.line, "side": c.side,
            "subject_type": "line"});
        if outdated {
            v["line"] = Value::Null;
            v["start_line"] = Value::Null;
            v["position"] = Value::Null;
        }
        if let Some(parent) = c.in_reply_to {
            v["in_reply_to_id"] = json!(parent);
        }
        v
    }

    pub(super) fn issue_comment_json(&self, p: &Pull, c: &IssueComment) -> Value {
        let (o, r, n) = (&self.cfg.owner, &self.cfg.repo, p.spec.number);
        json!({"url": format!("{}/repos/{o}/{r}/issues/comments/{}", self.base, c.id), "id": c.id,
            "node_id": format!("IC_kwDOstand{:08}", c.id),
            "html_url": format!("https://github.com/{o}/{r}/pull/{n}#issuecomment-{}", c.id),
            "issue_url": format!("{}/repos/{o}/{r}/issues/{n}", self.base), "user": user_json(&c.user),
            "created_at": crate::forge::timestamp(c.created), "updated_at": crate::forge::timestamp(c.updated),
            "author_association": self.association(&c.user), "reactions": self.reactions_summary(c.id), "body": c.body})
    }
}
