//! The OpenAI-compatible backend against the fake server.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use crate::common;

use common::*;
use crit_llm::{
    Block, LlmError, Message, Model, ModelRequest, OutputSchema, Role, StopReason, SystemBlock,
    ToolChoice, ToolSpec, openai::PLACEHOLDER_KEY,
};
use crit_testkit::{FakeServer, Reply};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn rich_request() -> ModelRequest {
    let mut r = ModelRequest::new("qwen3:8b", 4096);
    r.system = vec![
        SystemBlock::new("You review code."),
        SystemBlock::cached("Conventions."),
    ];
    r.messages = vec![
        Message::user_text("Review this diff …"),
        Message::assistant(vec![
            Block::Thinking {
                thinking: "dropped on this wire".into(),
                signature: "s".into(),
            },
            Block::ToolUse {
                id: "call_1".into(),
                name: "read_file".into(),
                input: json!({"file_path": "/x"}),
            },
        ]),
        Message {
            role: Role::User,
            content: vec![
                Block::ToolResult {
                    tool_use_id: "call_1".into(),
                    content: "file body".into(),
                    is_error: false,
                    cache: true,
                },
                Block::text("Now answer."),
            ],
        },
    ];
    r.tools = vec![ToolSpec {
        name: "read_file".into(),
        description: "Read a file".into(),
        input_schema: json!({"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"],"additionalProperties":false}),
        strict: true,
    }];
    r.tool_choice = ToolChoice::Tool("read_file".into());
    r.output_schema = Some(OutputSchema {
        name: "review".into(),
        schema: json!({"type":"object","properties":{"verdict":{"type":"string"}},"required":["verdict"],"additionalProperties":false}),
    });
    r
}

#[tokio::test]
async fn request_body_snapshot_and_headers() {
    let server = FakeServer::start().await;
    server.push(Reply::json(json!({"verdict": "PASS"})));
    let m = openai(&server);
    let req = rich_request();
    let r = m.complete(&req, CancellationToken::new()).await.unwrap();
    let sent = &server.requests()[0];
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(sent.body, m.request_body(&req));
    insta::assert_json_snapshot!("openai_request", sent.body);
    assert_eq!(sent.header("authorization"), Some("Bearer sk-openai-test"));
    assert!(sent.body.get("temperature").is_none());
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&r.text()).unwrap(),
        json!({"verdict": "PASS"})
    );
}

#[tokio::test]
async fn empty_key_sends_a_placeholder() {
    let server = FakeServer::start().await;
    server.push(Reply::text("hi"));
    openai_with(&server, None, fast_policy(1))
        .complete(
            &ModelRequest::new("llama3", 10).user("x"),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some(format!("Bearer {PLACEHOLDER_KEY}").as_str())
    );
}

#[tokio::test]
async fn parallel_tool_call_fragments_by_index() {
    let server = FakeServer::start().await;
    server.push(
        Reply::tool_uses(vec![
            (
                "read_file",
                json!({"file_path": "/a.rs", "deep": {"x": [1, 2, 3]}}),
            ),
            ("grep", json!({"pattern": "unsafe"})),
        ])
        .chunked(5)
        .usage(100, 20, 0, 60),
    );
    let r = openai(&server)
        .complete(
            &ModelRequest::new("gpt-x", 100).user("x"),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    let calls: Vec<_> = r.tool_calls().collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].1, "read_file");
    assert_eq!(
        calls[0].2,
        &json!({"file_path": "/a.rs", "deep": {"x": [1, 2, 3]}})
    );
    assert_eq!(calls[1].1, "grep");
    assert_ne!(calls[0].0, calls[1].0);
    assert_eq!(r.stop_reason, Some(StopReason::ToolUse));
    // prompt_tokens = 160 of which 60 cached.
    assert_eq!(r.usage.input_tokens, 100);
    assert_eq!(r.usage.cache_read_tokens, 60);
    assert_eq!(r.usage.output_tokens, 20);
}

#[tokio::test]
async fn reasoning_content_arrives_as_thinking_deltas() {
    let server = FakeServer::start().await;
    server.push(Reply::thinking("hmm", "answer"));
    let m = openai(&server);
    let req = ModelRequest::new("deepseek", 100).user("x");
    let mut s = m.stream(&req, CancellationToken::new()).await.unwrap();
    let mut thought = String::new();
    let mut text = String::new();
    use futures_util::StreamExt;
    while let Some(e) = s.next().await {
        match e.unwrap() {
            crit_llm::ModelEvent::ThinkingDelta { text: t } => thought.push_str(&t),
            crit_llm::ModelEvent::TextDelta { text: t } => text.push_str(&t),
            _ => {}
        }
    }
    assert_eq!(thought, "hmm");
    assert_eq!(text, "answer");
}

