//! The Anthropic backend against the fake server: what it sends and what it reads.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use crate::common;

use common::*;
use crit_core::Usage;
use crit_llm::{
    AnthropicAuth, AnthropicConfig, Block, Message, Model, ModelEvent, ModelRequest, OutputSchema,
    Secret, StopReason, SystemBlock, Thinking, ToolChoice, ToolSpec, pricing,
};
use crit_testkit::{FakeServer, Reply};
use futures_util::StreamExt;
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn read_tool() -> ToolSpec {
    ToolSpec {
        name: "Read".into(),
        description: "Read a file".into(),
        input_schema: json!({"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}),
        strict: true,
    }
}

/// A request using every feature, to snapshot the exact wire body.
fn rich_request() -> ModelRequest {
    let mut r = ModelRequest::new("sonnet", 4096);
    r.system = vec![
        SystemBlock::new("You review code."),
        SystemBlock::cached("Project conventions: …"),
    ];
    r.messages = vec![
        Message {
            role: crit_llm::Role::User,
            content: vec![
                Block::cached_text("<context>CLAUDE.md contents</context>"),
                Block::text("Review this diff …"),
            ],
        },
        Message::assistant(vec![
            Block::Thinking {
                thinking: "Look at main first.".into(),
                signature: "sig/opaque==".into(),
            },
            Block::text("Let me read it."),
            Block::ToolUse {
                id: "toolu_01".into(),
                name: "Read".into(),
                input: json!({"file_path": "/x.rs"}),
            },
        ]),
        Message {
            role: crit_llm::Role::User,
            content: vec![Block::ToolResult {
                tool_use_id: "toolu_01".into(),
                content: "1\tfn main(){}".into(),
                is_error: false,
                // The conversation's rolling breakpoint.
                cache: true,
            }],
        },
    ];
    r.tools = vec![
        read_tool(),
        ToolSpec {
            name: "Grep".into(),
            description: "Search".into(),
            input_schema: json!({"type":"object","properties":{"pattern":{"type":"string"}}}),
            strict: false,
        },
    ];
    r.cache_tools = true;
    r.thinking = Some(Thinking::Adaptive);
    r.stop_sequences = vec!["</review>".into()];
    r
}

#[tokio::test]
async fn request_body_snapshot_and_headers() {
    let server = FakeServer::start().await;
    server.push(Reply::text("fine"));
    let m = anthropic(&server);
    let req = rich_request();
    m.complete(&req, CancellationToken::new()).await.unwrap();
    let sent = &server.requests()[0];
    assert_eq!(sent.path, "/v1/messages");
    assert_eq!(sent.body, m.request_body(&req));
    insta::assert_json_snapshot!("anthropic_request", sent.body);
    assert_eq!(sent.header("x-api-key"), Some("sk-ant-test-key-123"));
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(sent.header("authorization"), None);
    for banned in ["temperature", "top_p", "top_k"] {
        assert!(sent.body.get(banned).is_none(), "{banned} sent");
    }
}

#[tokio::test]
async fn bearer_token_auth() {
    let server = FakeServer::start().await;
    server.push(Reply::text("ok"));
    let mut c = AnthropicConfig::new(
        format!("{}/", server.url()),
        AnthropicAuth::Bearer(Secret::new("tok-abc")),
    );
    c.retry = fast_policy(1);
    let m = crit_llm::Anthropic::new(c).unwrap();
    m.complete(
        &ModelRequest::new("haiku", 10).user("hi"),
        CancellationToken::new(),
    )
    .await
    .unwrap();
    let sent = &server.requests()[0];
    assert_eq!(sent.header("authorization"), Some("Bearer tok-abc"));
    assert_eq!(sent.header("x-api-key"), None);
    assert_eq!(sent.body["model"], "claude-haiku-5-5");
}

#[tokio::test]
async fn usage_and_cost_include_cache_tokens() {
    let server = FakeServer::start().await;
    server.push(Reply::text("hi").usage(1_000, 200, 3_000, 40_000));
    let r = anthropic(&server)
        .complete(
            &ModelRequest::new("opus", 100).user("x"),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    let u = Usage {
        input_tokens: 1_000,
        output_tokens: 200,
        cache_write_tokens: 3_000,
        cache_read_tokens: 40_000,
    };
    assert_eq!(r.usage, u);
    // claude-opus-5-5: $4 in, $20 out, $5 cache write, $0.40 cache read per MTok.
    let expect = (1_000.0 * 4.0 + 200.0 * 20.0 + 3_000.0 * 5.0 + 40_000.0 * 0.4) / 1e6;
    assert!(r.cost.priced);
    assert!(
        (r.cost.usd - expect).abs() < 1e-12,
        "{} vs {expect}",
        r.cost.usd
    );
    assert_eq!(r.cost, pricing::cost("claude-opus-5-5", &u));
}

#[tokio::test]
async fn unknown_model_costs_zero_and_says_so() {
    let server = FakeServer::start().await;
    server.push(Reply::text("hi").model("claude-mystery-9"));
    let r = anthropic(&server)
        .complete(
            &ModelRequest::new("claude-mystery-9", 100).user("x"),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(r.cost.usd, 0.0);
    assert!(!r.cost.priced);
}

#[tokio::test]
async fn every_stop_reason() {
    let cases = [
        ("end_turn", StopReason::EndTurn),
        ("max_tokens", StopReason::MaxTokens),
        ("stop_sequence", StopReason::StopSequence),
        ("tool_use", StopReason::ToolUse),
        ("pause_turn", StopReason::PauseTurn),
        ("refusal", StopReason::Refusal),
        (
            "model_context_window_exceeded",
            StopReason::ContextWindowExceeded,
        ),
        (
            "brand_new_reason",
            StopReason::Other("brand_new_reason".into()),
        ),
    ];
    let server = FakeServer::start().await;
    for (wire, _) in &cases {
        server.push(Reply::text("t").stop_reason(*wire));
    }
    let m = anthropic(&server);
    for (wire, expect) in cases {
        let r = m
            .complete(
                &ModelRequest::new("opus", 10).user("x"),
                CancellationToken::new(),
            )
            .await
            .unwrap();
        assert_eq!(r.stop_reason, Some(expect.clone()), "{wire}");
        assert_eq!(
            r.stop_reason.as_ref().map(StopReason::is_truncated),
            Some(matches!(
                expect,
                StopReason::MaxTokens | StopReason::PauseTurn | StopReason::ContextWindowExceeded
            ))
        );
    }
}

#[tokio::test]
async fn tool_input_accumulates_across_split_fragments() {
    let server = FakeServer::start().await;
    let input = json!({"file_path": "/src/main.rs", "range": {"start": 1, "end": 40}, "why": "naïve ✓ unicode"});
    server.push(
        Reply::text("Reading.")
            .then_tool_use("Read", input.clone())
            .then_tool_use("Grep", json!({"pattern": "unsafe"}))
            .chunked(3),
    );
    let m = anthropic(&server);
    let mut req = ModelRequest::new("opus", 100).user("x");
    req.tools = vec![read_tool()];
    let mut stream = m.stream(&req, CancellationToken::new()).await.unwrap();
    let mut events = Vec::new();
    while let Some(e) = stream.next().await {
        events.push(e.unwrap());
    }
    let calls: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            ModelEvent::ToolCall { id, name, input } => {
                Some((id.clone(), name.clone(), input.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].1, "Read");
    assert_eq!(calls[0].2, input);
    assert!(calls[0].0.starts_with("toolu_"));
    assert_eq!(calls[1].2, json!({"pattern": "unsafe"}));
    assert!(matches!(
        events.first(),
        Some(ModelEvent::MessageStart { .. })
    ));
    assert!(matches!(events.last(), Some(ModelEvent::MessageEnd { .. })));
    assert!(events.contains(&ModelEvent::Stop {
        reason: StopReason::ToolUse
    }));
}

#[tokio::test]
async fn thinking_blocks_round_trip_with_their_signature() {
    let server = FakeServer::start().await;
    server.push(Reply::thinking("Consider the null case.", "Answer."));
    server.push(Reply::text("done"));
    let m = anthropic(&server);
    let mut req = ModelRequest::new("opus", 2048).user("q");
    req.thinking = Some(Thinking::Adaptive);
    let r = m.complete(&req, CancellationToken::new()).await.unwrap();
    let (thinking, signature) = match &r.content[0] {
        Block::Thinking {
            thinking,
            signature,
        } => (thinking.clone(), signature.clone()),
        other => panic!("{other:?}"),
    };
    assert_eq!(thinking, "Consider the null case.");
    assert!(!signature.is_empty());
    assert_eq!(r.text(), "Answer.");
    req.messages.push(Message::assistant(r.content.clone()));
    req.messages.push(Message::user_text("more"));
    m.complete(&req, CancellationToken::new()).await.unwrap();
    let sent = &server.requests()[1].body;
    assert_eq!(
        sent["messages"][1]["content"][0],
        json!({"type":"thinking","thinking": thinking,"signature": signature})
    );
}

fn verdict_schema() -> OutputSchema {
    OutputSchema {
        name: "review".into(),
        schema: json!({"type":"object","properties":{"verdict":{"type":"string"}},"required":["verdict"],"additionalProperties":false}),
    }
}

#[tokio::test]
async fn structured_output_uses_output_config_format() {
    let server = FakeServer::start().await;
    server.push(Reply::json(json!({"verdict": "PASS"})));
    let m = anthropic(&server);
    let mut req = ModelRequest::new("opus", 500).user("review");
    req.output_schema = Some(verdict_schema());
    let r = m.complete(&req, CancellationToken::new()).await.unwrap();
    let sent = &server.requests()[0].body;
    assert_eq!(
        sent["output_config"],
        json!({"format": {"type": "json_schema", "schema": verdict_schema().schema}})
    );
    assert!(sent.get("tools").is_none());
    let v: serde_json::Value = serde_json::from_str(&r.text()).unwrap();
    assert_eq!(v, json!({"verdict": "PASS"}));
}

#[tokio::test]
async fn structured_output_falls_back_to_a_forced_tool() {
    let server = FakeServer::start().await;
    server.push(Reply::json(json!({"verdict": "FAIL"})));
    let mut c = AnthropicConfig::new(
        server.url(),
        AnthropicAuth::ApiKey(Secret::new("sk-ant-x-1234")),
    );
    c.native_structured_output = Some(false);
    let m = crit_llm::Anthropic::new(c).unwrap();
    let mut req = ModelRequest::new("opus", 500).user("review");
    req.output_schema = Some(verdict_schema());
    req.tools = vec![read_tool()];
    req.thinking = Some(Thinking::Adaptive);
    let r = m.complete(&req, CancellationToken::new()).await.unwrap();
    let sent = &server.requests()[0].body;
    insta::assert_json_snapshot!("anthropic_forced_tool_request", sent);
    assert!(sent.get("output_config").is_none());
    assert_eq!(
        sent["tool_choice"],
        json!({"type":"tool","name":"StructuredOutput"})
    );
    assert!(
        sent.get("thinking").is_none(),
        "thinking cannot go with a forced tool"
    );
    let v: serde_json::Value = serde_json::from_str(&r.text()).unwrap();
    assert_eq!(v, json!({"verdict": "FAIL"}));
    assert_eq!(r.stop_reason, Some(StopReason::EndTurn));
    assert_eq!(r.tool_calls().count(), 0);
}

#[tokio::test]
async fn unknown_models_use_the_fallback() {
    let server = FakeServer::start().await;
    let m = anthropic(&server);
    let mut req = ModelRequest::new("claude-mystery-9", 10).user("x");
    req.output_schema = Some(verdict_schema());
    req.tool_choice = ToolChoice::Auto;
    let body = m.request_body(&req);
    assert_eq!(body["tools"][0]["name"], "StructuredOutput");
    assert!(m.native_schema("claude-opus-5-5"));
    assert!(!m.native_schema("claude-mystery-9"));
}
