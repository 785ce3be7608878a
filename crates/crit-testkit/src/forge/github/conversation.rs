//! The conversation on a pull request: who each commenter is to the
//! repository (`author_association`), reactions on comments (the REST
//! reactions API), replies and edits people write, threads a person
//! resolved, and the payload GitHub Actions hands a workflow run on a
//! comment (`GITHUB_EVENT_PATH` for `issue_comment` and
//! `pull_request_review_comment`).

use serde_json::{Value, json};

use super::rest::unprocessable;
use super::shapes::user_json;
use super::{Github, GithubServer, ReviewComment};
use crate::forge::{Answer, Call, Forge, Paging};

/// The reactions GitHub accepts, as its API spells them.
const CONTENTS: [&str; 8] = [
    "+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes",
];

pub(super) struct Reaction {
    id: u64,
    user: String,
    content: String,
    at: u64,
}

impl GithubServer {
    /// `author_association` of `login` on every object it wrote: `OWNER`,
    /// `MEMBER`, `COLLABORATOR`, `CONTRIBUTOR`, `FIRST_TIME_CONTRIBUTOR`,
    /// `FIRST_TIMER` or `NONE` (the default).
    pub fn set_association(&self, login: &str, association: &str) {
        self.served.with(|g| {
            g.associations
                .insert(login.to_string(), association.to_string());
        });
    }

    /// A reply by `login` in the thread of review comment `in_reply_to`;
    /// its id (0 when there is no such comment).
    pub fn seed_reply(&self, number: u64, login: &str, in_reply_to: u64, body: &str) -> u64 {
        self.served.with(|g| {
            let answer = g.reply(number, in_reply_to, login, &json!({"body": body}));
            answer.body.get("id").and_then(Value::as_u64).unwrap_or(0)
        })
    }

    /// `login` reacts to comment `id` (review or issue comment) with
    /// `content` (`+1`, `-1`, …); the reaction's id.
    pub fn react(&self, id: u64, login: &str, content: &str) -> u64 {
        self.served.with(|g| g.add_reaction(id, login, content).0)
    }

    /// The reactions on comment `id`, as the API lists them.
    pub fn reactions(&self, id: u64) -> Vec<Value> {
        self.served.with(|g| g.reaction_list(id))
    }

    /// `login` resolves the review thread holding comment `id`.
    pub fn resolve_thread_of(&self, number: u64, id: u64, login: &str) {
        self.served.with(|g| {
            if let Some(t) = g
                .pulls
                .get_mut(&number)
                .and_then(|p| p.threads.iter_mut().find(|t| t.comments.contains(&id)))
            {
                t.resolved = true;
                t.resolved_by = Some(login.to_string());
            }
        });
    }

    /// The payload of the event comment `id` raised when it was written:
    /// `issue_comment` for a comment on the conversation,
    /// `pull_request_review_comment` for one on a line. `None`: no such
    /// comment.
    pub fn comment_event(&self, number: u64, id: u64) -> Option<Value> {
        self.served
            .with(|g| g.event_payload(number, id, "created", None))
    }

    /// Its author edits comment `id` to read `body`; the `edited` event's
    /// payload (with `changes.body.from`).
    pub fn edit_comment(&self, number: u64, id: u64, body: &str) -> Option<Value> {
        self.served.with(|g| {
            let before = g.comment_body(number, id)?;
            let text = json!({"body": body});
            let review = g
                .pulls
                .get(&number)
                .is_some_and(|p| p.comments.iter().any(|c| c.id == id));
            match review {
                true => g.edit_review_comment(id, &text),
                false => g.edit_issue_comment(id, &text),
            };
            g.event_payload(number, id, "edited", Some(before))
        })
    }
}

impl Github {
    pub(super) fn association(&self, login: &str) -> &str {
        self.associations
            .get(login)
            .map(String::as_str)
            .unwrap_or("NONE")
    }

    /// The `reactions` rollup every comment carries.
    pub(super) fn reactions_summary(&self, id: u64) -> Value {
        let all = self.reactions.get(&id).map(Vec::as_slice).unwrap_or(&[]);
        let count = |c: &str| all.iter().filter(|r| r.content == c).count();
        json!({"url": format!("{}/repos/{}/{}/issues/comments/{id}/reactions", self.base, self.cfg.owner, self.cfg.repo),
            "total_count": all.len(), "+1": count("+1"), "-1": count("-1"), "laugh": count("laugh"),
            "hooray": count("hooray"), "confused": count("confused"), "heart": count("heart"),
            "rocket": count("rocket"), "eyes": count("eyes")})
    }

