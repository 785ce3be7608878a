//! The REST routes under a merge request, and the JSON of each object.

use serde_json::{Value, json};

use super::{Discussion, Gitlab, MAX_NOTE, Mr, Note};
use crate::forge::hunks;
use crate::forge::{Access, Answer, Call, FaultKind, Forge, Paging};

pub(super) fn message(status: u16, text: &str) -> Answer {
    Answer::json(status, json!({"message": text}))
}

fn bad_line_code() -> Answer {
    message(
        400,
        "400 Bad request - Note {:line_code=>[\"can't be blank\", \"must be a valid line code\"]}",
    )
}

/// A user's id: the same for the same name, different for different ones.
pub(super) fn user_id(username: &str) -> u64 {
    username.bytes().fold(1_469_598_103_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(1_099_511_628_211)
    }) % 10_000_000
}

pub(super) fn user_json(username: &str) -> Value {
    json!({"id": user_id(username), "username": username, "name": username, "state": "active",
           "avatar_url": null, "web_url": format!("https://gitlab.example/{username}")})
}

impl Forge for Gitlab {
    fn token(headers: &axum::http::HeaderMap) -> Option<String> {
        if let Some(t) = headers.get("private-token").and_then(|v| v.to_str().ok()) {
            return Some(t.to_string());
        }
        let v = headers.get("authorization")?.to_str().ok()?;
        v.strip_prefix("Bearer ").map(str::to_string)
    }

    fn unauthorized() -> Answer {
        message(401, "401 Unauthorized")
    }

    fn forbidden() -> Answer {
        message(403, "403 Forbidden")
    }

    fn not_found() -> Answer {
        message(404, "404 Not found")
    }

    fn fault(kind: &FaultKind) -> Answer {
        let throttled = || {
            Answer::text(429, "Retry later\n")
                .header("ratelimit-name", "throttle_authenticated_api")
                .header("ratelimit-limit", 600)
                .header("ratelimit-observed", 601)
                .header("ratelimit-remaining", 0)
        };
        match kind {
            FaultKind::RateLimit { retry_after } => match retry_after {
                Some(s) => throttled().header("retry-after", s),
                None => throttled(),
            },
            FaultKind::RateLimitUntil { reset_at } => {
                throttled().header("ratelimit-reset", reset_at)
            }
            FaultKind::Forbidden => Self::forbidden(),
            FaultKind::NotFound => Self::not_found(),
            FaultKind::ServerError(s) => message(*s, &format!("{s} Internal Server Error")),
            FaultKind::Invalid => bad_line_code(),
            FaultKind::NextLink(_) | FaultKind::ServerErrorAfter(_) => Self::not_found(),
        }
    }

    fn scoped(&self, path: &str) -> bool {
        path.starts_with("/api/v4/projects/")
    }

    fn route(&mut self, call: &Call, base: &str, access: Access) -> Answer {
        let seg: Vec<String> = call
            .segments()
            .into_iter()
            .map(crate::forge::decode)
            .collect();
        let seg: Vec<&str> = seg.iter().map(String::as_str).collect();
        match (call.method.as_str(), seg.as_slice()) {
            ("GET", ["api", "v4", "user"]) => {
                let mut u = user_json(&self.cfg.username);
                u["bot"] = json!(self.cfg.username.contains("_bot"));
                Answer::json(200, u)
            }
            ("GET", ["api", "v4", "projects", project, "repository", "compare"])
                if *project == self.cfg.project_id.to_string()
                    || *project == self.cfg.project_path =>
            {
                self.compare(call)
            }
            ("GET", ["api", "v4", "projects", project, "members", "all", user])
                if *project == self.cfg.project_id.to_string()
                    || *project == self.cfg.project_path =>
            {
                self.member(user)
            }
            (m, ["api", "v4", "projects", project, rest @ ..])
                if (*project == self.cfg.project_id.to_string()
                    || *project == self.cfg.project_path)
                    && let Some(answer) = self.project_route(m, rest, call) =>
            {
                answer
            }
            (
                m,
                [
                    "api",
                    "v4",
                    "projects",
                    project,
                    "merge_requests",
                    iid,
                    rest @ ..,
                ],
            ) if *project == self.cfg.project_id.to_string()
                || *project == self.cfg.project_path =>
            {
                match iid.parse::<u64>().ok().filter(|i| self.mrs.contains_key(i)) {
                    Some(iid) => self.mr_route(m, iid, rest, call, base, access),
                    None => Self::not_found(),
                }
            }
            _ => Self::not_found(),
        }
    }
}

