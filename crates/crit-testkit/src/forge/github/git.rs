//! The repository's own routes: the repository, Git references, trees and
//! commits (the Git database API), file contents, and pull requests listed
//! and opened from a branch. Faithful where a client can get it wrong: a
//! tree entry needs `mode` and `type`; a reference is created once (422
//! "Reference already exists") and moved without `force` only forward; a
//! second open pull request from the same head is 422; a pull request with
//! no commits between its base and head is 422.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::Github;
use super::rest::unprocessable;
use super::shapes::user_json;
use crate::forge::repo::{Opened, base64};
use crate::forge::{Answer, Call, Forge};

fn validation(resource: &str, message: &str) -> Answer {
    Answer::json(
        422,
        json!({"message": message, "errors": [{"resource": resource, "code": "custom", "message": message}],
               "documentation_url": "https://docs.github.com/rest/git", "status": "422"}),
    )
}

impl Github {
    /// A route of the repository's own, or `None` for the others.
    pub(super) fn git_route(&mut self, m: &str, rest: &[&str], call: &Call) -> Option<Answer> {
        let number = |s: &str| s.parse::<u64>().ok();
        Some(match (m, rest) {
            ("GET", []) => Answer::json(200, self.repo_json()),
            ("GET", ["git", "ref", "heads", branch @ ..]) => self.ref_answer(&branch.join("/")),
            ("GET", ["git", "commits", sha]) => match self.repo.commits.get(*sha) {
                Some(_) => Answer::json(200, self.commit_json(sha)),
                None => Self::not_found(),
            },
            ("POST", ["git", "trees"]) => self.create_tree(&call.body),
            ("POST", ["git", "commits"]) => self.create_commit(&call.body),
            ("POST", ["git", "refs"]) => self.create_ref(&call.body),
            ("PATCH", ["git", "refs", "heads", branch @ ..]) => {
                self.update_ref(&branch.join("/"), &call.body)
            }
            ("GET", ["contents", path @ ..]) => {
                let at = call
                    .param("ref")
                    .unwrap_or_else(|| self.repo.default_branch.clone());
                self.contents(&path.join("/"), &at)
            }
            ("GET", ["pulls"]) => self.list_opened(call),
            ("POST", ["pulls"]) => self.open_pull(&call.body),
            ("PATCH", ["pulls", n]) if number(n).is_some_and(|n| self.is_opened(n)) => {
                self.edit_opened(number(n).unwrap_or(0), &call.body)
            }
            ("GET", ["pulls", n]) if number(n).is_some_and(|n| self.is_opened(n)) => {
                let n = number(n).unwrap_or(0);
                match self.repo.opened.iter().find(|o| o.number == n) {
                    Some(o) => Answer::json(200, self.opened_json(o)),
                    None => Self::not_found(),
                }
            }
            _ => return None,
        })
    }

    fn is_opened(&self, n: u64) -> bool {
        self.repo.opened.iter().any(|o| o.number == n)
    }

    fn repo_json(&self) -> Value {
        let (o, r) = (&self.cfg.owner, &self.cfg.repo);
        json!({"id": 1_296_269, "node_id": "R_standIn", "name": r, "full_name": format!("{o}/{r}"),
               "owner": user_json(o), "private": false, "default_branch": self.repo.default_branch,
               "html_url": format!("https://github.com/{o}/{r}"),
               "url": format!("{}/repos/{o}/{r}", self.base)})
    }

    fn ref_json(&self, branch: &str, sha: &str) -> Value {
        let (o, r) = (&self.cfg.owner, &self.cfg.repo);
        json!({"ref": format!("refs/heads/{branch}"), "node_id": format!("REF_{branch}"),
               "url": format!("{}/repos/{o}/{r}/git/refs/heads/{branch}", self.base),
               "object": {"type": "commit", "sha": sha,
                          "url": format!("{}/repos/{o}/{r}/git/commits/{sha}", self.base)}})
    }

    fn ref_answer(&self, branch: &str) -> Answer {
        match self.repo.branches.get(branch) {
            Some(sha) => Answer::json(200, self.ref_json(branch, sha)),
            None => Self::not_found(),
        }
    }

