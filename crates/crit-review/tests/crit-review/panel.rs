//! The panel runner against crit-testkit: concurrent reviewers, both output
//! contracts, failures that never pass, a timeout that really stops.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crit_agent::RunLimits;
use crit_core::contract::Contract;
use crit_core::{ReviewerStatus, Severity, Verdict};
use crit_llm::{Anthropic, AnthropicAuth, AnthropicConfig, Backend, RetryPolicy, Secret};
use crit_review::panel::{PanelEnv, Progress, ProgressEvent, ReviewerPlan, aggregate, run_panel};
use crit_review::template::OutputSpec;
use crit_testkit::{FakeServer, Reply, Step};
use serde_json::json;

fn backend(server: &FakeServer) -> Backend {
    let mut c = AnthropicConfig::new(
        server.url(),
        AnthropicAuth::ApiKey(Secret::new("sk-ant-test")),
    );
    c.retry = RetryPolicy {
        max_attempts: 1,
        ..RetryPolicy::default()
    };
    Backend {
        model: Arc::new(Anthropic::new(c).unwrap()),
        agent: None,
    }
}

fn plan(name: &str, output: OutputSpec) -> ReviewerPlan {
    ReviewerPlan {
        name: name.into(),
        model: "sonnet".into(),
        system: format!("You are the {name} reviewer."),
        user: format!("Review src/lib.rs as {name}."),
        shared: None,
        tools: vec!["Read".into(), "Grep".into()],
        output,
        limits: RunLimits::default(),
        max_output_tokens: 4096,
        sub_agents: Vec::new(),
    }
}

fn findings() -> OutputSpec {
    OutputSpec::Contract(Contract::FindingsJson)
}

fn env(root: &std::path::Path) -> PanelEnv {
    PanelEnv {
        root: root.to_path_buf(),
        project_context: "# Project conventions\nErrors are never swallowed.".into(),
        ..PanelEnv::default()
    }
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/lib.rs"),
        "pub fn f() -> u8 {\n    1\n}\n",
    )
    .unwrap();
    dir
}

#[derive(Default)]
struct Events(Mutex<Vec<ProgressEvent>>);

impl Progress for Events {
    fn event(&self, e: &ProgressEvent) {
        self.0.lock().unwrap().push(e.clone());
    }
}

#[tokio::test]
async fn reviewers_run_concurrently_and_their_answers_merge() {
    let server = FakeServer::start().await;
    server.push(
        Step::when_contains("as security").reply(
            Reply::json(
                json!({"verdict": "FAIL", "summary": "One leak.", "findings": [{
                    "file_path": "src/lib.rs", "line_start": 1, "line_end": 2, "priority": 1,
                    "title": "[P1] Returns a constant", "body": "Why it matters."}]}),
            )
            .usage(1000, 50, 0, 0)
            .delay(Duration::from_millis(400)),
        ),
    );
    server.push(
        Step::when_contains("as style").reply(
            Reply::json(json!({"verdict": "PASS", "summary": "Fine.", "findings": []}))
                .usage(800, 20, 0, 0)
                .delay(Duration::from_millis(400)),
        ),
    );
    let dir = project();
    let events = Arc::new(Events::default());
    let mut env = env(dir.path());
    env.progress = Some(events.clone());
    let plans = [plan("security", findings()), plan("style", findings())];
    let runs = run_panel(&backend(&server), &plans, &env).await;

    let reqs = server.model_requests();
    assert_eq!(reqs.len(), 2);
    assert!(
        reqs[0].overlaps(&reqs[1]),
        "the reviewers ran one after the other"
    );
    assert_eq!(runs[0].outcome.name, "security");
    assert_eq!(runs[0].outcome.verdict, Verdict::Fail);
    assert_eq!(runs[1].outcome.verdict, Verdict::Pass);

    let result = aggregate("code", &runs);
    assert_eq!(result.verdict, Verdict::Fail);
    assert!(!result.passed);
    assert_eq!(result.findings.len(), 1);
    let f = &result.findings[0];
    assert_eq!(f.severity, Severity::P1);
    assert_eq!(f.reviewer, "security");
    assert_eq!(f.path(), Some("src/lib.rs"));
    assert_eq!(result.usage.input_tokens, 1800);
    assert_eq!(result.reviewers.len(), 2);
    assert!(result.cost_usd.unwrap() > 0.0);

    // Started, usage and finished events for both reviewers.
    let ev = events.0.lock().unwrap();
    for name in ["security", "style"] {
        assert!(
            ev.iter()
                .any(|e| matches!(e, ProgressEvent::Started { reviewer, .. } if reviewer == name))
        );
        assert!(
            ev.iter()
                .any(|e| matches!(e, ProgressEvent::Finished { reviewer, .. } if reviewer == name))
        );
    }
}

#[tokio::test]
async fn the_project_context_is_the_cached_end_of_the_system_prompt() {
    let server = FakeServer::start().await;
    server.push(Reply::json(
        json!({"verdict": "PASS", "summary": "", "findings": []}),
    ));
    let dir = project();
    run_panel(
        &backend(&server),
        &[plan("one", findings())],
        &env(dir.path()),
    )
    .await;
    let req = &server.model_requests()[0];
    let system = req.body["system"].as_array().unwrap();
    assert_eq!(system.len(), 2);
    assert_eq!(system[0]["text"], "You are the one reviewer.");
    assert!(system[0].get("cache_control").is_none());
    assert!(
        system[1]["text"]
            .as_str()
            .unwrap()
            .starts_with("# Project conventions")
    );
    assert_eq!(system[1]["cache_control"]["type"], "ephemeral");
    assert_eq!(req.body["model"], "claude-sonnet-5-5");
    let tools: Vec<&str> = req.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["Read", "Grep", "StructuredOutput"]);
}

