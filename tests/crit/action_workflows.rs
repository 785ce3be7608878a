//! The Action's workflow files as GitHub reads them: action.yml parses,
//! uses every input and pins third-party actions by commit; the example and
//! release workflows parse and pin theirs; SARIF upload where code scanning
//! is missing is a notice, not a red job; the fork-safe recipe keeps the pull
//! request's code away from secrets and write access.

use std::path::Path;

use serde_json::{Value, json};

use crate::action::root;

/// Every `${{ inputs.NAME }}` in `text`.
fn references<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    text.match_indices(prefix)
        .map(|(i, _)| {
            let rest = &text[i + prefix.len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                .unwrap_or(rest.len());
            &rest[..end]
        })
        .collect()
}

fn yaml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every `uses:` is a local path, crit's own action at a release, or pinned
/// to a full commit sha.
fn assert_pinned(doc: &Value, file: &str) {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, v) in m {
                    if k == "uses" {
                        out.push(v.as_str().unwrap_or_default().to_string());
                    }
                    walk(v, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let mut uses = Vec::new();
    walk(doc, &mut uses);
    for u in uses {
        if u.starts_with("./")
            || u.starts_with("crit-review/crit@")
            || u.starts_with("crit-review/crit/setup@")
        {
            continue;
        }
        let (_, sha) = u
            .split_once('@')
            .unwrap_or_else(|| panic!("{file}: {u} has no ref"));
        assert!(
            sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit()),
            "{file}: {u} is not pinned to a commit"
        );
    }
}

#[test]
fn action_yml_parses_uses_every_input_and_pins_third_party_actions() {
    let doc = yaml(&root().join("action.yml"));
    assert_eq!(doc["runs"]["using"], "composite");
    let inputs: Vec<String> = doc["inputs"].as_object().unwrap().keys().cloned().collect();
    for want in ["template", "fail-on", "provider", "model", "args"] {
        assert!(inputs.iter().any(|i| i == want), "{want}");
    }
    let steps = doc["runs"]["steps"].to_string();
    for i in &inputs {
        assert!(
            references(&steps, "inputs.").contains(&i.as_str()),
            "input `{i}` is never used"
        );
    }
    for r in references(&steps, "inputs.") {
        assert!(
            inputs.iter().any(|i| i == r),
            "`inputs.{r}` is not declared"
        );
    }
    // The outputs come from what run.py writes.
    let outputs = doc["outputs"].as_object().unwrap();
    for want in ["verdict", "passed", "findings", "cost-usd"] {
        assert!(outputs.contains_key(want), "{want}");
    }
    let written = [
        "verdict", "passed", "findings", "cost-usd", "result", "sarif", "rdjson",
    ];
    let all = doc.to_string();
    for r in references(&all, "steps.review.outputs.") {
        assert!(
            written.contains(&r),
            "steps.review.outputs.{r} is never written"
        );
    }
    // The review step passes every INPUT_ run.py reads.
    let script = std::fs::read_to_string(root().join("action/run.py")).unwrap();
    let review = doc["runs"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "review")
        .unwrap();
    for name in references(&script, "env(\"INPUT_") {
        assert!(
            review["env"].get(format!("INPUT_{name}")).is_some(),
            "INPUT_{name} is read but not passed"
        );
    }
    for step in doc["runs"]["steps"].as_array().unwrap() {
        if let Some(run) = step["run"].as_str()
            && let Some(i) = run.find("$GITHUB_ACTION_PATH/")
        {
            let rel: String = run[i + "$GITHUB_ACTION_PATH/".len()..]
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != '"')
                .collect();
            assert!(root().join(&rel).is_file(), "{rel}");
        }
    }
    assert_pinned(&doc, "action.yml");
    let setup = yaml(&root().join("setup/action.yml"));
    let steps = setup["runs"]["steps"].to_string();
    for i in setup["inputs"].as_object().unwrap().keys() {
        assert!(
            references(&steps, "inputs.").contains(&i.as_str()),
            "setup: `{i}` unused"
        );
    }
    assert!(steps.contains("action/install.sh"));
}