#[tokio::test]
async fn stop_reasons_map() {
    let server = FakeServer::start().await;
    for s in ["end_turn", "max_tokens", "refusal"] {
        server.push(Reply::text("t").stop_reason(s));
    }
    let m = openai(&server);
    for expect in [
        StopReason::EndTurn,
        StopReason::MaxTokens,
        StopReason::Refusal,
    ] {
        let r = m
            .complete(
                &ModelRequest::new("gpt-x", 10).user("x"),
                CancellationToken::new(),
            )
            .await
            .unwrap();
        assert_eq!(r.stop_reason, Some(expect));
    }
}

#[tokio::test]
async fn error_shapes_flat_nested_int_and_string_codes() {
    let cases = [
        // vLLM, older: flat with an integer code.
        (
            400,
            json!({"object":"error","message":"tool_choice auto needs --enable-auto-tool-choice","type":"BadRequestError","param":null,"code":400}),
            "bad",
        ),
        // llama.cpp: nested with an integer code.
        (
            400,
            json!({"error":{"code":400,"message":"Either \"json_schema\" or \"grammar\" can be specified, but not both","type":"invalid_request_error"}}),
            "bad",
        ),
        // OpenAI: nested with a string code.
        (
            401,
            json!({"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}),
            "auth",
        ),
        (
            429,
            json!({"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}),
            "billing",
        ),
        (
            400,
            json!({"error":{"message":"This model's maximum context length is 8192 tokens","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}),
            "context",
        ),
        (
            404,
            json!({"error":{"message":"model 'nope' not found","type":"not_found_error","code":404}}),
            "notfound",
        ),
    ];
    for (status, body, kind) in cases {
        let server = FakeServer::start().await;
        server.push(Reply::http_error(status, body.clone()));
        let err = openai_with(&server, Some("k-1234"), fast_policy(1))
            .complete(
                &ModelRequest::new("m", 10).user("x"),
                CancellationToken::new(),
            )
            .await
            .unwrap_err();
        let ok = match kind {
            "bad" => matches!(err, LlmError::BadRequest { status: 400, .. }),
            "auth" => matches!(err, LlmError::Auth { .. }),
            "billing" => matches!(err, LlmError::Billing { .. }),
            "context" => matches!(err, LlmError::ContextTooLong { .. }),
            _ => matches!(err, LlmError::NotFound { .. }),
        };
        assert!(ok, "{body}: {err:?}");
        assert!(!err.to_string().contains('{'), "message, not JSON: {err}");
    }
}

#[tokio::test]
async fn rate_limit_then_success_and_mid_stream_error() {
    let server = FakeServer::start().await;
    server.push(
        Reply::api_error(429, "requests", "Rate limit reached").with_header("retry-after-ms", "50"),
    );
    server.push(Reply::text("ok"));
    server.push(Reply::stream_error("server_error", "boom"));
    let m = openai(&server);
    let r = m
        .complete(
            &ModelRequest::new("m", 10).user("x"),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(r.text(), "ok");
    let err = m
        .complete(
            &ModelRequest::new("m", 10).user("y"),
            CancellationToken::new(),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Server { .. }), "{err:?}");
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn debug_output_never_shows_the_key() {
    let server = FakeServer::start().await;
    let m = openai_with(&server, Some("sk-openai-hidden-999"), fast_policy(1));
    let shown = format!("{m:?}");
    assert!(!shown.contains("hidden-999"), "{shown}");
    assert!(shown.contains("***"), "{shown}");
}

/// A temperature goes out only when the request sets one, on both wires.
#[test]
fn temperature_is_sent_only_when_set() {
    let mut req = ModelRequest::new("m", 16);
    req.messages = vec![crit_llm::Message::user_text("hi")];
    assert!(
        crit_llm::openai::wire::body(&req)
            .get("temperature")
            .is_none()
    );
    assert!(
        crit_llm::anthropic::wire::body(&req, "m", false)
            .get("temperature")
            .is_none()
    );
    req.temperature = Some(0.0);
    assert_eq!(
        crit_llm::openai::wire::body(&req)["temperature"],
        serde_json::json!(0.0)
    );
    assert_eq!(
        crit_llm::anthropic::wire::body(&req, "m", false)["temperature"],
        serde_json::json!(0.0)
    );
}
