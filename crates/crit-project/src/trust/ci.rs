//! Which CI runs crit, and the base a pull or merge request is reviewed
//! against, from the variables each CI sets: GitHub Actions
//! (`GITHUB_EVENT_PATH`'s `pull_request.base.sha`, `GITHUB_BASE_REF`), GitLab
//! (`CI_MERGE_REQUEST_DIFF_BASE_SHA`, `CI_MERGE_REQUEST_TARGET_BRANCH_NAME`),
//! Bitbucket Pipelines (`BITBUCKET_PR_DESTINATION_BRANCH`).

use std::path::Path;

use crit_os::git::is_object_id;

use crate::scope::revision::{self, Revision};

/// The CI systems crit knows by name; any other is detected by its usual
/// variable (`CI=true`, `BUILDKITE`, `JENKINS_URL`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ci {
    GitHub,
    GitLab,
    Bitbucket,
    Other(&'static str),
}

impl Ci {
    pub fn name(self) -> &'static str {
        match self {
            Ci::GitHub => "GitHub Actions",
            Ci::GitLab => "GitLab CI",
            Ci::Bitbucket => "Bitbucket Pipelines",
            Ci::Other(var) => var,
        }
    }

    /// What to change so the clone holds the base.
    fn full_history(self) -> &'static str {
        match self {
            Ci::GitHub => "set `fetch-depth: 0` on the actions/checkout step",
            Ci::GitLab => "set `GIT_DEPTH: 0` in the job's `variables`",
            Ci::Bitbucket => "set `clone: depth: full` in bitbucket-pipelines.yml",
            Ci::Other(_) => "fetch the full history (`git fetch --unshallow`)",
        }
    }
}

/// The base a CI variable names, before git has been asked about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseRef {
    /// Revisions to try, in order (an exact commit first, then a branch).
    pub candidates: Vec<String>,
    /// For people: the branch, or the commit.
    pub name: String,
    /// The variable it came from.
    pub var: String,
}

/// The CI crit runs in and the pull/merge request base it names, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CiEnv {
    pub ci: Ci,
    pub base: Option<BaseRef>,
}

/// A base found in the repository.
#[derive(Debug, Clone)]
pub struct Base {
    pub revision: Revision,
    /// For people: `main`, `origin/main`, or a short commit.
    pub name: String,
    /// Where it came from: a variable, `--rules-from`, the upstream.
    pub from: String,
}

impl Base {
    /// `main (1a2b3c4)`, or the short commit alone when that is its name.
    pub fn label(&self) -> String {
        match self.name == self.revision.short() {
            true => self.name.clone(),
            false => format!("{} ({})", self.name, self.revision.short()),
        }
    }
}

/// The CI this process runs in, from `env`; `None` outside CI.
pub fn detect(env: &crit_os::Env) -> Option<CiEnv> {
    let set = |k: &str| {
        env.get(k)
            .map(str::to_string)
            .filter(|v| !v.trim().is_empty())
    };
    let truthy = |k: &str| {
        set(k).is_some_and(|v| {
            !matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "0" | "false" | "no" | "off"
            )
        })
    };
    if truthy("GITHUB_ACTIONS") {
        return Some(CiEnv {
            ci: Ci::GitHub,
            base: github_base(env),
        });
    }
    if truthy("GITLAB_CI") {
        let sha = set("CI_MERGE_REQUEST_DIFF_BASE_SHA").filter(|s| is_object_id(s));
        let branch = set("CI_MERGE_REQUEST_TARGET_BRANCH_NAME");
        let base = match (sha, branch) {
            (Some(sha), branch) => Some(BaseRef {
                name: branch.clone().unwrap_or_else(|| short(&sha)),
                candidates: std::iter::once(sha.clone())
                    .chain(branch.map(|b| format!("origin/{b}")))
                    .collect(),
                var: "CI_MERGE_REQUEST_DIFF_BASE_SHA".into(),
            }),
            (None, Some(b)) => Some(BaseRef {
                candidates: vec![format!("origin/{b}")],
                name: b,
                var: "CI_MERGE_REQUEST_TARGET_BRANCH_NAME".into(),
            }),
            (None, None) => None,
        };
        return Some(CiEnv {
            ci: Ci::GitLab,
            base,
        });
    }
    if set("BITBUCKET_BUILD_NUMBER").is_some() {
        let base = set("BITBUCKET_PR_DESTINATION_BRANCH").map(|b| BaseRef {
            candidates: vec![format!("origin/{b}"), b.clone()],
            name: b,
            var: "BITBUCKET_PR_DESTINATION_BRANCH".into(),
        });
        return Some(CiEnv {
            ci: Ci::Bitbucket,
            base,
        });
    }
    const OTHERS: [&str; 9] = [
        "CI",
        "BUILDKITE",
        "CIRCLECI",
        "JENKINS_URL",
        "TF_BUILD",
        "TEAMCITY_VERSION",
        "TRAVIS",
        "DRONE",
        "CODEBUILD_BUILD_ID",
    ];
    OTHERS.iter().find(|k| truthy(k)).map(|k| CiEnv {
        ci: Ci::Other(k),
        base: None,
    })
}

