//! The conversation on a merge request: replies people write in a
//! discussion, edits, discussions a person resolved, award emoji on notes
//! (`…/notes/:note_id/award_emoji`), and who is a member of the project at
//! which access level (`GET /projects/:id/members/all/:user_id`).

use serde_json::{Value, json};

use super::routes::{message, user_id, user_json};
use super::{Gitlab, GitlabServer, Note};
use crate::forge::{Answer, Call, Forge, Paging};

pub(super) struct Award {
    id: u64,
    name: String,
    user: String,
    at: u64,
}

impl GitlabServer {
    /// `username` is a member of the project at `level` (10 Guest, 20
    /// Reporter, 30 Developer, 40 Maintainer, 50 Owner); anyone else is not
    /// a member (404).
    pub fn set_access_level(&self, username: &str, level: u64) {
        self.served.with(|g| {
            g.members.insert(username.to_string(), level);
        });
    }

    /// A reply by `username` in the discussion holding note `note_id`; its
    /// id (0 when there is no such note).
    pub fn seed_reply(&self, iid: u64, note_id: u64, username: &str, body: &str) -> u64 {
        self.served.with(|g| {
            let did = g.discussion_of(iid, note_id).unwrap_or_default();
            g.add_reply(iid, &did, username, body.to_string())
                .unwrap_or(0)
        })
    }

    /// `username` awards `name` (`thumbsup`, `thumbsdown`, …) to note
    /// `note_id`.
    pub fn award(&self, note_id: u64, username: &str, name: &str) -> u64 {
        self.served.with(|g| g.add_award(note_id, username, name))
    }

    /// `username` resolves the discussion holding note `note_id`.
    pub fn resolve_discussion_of(&self, iid: u64, note_id: u64, username: &str) {
        self.served.with(|g| {
            let Some(did) = g.discussion_of(iid, note_id) else {
                return;
            };
            if let Some(d) = g
                .mrs
                .get_mut(&iid)
                .and_then(|mr| mr.discussions.iter_mut().find(|d| d.id == did))
            {
                for n in d.notes.iter_mut().filter(|n| n.resolvable) {
                    n.resolved_by = Some(username.to_string());
                }
            }
        });
    }

    /// Its author edits note `note_id` to read `body`.
    pub fn edit_note(&self, iid: u64, note_id: u64, body: &str) {
        self.served.with(|g| {
            let at = g.event();
            if let Some(n) = g.mrs.get_mut(&iid).and_then(|mr| {
                mr.discussions
                    .iter_mut()
                    .flat_map(|d| d.notes.iter_mut())
                    .find(|n| n.id == note_id)
            }) {
                n.body = body.to_string();
                n.updated = at;
            }
        });
    }
}

impl Gitlab {
    fn discussion_of(&self, iid: u64, note_id: u64) -> Option<String> {
        self.mrs
            .get(&iid)?
            .discussions
            .iter()
            .find(|d| d.notes.iter().any(|n| n.id == note_id))
            .map(|d| d.id.clone())
    }

    /// A note by `author` appended to discussion `did`; its id.
    pub(super) fn add_reply(
        &mut self,
        iid: u64,
        did: &str,
        author: &str,
        body: String,
    ) -> Option<u64> {
        let id = self.id();
        let at = self.event();
        let d = self
            .mrs
            .get_mut(&iid)
            .and_then(|mr| mr.discussions.iter_mut().find(|d| d.id == did))?;
        let position = d.notes.first().and_then(|n| n.position.clone());
        d.notes.push(Note {
            id,
            kind: Some(if position.is_some() {
                "DiffNote"
            } else {
                "DiscussionNote"
            }),
            body,
            author: author.to_string(),
            created: at,
            updated: at,
            resolvable: !d.individual,
            resolved_by: None,
            position,
        });
        Some(id)
    }

    fn note_exists(&self, iid: u64, nid: u64) -> bool {
        self.discussion_of(iid, nid).is_some()
    }

    fn add_award(&mut self, nid: u64, username: &str, name: &str) -> u64 {
        if let Some(a) = self
            .awards
            .get(&nid)
            .and_then(|all| all.iter().find(|a| a.user == username && a.name == name))
        {
            return a.id;
        }
        let id = self.id();
        let at = self.event();
        self.awards.entry(nid).or_default().push(Award {
            id,
            name: name.to_string(),
            user: username.to_string(),
            at,
        });
        id
    }

    fn award_json(nid: u64, a: &Award) -> Value {
        let at = crate::forge::timestamp(a.at);
        json!({"id": a.id, "name": a.name, "user": user_json(&a.user), "created_at": at,
            "updated_at": at, "awardable_id": nid, "awardable_type": "Note"})
    }

    /// `GET|POST …/merge_requests/:iid/notes/:note_id/award_emoji`.
    pub(super) fn awards_route(
        &mut self,
        m: &str,
        iid: u64,
        nid: u64,
        call: &Call,
        base: &str,
    ) -> Answer {
        if !self.note_exists(iid, nid) {
            return Self::not_found();
        }
        if m == "GET" {
            let all = self
                .awards
                .get(&nid)
                .map(|all| all.iter().map(|a| Self::award_json(nid, a)).collect())
                .unwrap_or_default();
            return crate::forge::page(all, call, base, Paging::Gitlab);
        }
        let Some(name) = call.param("name").filter(|n| !n.is_empty()) else {
            return message(400, "400 Bad request - name is missing");
        };
        let me = self.cfg.username.clone();
        if self
            .awards
            .get(&nid)
            .is_some_and(|all| all.iter().any(|a| a.user == me && a.name == name))
        {
            return message(404, "404 Award Emoji Name has already been taken");
        }
        let id = self.add_award(nid, &me, &name);
        match self
            .awards
            .get(&nid)
            .and_then(|all| all.iter().find(|a| a.id == id))
        {
            Some(a) => Answer::json(201, Self::award_json(nid, a)),
            None => Self::not_found(),
        }
    }

    /// `GET /projects/:id/members/all/:user_id`.
    pub(super) fn member(&self, user: &str) -> Answer {
        let found = self
            .members
            .iter()
            .find(|(name, _)| user_id(name).to_string() == user);
        match found {
            Some((name, level)) => {
                let mut u = user_json(name);
                u["access_level"] = json!(level);
                u["expires_at"] = Value::Null;
                u["membership_state"] = json!("active");
                Answer::json(200, u)
            }
            None => message(404, "404 Not found"),
        }
    }
}
