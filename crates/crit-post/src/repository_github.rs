//! Proposing a change on GitHub through the Git database API (a tree on
//! the default branch's, a commit on its head, the branch pointed there)
//! and the pulls API.

use reqwest::Method;
use serde_json::{Value, json};

use crate::error::PostError;
use crate::http::Api;
use crate::repository::{BaseFile, Change, Proposed, decoded, field, is_not_found, segment};

/// `path` on the default branch of the repository at `repo` (`/repos/O/R`).
pub(crate) async fn read(api: &mut Api, repo: &str, path: &str) -> Result<BaseFile, PostError> {
    let action = "read the repository's default branch";
    let info = api.get(repo, action).await?;
    let branch = field(api, &info, "/default_branch", action)?;
    let commit = head(api, repo, &branch)
        .await?
        .ok_or_else(|| api.protocol(action, "the default branch has no reference"))?;
    let action = "read the file on the default branch";
    let at = format!(
        "{repo}/contents/{}?ref={}",
        segment(path, true),
        segment(&branch, false)
    );
    let text = match api.get(&at, action).await {
        Ok(v) => Some(decoded(api, &field(api, &v, "/content", action)?, action)?),
        Err(e) if is_not_found(&e) => None,
        Err(e) => return Err(e),
    };
    Ok(BaseFile {
        branch,
        commit,
        text,
    })
}

/// The commit `branch` points at; `None` when there is no such branch.
async fn head(api: &mut Api, repo: &str, branch: &str) -> Result<Option<String>, PostError> {
    let action = "read a branch";
    let at = format!("{repo}/git/ref/heads/{}", segment(branch, true));
    match api.get(&at, action).await {
        Ok(v) => Ok(Some(field(api, &v, "/object/sha", action)?)),
        Err(e) if is_not_found(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The tree and the parents of `commit`.
async fn commit_of(
    api: &mut Api,
    repo: &str,
    commit: &str,
) -> Result<(String, Vec<String>), PostError> {
    let action = "read a commit";
    let v = api
        .get(&format!("{repo}/git/commits/{commit}"), action)
        .await?;
    let tree = field(api, &v, "/tree/sha", action)?;
    let parents = v
        .get("parents")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|p| p.get("sha").and_then(Value::as_str))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    Ok((tree, parents))
}

pub(crate) async fn propose(
    api: &mut Api,
    repo: &str,
    owner: &str,
    base: &BaseFile,
    change: &Change,
) -> Result<Proposed, PostError> {
    let (base_tree, _) = commit_of(api, repo, &base.commit).await?;
    let action = "write the proposed file";
    let tree = api
        .write(
            Method::POST,
            &format!("{repo}/git/trees"),
            &json!({"base_tree": base_tree, "tree": [{"path": change.path, "mode": "100644",
                    "type": "blob", "content": change.text}]}),
            action,
        )
        .await?;
    let tree = field(api, &tree, "/sha", action)?;
    let existing = head(api, repo, &change.branch).await?;
    let unchanged = match &existing {
        Some(h) => commit_of(api, repo, h).await? == (tree.clone(), vec![base.commit.clone()]),
        None => false,
    };
    if !unchanged {
        let action = "commit the proposed file";
        let commit = api
            .write(
                Method::POST,
                &format!("{repo}/git/commits"),
                &json!({"message": change.message, "tree": tree, "parents": [base.commit]}),
                action,
            )
            .await?;
        let sha = field(api, &commit, "/sha", action)?;
        let action = "point crit's branch at the proposed commit";
        match existing {
            None => {
                api.write(
                    Method::POST,
                    &format!("{repo}/git/refs"),
                    &json!({"ref": format!("refs/heads/{}", change.branch), "sha": sha}),
                    action,
                )
                .await?;
            }
            // crit's branch is crit's: always one commit on the default
            // branch, so it is moved there whatever it held.
            Some(_) => {
                api.write(
                    Method::PATCH,
                    &format!("{repo}/git/refs/heads/{}", segment(&change.branch, true)),
                    &json!({"sha": sha, "force": true}),
                    action,
                )
                .await?;
            }
        }
    }
    let (number, url, created) = pull(api, repo, owner, base, change).await?;
    Ok(Proposed {
        number,
        url,
        created,
        branch_changed: !unchanged,
        stats: Default::default(),
    })
}

/// The open pull request from crit's branch, updated, or a new one.
async fn pull(
    api: &mut Api,
    repo: &str,
    owner: &str,
    base: &BaseFile,
    change: &Change,
) -> Result<(u64, Option<String>, bool), PostError> {
    let action = "find crit's open pull request";
    let head = format!("{owner}:{}", change.branch);
    let open = api
        .get_all(
            &format!(
                "{repo}/pulls?state=open&head={}&base={}",
                segment(&head, false),
                segment(&base.branch, false)
            ),
            action,
        )
        .await?;
    let number_of = |v: &Value| v.get("number").and_then(Value::as_u64);
    let url_of = |v: &Value| {
        v.get("html_url")
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    if let Some(n) = open.first().and_then(number_of) {
        let action = "update crit's pull request";
        let v = api
            .write(
                Method::PATCH,
                &format!("{repo}/pulls/{n}"),
                &json!({"title": change.title, "body": change.body}),
                action,
            )
            .await?;
        return Ok((n, url_of(&v), false));
    }
    let action = "open a pull request";
    let v = api
        .write(
            Method::POST,
            &format!("{repo}/pulls"),
            &json!({"title": change.title, "head": change.branch, "base": base.branch,
                    "body": change.body, "maintainer_can_modify": true}),
            action,
        )
        .await?;
    let n = number_of(&v).ok_or_else(|| api.protocol(action, "the answer has no number"))?;
    Ok((n, url_of(&v), true))
}
