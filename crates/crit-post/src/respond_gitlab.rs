//! What people wrote on a GitLab merge request that crit has not answered
//! yet, and crit's answers. GitLab starts no pipeline on a comment, so each
//! `--post` run answers what arrived since the last one: the `/crit`
//! commands and the replies in crit's own discussions, by the same rules as
//! on GitHub ([`crate::respond`]): never crit itself or a bot, each note
//! once (the answer's marker names it, so an edit does not run a command
//! again), at most `limit` answers per discussion in an hour. Write access
//! is the member API's access level: Developer (30) or above.

use std::collections::BTreeMap;

use reqwest::Method;
use serde_json::{Value, json};

use crate::answering::{Pending, Place, Rules, Waiting};
use crate::error::PostError;
use crate::gitlab::GitlabPoster;
use crate::marker::Marker;
use crate::respond::{
    Heard, Said, answer_marker, answered_id, asks, command, disputes, finding_of,
};
use crate::respond_catchup::read_dismissal;
use crate::respond_github::within_hour;

/// GitLab's Developer role: the least that may push, so may command crit.
const DEVELOPER: u64 = 30;

impl GitlabPoster {
    /// Every note on the merge request crit has yet to answer, oldest
    /// first, with what it asks (notes that ask nothing are left out).
    pub(crate) async fn waiting(&mut self, rules: Rules) -> Result<Pending, PostError> {
        let me = self.identity().await?;
        let discussions = self
            .api
            .get_all(
                &self.mr("/discussions"),
                "list the merge request's discussions",
            )
            .await?;
        let mine = |n: &&Value| author(n) == me;
        let answered: Vec<u64> = discussions
            .iter()
            .flat_map(notes)
            .filter(mine)
            .filter_map(|n| answered_id(body(n)))
            .collect();
        let mut access: BTreeMap<u64, bool> = BTreeMap::new();
        let mut out = Vec::new();
        let mut dismissed = Vec::new();
        for d in &discussions {
            let all: Vec<&Value> = notes(d).collect();
            let Some(first) = all.first() else { continue };
            let threaded = d.get("individual_note").and_then(Value::as_bool) == Some(false);
            let did = d
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let root = id(first);
            // crit's open finding this discussion is about, if it is one.
            let finding = match (author(first) == me, self.markers.read(body(first))) {
                (
                    true,
                    Some(Marker::Finding {
                        key,
                        resolved: false,
                    }),
                ) => Some((key.clone(), finding_of(&key, &as_comment(first)))),
                _ => None,
            };
            // crit's own record of dismissing this discussion's finding
            // (whose note crit has marked resolved since).
            let key_of_first = match (author(first) == me, self.markers.read(body(first))) {
                (true, Some(Marker::Finding { key, .. })) => Some(key),
                _ => None,
            };
            if let Some(key) = &key_of_first {
                dismissed.extend(
                    all.iter()
                        .filter(|n| author(n) == me)
                        .filter_map(|n| read_dismissal(body(n), format!("note {root}")))
                        .filter(|r| r.key == *key)
                        .take(1),
                );
            }
            let mut answers: Vec<String> = all
                .iter()
                .filter(|n| author(n) == me)
                .filter(|n| answered_id(body(n)).is_some())
                .map(|n| str_of(n, "created_at").to_string())
                .collect();
            for (i, n) in all.iter().enumerate() {
                let nid = id(n);
                let who = author(n);
                if who == me
                    || is_bot(n)
                    || n.get("system").and_then(Value::as_bool) == Some(true)
                    || answered.contains(&nid)
                {
                    continue;
                }
                let text = body(n);
                let reply = i > 0 && threaded;
                let cmd = command(text);
                let heard = match (&cmd, &finding) {
                    (Some(_), _) => None,
                    (None, Some((key, f))) if reply && (disputes(text) || asks(text)) => {
                        Some(Heard::Reply {
                            finding: Box::new(f.clone()),
                            key: key.clone(),
                            root,
                            dispute: disputes(text),
                        })
                    }
                    _ => continue,
                };
                let may = match (&cmd, n.pointer("/author/id").and_then(Value::as_u64)) {
                    (None, _) => false,
                    (Some(_), Some(uid)) => match access.get(&uid) {
                        Some(m) => *m,
                        None => {
                            let m = self.may_command(uid).await;
                            access.insert(uid, m);
                            m
                        }
                    },
                    (Some(_), None) => false,
                };
                let heard = match (heard, cmd) {
                    (Some(h), _) => h,
                    (None, Some(c)) if may => Heard::Command(c),
                    (None, Some(_)) if !rules.answer_others => continue,
                    (None, Some(c)) => Heard::NotAllowed(c),
                    (None, None) => continue,
                };
                let said = Said {
                    id: nid,
                    author: who.to_string(),
                    bot: false,
                    may_command: may,
                    body: text.to_string(),
                    on_a_line: reply,
                    in_reply_to: reply.then_some(root),
                    edited: str_of(n, "updated_at") != str_of(n, "created_at"),
                    created_at: str_of(n, "created_at").to_string(),
                    url: None,
                };
                let recent = answers
                    .iter()
                    .filter(|at| within_hour(at, &said.created_at))
                    .count();
                if recent >= rules.limit {
                    tracing::info!("note {nid}: the discussion's limit of answers this hour");
                    continue;
                }
                // The answer this run will give counts against the limit.
                answers.push(said.created_at.clone());
                out.push(Waiting {
                    said,
                    heard,
                    place: Place::Gitlab {
                        discussion: did.clone(),
                        threaded,
                    },
                });
            }
        }
        // Each answer's thread, for the feedback log: the note's address.
        if !out.is_empty() || !dismissed.is_empty() {
            let page = self.api.get(&self.mr(""), "read the merge request").await?;
            let web = str_of(&page, "web_url");
            for w in out.iter_mut().filter(|_| !web.is_empty()) {
                w.said.url = Some(format!("{web}#note_{}", w.said.id));
            }
            for r in dismissed.iter_mut().filter(|_| !web.is_empty()) {
                if let Some(id) = r.thread.strip_prefix("note ") {
                    r.thread = format!("{web}#note_{id}");
                }
            }
        }
        Ok(Pending {
            waiting: out,
            dismissed,
        })
    }

