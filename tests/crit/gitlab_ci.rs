//! The GitLab pipelines crit ships, as GitLab reads them: each valid against
//! GitLab's CI schema (check-jsonschema's vendored copy), and the merge
//! request pipeline that answers on the next run keeps its secrets away
//! from a fork's code.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every GitLab pipeline file under `examples/`.
fn pipelines() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".gitlab-ci.yml"))
            {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join("examples"), &mut out);
    out.sort();
    out
}

/// check-jsonschema against GitLab's CI schema: (passed, what it said).
fn check(file: &Path) -> (bool, String) {
    let bin = root().join(".test-deps/venv/bin/check-jsonschema");
    assert!(
        bin.exists(),
        "{} is missing: run .ci/install-test-deps",
        bin.display()
    );
    let out = Command::new(bin)
        .args(["--builtin-schema", "vendor.gitlab-ci"])
        .arg(file)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), said)
}

#[test]
#[cfg_attr(
    missing_check_jsonschema,
    ignore = "check-jsonschema is not installed: run .ci/install-test-deps"
)]
fn every_gitlab_pipeline_crit_ships_is_valid_against_gitlabs_schema() {
    let files = pipelines();
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for want in [".gitlab-ci.yml", "review-and-answers.gitlab-ci.yml"] {
        assert!(names.iter().any(|n| n == want), "{want} in {names:?}");
    }
    for f in &files {
        let (ok, said) = check(f);
        assert!(ok, "{}: {said}", f.display());
    }
    // The check can fail: a job whose rules are not a list is refused.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.gitlab-ci.yml");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let broken = text.replacen(
        "rules:\n",
        "rules: merge_request_event\n  x-old-rules:\n",
        1,
    );
    assert_ne!(broken, text);
    std::fs::write(&bad, broken).unwrap();
    let (ok, said) = check(&bad);
    assert!(!ok, "{said}");
    assert!(said.contains("rules"), "{said}");
}

fn job(doc: &Value) -> &Value {
    &doc["crit-review"]
}

#[test]
fn the_merge_request_pipeline_answers_on_each_run_and_keeps_secrets_from_forks() {
    let path = root().join("examples/ci/gitlab/review-and-answers.gitlab-ci.yml");
    let text = std::fs::read_to_string(&path).unwrap();
    let doc: Value = serde_saphyr::from_str(&text).unwrap();
    assert_eq!(
        doc["workflow"]["rules"][0]["if"],
        "$CI_PIPELINE_SOURCE == \"merge_request_event\""
    );
    let rules = job(&doc)["rules"].as_array().unwrap();
    // First: never for a merge request from another project (a fork).
    assert_eq!(
        rules[0]["if"],
        "$CI_MERGE_REQUEST_SOURCE_PROJECT_ID != $CI_MERGE_REQUEST_PROJECT_ID"
    );
    assert_eq!(rules[0]["when"], "never");
    let script = job(&doc)["script"].to_string();
    assert!(
        script.contains("crit review code --post gitlab"),
        "{script}"
    );
    assert!(script.contains("crit-cli"), "the package's name: {script}");
    // The secrets are the project's masked variables, never in the file.
    for secret in ["ANTHROPIC_API_KEY", "GITLAB_TOKEN"] {
        assert!(
            !doc.to_string().contains(&format!("\"{secret}\"")),
            "{secret} set in the file"
        );
    }
    assert_eq!(job(&doc)["variables"]["GIT_DEPTH"], 0);
}
