//! The agent loop end to end against crit-testkit's fake Anthropic server: tool
//! round trips, concurrency, limits, structured output, cancellation, usage.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crit_agent::transcript::{JsonlTranscript, MemoryTranscript, NoTranscript, TranscriptItem};
use crit_agent::{
    LimitHit, RunLimits, RunStatus, StructuredOutput, Tool, ToolContext, ToolFuture, ToolOutput,
    ToolRegistry, run_agent,
};
use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::kit;

use kit::{model, spec, tool_results};

/// kit's project, committed to a fresh git repository (the Bash round trip runs
/// `git log`).
fn project() -> tempfile::TempDir {
    let dir = kit::project();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    git(&["-c", "user.email=t@t", "-c", "user.name=t", "add", "."]);
    git(&[
        "-c",
        "user.email=t@t",
        "-c",
        "user.name=t",
        "commit",
        "-qm",
        "init",
    ]);
    dir
}

#[tokio::test]
async fn round_trips_for_every_tool() {
    let dir = project();
    let server = FakeServer::start().await;
    server.push(Step::reply(Reply::tool_use(
        "Read",
        json!({"file_path": "src/pool.rs"}),
    )));
    server.push(Step::reply(Reply::tool_use(
        "Grep",
        json!({"pattern": "unwrap", "output_mode": "content", "-n": true}),
    )));
    server.push(Step::reply(Reply::tool_use(
        "Glob",
        json!({"pattern": "**/*.md"}),
    )));
    server.push(Step::reply(Reply::tool_use(
        "Bash",
        json!({"command": "git log --oneline"}),
    )));
    server.push(Step::reply(
        Reply::text("All checked.").usage(100, 20, 0, 50),
    ));
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    let out = run_agent(
        &model(&server),
        &long_prompt_spec(),
        &cx,
        &mut NoTranscript,
        CancellationToken::new(),
    )
    .await;
    assert_eq!(out.status, RunStatus::Completed);
    assert_eq!(out.turns, 5);
    assert_eq!(out.final_text, "All checked.");
    let read = &tool_results(&server, 1)[0];
    assert!(read.1.contains("     3\t    c.unwrap()"), "{read:?}");
    assert!(!read.2);
    let grep = &tool_results(&server, 2)[0];
    assert!(grep.1.contains("src/pool.rs:3:    c.unwrap()"), "{grep:?}");
    assert!(tool_results(&server, 3)[0].1.contains("README.md"));
    assert!(tool_results(&server, 4)[0].1.contains("init"));
    // Every request carries the tools and the cached system prompt.
    let first = &server.model_requests()[0].body;
    let tools: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["Read", "Glob", "Grep", "Bash", "TodoWrite"]);
    assert_eq!(first["system"][0]["cache_control"]["type"], "ephemeral");
    // The rolling breakpoint: each request marks the conversation's last
    // block, so the next turn reads everything before it from the cache;
    // never more than the API's four marks.
    for (i, r) in server.model_requests().iter().enumerate() {
        let body = r.body.to_string();
        assert!(body.matches("cache_control").count() <= 4, "request {i}");
        let last = r.body["messages"].as_array().unwrap().last().unwrap();
        let block = last["content"].as_array().unwrap().last().unwrap();
        assert_eq!(block["cache_control"]["type"], "ephemeral", "request {i}");
    }
}

/// When each call of a test tool ran: (name, start, end).
type CallLog = Arc<Mutex<Vec<(&'static str, Instant, Instant)>>>;

/// A test tool that sleeps and records when it ran.
struct Slow {
    name: &'static str,
    delay: Duration,
    log: CallLog,
}

impl Tool for Slow {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        "sleeps"
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object"})
    }
    fn call<'a>(&'a self, _input: Value, _cx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let start = Instant::now();
            tokio::time::sleep(self.delay).await;
            self.log
                .lock()
                .unwrap()
                .push((self.name, start, Instant::now()));
            ToolOutput::ok(format!("{} done", self.name))
        })
    }
}

