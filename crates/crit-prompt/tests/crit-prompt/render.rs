//! What people read: the review block with all its sections, the zero-finding
//! case, a review that failed open, the editor's raw critiques, the markdown
//! report, and how cost is shown in each mode.

use crate::support;

use crit_project::config::prompt_review::{Mode, PromptConfig};
use crit_prompt::render::{self, BlockStyle};
use crit_prompt::{PromptOptions, PromptReview, Status, review};
use crit_testkit::prompt_review::{critique, no_issues_panel, who};
use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};
use support::{backend, project, request};

fn op_finding(id: &str, severity: &str, evidence: &str, op: &str, value: &str) -> Value {
    json!({"id": id, "severity": severity, "confidence": 0.8, "issue": format!("{id}: what is wrong"),
           "evidence": evidence, "suggested_ops": [{"op": op, "target": "constraints", "value": value}]})
}

/// Runs the pipeline on `answers` (label, critique or an HTTP status), then
/// pins the timings so the output is stable.
async fn reviewed(
    prompt: &str,
    answers: Vec<(&str, Result<Value, u16>)>,
    mode: Mode,
) -> PromptReview {
    let server = FakeServer::start().await;
    for (label, a) in answers {
        let reply = match a {
            Ok(v) => Reply::json(v).usage(1_200, 230, 0, 0),
            Err(status) => Reply::api_error(status, "api_error", "the service is down"),
        };
        server.push(Step::when_contains(who(label)).reply(reply));
    }
    let dir = project(&[]);
    let req = request(dir.path(), prompt);
    let opts = PromptOptions::new(PromptConfig::default(), Ok(backend(&server)), mode);
    let mut r = review(&req, &opts).await;
    r.duration_ms = 2_100;
    for rep in &mut r.reviewers {
        rep.duration_ms = 1_900;
    }
    r
}

fn block(r: &PromptReview) -> String {
    render::block(
        r,
        &BlockStyle {
            width: 72,
            color: false,
        },
    )
}

fn busy_answers() -> Vec<(&'static str, Result<Value, u16>)> {
    vec![
        (
            "Domain SME",
            Ok(critique(
                "domain_sme",
                json!([op_finding(
                    "SME-001",
                    "major",
                    "",
                    "AddContext",
                    "Read src/settings.ts and src/settings/browser.ts first"
                )]),
            )),
        ),
        ("Security", Err(500)),
        (
            "Clarity",
            Ok(critique(
                "clarity",
                json!([
                    op_finding(
                        "CLR-001",
                        "minor",
                        "optimize the settings",
                        "ReplaceVague",
                        "Cut the settings tab's first render below 100 ms"
                    ),
                    op_finding(
                        "CLR-002",
                        "major",
                        "",
                        "RemoveConstraint",
                        "Keep the legacy toggle"
                    ),
                ]),
            )),
        ),
        (
            "Testing",
            Ok(critique(
                "testing",
                json!([op_finding(
                    "TST-001",
                    "minor",
                    "",
                    "AddConstraint",
                    "Keep the legacy toggle"
                )]),
            )),
        ),
    ]
}

#[tokio::test]
async fn the_block_has_every_section() {
    let r = reviewed(
        "optimize the settings page. Keep the legacy toggle.\n",
        busy_answers(),
        Mode::Api,
    )
    .await;
    assert_eq!(r.status, Status::Refined);
    assert_eq!(r.disagreements.len(), 1, "{:#?}", r.disagreements);
    let b = block(&r);
    insta::assert_snapshot!("block_all_sections", b);
    for line in b.lines() {
        assert_eq!(line.chars().count(), 72, "{line:?}");
    }
    insta::assert_snapshot!("markdown_all_sections", render::markdown(&r));
    let colored = render::block(
        &r,
        &BlockStyle {
            width: 72,
            color: true,
        },
    );
    assert!(colored.contains("\x1b[32mok\x1b[0m") && colored.contains("\x1b[31mfailed\x1b[0m"));
}