    fn commit_json(&self, sha: &str) -> Value {
        let (o, r) = (&self.cfg.owner, &self.cfg.repo);
        let c = self.repo.commits.get(sha);
        let parents: Vec<Value> = c
            .map(|c| c.parents.iter().map(|p| json!({"sha": p})).collect())
            .unwrap_or_default();
        json!({"sha": sha, "node_id": format!("C_{sha}"),
               "url": format!("{}/repos/{o}/{r}/git/commits/{sha}", self.base),
               "html_url": format!("https://github.com/{o}/{r}/commit/{sha}"),
               "message": c.map(|c| c.message.clone()).unwrap_or_default(),
               "tree": {"sha": c.map(|c| c.tree.clone()).unwrap_or_default()},
               "parents": parents})
    }

    fn create_tree(&mut self, body: &Value) -> Answer {
        let mut files = match body.get("base_tree").and_then(Value::as_str) {
            Some(t) => match self.repo.trees.get(t) {
                Some(f) => f.clone(),
                None => return validation("Tree", "base_tree is not a valid tree oid"),
            },
            None => BTreeMap::new(),
        };
        let Some(entries) = body.get("tree").and_then(Value::as_array) else {
            return unprocessable(json!(["Invalid request: \"tree\" wasn't supplied."]));
        };
        for e in entries {
            let path = e.get("path").and_then(Value::as_str).unwrap_or("");
            let mode = e.get("mode").and_then(Value::as_str).unwrap_or("");
            let kind = e.get("type").and_then(Value::as_str).unwrap_or("");
            if path.is_empty() || !matches!(mode, "100644" | "100755") || kind != "blob" {
                return validation("Tree", "tree.path, tree.mode and tree.type are required");
            }
            match e.get("content").and_then(Value::as_str) {
                Some(c) => {
                    files.insert(path.to_string(), c.to_string());
                }
                None if e.get("sha").is_some_and(Value::is_null) => {
                    files.remove(path);
                }
                None => return validation("Tree", "tree.sha or tree.content is required"),
            }
        }
        let sha = self.repo.tree(files);
        Answer::json(
            201,
            json!({"sha": sha, "url": format!("{}/repos/{}/{}/git/trees/{sha}", self.base, self.cfg.owner, self.cfg.repo),
                   "tree": [], "truncated": false}),
        )
    }

    fn create_commit(&mut self, body: &Value) -> Answer {
        let message = body.get("message").and_then(Value::as_str).unwrap_or("");
        let tree = body.get("tree").and_then(Value::as_str).unwrap_or("");
        if message.is_empty() || !self.repo.trees.contains_key(tree) {
            return validation("Commit", "message and a valid tree are required");
        }
        let parents: Vec<String> = body
            .get("parents")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        if parents.iter().any(|p| !self.repo.commits.contains_key(p)) {
            return validation(
                "Commit",
                "Parent SHA does not exist or is not a commit object",
            );
        }
        let sha = self.repo.commit(parents, tree, message);
        Answer::json(201, self.commit_json(&sha))
    }

    fn create_ref(&mut self, body: &Value) -> Answer {
        let name = body.get("ref").and_then(Value::as_str).unwrap_or("");
        let sha = body.get("sha").and_then(Value::as_str).unwrap_or("");
        let Some(branch) = name.strip_prefix("refs/heads/").filter(|b| !b.is_empty()) else {
            return validation(
                "Reference",
                "Reference name must start with 'refs/' and have at least two slashes.",
            );
        };
        if !self.repo.commits.contains_key(sha) {
            return validation("Reference", "Object does not exist");
        }
        if self.repo.branches.contains_key(branch) {
            return validation("Reference", "Reference already exists");
        }
        self.repo
            .branches
            .insert(branch.to_string(), sha.to_string());
        Answer::json(201, self.ref_json(branch, sha))
    }

    fn update_ref(&mut self, branch: &str, body: &Value) -> Answer {
        let sha = body.get("sha").and_then(Value::as_str).unwrap_or("");
        let force = body.get("force").and_then(Value::as_bool).unwrap_or(false);
        let Some(old) = self.repo.branches.get(branch).cloned() else {
            return validation("Reference", "Reference does not exist");
        };
        if !self.repo.commits.contains_key(sha) {
            return validation("Reference", "Object does not exist");
        }
        if !force && !self.descends(sha, &old) {
            return validation("Reference", "Update is not a fast forward");
        }
        self.repo
            .branches
            .insert(branch.to_string(), sha.to_string());
        Answer::json(200, self.ref_json(branch, sha))
    }

    fn descends(&self, from: &str, ancestor: &str) -> bool {
        let mut todo = vec![from.to_string()];
        while let Some(c) = todo.pop() {
            if c == ancestor {
                return true;
            }
            if let Some(commit) = self.repo.commits.get(&c) {
                todo.extend(commit.parents.iter().cloned());
            }
        }
        false
    }