#[test]
fn example_and_release_workflows_parse_and_pin_their_actions() {
    let mut files = Vec::new();
    for dir in ["examples/ci/github", ".github/workflows"] {
        for e in std::fs::read_dir(root().join(dir)).unwrap() {
            files.push(e.unwrap().path());
        }
    }
    files.push(root().join("examples/ci/gitlab/.gitlab-ci.yml"));
    assert!(files.len() >= 6, "{files:?}");
    for f in files {
        let doc = yaml(&f);
        let name = f.display().to_string();
        assert_pinned(&doc, &name);
        if name.contains("github") {
            assert!(doc.get("jobs").is_some(), "{name}");
        }
    }
}

#[test]
fn sarif_upload_where_code_scanning_is_missing_is_a_notice_not_a_red_job() {
    let doc = yaml(&root().join("action.yml"));
    assert_eq!(doc["inputs"]["sarif"]["default"], "auto");
    let steps = doc["runs"]["steps"].as_array().unwrap();
    let upload = steps.iter().find(|s| s["id"] == "sarif").unwrap();
    assert!(
        upload["uses"]
            .as_str()
            .unwrap()
            .starts_with("github/codeql-action/upload-sarif@")
    );
    // `auto` carries on past a failed upload; only `true` fails the job.
    assert_eq!(upload["continue-on-error"], "${{ inputs.sarif != 'true' }}");
    assert!(
        upload["if"]
            .as_str()
            .unwrap()
            .contains("inputs.sarif != 'false'"),
        "{}",
        upload["if"]
    );
    let notice = steps
        .iter()
        .find(|s| {
            s["if"]
                .as_str()
                .is_some_and(|c| c.contains("steps.sarif.outcome == 'failure'"))
        })
        .expect("a step says why the findings are not in code scanning");
    assert!(notice["run"].as_str().unwrap().contains("::notice"));
    // The annotations and the summary do not depend on code scanning.
    let review = steps.iter().find(|s| s["id"] == "review").unwrap();
    assert!(review.get("continue-on-error").is_none());
    assert!(!review["if"].as_str().unwrap_or_default().contains("sarif"));
}

/// Every `secrets.NAME` in a document.
fn secrets(doc: &Value) -> Vec<String> {
    references(&doc.to_string(), "secrets.")
        .into_iter()
        .map(str::to_string)
        .collect()
}

#[test]
fn the_fork_safe_recipe_keeps_the_pull_requests_code_away_from_write_access() {
    let review = yaml(&root().join("examples/ci/github/fork-safe-review.yml"));
    let post = yaml(&root().join("examples/ci/github/fork-safe-post.yml"));
    // The review: on the pull request, a read-only token kept out of the
    // checkout, no secret but the model key (which forks do not get).
    assert_eq!(
        review["on"].as_object().unwrap().keys().collect::<Vec<_>>(),
        ["pull_request"]
    );
    assert_eq!(review["permissions"], json!({"contents": "read"}));
    assert_eq!(secrets(&review), ["ANTHROPIC_API_KEY"]);
    let steps = review["jobs"]["review"]["steps"].as_array().unwrap();
    assert!(review["jobs"]["review"].get("permissions").is_none());
    let checkout = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/checkout@"))
        })
        .unwrap();
    assert_eq!(checkout["with"]["persist-credentials"], false);
    assert!(!review.to_string().contains("github.token"));
    let upload = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/upload-artifact@"))
        })
        .unwrap();
    let saved = upload["with"]["name"].as_str().unwrap();
    let run = steps
        .iter()
        .filter_map(|s| s["run"].as_str())
        .collect::<String>();
    assert!(
        run.contains("crit review code") && run.contains("--out crit-result/result.json"),
        "{run}"
    );
    // A run without the key says so and does not fail.
    assert!(run.contains("::notice") && run.contains("exit 0"), "{run}");

    // The poster: after the review's run, never the pull request's code.
    assert_eq!(
        post["on"]["workflow_run"]["workflows"],
        json!([review["name"].as_str().unwrap()])
    );
    assert_eq!(post["permissions"]["pull-requests"], "write");
    assert!(secrets(&post).is_empty(), "{:?}", secrets(&post));
    let job = &post["jobs"]["post"];
    assert!(
        job["if"]
            .as_str()
            .unwrap()
            .contains("workflow_run.event == 'pull_request'"),
        "{}",
        job["if"]
    );
    let steps = job["steps"].as_array().unwrap();
    for s in steps {
        let uses = s["uses"].as_str().unwrap_or_default();
        assert!(
            !uses.starts_with("actions/checkout@"),
            "the poster checks out nothing"
        );
        assert!(
            uses.is_empty()
                || uses.starts_with("crit-review/crit/setup@")
                || uses.starts_with("actions/download-artifact@"),
            "{uses}"
        );
    }
    let download = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/download-artifact@"))
        })
        .unwrap();
    assert_eq!(download["with"]["name"], saved);
    assert_eq!(
        download["with"]["run-id"],
        "${{ github.event.workflow_run.id }}"
    );
    let run = steps
        .iter()
        .filter_map(|s| s["run"].as_str())
        .collect::<String>();
    assert!(
        run.contains("crit report crit-result/result.json --post github"),
        "{run}"
    );
    // The artifact's pull request number is checked before it is used.
    assert!(run.contains("*[!0-9]*"), "{run}");
}