#[tokio::test]
async fn zero_findings_says_no_changes() {
    let answers = no_issues_panel()
        .into_iter()
        .take(4)
        .map(|(l, c)| (l, Ok(c)))
        .collect();
    let r = reviewed(
        "Rename foo to bar in src/lib.rs and run cargo test.",
        answers,
        Mode::Subscription,
    )
    .await;
    assert_eq!(r.status, Status::NoChanges);
    insta::assert_snapshot!("block_zero_findings", block(&r));
    assert_eq!(
        render::markdown(&r).lines().last(),
        Some("No changes. The reviewers found no issues: the prompt is unchanged.")
    );
}

#[tokio::test]
async fn failed_open_and_raw_critiques() {
    let answers = ["Domain SME", "Security", "Clarity", "Testing"]
        .into_iter()
        .map(|l| (l, Err(500)))
        .collect();
    let r = reviewed("optimize the settings page", answers, Mode::Api).await;
    assert_eq!(r.status, Status::FailedOpen);
    insta::assert_snapshot!("block_failed_open", block(&r));

    let mut r = reviewed("optimize the settings page", busy_answers(), Mode::Api).await;
    // As the pipeline does when the editor gives up.
    r.status = Status::EditorFailed;
    r.raw_critiques = Some(render::critique_bullets(&r));
    r.refined = r.original.clone();
    insta::assert_snapshot!("block_raw_critiques", block(&r));
}

#[tokio::test]
async fn cost_is_shown_for_the_mode() {
    let answers = || {
        vec![(
            "Clarity",
            Ok(critique(
                "clarity",
                json!([op_finding(
                    "CLR-001",
                    "minor",
                    "optimize",
                    "ReplaceVague",
                    "reduce p95 latency"
                )]),
            )),
        )]
    };
    let api = reviewed("optimize it", answers(), Mode::Api).await;
    let line = |r: &PromptReview| {
        block(r)
            .lines()
            .find(|l| l.starts_with("| Cost:"))
            .unwrap()
            .trim_end_matches([' ', '|'])
            .to_string()
    };
    // Only Clarity answered (the other three had no scripted answer).
    assert!(line(&api).starts_with("| Cost: $0.0"), "{}", line(&api));
    assert!(line(&api).ends_with("| 1.4K tokens"), "{}", line(&api));
    let sub = reviewed("optimize it", answers(), Mode::Subscription).await;
    assert!(
        line(&sub).starts_with("| Cost: $0.00 (subscription; $0.0"),
        "{}",
        line(&sub)
    );
    let mut cached = sub.clone();
    cached.cached = true;
    cached.usage = Default::default();
    assert_eq!(line(&cached), "| Cost: $0.00 (cached review) | 0 tokens");
}

/// Four of five reviewers failed and the fifth found nothing: the block and
/// the markdown report say the prompt was not fully reviewed, never "the
/// reviewers found no issues".
#[tokio::test]
async fn a_review_most_reviewers_missed_is_not_called_clean() {
    let answers = vec![
        ("Domain SME", Err(500)),
        ("Security", Err(500)),
        ("Clarity", Err(500)),
        ("Testing", Ok(critique("testing", json!([])))),
        ("Frontend/UX", Err(500)),
    ];
    // "button" fires the frontend reviewer: five are asked.
    let r = reviewed("Add a retry button to the fetch form.", answers, Mode::Api).await;
    assert_eq!(r.status, Status::NoChanges, "{:?}", r.warnings);
    assert_eq!(r.partly_reviewed(), Some((1, 5)), "{:#?}", r.reviewers);
    let text = block(&r);
    assert!(!text.contains("found no issues: the prompt"), "{text}");
    assert!(text.contains("Only 1 of 5 reviewers"), "{text}");
    let md = render::markdown(&r);
    assert!(md.contains("Only 1 of 5 reviewers answered"), "{md}");
}