#[tokio::test]
async fn read_only_calls_of_one_turn_run_concurrently_and_answer_in_call_order() {
    let dir = project();
    let server = FakeServer::start().await;
    server.push(Step::reply(Reply::tool_uses(vec![
        ("SlowA", json!({})),
        ("SlowB", json!({})),
        ("Nope", json!({})),
    ])));
    server.push(Step::reply(Reply::text("done")));
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let mut tools = ToolRegistry::default();
    tools.insert(Arc::new(Slow {
        name: "SlowA",
        delay: Duration::from_millis(300),
        log: log.clone(),
    }));
    tools.insert(Arc::new(Slow {
        name: "SlowB",
        delay: Duration::from_millis(50),
        log: log.clone(),
    }));
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    let out = run_agent(
        &model(&server),
        &spec(tools),
        &cx,
        &mut NoTranscript,
        CancellationToken::new(),
    )
    .await;
    assert_eq!(out.status, RunStatus::Completed);
    let log = log.lock().unwrap();
    let a = log.iter().find(|e| e.0 == "SlowA").unwrap();
    let b = log.iter().find(|e| e.0 == "SlowB").unwrap();
    assert!(b.1 < a.2 && a.1 < b.2, "the two calls overlapped in time");
    assert_eq!(b.0, log[0].0, "SlowB finished first");
    let results = tool_results(&server, 1);
    let contents: Vec<&str> = results.iter().map(|r| r.1.as_str()).collect();
    assert_eq!(
        contents[..2],
        [
            "<tool_output tool=\"SlowA\">\nSlowA done\n</tool_output>",
            "<tool_output tool=\"SlowB\">\nSlowB done\n</tool_output>"
        ],
        "results in call order, each framed as data"
    );
    assert!(
        results[2].2 && results[2].1.contains("There is no tool named `Nope`"),
        "{results:?}"
    );
}

#[tokio::test]
async fn max_turns_ends_incomplete_and_keeps_what_was_said() {
    let dir = project();
    let server = FakeServer::start().await;
    server.push(Step::reply(
        Reply::text("Finding so far: leak in pool.rs")
            .then_tool_use("Read", json!({"file_path": "README.md"})),
    ));
    server.push(Step::reply(Reply::tool_use(
        "Read",
        json!({"file_path": "README.md"}),
    )));
    let mut s = spec(ToolRegistry::builtin());
    s.limits.max_turns = Some(2);
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    let out = run_agent(
        &model(&server),
        &s,
        &cx,
        &mut NoTranscript,
        CancellationToken::new(),
    )
    .await;
    assert_eq!(out.status, RunStatus::Incomplete(LimitHit::MaxTurns(2)));
    assert_eq!(out.all_text, ["Finding so far: leak in pool.rs"]);
    assert_eq!(server.model_requests().len(), 2);
}

#[tokio::test]
async fn token_and_usd_budgets_end_incomplete() {
    let dir = project();
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    for (limits, expect) in [
        (
            RunLimits {
                max_tokens: Some(1000),
                ..RunLimits::default()
            },
            "max_tokens",
        ),
        (
            RunLimits {
                max_budget_usd: Some(0.001),
                ..RunLimits::default()
            },
            "max_budget_usd",
        ),
    ] {
        let server = FakeServer::start().await;
        server.push(Step::reply(
            Reply::tool_use("Read", json!({"file_path": "README.md"})).usage(2000, 100, 0, 0),
        ));
        let mut s = spec(ToolRegistry::builtin());
        s.limits = limits;
        let out = run_agent(
            &model(&server),
            &s,
            &cx,
            &mut NoTranscript,
            CancellationToken::new(),
        )
        .await;
        match &out.status {
            RunStatus::Incomplete(hit) => assert_eq!(hit.name(), expect),
            other => panic!("{other:?}"),
        }
        assert_eq!(out.usage.input_tokens, 2000);
        assert_eq!(
            server.model_requests().len(),
            1,
            "no second call once over budget"
        );
    }
}

