//! `crit respond` on comment events: the `/crit` commands from people with
//! write access, one short answer to anyone else's, never an answer to crit
//! itself or a bot, each comment answered once (an edit does not run its
//! command again).

use std::process::Output;

use crit_testkit::{FakeServer, GithubConfig, GithubServer, Reply};

use super::*;

/// `crit respond` on the event `event`, the job checked out at the pull
/// request's head with its base fetched.
pub fn respond(
    pr: &Pr,
    model: &FakeServer,
    s: &GithubServer,
    event: &Value,
    extra: &[&str],
) -> Output {
    git(
        pr.path(),
        &["update-ref", "refs/remotes/origin/main", &pr.base],
    );
    let path = pr.runner.path().join("comment-event.json");
    std::fs::write(&path, event.to_string()).unwrap();
    let name = match event.get("issue") {
        Some(_) => "issue_comment",
        None => "pull_request_review_comment",
    };
    pr.github_crit(model, s)
        .env("GITHUB_EVENT_NAME", name)
        .env("GITHUB_EVENT_PATH", &path)
        .arg("respond")
        .args(extra)
        .output()
        .unwrap()
}

/// crit's answers on the conversation, by its account.
pub fn answers(s: &GithubServer) -> Vec<String> {
    s.issue_comments(7)
        .iter()
        .filter(|c| c["user"]["login"] == "github-actions[bot]")
        .map(|c| body(c).to_string())
        .filter(|b| b.starts_with("<!-- crit:answers "))
        .collect()
}

#[test]
fn help_is_answered_once_and_an_edit_does_not_run_it_again() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig::default());
    s.set_association("dev", "MEMBER");
    let id = s.seed_issue_comment(7, "dev", "/crit help");
    let event = s.comment_event(7, id).unwrap();
    let out = respond(&pr, &model, &s, &event, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let said = answers(&s);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].starts_with(&format!("<!-- crit:answers {id} -->")),
        "{}",
        said[0]
    );
    assert!(said[0].contains("`/crit ask QUESTION`"), "{}", said[0]);

    // The same event again (a re-run), then the comment edited: no new answer.
    let out = respond(&pr, &model, &s, &event, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(show(&out).contains("already answered"), "{}", show(&out));
    let edited = s.edit_comment(7, id, "/crit review").unwrap();
    let out = respond(&pr, &model, &s, &edited, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(answers(&s).len(), 1);
    assert!(model.model_requests().is_empty(), "no review ran");
}

#[test]
fn a_command_without_write_access_gets_one_short_reply_or_none() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig::default());
    s.set_association("visitor", "CONTRIBUTOR");
    let id = s.seed_issue_comment(7, "visitor", "/crit review");
    let out = respond(&pr, &model, &s, &s.comment_event(7, id).unwrap(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let said = answers(&s);
    assert_eq!(said.len(), 1);
    assert!(said[0].contains("people with write access"), "{}", said[0]);
    assert!(model.model_requests().is_empty(), "no review for them");

    let id = s.seed_issue_comment(7, "visitor", "/crit ask is this safe?");
    let out = respond(
        &pr,
        &model,
        &s,
        &s.comment_event(7, id).unwrap(),
        &["--others", "silent"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(answers(&s).len(), 1, "silent: no answer");
    assert!(model.model_requests().is_empty());
}

#[test]
fn crit_never_answers_itself_or_another_bot() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig::default());
    for bot in ["github-actions[bot]", "renovate[bot]"] {
        s.set_association(bot, "MEMBER");
        let id = s.seed_issue_comment(7, bot, "/crit help");
        let out = respond(&pr, &model, &s, &s.comment_event(7, id).unwrap(), &[]);
        assert_eq!(out.status.code(), Some(0), "{bot}: {}", show(&out));
    }
    assert!(answers(&s).is_empty(), "{:?}", answers(&s));
    // GraphQL reads are POSTs too.
    assert!(
        s.requests()
            .iter()
            .all(|r| !r.is_write() || r.path == "/graphql"),
        "nothing written"
    );
}

#[test]
fn review_runs_since_the_last_review_and_describe_writes_the_section() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig::default());
    s.set_association("owner", "OWNER");
    let id = s.seed_issue_comment(7, "owner", "/crit review");
    model.push(answer(vec![unwrap_finding()]));
    let flags = ["--", "--verify", "off", "--no-cache", "--fail-on", "never"];
    let out = respond(&pr, &model, &s, &s.comment_event(7, id).unwrap(), &flags);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(model.model_requests().len(), 1, "one review");
    let summary = s
        .issue_comments(7)
        .into_iter()
        .find(|c| body(c).starts_with("<!-- crit:summary"))
        .expect("the review's summary");
    assert!(
        body(&summary).contains(&format!("head={} -->", pr.head)),
        "{}",
        body(&summary)
    );
    assert_eq!(s.review_comments(7).len(), 1, "the finding on its line");
    assert!(answers(&s)[0].contains("Reviewing the commits pushed since the last review"));

    let id = s.seed_issue_comment(7, "owner", "/crit describe");
    model.push(Reply::json(
        json!({"title": "Read the port", "summary": "Reads the port from the config.",
        "walkthrough": [{"file_path": "src/lib.rs", "what": "parses the port"}], "risks": []}),
    ));
    let out = respond(&pr, &model, &s, &s.comment_event(7, id).unwrap(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let description = s.pull(7).unwrap()["body"].as_str().unwrap().to_string();
    assert!(
        description.contains("Reads the port from the config."),
        "{description}"
    );
    assert!(
        description.starts_with("Reads the port."),
        "the author's text stays: {description}"
    );
}

#[test]
fn ask_is_answered_from_the_change() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig::default());
    s.set_association("dev", "COLLABORATOR");
    let id = s.seed_issue_comment(7, "dev", "/crit ask what happens when the port is missing?");
    model.push(Reply::json(
        json!({"answer": "`port()` panics: `v.unwrap()` on line 10 has no fallback."}),
    ));
    let out = respond(&pr, &model, &s, &s.comment_event(7, id).unwrap(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let sent = model.model_requests()[0].body.to_string();
    assert!(
        sent.contains("what happens when the port is missing?"),
        "{sent}"
    );
    assert!(
        sent.contains("let n = v.unwrap();"),
        "the change is sent: {sent}"
    );
    let said = answers(&s);
    assert_eq!(said.len(), 1);
    assert!(said[0].contains("has no fallback"), "{}", said[0]);
}