    fn reaction_json(r: &Reaction) -> Value {
        json!({"id": r.id, "node_id": format!("REA_lADOstand{:08}", r.id), "user": user_json(&r.user),
            "content": r.content, "created_at": crate::forge::timestamp(r.at)})
    }

    fn reaction_list(&self, id: u64) -> Vec<Value> {
        self.reactions
            .get(&id)
            .map(|all| all.iter().map(Self::reaction_json).collect())
            .unwrap_or_default()
    }

    /// Adds a reaction (once per user and content); its id and whether it
    /// was new.
    fn add_reaction(&mut self, id: u64, login: &str, content: &str) -> (u64, bool) {
        if let Some(r) = self
            .reactions
            .get(&id)
            .and_then(|all| all.iter().find(|r| r.user == login && r.content == content))
        {
            return (r.id, false);
        }
        let rid = self.id();
        let at = self.event();
        self.reactions.entry(id).or_default().push(Reaction {
            id: rid,
            user: login.to_string(),
            content: content.to_string(),
            at,
        });
        (rid, true)
    }

    fn comment_exists(&self, kind: &str, id: u64) -> bool {
        self.pulls.values().any(|p| match kind {
            "pulls" => p.comments.iter().any(|c| c.id == id && !c.pending),
            _ => p.issue_comments.iter().any(|c| c.id == id),
        })
    }

    /// `GET|POST …/{pulls|issues}/comments/{id}/reactions`.
    pub(super) fn reactions_route(
        &mut self,
        m: &str,
        kind: &str,
        id: u64,
        call: &Call,
        base: &str,
    ) -> Answer {
        if !self.comment_exists(kind, id) {
            return Self::not_found();
        }
        if m == "GET" {
            let mut all = self.reaction_list(id);
            if let Some(content) = call.query.get("content") {
                all.retain(|r| r["content"] == content.as_str());
            }
            return crate::forge::page(all, call, base, Paging::Github);
        }
        let content = call.body.get("content").and_then(Value::as_str);
        let Some(content) = content.filter(|c| CONTENTS.contains(c)) else {
            return unprocessable(
                json!([{"resource": "Reaction", "code": "invalid", "field": "content"}]),
            );
        };
        let login = self.cfg.login.clone();
        let (rid, new) = self.add_reaction(id, &login, content);
        let status = if new { 201 } else { 200 };
        let found = self
            .reactions
            .get(&id)
            .and_then(|all| all.iter().find(|r| r.id == rid));
        match found {
            Some(r) => Answer::json(status, Self::reaction_json(r)),
            None => Self::not_found(),
        }
    }

    fn comment_body(&self, number: u64, id: u64) -> Option<String> {
        let p = self.pulls.get(&number)?;
        p.comments
            .iter()
            .find(|c| c.id == id)
            .map(|c| c.body.clone())
            .or_else(|| {
                p.issue_comments
                    .iter()
                    .find(|c| c.id == id)
                    .map(|c| c.body.clone())
            })
    }

    fn event_payload(
        &self,
        number: u64,
        id: u64,
        action: &str,
        from: Option<String>,
    ) -> Option<Value> {
        let p = self.pulls.get(&number)?;
        let (o, r) = (&self.cfg.owner, &self.cfg.repo);
        let repository = json!({"id": 1296269, "name": r, "full_name": format!("{o}/{r}"),
            "owner": user_json(o), "private": false, "fork": false});
        let review: Option<&ReviewComment> = p.comments.iter().find(|c| c.id == id);
        let (mut event, user) = match review {
            Some(c) => (
                json!({"action": action, "comment": self.comment_json(p, c),
                    "pull_request": self.pull_json(p), "repository": repository}),
                c.user.clone(),
            ),
            None => {
                let c = p.issue_comments.iter().find(|c| c.id == id)?;
                let pull = self.pull_json(p);
                let issue = json!({"number": number, "title": pull["title"], "body": pull["body"],
                    "user": pull["user"], "state": "open", "html_url": pull["html_url"],
                    "pull_request": {"url": pull["url"], "html_url": pull["html_url"]}});
                (
                    json!({"action": action, "issue": issue, "comment": self.issue_comment_json(p, c),
                        "repository": repository}),
                    c.user.clone(),
                )
            }
        };
        event["sender"] = user_json(&user);
        if let Some(from) = from {
            event["changes"] = json!({"body": {"from": from}});
        }
        Some(event)
    }
}