#[tokio::test]
async fn timeout_ends_incomplete_while_the_model_is_slow() {
    let dir = project();
    let server = FakeServer::start().await;
    server.push(Step::reply(
        Reply::text("early").then_tool_use("Read", json!({"file_path": "README.md"})),
    ));
    server.push(Step::reply(
        Reply::text("too late").delay(Duration::from_secs(30)),
    ));
    let mut s = spec(ToolRegistry::builtin());
    s.limits.timeout = Some(Duration::from_millis(800));
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    let out = run_agent(
        &model(&server),
        &s,
        &cx,
        &mut NoTranscript,
        CancellationToken::new(),
    )
    .await;
    assert_eq!(
        out.status,
        RunStatus::Incomplete(LimitHit::Timeout(Duration::from_millis(800)))
    );
    assert_eq!(out.all_text, ["early"]);
}

#[tokio::test]
async fn cancellation_ends_cleanly() {
    let dir = project();
    let server = FakeServer::start().await;
    server.push(Step::reply(
        Reply::text("never").delay(Duration::from_secs(30)),
    ));
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        c2.cancel();
    });
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    let mut sink = MemoryTranscript::default();
    let out = run_agent(
        &model(&server),
        &spec(ToolRegistry::builtin()),
        &cx,
        &mut sink,
        cancel,
    )
    .await;
    assert_eq!(out.status, RunStatus::Cancelled);
    assert!(
        matches!(sink.items.last(), Some(TranscriptItem::End { status, .. }) if status == "cancelled")
    );
}

fn findings_output() -> StructuredOutput {
    StructuredOutput::new(json!({
        "type": "object",
        "required": ["verdict", "findings"],
        "properties": {
            "verdict": {"enum": ["PASS", "FAIL", "NEEDS_WORK"]},
            "findings": {"type": "array", "items": {"type": "object", "required": ["priority"], "properties": {"priority": {"type": "integer", "minimum": 0, "maximum": 3}}}}
        }
    }))
    .unwrap()
}

#[tokio::test]
async fn structured_output_is_validated_and_errors_fed_back() {
    let dir = project();
    let server = FakeServer::start().await;
    server.push(Step::reply(Reply::tool_use(
        "StructuredOutput",
        json!({"verdict": "MAYBE", "findings": [{"priority": 9}]}),
    )));
    server.push(Step::reply(Reply::json(
        json!({"verdict": "FAIL", "findings": [{"priority": 1}]}),
    )));
    let mut s = spec(ToolRegistry::builtin());
    s.output = Some(findings_output());
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    let out = run_agent(
        &model(&server),
        &s,
        &cx,
        &mut NoTranscript,
        CancellationToken::new(),
    )
    .await;
    assert_eq!(out.status, RunStatus::Completed);
    assert_eq!(
        out.structured,
        Some(json!({"verdict": "FAIL", "findings": [{"priority": 1}]}))
    );
    let fed_back = &tool_results(&server, 1)[0];
    assert!(fed_back.2);
    assert!(
        fed_back
            .1
            .starts_with("Output does not match required schema:"),
        "{fed_back:?}"
    );
    assert!(fed_back.1.contains("/verdict"), "{fed_back:?}");
    assert!(
        fed_back
            .1
            .contains("/findings/0/priority: 9 is greater than the maximum of 3"),
        "{fed_back:?}"
    );
}

