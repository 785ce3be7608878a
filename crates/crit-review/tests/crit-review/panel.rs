//! The panel runner against crit-testkit: concurrent reviewers, both output
//! contracts, failures that never pass, a timeout that really stops.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crit_agent::RunLimits;
use crit_core::contract::Contract;
use crit_core::{ReviewerStatus, Severity, Verdict};
use crit_llm::{Anthropic, AnthropicAuth, AnthropicConfig, Backend, RetryPolicy, Secret};
use crit_review::panel::{
    PanelEnv, PanelStart, Progress, ProgressEvent, ReviewerPlan, aggregate, run_panel,
};
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
    // Conventions long enough to cache on the model: a breakpoint goes only
    // where the prefix before it reaches the model's minimum.
    let mut env = env(dir.path());
    let min = crit_llm::pricing::cache_min_tokens(&crit_llm::pricing::resolve_alias("sonnet"));
    env.project_context
        .push_str(&"\nEvery error names the file it came from.".repeat(min as usize / 8));
    run_panel(&backend(&server), &[plan("one", findings())], &env).await;
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

/// A plan sharing `work` with the rest of its panel, on `model`.
fn sharing(name: &str, model: &str, work: &str) -> ReviewerPlan {
    let mut p = plan(name, findings());
    p.model = model.into();
    p.shared = Some(crit_review::panel::SharedPrompt {
        system: "You review code changes.".into(),
        work: work.into(),
    });
    p
}

/// Two reviewers' requests, each answered after a delay; whether the
/// second was sent while the first was still unanswered.
async fn ran_side_by_side(plans: [ReviewerPlan; 2], start: PanelStart) -> bool {
    let server = FakeServer::start().await;
    for _ in 0..2 {
        server.push(
            Reply::json(json!({"verdict": "PASS", "summary": "Fine.", "findings": []}))
                .delay(Duration::from_millis(300)),
        );
    }
    let dir = project();
    let mut env = env(dir.path());
    env.panel_start = start;
    let runs = run_panel(&backend(&server), &plans, &env).await;
    assert!(runs.iter().all(|r| r.outcome.verdict == Verdict::Pass));
    let reqs = server.model_requests();
    assert_eq!(reqs.len(), 2);
    reqs[0].overlaps(&reqs[1])
}

/// Work long enough that the shared prefix is over every model's cacheable
/// minimum, and work far under any.
fn long_work() -> String {
    let min = ["sonnet", "haiku", "opus"]
        .iter()
        .map(|m| crit_llm::pricing::cache_min_tokens(&crit_llm::pricing::resolve_alias(m)))
        .max()
        .unwrap();
    "+ let x = 1; // a line of the change under review\n".repeat((min as usize * 4) / 40 + 10)
}

#[tokio::test]
async fn a_reviewer_waits_for_the_first_ones_cache_write_only_when_it_can_read_it() {
    let long = long_work();
    // Same model, same prefix over the model's minimum: the second reads
    // what the first wrote, so it waits for it.
    assert!(
        !ran_side_by_side(
            [sharing("a", "sonnet", &long), sharing("b", "sonnet", &long)],
            PanelStart::Auto
        )
        .await,
        "the second reviewer did not wait for a prefix it could read"
    );
    // Another model reads nothing the first wrote: both start at once.
    assert!(
        ran_side_by_side(
            [sharing("a", "sonnet", &long), sharing("b", "haiku", &long)],
            PanelStart::Auto
        )
        .await,
        "a reviewer on another model waited for nothing"
    );
    // A prefix under the model's minimum is never cached: no wait.
    assert!(
        ran_side_by_side(
            [
                sharing("a", "sonnet", "+ x\n"),
                sharing("b", "sonnet", "+ x\n")
            ],
            PanelStart::Auto
        )
        .await,
        "a reviewer waited for a prefix too short to cache"
    );
    // Other tools: the request's prefix differs from its first byte.
    let mut other_tools = sharing("b", "sonnet", &long);
    other_tools.tools = vec!["Read".into()];
    assert!(
        ran_side_by_side(
            [sharing("a", "sonnet", &long), other_tools],
            PanelStart::Auto
        )
        .await,
        "a reviewer with other tools waited for nothing"
    );
}

#[tokio::test]
async fn the_panel_start_setting_forces_either_way() {
    let long = long_work();
    assert!(
        ran_side_by_side(
            [sharing("a", "sonnet", &long), sharing("b", "sonnet", &long)],
            PanelStart::Together
        )
        .await,
        "`together` still held the second reviewer back"
    );
    assert!(
        !ran_side_by_side(
            [sharing("a", "sonnet", &long), sharing("b", "haiku", &long)],
            PanelStart::WarmFirst
        )
        .await,
        "`warm-first` did not hold the second reviewer back"
    );
}

#[tokio::test]
async fn a_prefix_under_the_models_cache_minimum_carries_no_breakpoint() {
    let server = FakeServer::start().await;
    server.push(Reply::json(
        json!({"verdict": "PASS", "summary": "", "findings": []}),
    ));
    let dir = project();
    // A model whose minimum the table knows (4,096 tokens), above this
    // whole request.
    let mut one = plan("one", findings());
    one.model = "claude-haiku-4-5".into();
    run_panel(&backend(&server), &[one], &env(dir.path())).await;
    let body = server.model_requests()[0].body.to_string();
    assert!(
        !body.contains("cache_control"),
        "a breakpoint that can never hit: {body}"
    );
}