/// The pull request's base: the exact commit from the event file, then the
/// branch `GITHUB_BASE_REF` names.
fn github_base(env: &crit_os::Env) -> Option<BaseRef> {
    let branch = env.non_empty("GITHUB_BASE_REF").map(str::to_string);
    let sha = env
        .get("GITHUB_EVENT_PATH")
        .filter(|p| !p.is_empty())
        .and_then(|p| event_base_sha(Path::new(&p)));
    let var = match (&sha, &branch) {
        (Some(_), _) => "GITHUB_EVENT_PATH",
        (None, Some(_)) => "GITHUB_BASE_REF",
        (None, None) => return None,
    };
    let name = branch
        .clone()
        .or_else(|| sha.as_deref().map(short))
        .unwrap_or_default();
    Some(BaseRef {
        candidates: sha
            .into_iter()
            .chain(branch.map(|b| format!("origin/{b}")))
            .collect(),
        name,
        var: var.into(),
    })
}

/// `pull_request.base.sha` of the webhook payload GitHub writes for the job.
fn event_base_sha(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > 32 * 1024 * 1024 {
        return None;
    }
    let event: serde_json::Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    let sha = event.pointer("/pull_request/base/sha")?.as_str()?;
    is_object_id(sha).then(|| sha.to_string())
}

fn short(sha: &str) -> String {
    sha.chars().take(7).collect()
}

/// Why the base of a change cannot be used, said so the pipeline's author
/// can fix it. `name` is the base as the CI named it, `from` where it came
/// from (a variable, or the branch's upstream).
#[derive(Debug, thiserror::Error)]
pub enum BaseError {
    #[error("the base of the change (`{name}`, from {from}): {source}")]
    Unresolved {
        name: String,
        from: String,
        source: crate::scope::ScopeError,
    },
    #[error(
        "this is a shallow clone, so the history between HEAD and the base of the change (`{name}`, from {from}) is not in it: {fix}"
    )]
    ShallowHistory {
        name: String,
        from: String,
        fix: &'static str,
    },
    #[error("the base of the change (`{name}`, from {from}) shares no history with HEAD")]
    Unrelated { name: String, from: String },
    #[error(
        "this is a shallow clone, so the base of the change (`{name}`, from {from}) is not in it: {fix}"
    )]
    ShallowMissing {
        name: String,
        from: String,
        fix: &'static str,
    },
    #[error(
        "the base of the change (`{name}`, from {from}) is not in this clone: fetch it first (`git fetch origin {name}`)"
    )]
    NotFetched { name: String, from: String },
}

/// The base `base` names, found in the repository at `root`, or why it
/// cannot be used; `env` is what git sees.
pub fn locate(root: &Path, ci: Ci, base: &BaseRef, env: &crit_os::Env) -> Result<Base, BaseError> {
    let (name, from) = (base.name.clone(), base.var.clone());
    let mut found = None;
    for candidate in &base.candidates {
        match Revision::resolve(root, candidate, env) {
            Ok(Some(r)) => {
                found = Some(r);
                break;
            }
            Ok(None) => {}
            Err(source) => {
                return Err(BaseError::Unresolved { name, from, source });
            }
        }
    }
    let shallow = || revision::is_shallow(root, env);
    let fix = ci.full_history();
    match found {
        Some(revision) if revision.meets_head().unwrap_or(false) => Ok(Base {
            revision,
            name,
            from,
        }),
        Some(_) if shallow() => Err(BaseError::ShallowHistory { name, from, fix }),
        Some(_) => Err(BaseError::Unrelated { name, from }),
        None if shallow() => Err(BaseError::ShallowMissing { name, from, fix }),
        None => Err(BaseError::NotFetched { name, from }),
    }
}

