//! `respond:` in `.crit/config.yaml` as every door reads it: `crit config`,
//! a `--post` run's answers and `crit respond` take the base revision's
//! limit per thread and reply policy (the merge request's own edit of them
//! applies to nothing), and the flags override them.

use crit_testkit::{FakeServer, GithubConfig, GitlabConfig, Reply};

use super::gitlab_answers::{answers, first_run, post};
use super::*;

const BASE: &str = "respond:\n  max_answers_per_hour: 1\n  others: silent\n";

/// A merge request whose base sets `BASE` and whose own change lifts both.
fn pr_with_rules() -> Pr {
    let mut pr = Pr::new();
    let d = pr.path().to_path_buf();
    git(&d, &["checkout", "-q", "main"]);
    std::fs::create_dir_all(d.join(".crit")).unwrap();
    std::fs::write(d.join(".crit/config.yaml"), BASE).unwrap();
    git(&d, &["add", "-A"]);
    git(&d, &["commit", "-q", "-m", "answer rules"]);
    git(&d, &["checkout", "-q", "feature"]);
    git(&d, &["rebase", "-q", "main"]);
    pr.base = git_out(&d, &["rev-parse", "main"]);
    pr.commit(
        ".crit/config.yaml",
        "respond:\n  max_answers_per_hour: 50\n  others: reply\n",
    );
    pr
}

fn git_out(d: &std::path::Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(d)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// (value, source) of `key` among the code review's rows of `crit config --json`.
fn config_row(doc: &Value, key: &str) -> (String, String) {
    let rows = &doc["kinds"][0]["settings"];
    rows.as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == key)
        .map(|r| {
            (
                r["value"].as_str().unwrap().to_string(),
                r["source"].as_str().unwrap().to_string(),
            )
        })
        .unwrap_or_else(|| panic!("no {key} in {rows}"))
}

#[test]
fn the_base_revisions_respond_rules_hold_everywhere_and_flags_override_them() {
    let pr = pr_with_rules();
    let model = FakeServer::start_blocking();
    let s = pr.gitlab(GitlabConfig::default());
    s.set_access_level("dev", 30);

    // crit config, in the merge request's pipeline: the base's values.
    let out = pr
        .gitlab_crit(&model, &s)
        .args(["config", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let limit = config_row(&doc, "respond.max_answers_per_hour");
    assert_eq!(limit.0, "1", "{limit:?}");
    assert!(limit.1.contains(".crit/config.yaml:2"), "{limit:?}");
    assert_eq!(config_row(&doc, "respond.others").0, "silent");

    // The review's answers: one per discussion, none to a stranger.
    let root = first_run(&pr, &model, &s);
    let first = s.seed_reply(3, root, "dev", "What input triggers it?");
    s.seed_reply(3, root, "dev", "And an empty one?");
    let stranger = s.seed_note(3, "passer-by", "/crit help");
    model.push(crate::post::respond_threads::question());
    model.push(Reply::json(json!({"answer": "An unset port."})));
    model.push(answer(vec![unwrap_finding()]));
    let out = post(&pr, &model, &s, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let said = answers(&s);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(body(&said[0]).starts_with(&format!("<!-- crit:answers {first} -->")));

    // The flags win: three an hour, and a short reply to the stranger.
    model.push(crate::post::respond_threads::question());
    model.push(Reply::json(json!({"answer": "An empty port too."})));
    model.push(answer(vec![unwrap_finding()]));
    let out = post(
        &pr,
        &model,
        &s,
        &["--max-answers-per-hour", "3", "--others", "reply"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let said = answers(&s);
    assert_eq!(said.len(), 3, "{said:?}");
    assert!(
        said.iter().any(
            |n| body(n).starts_with(&format!("<!-- crit:answers {stranger} -->"))
                && body(n).contains("people with write access")
        ),
        "{said:?}"
    );
}

#[test]
fn crit_respond_reads_the_same_rules() {
    let pr = pr_with_rules();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig::default());
    s.set_association("visitor", "CONTRIBUTOR");
    let id = s.seed_issue_comment(7, "visitor", "/crit review");
    // The pull request's job reads the rules of its base, `main`.
    let out = super::respond::respond(&pr, &model, &s, &s.comment_event(7, id).unwrap(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        super::respond::answers(&s).is_empty(),
        "silent, from the base"
    );
    let id = s.seed_issue_comment(7, "visitor", "/crit ask why?");
    let out = super::respond::respond(
        &pr,
        &model,
        &s,
        &s.comment_event(7, id).unwrap(),
        &["--others", "reply"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(super::respond::answers(&s).len(), 1, "the flag wins");
}