/// A file's diff object, as GitLab shows one.
fn diff_json(f: &crate::forge::ChangedFile) -> Value {
    json!({"old_path": f.previous_path.as_deref().unwrap_or(&f.path), "new_path": f.path,
           "a_mode": "100644", "b_mode": "100644", "diff": f.patch.as_deref().unwrap_or(""),
           "new_file": f.status == "added", "renamed_file": f.status == "renamed",
           "deleted_file": f.status == "removed", "generated_file": false,
           "too_large": f.patch.is_none(), "collapsed": false})
}

impl Gitlab {
    /// `GET …/repository/compare?from=&to=`.
    fn compare(&self, call: &Call) -> Answer {
        let (Some(from), Some(to)) = (call.param("from"), call.param("to")) else {
            return message(400, "400 Bad request - from is missing, to is missing");
        };
        let files = match self.compares.get(&(from.clone(), to.clone())) {
            Some(f) => f.clone(),
            None if from == to => Vec::new(),
            None => return Self::not_found(),
        };
        Answer::json(
            200,
            json!({"commit": {"id": to}, "commits": [], "diffs": files.iter().map(diff_json).collect::<Vec<_>>(),
                "compare_timeout": false, "compare_same_ref": from == to,
                "web_url": format!("https://gitlab.example/{}/-/compare/{from}...{to}", self.cfg.project_path)}),
        )
    }