/// The comment workflow: the job that checks out the pull request's code and
/// holds the model key runs only for pull requests from this repository;
/// the others hold no secret and check out nothing; a bot's comment starts
/// nothing.
#[test]
fn the_comment_workflow_keeps_forks_code_away_from_secrets() {
    let doc = yaml(&root().join("examples/ci/github/comment-commands.yml"));
    let on: Vec<&String> = doc["on"].as_object().unwrap().keys().collect();
    assert_eq!(on, ["issue_comment", "pull_request_review_comment"]);
    assert_eq!(doc["permissions"], json!({"contents": "read"}));
    let jobs = doc["jobs"].as_object().unwrap();
    let checks_out = |job: &Value| {
        job["steps"].as_array().unwrap().iter().any(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/checkout@"))
        })
    };
    for (name, job) in jobs {
        let holds = secrets(job);
        if holds.is_empty() && !checks_out(job) {
            continue;
        }
        assert_eq!(name, "answer", "only the answering job: {name}");
        assert_eq!(holds, ["ANTHROPIC_API_KEY"]);
        assert_eq!(
            job["if"].as_str().unwrap(),
            "${{ needs.route.outputs.fork == 'false' }}"
        );
        let run: String = job["steps"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|s| s["run"].as_str())
            .collect();
        assert!(run.contains("crit respond"), "{run}");
        assert!(
            run.contains("--max-cost"),
            "unattended spending is bounded: {run}"
        );
        let checkout = job["steps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| {
                s["uses"]
                    .as_str()
                    .is_some_and(|u| u.starts_with("actions/checkout@"))
            })
            .unwrap();
        assert_eq!(checkout["with"]["persist-credentials"], false);
    }
    let route = &jobs["route"];
    assert!(
        route["if"].as_str().unwrap().contains("user.type != 'Bot'"),
        "{}",
        route["if"]
    );
    assert!(!checks_out(route) && secrets(route).is_empty());
    assert!(!checks_out(&jobs["fork"]) && secrets(&jobs["fork"]).is_empty());
}

/// Every example review that runs unattended bounds what it may spend.
#[test]
fn unattended_example_reviews_pass_max_cost() {
    for f in [
        "examples/ci/github/pr-review.yml",
        "examples/ci/github/sharded-review.yml",
        "examples/ci/github/fork-safe-review.yml",
        "examples/ci/gitlab/.gitlab-ci.yml",
    ] {
        let text = std::fs::read_to_string(root().join(f)).unwrap();
        assert!(text.contains("--max-cost"), "{f}");
    }
}
