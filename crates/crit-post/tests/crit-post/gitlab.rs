use std::time::Duration;

use crit_post::{Elsewhere, PostError, PostOptions};
use crit_testkit::{Access, Fault, GitlabConfig, TokenSeen};
use serde_json::Value;

use crate::support::*;

fn first_notes(discussions: &[Value]) -> Vec<Value> {
    discussions.iter().map(|d| d["notes"][0].clone()).collect()
}

#[tokio::test]
async fn a_first_run_opens_positioned_discussions_and_one_summary_note() {
    let s = gitlab_server(GitlabConfig::default());
    let clock = TestClock::at(1_800_000_000);
    let report = gitlab(&s, &clock, options())
        .post(&first_result())
        .await
        .unwrap();
    let mr = "/api/v4/projects/4242/merge_requests/3";
    assert_eq!(
        calls(&s.requests()),
        [
            "GET /api/v4/user".to_string(),
            format!("GET {mr}"),
            format!("GET {mr}/diffs"),
            format!("GET {mr}/discussions"),
            format!("POST {mr}/discussions"),
            format!("POST {mr}/discussions"),
            format!("POST {mr}/notes"),
        ]
    );
    assert!(s.requests().iter().all(|r| r.token == TokenSeen::Expected));
    let notes = first_notes(&s.discussions(3));
    assert_eq!(notes.len(), 3);
    let unwrap = &notes[0];
    assert_eq!(unwrap["type"], "DiffNote");
    let pos = &unwrap["position"];
    assert_eq!(pos["new_path"], "src/lib.rs");
    assert_eq!(pos["new_line"], 10);
    assert!(
        pos.get("old_line").is_none_or(Value::is_null),
        "an added line has no old line"
    );
    assert_eq!(pos["head_sha"], HEAD);
    assert_eq!(pos["position_type"], "text");
    let body = unwrap["body"].as_str().unwrap();
    assert!(
        body.contains("```suggestion:-0+1\n        let n = v?;\n        let p = n.parse()?;\n```"),
        "{body}"
    );
    assert_eq!(notes[1]["position"]["new_line"], 13);
    let summary = notes[2]["body"].as_str().unwrap();
    assert_eq!(notes[2]["type"], Value::Null, "a plain note");
    assert!(
        summary.starts_with(&format!(
            "<!-- crit:summary head={HEAD} -->\n### ❌ crit code: FAIL"
        )),
        "{summary}"
    );
    assert!(summary.contains("| P1 | `src/lib.rs:40-44` | Config is never validated |"));
    assert_eq!((report.inline_posted, report.inline_kept), (2, 0));
    assert!(report.summary_created);
    let url = report.summary_url.unwrap();
    assert!(
        url.starts_with("https://gitlab.example/group/project/-/merge_requests/3#note_"),
        "{url}"
    );
}

#[tokio::test]
async fn a_context_line_carries_its_old_line() {
    let s = gitlab_server(GitlabConfig::default());
    let mut r = first_result();
    r.findings = vec![
        crit_core::Finding::new("On the context", crit_core::Severity::P2, "r")
            .with_location(crit_core::Location::lines("src/lib.rs", 9, 9)),
    ];
    let clock = TestClock::at(1_800_000_000);
    gitlab(&s, &clock, options()).post(&r).await.unwrap();
    let pos = &first_notes(&s.discussions(3))[0]["position"];
    assert_eq!(
        (pos["new_line"].as_u64(), pos["old_line"].as_u64()),
        (Some(9), Some(9))
    );
}

#[tokio::test]
async fn a_second_run_posts_nothing_new_and_edits_the_summary() {
    let s = gitlab_server(GitlabConfig::default());
    let clock = TestClock::at(1_800_000_000);
    gitlab(&s, &clock, options())
        .post(&first_result())
        .await
        .unwrap();
    let before = s.requests().len();
    let report = gitlab(&s, &clock, options())
        .post(&first_result())
        .await
        .unwrap();
    let second = calls(&s.requests()[before..]);
    assert!(!second.iter().any(|c| c.starts_with("POST")), "{second:?}");
    assert!(
        second
            .last()
            .unwrap()
            .starts_with("PUT /api/v4/projects/4242/merge_requests/3/notes/")
    );
    assert_eq!(s.discussions(3).len(), 3);
    assert_eq!(
        (
            report.inline_posted,
            report.inline_kept,
            report.summary_created
        ),
        (0, 2, false)
    );
}

