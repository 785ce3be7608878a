//! On GitHub too, a `crit review code --post github` run first answers what
//! no `crit respond` job did (a repository whose workflow has no comment
//! events): the same answers, once each.

use crit_testkit::{FakeServer, GithubConfig, Reply};

use super::respond::answers;
use super::respond_threads::{crit_finding, replies};
use super::*;

#[test]
fn a_post_run_answers_what_waits_once_and_never_a_bot() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig::default());
    s.set_association("dev", "MEMBER");
    s.set_association("renovate[bot]", "MEMBER");
    let root = crit_finding(&s);
    let asked = s.seed_reply(7, "dev", root, "Why does this matter here?");
    let help = s.seed_issue_comment(7, "dev", "/crit help");
    s.seed_issue_comment(7, "renovate[bot]", "/crit help");
    model.push(crate::post::respond_threads::question());
    model.push(Reply::json(
        json!({"answer": "A missing port stops the server at start."}),
    ));
    model.push(answer(vec![unwrap_finding()]));
    let run = || {
        pr.github_crit(&model, &s)
            .args(REVIEW)
            .args(["--post", "github", "--fail-on", "never"])
            .output()
            .unwrap()
    };
    let out = run();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let said = replies(&s, root);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].starts_with(&format!("<!-- crit:answers {asked} -->")));
    assert!(said[0].contains("stops the server at start"), "{}", said[0]);
    let talk = answers(&s);
    assert_eq!(talk.len(), 1, "the person's help, not the bot's: {talk:?}");
    assert!(talk[0].starts_with(&format!("<!-- crit:answers {help} -->")));
    assert_eq!(
        model.model_requests().len(),
        3,
        "the reading, the answer, then the review"
    );

    model.push(answer(vec![unwrap_finding()]));
    let out = run();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(replies(&s, root).len(), 1);
    assert_eq!(answers(&s).len(), 1);
    assert_eq!(model.model_requests().len(), 4, "only the review");
}

#[test]
fn a_finding_dismissed_on_a_dispute_is_listed_as_dismissed_on_the_next_run() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig::default());
    s.set_association("dev", "MEMBER");
    let run = |model: &FakeServer| {
        pr.github_crit(model, &s)
            .args(REVIEW)
            .args(["--post", "github", "--fail-on", "never"])
            .output()
            .unwrap()
    };
    model.push(answer(vec![unwrap_finding()]));
    let out = run(&model);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let root = s.review_comments(7)[0]["id"].as_u64().unwrap();
    // `crit respond` answers the dispute, as the comment event runs it.
    let id = s.seed_reply(7, "dev", root, "False positive: the fallback handles it");
    model.push(super::respond_threads::decision(
        "refuted",
        Some("let fallback = 8080;"),
    ));
    let out = super::respond::respond(&pr, &model, &s, &s.comment_event(7, id).unwrap(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(replies(&s, root)[0].contains("crit dismisses this finding"));

    model.push(answer(vec![unwrap_finding()]));
    let out = run(&model);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let result = crate::support::json_out(&out);
    assert!(
        result["findings"].as_array().unwrap().is_empty(),
        "{result}"
    );
    let gone = &result["dismissed"][0];
    assert_eq!(gone["cause"], "dispute", "{result}");
    assert!(
        gone["proof"]
            .as_str()
            .unwrap()
            .contains("let fallback = 8080;"),
        "{gone}"
    );
    assert_eq!(
        s.review_comments(7)
            .iter()
            .filter(|c| c["in_reply_to_id"].is_null())
            .count(),
        1
    );
    assert_eq!(model.model_requests().len(), 3, "no second re-check");
}

/// The limit per thread holds within one run: the answers this run gives
/// count against it before they are posted.
#[test]
fn one_run_answers_a_thread_no_more_than_its_limit() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig::default());
    s.set_association("dev", "MEMBER");
    let root = crit_finding(&s);
    let first = s.seed_reply(7, "dev", root, "Why does this matter here?");
    let second = s.seed_reply(7, "dev", root, "And what about the tests?");
    s.seed_reply(7, "dev", root, "One more: is 8080 right?");
    for n in 1..=2 {
        model.push(crate::post::respond_threads::question());
        model.push(Reply::json(json!({"answer": format!("Answer {n}.")})));
    }
    model.push(answer(vec![unwrap_finding()]));
    let out = pr
        .github_crit(&model, &s)
        .args(REVIEW)
        .args(["--post", "github", "--fail-on", "never"])
        .args(["--max-answers-per-hour", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let said = replies(&s, root);
    assert_eq!(said.len(), 2, "two answers, then the limit: {said:?}");
    assert!(said[0].starts_with(&format!("<!-- crit:answers {first} -->")));
    assert!(said[1].starts_with(&format!("<!-- crit:answers {second} -->")));
    assert_eq!(
        model.model_requests().len(),
        5,
        "two readings, two answers, the review"
    );
}