    /// The member API's word that user `uid` may push (Developer or
    /// above); not a member, or no answer, is no.
    async fn may_command(&mut self, uid: u64) -> bool {
        let path = format!("/projects/{}/members/all/{uid}", self.ctx.project);
        match self.api.get(&path, "read a commenter's access level").await {
            Ok(m) => m
                .get("access_level")
                .and_then(Value::as_u64)
                .is_some_and(|l| l >= DEVELOPER),
            Err(e) => {
                tracing::info!("no access level for user {uid}: {e}");
                false
            }
        }
    }

    /// Posts `text` (markdown crit wrote; model text in it already made
    /// inert) as crit's one answer to `said`: in its discussion when that
    /// is `threaded`, or as a note on the merge request.
    pub(crate) async fn answer_note(
        &mut self,
        said: &Said,
        discussion: &str,
        threaded: bool,
        text: &str,
    ) -> Result<(), PostError> {
        let body = json!({"body": format!("{}\n{text}", answer_marker(said.id))});
        let path = match threaded {
            true => self.mr(&format!("/discussions/{discussion}/notes")),
            false => self.mr("/notes"),
        };
        self.api
            .write(Method::POST, &path, &body, "answer a note")
            .await
            .map(|_| ())
    }

    /// Resolves `discussion`; a token that may not is said, not fatal.
    pub(crate) async fn resolve_discussion(&mut self, discussion: &str) -> bool {
        let path = self.mr(&format!("/discussions/{discussion}"));
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
            Ok(_) => true,
            Err(e) => {
                tracing::warn!("could not resolve the discussion: {e}");
                false
            }
        }
    }
}

fn notes(d: &Value) -> impl Iterator<Item = &Value> {
    d.get("notes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn body(n: &Value) -> &str {
    str_of(n, "body")
}

fn id(n: &Value) -> u64 {
    n.get("id").and_then(Value::as_u64).unwrap_or(0)
}

fn author(n: &Value) -> &str {
    n.pointer("/author/username")
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// A bot's note: GitLab says so, or the name is a project's, group's or
/// GitLab's own bot account.
fn is_bot(n: &Value) -> bool {
    let name = author(n);
    n.pointer("/author/bot").and_then(Value::as_bool) == Some(true)
        || ((name.starts_with("project_") || name.starts_with("group_")) && name.contains("_bot"))
        || name.ends_with("-bot")
        || name.ends_with("[bot]")
        || name == "ghost"
}

/// A finding note in the shape [`finding_of`] reads (a GitHub review
/// comment's): its body, path and line.
fn as_comment(n: &Value) -> Value {
    json!({
        "body": body(n),
        "path": n.pointer("/position/new_path").cloned().unwrap_or(Value::Null),
        "line": n.pointer("/position/new_line").cloned().unwrap_or(Value::Null),
    })
}
