//! `crit review code --post github` in a pull request's workflow.

use crit_testkit::{Access, FakeServer, Fault, GithubConfig, GithubServer, TokenSeen};
use serde_json::Value;

use super::*;
use crate::support::{json_out, stderr};

/// `crit review code … --post github EXTRA…` in the pull request's workflow.
fn post(pr: &Pr, model: &FakeServer, s: &GithubServer, extra: &[&str]) -> Output {
    pr.github_crit(model, s)
        .args(REVIEW)
        .args(["--post", "github"])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn a_first_run_puts_findings_on_their_lines_with_a_suggestion_and_one_summary() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let mut unchanged = super::finding(13, 13, 3, "[P3] Say why 0 means unset");
    // The same text as line 13: nothing to commit, so not offered.
    unchanged["suggestion"] = serde_json::json!("        if p == 0 { fallback } else { p }\n");
    model.push(answer(vec![
        unwrap_finding(),
        magic_finding(),
        outside_finding(),
        unchanged,
    ]));
    let s = pr.github(GithubConfig::default());
    let out = post(&pr, &model, &s, &["--fail-on", "p1"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the gate failed: {}",
        show(&out)
    );
    let result = json_out(&out);
    assert_eq!(result["verdict"], "FAIL");
    assert_eq!(model.model_requests().len(), 1);
    // The reviewed change is the pull request's: base...HEAD from the event.
    let prompt = model.model_requests()[0].body.to_string();
    assert!(prompt.contains("let n = v.unwrap();"), "{prompt}");
    // The suggestion that changes nothing was dropped from the result itself.
    let findings = result["findings"].as_array().unwrap();
    let by_title = |t: &str| {
        findings
            .iter()
            .find(|f| f["title"].as_str().unwrap().contains(t))
            .unwrap()
    };
    assert_eq!(by_title("Unchecked unwrap")["suggestion"], SUGGESTION);
    assert_eq!(by_title("Say why")["suggestion"], Value::Null, "{result}");

    assert_eq!(
        after_catch_up(calls(&s.requests()), &GITHUB_CATCH_UP),
        [
            "GET /user",
            "GET /repos/octo-org/hello-world/pulls/7",
            "GET /repos/octo-org/hello-world/pulls/7/files",
            "GET /repos/octo-org/hello-world/pulls/7/comments",
            "GET /repos/octo-org/hello-world/issues/7/comments",
            "POST /repos/octo-org/hello-world/pulls/7/reviews",
            "POST /repos/octo-org/hello-world/issues/7/comments",
        ]
    );
    assert!(s.requests().iter().all(|r| r.token == TokenSeen::Expected));
    let review = &s.requests()[GITHUB_CATCH_UP.len() + 5].body;
    assert_eq!(review["event"], "COMMENT");
    assert_eq!(review["commit_id"], pr.head.as_str());
    let comments = s.review_comments(7);
    assert_eq!(comments.len(), 3, "one review, its comments batched");
    let unwrap = &comments[0];
    assert_eq!(unwrap["path"], "src/lib.rs");
    assert_eq!(
        (unwrap["start_line"].as_u64(), unwrap["line"].as_u64()),
        (Some(10), Some(11))
    );
    assert_eq!(unwrap["side"], "RIGHT");
    let text = body(unwrap);
    assert!(text.contains("Unchecked unwrap on user input"), "{text}");
    assert!(
        text.contains(&format!("```suggestion\n{SUGGESTION}```")),
        "{text}"
    );
    let magic = &comments[1];
    assert_eq!(
        (magic["line"].as_u64(), magic["start_line"].as_u64()),
        (Some(12), None)
    );
    assert!(!body(magic).contains("```suggestion"));
    let nit = &comments[2];
    assert_eq!(nit["line"].as_u64(), Some(13));
    assert!(!body(nit).contains("```suggestion"), "{}", body(nit));

    let summaries = s.issue_comments(7);
    assert_eq!(summaries.len(), 1);
    let summary = body(&summaries[0]);
    assert!(
        summary.starts_with(&format!(
            "<!-- crit:summary by=github-actions[bot] head={} -->\n### ❌ crit code: FAIL",
            pr.head
        )),
        "{summary}"
    );
    assert!(
        summary.contains("| P2 | `src/lib.rs:4-6` | get ignores its key | outside the change |"),
        "{summary}"
    );
    let err = stderr(&out);
    assert!(
        err.contains("crit: posted to GitHub pull request #7: 3 new inline comment(s), 0 kept, 0 marked resolved; 1 finding(s) in the summary (new)"),
        "{err}"
    );
}

#[test]
fn a_second_run_posts_nothing_new_and_edits_the_summary() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig::default());
    for _ in 0..2 {
        model.push(answer(vec![unwrap_finding(), magic_finding()]));
        let out = post(&pr, &model, &s, &[]);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    }
    // Each run: three reads of what waits to be answered, then the post.
    let first_run = 10;
    let second = calls(&s.requests()[first_run..]);
    assert!(
        !second.iter().any(|c| c.ends_with("/reviews")),
        "{second:?}"
    );
    let summary_id = &s.issue_comments(7)[0]["id"];
    assert_eq!(
        second.last().unwrap(),
        &format!("PATCH /repos/octo-org/hello-world/issues/comments/{summary_id}")
    );
    assert_eq!(s.reviews(7).len(), 1);
    assert_eq!(s.review_comments(7).len(), 2, "no repeats");
    assert_eq!(s.issue_comments(7).len(), 1, "never a second summary");
}

