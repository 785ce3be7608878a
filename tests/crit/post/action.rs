//! The Action's posting step (`action/post.py`, run after `action/run.py`
//! as action.yml runs them) against the GitHub stand-in: it posts on a pull
//! request whose token can write, and shows the findings as annotations
//! instead when the token cannot (a fork's pull request, a token without
//! `pull-requests: write`), without failing the job for that alone.

use std::collections::BTreeMap;

use crit_testkit::{Access, FakeServer, GithubConfig, GithubServer};
use serde_json::json;

use super::*;
use crate::support::python;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One step's runner files: the event, `GITHUB_OUTPUT`, the job summary.
struct Step {
    dir: TempDir,
}

impl Step {
    fn new(event: &Value) -> Step {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("event.json"), event.to_string()).unwrap();
        for f in ["output", "summary.md"] {
            std::fs::write(dir.path().join(f), "").unwrap();
        }
        std::fs::create_dir_all(dir.path().join("temp")).unwrap();
        Step { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `python3 action/SCRIPT` in `repo` as the runner runs a step.
    fn run(&self, py: &Path, script: &str, repo: &Path, env: &[(&str, String)]) -> Output {
        let mut c = Command::new(py);
        c.arg(root().join("action").join(script))
            .current_dir(repo)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", repo.join(".home"))
            .env("XDG_STATE_HOME", repo.join(".state"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("CI", "true")
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_EVENT_NAME", "pull_request")
            .env("GITHUB_EVENT_PATH", self.path("event.json"))
            .env("GITHUB_REPOSITORY", "octo-org/hello-world")
            .env("GITHUB_OUTPUT", self.path("output"))
            .env("GITHUB_STEP_SUMMARY", self.path("summary.md"))
            .env("RUNNER_TEMP", self.path("temp"))
            .env("CRIT", env!("CARGO_BIN_EXE_crit"));
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().unwrap()
    }

    /// `GITHUB_OUTPUT`'s `key<<DELIM … DELIM` entries.
    fn outputs(&self) -> BTreeMap<String, String> {
        let text = std::fs::read_to_string(self.path("output")).unwrap();
        let mut out = BTreeMap::new();
        let mut lines = text.lines();
        while let Some(line) = lines.next() {
            let (key, delim) = line.split_once("<<").unwrap();
            let value: Vec<&str> = lines.by_ref().take_while(|l| *l != delim).collect();
            out.insert(key.to_string(), value.join("\n"));
        }
        out
    }

    fn summary(&self) -> String {
        std::fs::read_to_string(self.path("summary.md")).unwrap()
    }
}

/// A pull request event; `from` is the head's repository.
fn event(pr: &Pr, from: &str) -> Value {
    json!({"action": "synchronize", "number": 7, "pull_request": {"number": 7,
        "base": {"ref": "main", "sha": pr.base, "repo": {"full_name": "octo-org/hello-world"}},
        "head": {"ref": "feature", "sha": pr.head, "repo": {"full_name": from}}}})
}

/// The posting step against `forge` with `inputs`, after a review saved `result`.
fn post_step(
    py: &Path,
    pr: &Pr,
    forge: &GithubServer,
    from: &str,
    result: &str,
    inputs: &[(&str, &str)],
) -> (Output, Step) {
    let step = Step::new(&event(pr, from));
    let mut env = vec![
        ("RESULT", result.to_string()),
        ("GITHUB_API_URL", forge.url()),
        ("GITHUB_TOKEN", GithubConfig::default().token),
    ];
    for (k, v) in inputs {
        env.push((k, v.to_string()));
    }
    let out = step.run(py, "post.py", pr.path(), &env);
    (out, step)
}

fn annotations(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| l.starts_with("::error file=") || l.starts_with("::warning file="))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_action_posts_when_it_can_and_annotates_when_it_cannot() {
    let Some(py) = python() else { return };
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    model.push(answer(vec![unwrap_finding(), magic_finding()]));
    // The review step: no token in its environment.
    let review = Step::new(&event(&pr, "octo-org/hello-world"));
    let out = review.run(
        &py,
        "run.py",
        pr.path(),
        &[
            ("INPUT_PROVIDER", "anthropic".into()),
            ("INPUT_MODEL", "sonnet".into()),
            ("INPUT_FAIL_ON", "never".into()),
            ("INPUT_ARGS", "--verify off --no-cache".into()),
            ("INPUT_ANNOTATIONS", "auto".into()),
            ("ANTHROPIC_BASE_URL", model.url()),
            (
                "ANTHROPIC_API_KEY",
                "sk-ant-action-secret-0123456789".into(),
            ),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        annotations(&out).is_empty(),
        "auto: the posting step decides"
    );
    let result = review.outputs()["result"].clone();

    // A token that can write: posted, no annotations.
    let s = pr.github(GithubConfig::default());
    let (out, step) = post_step(
        &py,
        &pr,
        &s,
        "octo-org/hello-world",
        &result,
        &[
            ("INPUT_POST", "auto"),
            ("INPUT_ANNOTATIONS", "auto"),
            ("INPUT_MAX_COMMENTS", "1"),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(step.outputs()["posted"], "true");
    assert_eq!(s.review_comments(7).len(), 1, "--max-comments 1");
    assert_eq!(s.issue_comments(7).len(), 1);
    assert!(annotations(&out).is_empty(), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("posted to GitHub pull request #7"));

    // A token that may not write: annotations, a note in the summary, a green step.
    let read_only = pr.github(GithubConfig {
        access: Access::Read,
        ..GithubConfig::default()
    });
    let (out, step) = post_step(
        &py,
        &pr,
        &read_only,
        "octo-org/hello-world",
        &result,
        &[("INPUT_POST", "auto"), ("INPUT_ANNOTATIONS", "auto")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(step.outputs()["posted"], "false");
    let log = String::from_utf8_lossy(&out.stdout);
    assert!(
        log.contains("::warning title=crit::The token may not comment"),
        "{log}"
    );
    let notes = annotations(&out);
    assert_eq!(notes.len(), 2, "{log}");
    assert!(notes[0].contains("file=src/lib.rs,line=10"), "{notes:?}");
    assert!(
        step.summary()
            .contains("crit could not post on the pull request")
    );
    assert!(read_only.review_comments(7).is_empty());

    // A fork's pull request: not even tried.
    let fork = pr.github(GithubConfig::default());
    let (out, step) = post_step(
        &py,
        &pr,
        &fork,
        "someone/hello-world",
        &result,
        &[("INPUT_POST", "auto"), ("INPUT_ANNOTATIONS", "auto")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(step.outputs()["posted"], "false");
    assert!(fork.requests().is_empty());
    assert_eq!(annotations(&out).len(), 2);
    assert!(String::from_utf8_lossy(&out.stdout).contains("fork-safe recipe"));

    // `post: false` and `annotations: false`: nothing at all.
    let (out, _) = post_step(
        &py,
        &pr,
        &fork,
        "octo-org/hello-world",
        &result,
        &[("INPUT_POST", "false"), ("INPUT_ANNOTATIONS", "false")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(fork.requests().is_empty());
    assert!(annotations(&out).is_empty());

    // Any other failure to post fails the step.
    let gone = pr.github(GithubConfig::default());
    gone.fail(crit_testkit::Fault::server_error(502).times(20));
    let (out, step) = post_step(
        &py,
        &pr,
        &gone,
        "octo-org/hello-world",
        &result,
        &[("INPUT_POST", "true"), ("INPUT_ANNOTATIONS", "auto")],
    );
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert_eq!(step.outputs()["posted"], "false");
    assert_eq!(annotations(&out).len(), 2, "the findings are still shown");
}

#[test]
fn action_yml_runs_the_posting_step_with_the_token_and_every_input_it_reads() {
    let text = std::fs::read_to_string(root().join("action.yml")).unwrap();
    let doc: Value = serde_saphyr::from_str(&text).unwrap();
    let steps = doc["runs"]["steps"].as_array().unwrap();
    let post = steps.iter().find(|s| s["id"] == "post").unwrap();
    assert!(post["run"].as_str().unwrap().contains("action/post.py"));
    assert_eq!(post["env"]["GITHUB_TOKEN"], "${{ inputs.github-token }}");
    assert_eq!(post["env"]["RESULT"], "${{ steps.review.outputs.result }}");
    assert!(
        post["if"].as_str().unwrap().contains("!cancelled()"),
        "posts after a failed gate"
    );
    let script = std::fs::read_to_string(root().join("action/post.py")).unwrap();
    for (i, _) in script.match_indices("env(\"INPUT_") {
        let name: String = script[i + 5..].chars().take_while(|c| *c != '"').collect();
        assert!(
            post["env"].get(&name).is_some(),
            "{name} is read but not passed"
        );
    }
    // The review step never gets the token.
    let review = steps.iter().find(|s| s["id"] == "review").unwrap();
    assert!(
        !review["env"].to_string().contains("token"),
        "{}",
        review["env"]
    );
    let review_at = steps.iter().position(|s| s["id"] == "review").unwrap();
    let post_at = steps.iter().position(|s| s["id"] == "post").unwrap();
    assert!(post_at > review_at);
    assert_eq!(doc["inputs"]["post"]["default"], "auto");
    assert_eq!(doc["inputs"]["annotations"]["default"], "auto");
}