    fn contents(&self, path: &str, at: &str) -> Answer {
        let head = self.repo.branches.get(at).map(String::as_str).unwrap_or(at);
        let files = self
            .repo
            .commits
            .get(head)
            .and_then(|c| self.repo.trees.get(&c.tree));
        let Some(text) = files.and_then(|f| f.get(path)) else {
            return Self::not_found();
        };
        // GitHub wraps the base64 at 60 characters.
        let encoded = base64(text);
        let wrapped: Vec<String> = encoded
            .as_bytes()
            .chunks(60)
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect();
        let name = path.rsplit('/').next().unwrap_or(path);
        Answer::json(
            200,
            json!({"type": "file", "encoding": "base64", "size": text.len(), "name": name, "path": path,
                   "content": wrapped.join("\n") + "\n", "sha": format!("{:040x}", text.len())}),
        )
    }

    pub(super) fn opened_json(&self, o: &Opened) -> Value {
        let (ow, r, n) = (&self.cfg.owner, &self.cfg.repo, o.number);
        let sha = |b: &str| self.repo.branches.get(b).cloned().unwrap_or_default();
        json!({"url": format!("{}/repos/{ow}/{r}/pulls/{n}", self.base), "id": n * 101, "node_id": format!("PR_{n}"),
               "html_url": format!("https://github.com/{ow}/{r}/pull/{n}"), "number": n,
               "state": if o.open { "open" } else { "closed" }, "title": o.title, "body": o.body,
               "user": user_json(&self.cfg.login),
               "head": {"ref": o.head, "sha": sha(&o.head), "label": format!("{ow}:{}", o.head)},
               "base": {"ref": o.base, "sha": sha(&o.base), "label": format!("{ow}:{}", o.base)}})
    }

    fn list_opened(&self, call: &Call) -> Answer {
        let state = call.param("state").unwrap_or_else(|| "open".into());
        let head = call.param("head");
        let base = call.param("base");
        let owner = format!("{}:", self.cfg.owner);
        let shown: Vec<Value> = self
            .repo
            .opened
            .iter()
            .filter(|o| state == "all" || (state == "open") == o.open)
            .filter(|o| {
                head.as_deref()
                    .is_none_or(|h| h.strip_prefix(&owner) == Some(o.head.as_str()))
            })
            .filter(|o| base.as_deref().is_none_or(|b| b == o.base))
            .map(|o| self.opened_json(o))
            .collect();
        Answer::json(200, Value::Array(shown))
    }

    fn open_pull(&mut self, body: &Value) -> Answer {
        let field = |k: &str| {
            body.get(k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let (title, head, base) = (field("title"), field("head"), field("base"));
        let head = head
            .strip_prefix(&format!("{}:", self.cfg.owner))
            .map_or(head.clone(), str::to_string);
        if title.is_empty() || head.is_empty() || base.is_empty() {
            return validation("PullRequest", "title, head and base are required");
        }
        let (Some(h), Some(b)) = (self.repo.branches.get(&head), self.repo.branches.get(&base))
        else {
            return validation("PullRequest", "head or base is not a branch");
        };
        if h == b {
            return validation(
                "PullRequest",
                &format!("No commits between {base} and {head}"),
            );
        }
        if self
            .repo
            .opened
            .iter()
            .any(|o| o.open && o.head == head && o.base == base)
        {
            return validation(
                "PullRequest",
                &format!(
                    "A pull request already exists for {}:{head}.",
                    self.cfg.owner
                ),
            );
        }
        let number = self.repo.next_number(self.pulls.keys().copied());
        let opened = Opened {
            number,
            head,
            base,
            title,
            body: field("body"),
            open: true,
        };
        let answer = Answer::json(201, self.opened_json(&opened));
        self.repo.opened.push(opened);
        answer
    }

    fn edit_opened(&mut self, n: u64, body: &Value) -> Answer {
        let Some(o) = self.repo.opened.iter_mut().find(|o| o.number == n) else {
            return Self::not_found();
        };
        if let Some(t) = body.get("title").and_then(Value::as_str) {
            o.title = t.to_string();
        }
        if let Some(t) = body.get("body").and_then(Value::as_str) {
            o.body = t.to_string();
        }
        let o = o.clone();
        Answer::json(200, self.opened_json(&o))
    }
}
