//! The two GraphQL operations: listing review threads and resolving one.
//! A refusal is GraphQL's: status 200 with `errors`.

use serde_json::{Value, json};

use super::{Github, Thread};
use crate::forge::{Access, Answer};

impl Github {
    pub(super) fn graphql(&mut self, body: &Value, access: Access) -> Answer {
        let query = body.get("query").and_then(Value::as_str).unwrap_or("");
        let vars = body.get("variables").cloned().unwrap_or(Value::Null);
        let gql_error = |kind: &str, message: String| {
            Answer::json(
                200,
                json!({"data": null, "errors": [{"type": kind, "message": message, "locations": [{"line": 1, "column": 1}]}]}),
            )
        };
        if access == Access::None {
            return gql_error(
                "NOT_FOUND",
                format!(
                    "Could not resolve to a Repository with the name '{}/{}'.",
                    self.cfg.owner, self.cfg.repo
                ),
            );
        }
        if query.contains("resolveReviewThread") {
            let ids: Vec<String> = match &vars {
                Value::Object(m) => m
                    .values()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect(),
                _ => Vec::new(),
            };
            if !self.cfg.can_resolve_threads || access != Access::Write {
                return Answer::json(
                    200,
                    json!({"data": {"resolveReviewThread": null}, "errors": [{
                    "type": "FORBIDDEN", "path": ["resolveReviewThread"], "extensions": {"saml_failure": false},
                    "locations": [{"line": 1, "column": 30}], "message": "Resource not accessible by integration"}]}),
                );
            }
            for p in self.pulls.values_mut() {
                if let Some(t) = p.threads.iter_mut().find(|t| ids.contains(&t.id)) {
                    t.resolved = true;
                    t.resolved_by = Some(self.cfg.login.clone());
                    return Answer::json(
                        200,
                        json!({"data": {"resolveReviewThread": {"thread": {"id": t.id, "isResolved": true}}}}),
                    );
                }
            }
            return gql_error(
                "NOT_FOUND",
                format!(
                    "Could not resolve to a node with the global id of '{}'",
                    ids.join(",")
                ),
            );
        }
        if query.contains("reviewThreads") {
            let owner = vars.get("owner").and_then(Value::as_str);
            let name = vars
                .get("name")
                .or_else(|| vars.get("repo"))
                .and_then(Value::as_str);
            if owner != Some(self.cfg.owner.as_str()) || name != Some(self.cfg.repo.as_str()) {
                return gql_error(
                    "NOT_FOUND",
                    "Could not resolve to a Repository with the name given.".into(),
                );
            }
            let number = vars.get("number").and_then(Value::as_u64).unwrap_or(0);
            let Some(p) = self.pulls.get(&number) else {
                return Answer::json(
                    200,
                    json!({"data": {"repository": {"pullRequest": null}}, "errors": [{
                    "type": "NOT_FOUND", "path": ["repository", "pullRequest"],
                    "message": format!("Could not resolve to a PullRequest with the number of {number}.")}]}),
                );
            };
            let first = vars
                .get("first")
                .and_then(Value::as_u64)
                .unwrap_or(100)
                .clamp(1, 100) as usize;
            let after = vars
                .get("cursor")
                .or_else(|| vars.get("after"))
                .and_then(Value::as_str)
                .and_then(|c| c.strip_prefix("cursor:"))
                .and_then(|c| c.parse::<usize>().ok())
                .unwrap_or(0);
            let visible: Vec<&Thread> = p
                .threads
                .iter()
                .filter(|t| {
                    t.comments
                        .iter()
                        .any(|id| p.comments.iter().any(|c| c.id == *id && !c.pending))
                })
                .collect();
            let nodes: Vec<Value> = visible
                .iter()
                .skip(after)
                .take(first)
                .map(|t| json!({"id": t.id, "isResolved": t.resolved,
                    "resolvedBy": t.resolved_by.as_deref().map(|l| json!({"login": l})),
                    "comments": {"nodes": t.comments.iter().take(1).map(|id| json!({"databaseId": id})).collect::<Vec<_>>()}}))
                .collect();
            let end = after + nodes.len();
            return Answer::json(
                200,
                json!({"data": {"repository": {"pullRequest": {"reviewThreads": {
                "pageInfo": {"hasNextPage": end < visible.len(), "endCursor": format!("cursor:{end}")},
                "nodes": nodes}}}}}),
            );
        }
        gql_error(
            "UNSUPPORTED",
            "crit-testkit: this stand-in answers only reviewThreads and resolveReviewThread".into(),
        )
    }
}
