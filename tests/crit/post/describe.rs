//! `crit review code --describe`: a pull-request description written from
//! the change, printed, and with `--post` written into the section of the
//! description crit owns, the author's text left alone.

use crit_testkit::{GithubConfig, GitlabConfig, Reply};
use serde_json::{Value, json};

use super::*;
use crate::support::{show, stderr};

const DESCRIBE: [&str; 3] = ["review", "code", "--describe"];

fn description(summary: &str) -> Value {
    json!({
        "title": "Read the port from the config",
        "summary": summary,
        "walkthrough": [{"file_path": "src/lib.rs", "what": "port() reads `port` and falls back to 8080 when it is 0."}],
        "risks": ["src/lib.rs: `unwrap()` on the config value panics when `port` is missing or not a number."]
    })
}

#[test]
fn the_description_is_printed_from_the_change_the_review_would_take() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    model.push(Reply::json(description(
        "Reads the port from the config instead of a constant.",
    )));
    let s = pr.github(GithubConfig::default());
    let out = pr.github_crit(&model, &s).args(DESCRIBE).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("## Read the port from the config\n\nReads the port"),
        "{text}"
    );
    assert!(
        text.contains("### Walkthrough\n\n- `src/lib.rs`: port() reads"),
        "{text}"
    );
    assert!(
        text.contains("### Risks\n\n- src/lib.rs: `unwrap()`"),
        "{text}"
    );
    // One request, over the pull request's change and its commits; nothing posted.
    assert_eq!(model.model_requests().len(), 1);
    let sent = model.model_requests()[0].body.to_string();
    assert!(sent.contains("let n = v.unwrap();"), "{sent}");
    assert!(sent.contains("read the port"), "the commit subject: {sent}");
    assert!(
        sent.contains("You write the description of a pull request"),
        "{sent}"
    );
    assert!(s.requests().is_empty(), "no --post, no forge call");
    // --json: the description's fields.
    model.push(Reply::json(description("Reads the port.")));
    let out = pr
        .github_crit(&model, &s)
        .args(DESCRIBE)
        .arg("--json")
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["title"], "Read the port from the config");
    assert_eq!(v["walkthrough"][0]["file_path"], "src/lib.rs");
}

#[test]
fn post_github_writes_crits_section_once_and_keeps_the_authors_text() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig::default());
    for _ in 0..2 {
        model.push(Reply::json(description("Reads the port from the config.")));
        let out = pr
            .github_crit(&model, &s)
            .args(DESCRIBE)
            .args(["--post", "github"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    }
    let body = s.pull(7).unwrap()["body"].as_str().unwrap().to_string();
    assert!(
        body.starts_with(
            "Reads the port.\n\n<!-- crit:description:start -->\n## Read the port from the config\n"
        ),
        "{body}"
    );
    assert!(body.ends_with("\n<!-- crit:description:end -->"), "{body}");
    assert_eq!(body.matches("crit:description:start").count(), 1, "{body}");
    // The second run found the same text there and wrote nothing.
    let patches = calls(&s.requests())
        .into_iter()
        .filter(|c| c.starts_with("PATCH"))
        .count();
    assert_eq!(patches, 1, "{:?}", calls(&s.requests()));
}

#[test]
fn a_hostile_description_is_inert_in_the_pull_request() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig::default());
    model.push(Reply::json(description(
        "Fine.\n<!-- crit:description:end -->\n<!-- hidden -->\n@octocat ![x](https://evil.example/p.png)\n</details>\n/approve",
    )));
    let out = pr
        .github_crit(&model, &s)
        .args(DESCRIBE)
        .args(["--post", "github"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let body = s.pull(7).unwrap()["body"].as_str().unwrap().to_string();
    // crit's two markers and no other comment; nothing that acts.
    assert_eq!(body.matches("<!--").count(), 2, "{body}");
    assert!(!body.contains("@octocat"), "{body}");
    assert!(!body.contains("</details>"), "{body}");
    // The image is a plain link: nothing loads from the page.
    assert!(!body.contains("![x]"), "{body}");
}

#[test]
fn post_gitlab_writes_the_merge_requests_description() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.gitlab(GitlabConfig::default());
    model.push(Reply::json(description("Reads the port from the config.")));
    let out = pr
        .gitlab_crit(&model, &s)
        .args(DESCRIBE)
        .args(["--post", "gitlab"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let d = s.merge_request(3).unwrap()["description"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        d.contains("<!-- crit:description:start -->\n## Read the port from the config\n"),
        "{d}"
    );
    assert!(
        stderr(&out).contains("GitLab merge request !3"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_model_that_does_not_answer_is_exit_3_and_nothing_is_posted() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig::default());
    model.push(Reply::text("I would rather not."));
    let out = pr
        .github_crit(&model, &s)
        .args(DESCRIBE)
        .args(["--post", "github"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert!(calls(&s.requests()).iter().all(|c| !c.starts_with("PATCH")));
    let body = s.pull(7).unwrap()["body"].as_str().unwrap().to_string();
    assert_eq!(body, "Reads the port.");
}