#[tokio::test]
async fn structured_output_gives_up_after_the_retry_bound_or_a_second_text_answer() {
    let dir = project();
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    let server = FakeServer::start().await;
    for _ in 0..4 {
        server.push(Step::reply(Reply::tool_use(
            "StructuredOutput",
            json!({"verdict": "MAYBE", "findings": []}),
        )));
    }
    let mut s = spec(ToolRegistry::builtin());
    s.output = Some(findings_output());
    let out = run_agent(
        &model(&server),
        &s,
        &cx,
        &mut NoTranscript,
        CancellationToken::new(),
    )
    .await;
    assert!(
        matches!(&out.status, RunStatus::NoValidOutput(m) if m.contains("/verdict")),
        "{:?}",
        out.status
    );
    assert_eq!(
        server.model_requests().len(),
        4,
        "three retries after the first answer"
    );

    let server = FakeServer::start().await;
    server.push(Step::reply(Reply::text("Looks fine to me.")));
    server.push(Step::reply(Reply::text("Still fine.")));
    let out = run_agent(
        &model(&server),
        &s,
        &cx,
        &mut NoTranscript,
        CancellationToken::new(),
    )
    .await;
    assert_eq!(
        out.status,
        RunStatus::NoValidOutput(
            "the model answered without calling the StructuredOutput tool".into()
        )
    );
    let reqs = server.model_requests();
    let nudge = reqs[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .to_string();
    assert!(
        nudge.contains("You must call the StructuredOutput tool"),
        "{nudge}"
    );
    assert_eq!(out.all_text, ["Looks fine to me.", "Still fine."]);
}

#[tokio::test]
async fn usage_and_cost_sum_across_turns_and_the_transcript_is_jsonl() {
    let dir = project();
    let server = FakeServer::start().await;
    server.push(Step::reply(
        Reply::tool_use("Read", json!({"file_path": "README.md"})).usage(1000, 100, 2000, 0),
    ));
    server.push(Step::reply(Reply::text("ok").usage(1200, 50, 0, 2000)));
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    let mut sink = JsonlTranscript::new(Vec::new());
    let out = run_agent(
        &model(&server),
        &spec(ToolRegistry::builtin()),
        &cx,
        &mut sink,
        CancellationToken::new(),
    )
    .await;
    assert_eq!(
        out.usage,
        crit_core::Usage {
            input_tokens: 2200,
            output_tokens: 150,
            cache_write_tokens: 2000,
            cache_read_tokens: 2000
        }
    );
    // claude-sonnet-5-5: $2 in, $10 out, cache write 1.25×, cache read 0.1× per MTok.
    let expected = (2200.0 * 2.0 + 150.0 * 10.0 + 2000.0 * 2.5 + 2000.0 * 0.2) / 1e6;
    assert!(
        (out.cost_usd - expected).abs() < 1e-9,
        "{} vs {expected}",
        out.cost_usd
    );
    let text = String::from_utf8(sink.into_inner()).unwrap();
    let kinds: Vec<String> = text
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "start",
            "assistant",
            "usage",
            "tool_result",
            "assistant",
            "usage",
            "end"
        ]
    );
}

#[tokio::test]
async fn a_backend_error_is_fatal_with_its_message() {
    let dir = project();
    let server = FakeServer::start().await;
    server.push(Step::reply(Reply::http_error(401, json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}))));
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    let out = run_agent(
        &model(&server),
        &spec(ToolRegistry::builtin()),
        &cx,
        &mut NoTranscript,
        CancellationToken::new(),
    )
    .await;
    match &out.status {
        RunStatus::Failed(e) => assert!(matches!(e, crit_llm::LlmError::Auth { .. }), "{e}"),
        other => panic!("{other:?}"),
    }
    assert!(
        !format!("{out:?}").contains("sk-ant-test"),
        "no secret in the outcome"
    );
}

/// A system prompt past every model's cacheable minimum: a mark below it
/// caches nothing and is not sent.
fn long_prompt_spec() -> crit_agent::AgentSpec {
    let mut s = spec(ToolRegistry::builtin());
    let rules = "Check every call that can fail.\n".repeat(800);
    s.system = vec![crit_llm::SystemBlock::cached(format!(
        "You review code.\n{rules}"
    ))];
    s
}