#[test]
fn after_the_fix_the_old_comment_is_marked_resolved() {
    let mut pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig::default());
    model.push(answer(vec![unwrap_finding(), magic_finding()]));
    let out = post(&pr, &model, &s, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let unwrap_id = s.review_comments(7)[0]["id"].clone();

    let head = pr.fix();
    s.push(7, &head, pr.files());
    model.push(answer(vec![magic_finding()]));
    let before = s.requests().len();
    let out = post(&pr, &model, &s, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let run = &s.requests()[before..];
    assert!(
        calls(run).contains(&format!(
            "PATCH /repos/octo-org/hello-world/pulls/comments/{unwrap_id}"
        )),
        "{:?}",
        calls(run)
    );
    assert!(!calls(run).iter().any(|c| c.ends_with("/reviews")));
    let comments = s.review_comments(7);
    let resolved = body(&comments[0]);
    assert!(
        resolved.contains("**Resolved**: crit no longer reports this"),
        "{resolved}"
    );
    assert!(resolved.contains(&head[..12]), "{resolved}");
    assert!(
        !body(&comments[1]).contains("Resolved"),
        "the magic number stays"
    );
    let threads = s.threads(7);
    assert_eq!(threads[0]["isResolved"], true);
    assert_eq!(threads[1]["isResolved"], false);
    assert!(stderr(&out).contains("0 new inline comment(s), 1 kept, 1 marked resolved"));
}

#[test]
fn a_review_that_could_not_finish_resolves_nothing() {
    let mut pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig::default());
    model.push(answer(vec![unwrap_finding()]));
    let out = post(&pr, &model, &s, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let head = pr.fix();
    s.push(7, &head, pr.files());
    // The model fails: an ERROR result, no findings, still written and posted.
    model.push(crit_testkit::Reply::api_error(
        529,
        "overloaded_error",
        "Overloaded",
    ));
    let out = post(&pr, &model, &s, &[]);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert_eq!(json_out(&out)["verdict"], "ERROR", "{}", show(&out));
    let comment = body(&s.review_comments(7)[0]).to_string();
    assert!(!comment.contains("Resolved"), "{comment}");
    assert_eq!(s.threads(7)[0]["isResolved"], false);
    let summary = body(&s.issue_comments(7)[0]).to_string();
    assert!(summary.contains("crit code: ERROR"), "{summary}");
    assert!(
        summary.contains("1 earlier comment(s) stay open"),
        "{summary}"
    );
}

#[test]
fn max_comments_keeps_the_most_severe_and_lists_the_rest() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig::default());
    model.push(answer(vec![
        magic_finding(),
        super::finding(13, 13, 3, "[P3] Name the branch"),
        unwrap_finding(),
    ]));
    let out = post(&pr, &model, &s, &["--max-comments", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let comments = s.review_comments(7);
    assert_eq!(comments.len(), 1);
    assert!(body(&comments[0]).contains("Unchecked unwrap"));
    let summary = body(&s.issue_comments(7)[0]).to_string();
    assert!(
        summary
            .contains("| P2 | `src/lib.rs:12` | Magic number | over the cap on inline comments |"),
        "{summary}"
    );
    assert!(
        summary.contains(
            "| P3 | `src/lib.rs:13` | Name the branch | over the cap on inline comments |"
        )
    );
    // Also a usage error without --post.
    let out = pr
        .github_crit(&model, &s)
        .args(REVIEW)
        .args(["--max-comments", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(stderr(&out).contains("--post"), "{}", show(&out));
}

#[test]
fn a_secondary_rate_limit_is_waited_out_as_retry_after_says() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig::default());
    s.fail(Fault::rate_limit(1).on("POST", "/pulls/7/reviews"));
    model.push(answer(vec![unwrap_finding()]));
    let out = post(&pr, &model, &s, &["-v"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let reviews: Vec<(String, u16)> = s
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/reviews"))
        .map(|r| (r.method.clone(), r.status))
        .collect();
    assert_eq!(
        reviews,
        [("POST".to_string(), 403), ("POST".to_string(), 200)],
        "refused once, then sent again"
    );
    assert_eq!(s.reviews(7).len(), 1, "one review, not two");
    assert_eq!(s.review_comments(7).len(), 1);
    let err = stderr(&out);
    // The waits crit took, as data: the retry-after second first.
    assert!(err.contains("1 retried, waits [1s"), "{err}");
}

#[test]
fn a_token_that_cannot_write_is_a_clear_error_and_the_result_is_kept() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig {
        access: Access::Read,
        ..GithubConfig::default()
    });
    model.push(answer(vec![unwrap_finding(), magic_finding()]));
    let saved = pr.runner.path().join("out/result.json");
    let out = pr
        .github_crit(&model, &s)
        .args(REVIEW)
        .args(["--post", "github", "--fail-on", "never", "--out"])
        .arg(&saved)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    let err = stderr(&out);
    assert!(
        err.contains(
            "crit: posting not permitted: GitHub refused to let crit post the review (403"
        ),
        "{err}"
    );
    assert!(err.contains("`permissions: pull-requests: write`"), "{err}");
    assert!(
        err.contains("The result is written; nothing was lost"),
        "{err}"
    );
    let result: Value = serde_json::from_slice(&std::fs::read(&saved).unwrap()).unwrap();
    assert_eq!(result["findings"].as_array().unwrap().len(), 2);
    assert!(s.review_comments(7).is_empty() && s.issue_comments(7).is_empty());
}

#[test]
fn without_a_pull_request_to_post_to_nothing_runs() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let s = pr.github(GithubConfig::default());
    let cases: [(&str, Option<&str>, &str); 3] = [
        ("GITHUB_TOKEN", None, "GITHUB_TOKEN is not set"),
        (
            "GITHUB_REPOSITORY",
            Some("no-slash"),
            "GITHUB_REPOSITORY is not usable",
        ),
        ("GITHUB_EVENT_PATH", None, "GITHUB_EVENT_PATH is not set"),
    ];
    for (var, value, says) in cases {
        let mut c = pr.github_crit(&model, &s);
        match value {
            Some(v) => c.env(var, v),
            None => c.env_remove(var),
        };
        let out = c.args(REVIEW).args(["--post", "github"]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{var}: {}", show(&out));
        assert!(stderr(&out).contains(says), "{var}: {}", show(&out));
    }
    // A push event: no pull request.
    let push = pr.runner.path().join("push.json");
    std::fs::write(&push, r#"{"ref":"refs/heads/main"}"#).unwrap();
    let out = pr
        .github_crit(&model, &s)
        .env("GITHUB_EVENT_PATH", &push)
        .args(REVIEW)
        .args(["--post", "github"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(stderr(&out).contains("not about a pull request"));
    let out = post(&pr, &model, &s, &["--gitlab-token-env", "X"]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        stderr(&out).contains("names a token for the other forge"),
        "{}",
        show(&out)
    );
    let out = post(
        &pr,
        &model,
        &s,
        &["--token-env", "X", "--github-token-env", "Y"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(model.model_requests().is_empty(), "no review was spent");
    assert!(s.requests().is_empty());
}

#[test]
fn a_twenty_finding_review_is_seven_requests_whatever_the_count() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    // Twenty findings on the four new lines, five on each.
    let problems = [
        "overflow",
        "panic",
        "leak",
        "race",
        "deadlock",
        "injection",
        "traversal",
        "timeout",
        "retry",
        "encoding",
        "locale",
        "rounding",
        "truncation",
        "sign",
        "null",
        "cache",
        "logging",
        "naming",
        "units",
        "ordering",
    ];
    let findings: Vec<Value> = (0..20u32)
        .map(|i| {
            let title = format!("[P2] Possible {} here", problems[i as usize]);
            super::finding(10 + i % 4, 10 + i % 4, 2, &title)
        })
        .collect();
    model.push(answer(findings));
    let s = pr.github(GithubConfig::default());
    let out = post(&pr, &model, &s, &[]);
    assert_eq!(out.status.code(), Some(0), "P2s pass: {}", show(&out));
    let result = crate::support::json_out(&out);
    assert_eq!(result["findings"].as_array().unwrap().len(), 20, "{result}");
    assert_eq!(s.review_comments(7).len(), 20, "every finding inline");
    // Batched: one review carries every comment, one summary; the rest are reads.
    assert_eq!(
        after_catch_up(calls(&s.requests()), &GITHUB_CATCH_UP),
        [
            "GET /user",
            "GET /repos/octo-org/hello-world/pulls/7",
            "GET /repos/octo-org/hello-world/pulls/7/files",
            "GET /repos/octo-org/hello-world/pulls/7/comments",
            "GET /repos/octo-org/hello-world/issues/7/comments",
            "POST /repos/octo-org/hello-world/pulls/7/reviews",
            "POST /repos/octo-org/hello-world/issues/7/comments",
        ]
    );
    let bytes: usize = s.raw_connections().iter().map(Vec::len).sum();
    eprintln!(
        "a 20-finding review: {} requests, {bytes} bytes sent to the API",
        s.requests().len()
    );
}

#[test]
fn without_a_cap_thirty_comments_go_inline_and_the_rest_to_the_summary() {
    let pr = Pr::new();
    let model = FakeServer::start_blocking();
    let findings: Vec<Value> = (0..33u32)
        .map(|i| {
            super::finding(
                10 + i % 4,
                10 + i % 4,
                2,
                &format!("[P2] Problem number{i} here"),
            )
        })
        .collect();
    model.push(answer(findings));
    let s = pr.github(GithubConfig::default());
    let out = post(&pr, &model, &s, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(s.review_comments(7).len(), 30);
    let summary = body(&s.issue_comments(7)[0]).to_string();
    assert_eq!(
        summary
            .matches("| over the cap on inline comments |")
            .count(),
        3,
        "{summary}"
    );
}
