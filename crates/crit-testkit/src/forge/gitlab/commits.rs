//! The project's own routes: the project, branches, a file at a ref, a
//! commit of several actions (`POST …/repository/commits`), and merge
//! requests listed and opened from a branch. Faithful where a client can
//! get it wrong: a file path and a branch name are one URL-encoded path
//! segment; `create` of a file that exists and `update` of one that does not
//! are 400; a new branch needs `start_branch`, and `force` rewrites the
//! branch as one commit on `start_branch`; a second open merge request from
//! the same source branch is 409.

use serde_json::{Value, json};

use super::Gitlab;
use super::routes::{message, user_json};
use crate::forge::repo::{Opened, base64};
use crate::forge::{Answer, Call, Forge};

impl Gitlab {
    /// A route of the project's own (`rest` after `projects/:id`), or
    /// `None` for the others.
    pub(super) fn project_route(&mut self, m: &str, rest: &[&str], call: &Call) -> Option<Answer> {
        Some(match (m, rest) {
            ("GET", []) => Answer::json(200, self.project_json()),
            ("GET", ["repository", "branches", branch]) => match self.repo.branches.get(*branch) {
                Some(sha) => Answer::json(200, self.branch_json(branch, sha)),
                None => message(404, "404 Branch Not Found"),
            },
            ("GET", ["repository", "files", path]) => {
                let Some(at) = call.param("ref") else {
                    return Some(message(400, "400 Bad request - ref is missing"));
                };
                self.file(path, &at)
            }
            ("POST", ["repository", "commits"]) => self.create_commit(&call.body),
            ("GET", ["merge_requests"]) => self.list_opened(call),
            ("POST", ["merge_requests"]) => self.open_mr(&call.body),
            ("PUT", ["merge_requests", iid])
                if iid
                    .parse::<u64>()
                    .is_ok_and(|n| self.repo.opened.iter().any(|o| o.number == n)) =>
            {
                self.edit_opened(iid.parse().unwrap_or(0), call)
            }
            _ => return None,
        })
    }

    fn project_json(&self) -> Value {
        let p = &self.cfg.project_path;
        json!({"id": self.cfg.project_id, "path_with_namespace": p, "default_branch": self.repo.default_branch,
               "web_url": format!("https://gitlab.example/{p}")})
    }

    fn branch_json(&self, name: &str, sha: &str) -> Value {
        let parents = self
            .repo
            .commits
            .get(sha)
            .map(|c| c.parents.clone())
            .unwrap_or_default();
        json!({"name": name, "merged": false, "protected": name == self.repo.default_branch,
               "default": name == self.repo.default_branch,
               "commit": {"id": sha, "short_id": &sha[..8.min(sha.len())], "parent_ids": parents},
               "web_url": format!("https://gitlab.example/{}/-/tree/{name}", self.cfg.project_path)})
    }

    fn file(&self, path: &str, at: &str) -> Answer {
        let head = self.repo.branches.get(at).map(String::as_str).unwrap_or(at);
        let text = self
            .repo
            .commits
            .get(head)
            .and_then(|c| self.repo.trees.get(&c.tree))
            .and_then(|f| f.get(path));
        match text {
            None => message(404, "404 File Not Found"),
            Some(text) => Answer::json(
                200,
                json!({"file_name": path.rsplit('/').next().unwrap_or(path), "file_path": path,
                       "size": text.len(), "encoding": "base64", "content": base64(text), "ref": at,
                       "blob_id": format!("{:040x}", text.len()), "commit_id": head, "last_commit_id": head}),
            ),
        }
    }