    pub(super) fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id - 1
    }

    pub(super) fn event(&mut self) -> u64 {
        self.events += 1;
        self.events
    }

    fn mr_route(
        &mut self,
        m: &str,
        iid: u64,
        rest: &[&str],
        call: &Call,
        base: &str,
        access: Access,
    ) -> Answer {
        let me = self.cfg.username.clone();
        let Some(mr) = self.mrs.get(&iid) else {
            return Self::not_found();
        };
        match (m, rest) {
            ("GET", []) => Answer::json(200, self.mr_json(mr)),
            ("PUT", []) => {
                let description = call.param("description");
                if let Some(mr) = self.mrs.get_mut(&iid)
                    && let Some(d) = description
                {
                    mr.spec.description = d;
                }
                match self.mrs.get(&iid) {
                    Some(mr) => Answer::json(200, self.mr_json(mr)),
                    None => Self::not_found(),
                }
            }
            ("GET", ["versions", vid]) => {
                match mr.versions.iter().find(|v| v.0.to_string() == *vid) {
                    Some((id, b, s, h, files)) => Answer::json(
                        200,
                        json!({"id": id, "head_commit_sha": h, "base_commit_sha": b, "start_commit_sha": s,
                           "created_at": crate::forge::timestamp(*id % 1000), "merge_request_id": iid * 101,
                           "state": "collected", "real_size": files.len().to_string(), "commits": [],
                           "diffs": files.iter().map(diff_json).collect::<Vec<_>>()}),
                    ),
                    None => Self::not_found(),
                }
            }
            ("POST", ["discussions", did, "notes"]) => {
                let Some(body) = call.param("body") else {
                    return message(400, "400 Bad request - body is missing");
                };
                match self.add_reply(iid, did, &me, body) {
                    Some(id) => self.note_answer(iid, id, 201),
                    None => Self::not_found(),
                }
            }
            ("GET" | "POST", ["notes", nid, "award_emoji"]) => match nid.parse::<u64>() {
                Ok(nid) => self.awards_route(m, iid, nid, call, base),
                Err(_) => Self::not_found(),
            },
            ("GET", ["versions"]) => {
                let versions = mr.versions.iter().rev().map(|(id, b, s, h, _)| {
                    json!({"id": id, "head_commit_sha": h, "base_commit_sha": b, "start_commit_sha": s,
                           "created_at": crate::forge::timestamp(*id % 1000), "merge_request_id": iid * 101,
                           "state": "collected", "real_size": mr.spec.files.len().to_string()})
                });
                crate::forge::page(versions.collect(), call, base, Paging::Gitlab)
            }
            ("GET", ["diffs"]) => {
                let diffs = mr.spec.files.iter().map(diff_json);
                crate::forge::page(diffs.collect(), call, base, Paging::Gitlab)
            }
            ("GET", ["discussions"]) => {
                let all = mr
                    .discussions
                    .iter()
                    .map(|d| self.discussion_json(mr, d))
                    .collect();
                crate::forge::page(all, call, base, Paging::Gitlab)
            }
            ("GET", ["notes"]) => {
                let asc = call.query.get("sort").is_some_and(|s| s == "asc");
                crate::forge::page(self.all_notes(mr, asc), call, base, Paging::Gitlab)
            }
            ("POST", ["discussions"]) => {
                let Some(body) = call.param("body") else {
                    return message(400, "400 Bad request - body is missing");
                };
                if body.chars().count() > MAX_NOTE {
                    return Answer::json(
                        400,
                        json!({"message": {"note": ["is too long (maximum is 1000000 characters)"]}}),
                    );
                }
                let position = call.body.get("position").filter(|p| !p.is_null()).cloned();
                if let Some(p) = &position
                    && let Err(a) = check_position(mr, p)
                {
                    return a;
                }
                self.add_discussion(iid, &me, &body, position, false);
                let Some(mr) = self.mrs.get(&iid) else {
                    return Self::not_found();
                };
                match mr.discussions.last() {
                    Some(d) => Answer::json(201, self.discussion_json(mr, d)),
                    None => Self::not_found(),
                }
            }
            ("POST", ["notes"]) => {
                let Some(body) = call.param("body") else {
                    return message(400, "400 Bad request - body is missing");
                };
                if body.chars().count() > MAX_NOTE {
                    return Answer::json(
                        400,
                        json!({"message": {"note": ["is too long (maximum is 1000000 characters)"]}}),
                    );
                }
                let id = self.add_discussion(iid, &me, &body, None, true);
                self.note_answer(iid, id, 201)
            }
            ("PUT", ["notes", nid]) | ("PUT", ["discussions", _, "notes", nid]) => {
                let Some(nid) = nid.parse::<u64>().ok() else {
                    return Self::not_found();
                };
                let Some(body) = call.param("body") else {
                    return message(400, "400 Bad request - body is missing");
                };
                let at = self.event();
                let Some(note) = self.note_mut(iid, nid) else {
                    return Self::not_found();
                };
                if note.author != me {
                    return Self::forbidden();
                }
                note.body = body;
                note.updated = at;
                self.note_answer(iid, nid, 200)
            }
            ("PUT", ["discussions", did]) => {
                let resolved = call.param("resolved").is_some_and(|v| v == "true");
                if !self.cfg.can_resolve || access != Access::Write {
                    return Self::forbidden();
                }
                let Some(d) = self
                    .mrs
                    .get_mut(&iid)
                    .and_then(|mr| mr.discussions.iter_mut().find(|d| d.id == *did))
                else {
                    return Self::not_found();
                };
                if !d.notes.iter().any(|n| n.resolvable) {
                    return message(400, "400 Bad request - discussion is not resolvable");
                }
                for n in d.notes.iter_mut().filter(|n| n.resolvable) {
                    n.resolved_by = resolved.then(|| me.clone());
                }
                let Some(mr) = self.mrs.get(&iid) else {
                    return Self::not_found();
                };
                match mr.discussions.iter().find(|d| d.id == *did) {
                    Some(d) => Answer::json(200, self.discussion_json(mr, d)),
                    None => Self::not_found(),
                }
            }
            _ => Self::not_found(),
        }
    }

    pub(super) fn add_discussion(
        &mut self,
        iid: u64,
        author: &str,
        body: &str,
        position: Option<Value>,
        individual: bool,
    ) -> u64 {
        let id = self.id();
        let at = self.event();
        let kind = match (&position, individual) {
            (Some(_), _) => Some("DiffNote"),
            (None, false) => Some("DiscussionNote"),
            (None, true) => None,
        };
        if let Some(mr) = self.mrs.get_mut(&iid) {
            mr.discussions.push(Discussion {
                id: format!("{:040x}", id * 0x9E37_79B9),
                individual,
                notes: vec![Note {
                    id,
                    kind,
                    body: body.to_string(),
                    author: author.to_string(),
                    created: at,
                    updated: at,
                    resolvable: !individual,
                    resolved_by: None,
                    position,
                }],
            });
        }
        id
    }

    fn note_mut(&mut self, iid: u64, nid: u64) -> Option<&mut Note> {
        self.mrs
            .get_mut(&iid)?
            .discussions
            .iter_mut()
            .flat_map(|d| d.notes.iter_mut())
            .find(|n| n.id == nid)
    }

    pub(super) fn note_answer(&self, iid: u64, nid: u64, status: u16) -> Answer {
        let found = self.mrs.get(&iid).and_then(|mr| {
            mr.discussions
                .iter()
                .flat_map(|d| d.notes.iter())
                .find(|n| n.id == nid)
                .map(|n| self.note_json(mr, n))
        });
        match found {
            Some(n) => Answer::json(status, n),
            None => Self::not_found(),
        }
    }

    pub(super) fn all_notes(&self, mr: &Mr, ascending: bool) -> Vec<Value> {
        let mut notes: Vec<&Note> = mr.discussions.iter().flat_map(|d| d.notes.iter()).collect();
        notes.sort_by_key(|n| n.created);
        if !ascending {
            notes.reverse();
        }
        notes.into_iter().map(|n| self.note_json(mr, n)).collect()
    }

    pub(super) fn mr_json(&self, mr: &Mr) -> Value {
        let s = &mr.spec;
        json!({"id": s.iid * 101, "iid": s.iid, "project_id": self.cfg.project_id, "title": s.title,
               "description": s.description, "state": "opened", "source_branch": "feature", "target_branch": "main",
               "author": user_json("author"), "sha": s.head_sha,
               "diff_refs": {"base_sha": s.base_sha, "head_sha": s.head_sha, "start_sha": s.start_sha},
               "web_url": format!("https://gitlab.example/{}/-/merge_requests/{}", self.cfg.project_path, s.iid),
               "references": {"short": format!("!{}", s.iid)}})
    }

    pub(super) fn note_json(&self, mr: &Mr, n: &Note) -> Value {
        let mut v = json!({"id": n.id, "type": n.kind, "body": n.body, "attachment": null,
            "author": user_json(&n.author), "created_at": crate::forge::timestamp(n.created),
            "updated_at": crate::forge::timestamp(n.updated), "system": false, "noteable_id": mr.spec.iid * 101,
            "noteable_type": "MergeRequest", "project_id": self.cfg.project_id, "noteable_iid": mr.spec.iid,
            "resolvable": n.resolvable, "confidential": false, "internal": false});
        if n.resolvable {
            v["resolved"] = json!(n.resolved_by.is_some());
            v["resolved_by"] = n
                .resolved_by
                .as_deref()
                .map(user_json)
                .unwrap_or(Value::Null);
        }
        if let Some(p) = &n.position {
            v["position"] = p.clone();
        }
        v
    }

    pub(super) fn discussion_json(&self, mr: &Mr, d: &Discussion) -> Value {
        json!({"id": d.id, "individual_note": d.individual,
               "notes": d.notes.iter().map(|n| self.note_json(mr, n)).collect::<Vec<_>>()})
    }
}