/// What a code review with no scope compares against in CI: the pull/merge
/// request's base, else the branch's upstream when HEAD has moved past it.
/// `Ok(None)`: nothing to compare with (the review surveys the project).
pub fn review_base(root: &Path, ci: &CiEnv, env: &crit_os::Env) -> Result<Option<Base>, BaseError> {
    if let Some(base) = &ci.base {
        return locate(root, ci.ci, base, env).map(Some);
    }
    let Some(up) = revision::upstream(root, env) else {
        return Ok(None);
    };
    let base = BaseRef {
        candidates: vec![up.clone()],
        name: up,
        var: "the branch's upstream".into(),
    };
    let found = locate(root, ci.ci, &base, env)?;
    let head = revision::head(root, env);
    Ok((head.as_deref() != Some(found.revision.sha.as_str())).then_some(found))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> crit_os::Env {
        crit_os::Env::from_pairs(pairs.iter().copied())
    }

    #[test]
    fn each_ci_by_its_variables() {
        assert_eq!(detect(&env(&[])), None);
        assert_eq!(detect(&env(&[("CI", "false")])), None);
        assert_eq!(detect(&env(&[("CI", "true")])).unwrap().ci, Ci::Other("CI"));
        let gl = detect(&env(&[
            ("CI", "true"),
            ("GITLAB_CI", "true"),
            ("CI_MERGE_REQUEST_DIFF_BASE_SHA", &"a".repeat(40)),
            ("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "main"),
        ]))
        .unwrap();
        assert_eq!(gl.ci, Ci::GitLab);
        let base = gl.base.unwrap();
        assert_eq!(base.candidates, [&"a".repeat(40)[..], "origin/main"]);
        assert_eq!(
            (base.name.as_str(), base.var.as_str()),
            ("main", "CI_MERGE_REQUEST_DIFF_BASE_SHA")
        );
        let bb = detect(&env(&[
            ("BITBUCKET_BUILD_NUMBER", "7"),
            ("BITBUCKET_PR_DESTINATION_BRANCH", "develop"),
        ]))
        .unwrap();
        assert_eq!(bb.ci, Ci::Bitbucket);
        assert_eq!(bb.base.unwrap().candidates, ["origin/develop", "develop"]);
        // A push job: CI, but no request and so no base.
        let push = detect(&env(&[("GITHUB_ACTIONS", "true")])).unwrap();
        assert_eq!((push.ci, push.base), (Ci::GitHub, None));
        // Not a commit id: ignored, not passed to git.
        let bad = detect(&env(&[
            ("GITLAB_CI", "true"),
            ("CI_MERGE_REQUEST_DIFF_BASE_SHA", "--output=x"),
        ]));
        assert_eq!(bad.unwrap().base, None);
    }

    #[test]
    fn github_reads_the_event_file_first() {
        let dir = tempfile::tempdir().unwrap();
        let event = dir.path().join("event.json");
        let sha = "b".repeat(40);
        std::fs::write(
            &event,
            format!(r#"{{"pull_request": {{"base": {{"sha": "{sha}", "ref": "main"}}}}}}"#),
        )
        .unwrap();
        let path = event.display().to_string();
        let gh = detect(&env(&[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_BASE_REF", "main"),
            ("GITHUB_EVENT_PATH", &path),
        ]))
        .unwrap();
        let base = gh.base.unwrap();
        assert_eq!(base.candidates, [sha.as_str(), "origin/main"]);
        assert_eq!(
            (base.name.as_str(), base.var.as_str()),
            ("main", "GITHUB_EVENT_PATH")
        );
        let only_ref = detect(&env(&[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_BASE_REF", "main"),
        ]))
        .unwrap()
        .base
        .unwrap();
        assert_eq!(
            (only_ref.candidates, only_ref.var),
            (
                vec!["origin/main".to_string()],
                "GITHUB_BASE_REF".to_string()
            )
        );
    }
}