    fn create_commit(&mut self, body: &Value) -> Answer {
        let field = |k: &str| body.get(k).and_then(Value::as_str).map(str::to_string);
        let (Some(branch), Some(msg)) = (field("branch"), field("commit_message")) else {
            return message(
                400,
                "400 Bad request - branch is missing, commit_message is missing",
            );
        };
        let force = body.get("force").and_then(Value::as_bool).unwrap_or(false);
        let start = field("start_branch");
        let parent = match (self.repo.branches.get(&branch), &start) {
            (Some(_), Some(s)) if force => self.repo.branches.get(s).cloned(),
            (Some(h), _) => Some(h.clone()),
            (None, Some(s)) => self.repo.branches.get(s).cloned(),
            (None, None) => None,
        };
        let Some(parent) = parent else {
            return message(
                400,
                "You can only create or edit files when you are on a branch",
            );
        };
        let mut files = self
            .repo
            .commits
            .get(&parent)
            .and_then(|c| self.repo.trees.get(&c.tree))
            .cloned()
            .unwrap_or_default();
        let empty = Vec::new();
        let actions = body
            .get("actions")
            .and_then(Value::as_array)
            .unwrap_or(&empty);
        if actions.is_empty() {
            return message(400, "400 Bad request - actions is missing");
        }
        for a in actions {
            let action = a.get("action").and_then(Value::as_str).unwrap_or("");
            let path = a.get("file_path").and_then(Value::as_str).unwrap_or("");
            let content = a.get("content").and_then(Value::as_str).unwrap_or("");
            match (action, files.contains_key(path)) {
                ("create", true) => return message(400, "A file with this name already exists"),
                ("update" | "delete", false) => {
                    return message(400, "A file with this name doesn't exist");
                }
                ("create" | "update", _) => {
                    files.insert(path.to_string(), content.to_string());
                }
                ("delete", true) => {
                    files.remove(path);
                }
                _ => {
                    return message(
                        400,
                        "400 Bad request - actions[action] does not have a valid value",
                    );
                }
            }
        }
        let tree = self.repo.tree(files);
        let id = self.repo.commit(vec![parent.clone()], &tree, &msg);
        self.repo.branches.insert(branch, id.clone());
        let p = &self.cfg.project_path;
        Answer::json(
            201,
            json!({"id": id, "short_id": &id[..8], "title": msg.lines().next().unwrap_or(""), "message": msg,
                   "parent_ids": [parent], "author_name": self.cfg.username,
                   "web_url": format!("https://gitlab.example/{p}/-/commit/{id}")}),
        )
    }

    pub(super) fn opened_mr_json(&self, o: &Opened) -> Value {
        let p = &self.cfg.project_path;
        json!({"id": o.number * 101, "iid": o.number, "project_id": self.cfg.project_id, "title": o.title,
               "description": o.body, "state": if o.open { "opened" } else { "closed" },
               "source_branch": o.head, "target_branch": o.base, "author": user_json(&self.cfg.username),
               "sha": self.repo.branches.get(&o.head),
               "web_url": format!("https://gitlab.example/{p}/-/merge_requests/{}", o.number)})
    }

    fn list_opened(&self, call: &Call) -> Answer {
        let state = call.param("state").unwrap_or_else(|| "all".into());
        let source = call.param("source_branch");
        let target = call.param("target_branch");
        let shown: Vec<Value> = self
            .repo
            .opened
            .iter()
            .filter(|o| state == "all" || (state == "opened") == o.open)
            .filter(|o| source.as_deref().is_none_or(|s| s == o.head))
            .filter(|o| target.as_deref().is_none_or(|t| t == o.base))
            .map(|o| self.opened_mr_json(o))
            .collect();
        Answer::json(200, Value::Array(shown))
    }

    fn open_mr(&mut self, body: &Value) -> Answer {
        let field = |k: &str| {
            body.get(k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let (source, target, title) = (
            field("source_branch"),
            field("target_branch"),
            field("title"),
        );
        if source.is_empty() || target.is_empty() || title.is_empty() {
            return message(
                400,
                "400 Bad request - source_branch, target_branch and title are required",
            );
        }
        if !self.repo.branches.contains_key(&source) || !self.repo.branches.contains_key(&target) {
            return message(404, "404 Branch Not Found");
        }
        if let Some(o) = self.repo.opened.iter().find(|o| o.open && o.head == source) {
            return Answer::json(
                409,
                json!({"message": [format!("Another open merge request already exists for this source branch: !{}", o.number)]}),
            );
        }
        let number = self.repo.next_number(self.mrs.keys().copied());
        let opened = Opened {
            number,
            head: source,
            base: target,
            title,
            body: field("description"),
            open: true,
        };
        let answer = Answer::json(201, self.opened_mr_json(&opened));
        self.repo.opened.push(opened);
        answer
    }

    fn edit_opened(&mut self, iid: u64, call: &Call) -> Answer {
        let (title, description) = (call.param("title"), call.param("description"));
        let Some(o) = self.repo.opened.iter_mut().find(|o| o.number == iid) else {
            return Self::not_found();
        };
        if let Some(t) = title {
            o.title = t;
        }
        if let Some(d) = description {
            o.body = d;
        }
        let o = o.clone();
        Answer::json(200, self.opened_mr_json(&o))
    }
}