/// An inline discussion's position, checked as GitLab does.
fn check_position(mr: &Mr, p: &Value) -> Result<(), Answer> {
    let s = |k: &str| p.get(k).and_then(Value::as_str).unwrap_or("");
    let line = |k: &str| {
        p.get(k)
            .and_then(Value::as_u64)
            .and_then(|l| u32::try_from(l).ok())
    };
    if s("position_type") != "text" {
        return Err(message(400, "400 Bad request - position_type is invalid"));
    }
    let version = mr
        .versions
        .iter()
        .find(|(_, b, st, h, _)| s("base_sha") == b && s("start_sha") == st && s("head_sha") == h);
    let Some((_, _, _, _, files)) = version else {
        return Err(bad_line_code());
    };
    let Some(file) = files.iter().find(|f| f.path == s("new_path")) else {
        return Err(bad_line_code());
    };
    let old_path = file.previous_path.as_deref().unwrap_or(&file.path);
    if !s("old_path").is_empty() && s("old_path") != old_path {
        return Err(bad_line_code());
    }
    let shown = file.patch.as_deref().map(hunks::shown).unwrap_or_default();
    let Some(new_line) = line("new_line") else {
        return Err(bad_line_code());
    };
    match hunks::find(&shown, new_line, true) {
        Some(at) if at.old == line("old_line") => Ok(()),
        _ => Err(bad_line_code()),
    }
}
