//! Which version of a merge request was reviewed, what changed since, and
//! which of crit's discussions sit on lines that changed.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::error::PostError;
use crate::gitlab::{Diff, GitlabPoster, Placed, Thread, files_of};
use crate::plan::{ChangedSince, Earlier};
use crate::revision;

impl GitlabPoster {
    /// The diff of the version whose head is the reviewed commit, and the
    /// lines changed from it to the current head; when no version has that
    /// head, the current diff with every line counted as changed.
    pub(crate) async fn at_version(
        &mut self,
        reviewed: &str,
        current: &Diff,
    ) -> Result<(Diff, Option<ChangedSince>), PostError> {
        let versions = self
            .api
            .get_all(&self.mr("/versions"), "list the merge request's versions")
            .await?;
        let Some(version) = versions.iter().find(|v| {
            revision::same_commit(
                v.get("head_commit_sha")
                    .and_then(Value::as_str)
                    .unwrap_or(""),
                reviewed,
            )
        }) else {
            let unknown = ChangedSince {
                unknown: true,
                ..ChangedSince::default()
            };
            return Ok((current.clone(), Some(unknown)));
        };
        let id = version.get("id").and_then(Value::as_u64).unwrap_or(0);
        let v = self
            .api
            .get(
                &self.mr(&format!("/versions/{id}")),
                "read the reviewed version",
            )
            .await?;
        let sha = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let at = Diff {
            base: sha("base_commit_sha"),
            start: sha("start_commit_sha"),
            head: sha("head_commit_sha"),
            files: files_of(
                v.get("diffs")
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or(&[]),
            ),
            web_url: current.web_url.clone(),
        };
        let changed = self.changed(&at.head, &current.head).await?;
        Ok((at, Some(changed)))
    }

    /// The lines of `from` changed on the way to `to`, by the compare API.
    async fn changed(&mut self, from: &str, to: &str) -> Result<ChangedSince, PostError> {
        let path = format!(
            "/projects/{}/repository/compare?from={from}&to={to}&straight=true",
            self.ctx.project
        );
        let answer = match self
            .api
            .get(&path, "compare the reviewed commit with the merge request")
            .await
        {
            Ok(a) => a,
            Err(PostError::Permission { status: 404, .. }) => {
                return Ok(ChangedSince {
                    unknown: true,
                    ..ChangedSince::default()
                });
            }
            Err(e) => return Err(e),
        };
        let diffs = answer
            .get("diffs")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        Ok(revision::changed_since(diffs.iter().map(|d| {
            let flag = |k: &str| d.get(k).and_then(Value::as_bool) == Some(true);
            revision::Compared {
                old_path: d.get("old_path").and_then(Value::as_str).unwrap_or(""),
                patch: d
                    .get("diff")
                    .and_then(Value::as_str)
                    .filter(|p| !p.is_empty()),
                whole: flag("deleted_file") || flag("renamed_file"),
            }
        })))
    }

    /// Marks the comments on an earlier diff whose lines changed since as
    /// stale (one comparison per earlier head).
    pub(crate) async fn mark_stale(
        &mut self,
        found: Vec<Placed>,
        head: &str,
    ) -> Result<Vec<Earlier<Thread>>, PostError> {
        let mut compared: BTreeMap<String, ChangedSince> = BTreeMap::new();
        let mut out = Vec::new();
        for (mut e, at) in found {
            if let Some((sha, line)) =
                at.filter(|(sha, _)| !e.resolved && !revision::same_commit(sha, head))
            {
                if !compared.contains_key(&sha) {
                    let c = self.changed(&sha, head).await?;
                    compared.insert(sha.clone(), c);
                }
                let path = e.path.clone().unwrap_or_default();
                // What cannot be compared stays as it is: posting again on a
                // guess would repeat the comment.
                e.stale = compared
                    .get(&sha)
                    .is_some_and(|c| !c.unknown && c.touches(&path, line, line));
            }
            out.push(e);
        }
        Ok(out)
    }
}