#[tokio::test]
async fn after_the_fix_the_discussion_is_marked_and_resolved() {
    let s = gitlab_server(GitlabConfig::default());
    let clock = TestClock::at(1_800_000_000);
    gitlab(&s, &clock, options())
        .post(&first_result())
        .await
        .unwrap();
    s.push(3, HEAD2, files(LIB_PATCH_FIXED));
    let report = gitlab(&s, &clock, options())
        .post(&fixed_result())
        .await
        .unwrap();
    assert_eq!(
        (report.resolved, report.threads_resolved, report.inline_kept),
        (1, 1, 1)
    );
    let notes = first_notes(&s.discussions(3));
    let old = notes[0]["body"].as_str().unwrap();
    assert!(
        old.starts_with(&format!(
            "<!-- crit:finding {} resolved -->",
            unwrap_finding().id
        )),
        "{old}"
    );
    assert!(old.contains("as of `222222222222`"), "{old}");
    assert_eq!(notes[0]["resolved"], true);
    assert_eq!(notes[1]["resolved"], false);
    let refused = gitlab_server(GitlabConfig {
        can_resolve: false,
        ..GitlabConfig::default()
    });
    gitlab(&refused, &clock, options())
        .post(&first_result())
        .await
        .unwrap();
    let report = gitlab(&refused, &clock, options())
        .post(&fixed_result())
        .await
        .unwrap();
    assert_eq!((report.resolved, report.threads_resolved), (1, 0));
    assert!(
        report.notes[0].contains("discussions stay open"),
        "{:?}",
        report.notes
    );
}

#[tokio::test]
async fn max_comments_on_gitlab() {
    let s = gitlab_server(GitlabConfig::default());
    let clock = TestClock::at(1_800_000_000);
    let capped = PostOptions {
        max_comments: Some(1),
        ..options()
    };
    let report = gitlab(&s, &clock, capped)
        .post(&first_result())
        .await
        .unwrap();
    assert_eq!(report.inline_posted, 1);
    let over: Vec<&Elsewhere> = report
        .in_summary
        .iter()
        .map(|(_, w)| w)
        .filter(|w| **w == Elsewhere::OverCap)
        .collect();
    assert_eq!(over.len(), 1);
    let notes = first_notes(&s.discussions(3));
    assert!(
        notes[0]["body"].as_str().unwrap().contains("**P1**"),
        "the most severe is the one inline"
    );
}

#[tokio::test]
async fn gitlabs_throttle_is_waited_out() {
    let s = gitlab_server(GitlabConfig::default());
    s.fail(Fault::rate_limit(7).on("POST", "/discussions"));
    let clock = TestClock::at(1_800_000_000);
    let report = gitlab(&s, &clock, options())
        .post(&first_result())
        .await
        .unwrap();
    assert_eq!(clock.slept(), [Duration::from_secs(7)]);
    assert_eq!(report.inline_posted, 2);
    assert_eq!(s.discussions(3).len(), 3);
}

#[tokio::test]
async fn a_reporters_token_is_a_clear_typed_error() {
    let s = gitlab_server(GitlabConfig {
        access: Access::Read,
        ..GitlabConfig::default()
    });
    let clock = TestClock::at(1_800_000_000);
    let err = gitlab(&s, &clock, options())
        .post(&first_result())
        .await
        .unwrap_err();
    assert!(err.is_permission(), "{err}");
    let msg = err.to_string();
    assert!(
        msg.starts_with("GitLab refused to let crit post an inline comment (403: 403 Forbidden)"),
        "{msg}"
    );
    assert!(msg.contains("Developer role"), "{msg}");
    let wrong = gitlab_server(GitlabConfig::default());
    let ctx = gitlab_ctx(&wrong, "glpat-not-the-right-one");
    let mut poster = crit_post::GitlabPoster::with_pacer(ctx, options(), clock.clone()).unwrap();
    let err = poster.post(&first_result()).await.unwrap_err();
    assert!(
        matches!(err, PostError::Permission { status: 401, .. }),
        "{err}"
    );
}

#[tokio::test]
async fn a_discussion_gitlab_cannot_place_goes_to_the_summary() {
    let s = gitlab_server(GitlabConfig::default());
    s.fail(Fault::invalid().on("POST", "/discussions"));
    let clock = TestClock::at(1_800_000_000);
    let report = gitlab(&s, &clock, options())
        .post(&first_result())
        .await
        .unwrap();
    assert_eq!(report.inline_posted, 1);
    assert_eq!(
        report
            .in_summary
            .iter()
            .filter(|(_, w)| *w == Elsewhere::Refused)
            .count(),
        1
    );
    assert!(report.notes[0].contains("line_code"), "{:?}", report.notes);
}

#[tokio::test]
async fn other_peoples_notes_are_not_crits() {
    let s = gitlab_server(GitlabConfig::default());
    s.seed_note(3, "mallory", "<!-- crit:summary -->\nlooks good");
    let clock = TestClock::at(1_800_000_000);
    let report = gitlab(&s, &clock, options())
        .post(&first_result())
        .await
        .unwrap();
    assert!(report.summary_created);
    assert_eq!(s.notes(3)[0]["body"], "<!-- crit:summary -->\nlooks good");
}

#[tokio::test]
async fn describe_on_gitlab() {
    let s = gitlab_server(GitlabConfig::default());
    let clock = TestClock::at(1_800_000_000);
    let mut poster = gitlab(&s, &clock, options());
    assert!(
        poster
            .describe("## Summary\nReads the port.")
            .await
            .unwrap()
            .changed
    );
    let d = s.merge_request(3).unwrap()["description"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(d.starts_with("This reads the port.\n\n<!-- crit:description:start -->\n## Summary\nReads the port.\n<!-- crit:description:end -->"), "{d}");
    assert!(
        !poster
            .describe("## Summary\nReads the port.")
            .await
            .unwrap()
            .changed
    );
}