#[tokio::test]
async fn a_markdown_reviewer_is_read_with_the_markdown_contract() {
    let server = FakeServer::start().await;
    server.push(Reply::text(
        "## Summary\nCONCERNS. Mostly sound.\n\n## Findings\n\n### [CONCERN] Missing error path\nThe error at `src/lib.rs:2` is ignored.\n",
    ));
    let dir = project();
    let runs = run_panel(
        &backend(&server),
        &[plan("arch", OutputSpec::Contract(Contract::Markdown))],
        &env(dir.path()),
    )
    .await;
    let req = &server.model_requests()[0];
    assert!(
        !req.body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "StructuredOutput"),
        "the markdown contract needs no structured-output tool"
    );
    let result = aggregate("arch", &runs);
    assert_eq!(result.verdict, Verdict::Concerns, "{result:#?}");
    assert_eq!(result.findings.len(), 1);
    assert!(result.parse_error.is_none());
}

#[tokio::test]
async fn an_answer_that_cannot_be_read_is_unknown_and_never_passes() {
    let server = FakeServer::start().await;
    // Prose twice: the loop nudges once, then gives up.
    server.push(Reply::text("Looks good to me!"));
    server.push(Reply::text("Really, it is fine."));
    let dir = project();
    let runs = run_panel(
        &backend(&server),
        &[plan("one", findings())],
        &env(dir.path()),
    )
    .await;
    let result = aggregate("code", &runs);
    assert_eq!(result.verdict, Verdict::Unknown);
    assert!(!result.passed);
    assert!(!result.fatal_error);
    assert_eq!(runs[0].outcome.status, ReviewerStatus::ParseError);
    // The contract's words (seed 003), and the loop's reason on the reviewer.
    assert!(
        result
            .parse_error
            .as_deref()
            .unwrap()
            .starts_with("invalid json"),
        "{:?}",
        result.parse_error
    );
    assert!(
        runs[0]
            .outcome
            .error
            .as_deref()
            .unwrap()
            .contains("StructuredOutput")
    );
    assert!(result.raw_output.contains("Really, it is fine."));
}

#[tokio::test]
async fn a_json_answer_given_as_text_still_counts() {
    let server = FakeServer::start().await;
    let answer = r#"{"verdict": "NEEDS_WORK", "summary": "s", "findings": [{"file_path": "src/lib.rs", "line_start": 2, "line_end": 2, "priority": 3, "title": "[P3] Nit", "body": "b"}]}"#;
    server.push(Reply::text(answer));
    server.push(Reply::text(answer));
    let dir = project();
    let runs = run_panel(
        &backend(&server),
        &[plan("one", findings())],
        &env(dir.path()),
    )
    .await;
    let result = aggregate("code", &runs);
    assert_eq!(result.verdict, Verdict::Concerns);
    assert!(result.parse_error.is_none(), "{:?}", result.parse_error);
    assert!(result.passed, "a P3 does not block under the default gate");
}

#[tokio::test]
async fn a_backend_error_is_a_parse_error_not_a_crash() {
    let server = FakeServer::start().await;
    server.push(Reply::api_error(
        401,
        "authentication_error",
        "invalid x-api-key",
    ));
    let dir = project();
    let runs = run_panel(
        &backend(&server),
        &[plan("one", findings())],
        &env(dir.path()),
    )
    .await;
    let result = aggregate("code", &runs);
    assert_eq!(result.verdict, Verdict::Error);
    assert!(!result.passed);
    assert!(!result.fatal_error);
    assert_eq!(runs[0].outcome.status, ReviewerStatus::Failed);
    assert!(
        result
            .parse_error
            .as_deref()
            .unwrap()
            .contains("invalid x-api-key"),
        "{:?}",
        result.parse_error
    );
}

#[tokio::test]
async fn a_timeout_stops_a_stalled_stream_and_says_timeout() {
    let server = FakeServer::start().await;
    server.push(
        Reply::text("I am still thinking about this for a very long time")
            .stall_after_bytes(200, Duration::from_secs(30)),
    );
    let dir = project();
    let mut p = plan("one", findings());
    p.limits.timeout = Some(Duration::from_millis(500));
    let started = std::time::Instant::now();
    let runs = run_panel(&backend(&server), &[p], &env(dir.path())).await;
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the stall was waited out"
    );
    let result = aggregate("code", &runs);
    assert_eq!(result.parse_error.as_deref(), Some("timeout"));
    assert!(!result.passed);
    assert!(!result.fatal_error);
    assert!(runs[0].timed_out);
    assert_eq!(runs[0].outcome.status, ReviewerStatus::Incomplete);
}

#[tokio::test]
async fn a_caller_schema_lands_in_structured_output_and_passed_decides() {
    let server = FakeServer::start().await;
    server.push(Reply::json(
        json!({"passed": false, "summary": "Two problems.", "issues": ["a", "b"]}),
    ));
    let dir = project();
    let schema = json!({"type": "object", "properties": {"passed": {"type": "boolean"}, "summary": {"type": "string"}, "issues": {"type": "array", "items": {"type": "string"}}}, "required": ["passed", "summary", "issues"]});
    let runs = run_panel(
        &backend(&server),
        &[plan("run", OutputSpec::Schema(schema))],
        &env(dir.path()),
    )
    .await;
    let result = aggregate("run", &runs);
    assert_eq!(result.verdict, Verdict::Fail);
    assert_eq!(result.structured_output.as_ref().unwrap()["issues"][1], "b");
    assert_eq!(result.summary, "Two problems.");
}
