//! Proposing a change on GitLab: one commit of one action on crit's branch
//! (rewritten onto the default branch with `start_branch` and `force`),
//! then the merge request from it.

use reqwest::Method;
use serde_json::{Value, json};

use crate::error::PostError;
use crate::http::Api;
use crate::repository::{BaseFile, Change, Proposed, decoded, field, is_not_found, segment};

/// `path` on the default branch of the project at `project` (`/projects/ID`).
pub(crate) async fn read(api: &mut Api, project: &str, path: &str) -> Result<BaseFile, PostError> {
    let action = "read the project's default branch";
    let info = api.get(project, action).await?;
    let branch = field(api, &info, "/default_branch", action)?;
    let b = api
        .get(
            &format!("{project}/repository/branches/{}", segment(&branch, false)),
            action,
        )
        .await?;
    let commit = field(api, &b, "/commit/id", action)?;
    let action = "read the file on the default branch";
    let at = format!(
        "{project}/repository/files/{}?ref={}",
        segment(path, false),
        segment(&commit, false)
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

pub(crate) async fn propose(
    api: &mut Api,
    project: &str,
    base: &BaseFile,
    change: &Change,
) -> Result<Proposed, PostError> {
    let unchanged = holds(api, project, base, change).await?;
    if !unchanged {
        let action = "commit the proposed file on crit's branch";
        let verb = match base.text {
            Some(_) => "update",
            None => "create",
        };
        // `force` with `start_branch`: the branch becomes one commit on
        // the default branch's head, whatever it held (it is crit's).
        api.write(
            Method::POST,
            &format!("{project}/repository/commits"),
            &json!({"branch": change.branch, "start_branch": base.branch, "force": true,
                    "commit_message": change.message,
                    "actions": [{"action": verb, "file_path": change.path, "content": change.text}]}),
            action,
        )
        .await?;
    }
    let action = "find crit's open merge request";
    let open = api
        .get_all(
            &format!(
                "{project}/merge_requests?state=opened&source_branch={}&target_branch={}",
                segment(&change.branch, false),
                segment(&base.branch, false)
            ),
            action,
        )
        .await?;
    let iid_of = |v: &Value| v.get("iid").and_then(Value::as_u64);
    let url_of = |v: &Value| v.get("web_url").and_then(Value::as_str).map(str::to_string);
    let (number, url, created) = match open.first().and_then(iid_of) {
        Some(iid) => {
            let v = api
                .write(
                    Method::PUT,
                    &format!("{project}/merge_requests/{iid}"),
                    &json!({"title": change.title, "description": change.body}),
                    "update crit's merge request",
                )
                .await?;
            (iid, url_of(&v), false)
        }
        None => {
            let action = "open a merge request";
            let v = api
                .write(
                    Method::POST,
                    &format!("{project}/merge_requests"),
                    &json!({"source_branch": change.branch, "target_branch": base.branch,
                            "title": change.title, "description": change.body,
                            "remove_source_branch": true}),
                    action,
                )
                .await?;
            let iid = iid_of(&v).ok_or_else(|| api.protocol(action, "the answer has no iid"))?;
            (iid, url_of(&v), true)
        }
    };
    Ok(Proposed {
        number,
        url,
        created,
        branch_changed: !unchanged,
        stats: Default::default(),
    })
}

/// crit's branch is one commit on the default branch's head and holds the
/// proposed text already.
async fn holds(
    api: &mut Api,
    project: &str,
    base: &BaseFile,
    change: &Change,
) -> Result<bool, PostError> {
    let action = "read crit's branch";
    let at = format!(
        "{project}/repository/branches/{}",
        segment(&change.branch, false)
    );
    let b = match api.get(&at, action).await {
        Ok(b) => b,
        Err(e) if is_not_found(&e) => return Ok(false),
        Err(e) => return Err(e),
    };
    let on_base = b
        .pointer("/commit/parent_ids")
        .and_then(Value::as_array)
        .is_some_and(|p| p.len() == 1 && p[0].as_str() == Some(base.commit.as_str()));
    if !on_base {
        return Ok(false);
    }
    let head = field(api, &b, "/commit/id", action)?;
    let at = format!(
        "{project}/repository/files/{}?ref={}",
        segment(&change.path, false),
        segment(&head, false)
    );
    match api.get(&at, action).await {
        Ok(v) => Ok(decoded(api, &field(api, &v, "/content", action)?, action)? == change.text),
        Err(e) if is_not_found(&e) => Ok(false),
        Err(e) => Err(e),
    }
}
