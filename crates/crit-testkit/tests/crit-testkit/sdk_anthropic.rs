//! Fidelity of the Anthropic wire format: the official `anthropic` Python SDK
//! (2.12.0, installed by `.ci/install-test-deps`) must accept every answer.
//! Without the venv this test skips with a notice, or fails when `CI` is set.

use crate::common;

use std::time::Duration;

use common::{Case, case, run_cases};
use crit_testkit::Reply;
use serde_json::json;

#[test]
#[cfg_attr(
    missing_sdk_venv,
    ignore = "the official SDKs are not installed: run .ci/install-test-deps"
)]
fn anthropic_sdk_accepts_every_answer() {
    let structured = json!({"verdict": "PASS", "n": 2});
    let cases = vec![
        Case {
            check: |reqs| {
                assert_eq!(reqs.len(), 1);
                assert_eq!(reqs[0].path, "/v1/messages");
                assert!(!reqs[0].is_stream());
                assert_eq!(reqs[0].api_key(), Some("sk-test"));
                assert_eq!(reqs[0].body["model"], "claude-opus-5-5");
            },
            ..case("text_nonstream", vec![Reply::text("Hello there")])
        },
        Case {
            check: |reqs| assert!(reqs[0].is_stream()),
            // SSE events split across 7-byte writes.
            ..case(
                "text_stream",
                vec![Reply::text("Hello there, streamed").chunked(7)],
            )
        },
        case("raw_stream_events", vec![Reply::text("abc")]),
        case(
            "tool_use_stream",
            vec![
                Reply::tool_uses(vec![
                    ("Read", json!({"file_path": "a.rs"})),
                    ("Grep", json!({"pattern": "fn \"main\"", "n": [1, 2]})),
                ])
                .chunked(5),
            ],
        ),
        case(
            "tool_use_nonstream",
            vec![
                Reply::text("Let me read it.").then_tool_use("Read", json!({"file_path": "a.rs"})),
            ],
        ),
        case(
            "thinking_stream",
            vec![Reply::thinking("Let me think about it.", "Done.")],
        ),
        Case {
            check: |reqs| {
                assert_eq!(
                    reqs[0].body["output_config"]["format"]["type"],
                    "json_schema"
                );
            },
            ..case(
                "structured_json",
                vec![Reply::json(structured.clone()), Reply::json(structured)],
            )
        },
        case("structured_tool", vec![Reply::json(json!({"ok": true}))]),
        case(
            "usage_cache",
            vec![
                Reply::text("x").usage(11, 22, 33, 44),
                Reply::text("y")
                    .usage(11, 22, 33, 44)
                    .stop_reason("max_tokens"),
            ],
        ),
        Case {
            check: |reqs| {
                assert_eq!(reqs.len(), 2);
                assert_eq!(reqs[0].status, 429);
                assert_eq!(reqs[1].header("x-stainless-retry-count"), Some("1"));
                // The SDK honoured `retry-after: 1` (a lower bound, never flaky).
                assert!(reqs[1].received_at - reqs[0].responded_at >= Duration::from_millis(900));
            },
            ..case(
                "retry_429",
                vec![
                    Reply::api_error(429, "rate_limit_error", "slow down")
                        .with_header("retry-after", "1"),
                    Reply::text("after retry"),
                ],
            )
        },
        Case {
            check: |reqs| {
                assert_eq!(
                    reqs.len(),
                    1,
                    "a mid-stream error is not retried by the SDK"
                );
                assert_eq!(reqs[0].status, 200);
            },
            ..case(
                "stream_error",
                vec![Reply::stream_error("overloaded_error", "Overloaded")],
            )
        },
        case(
            "http_error",
            vec![Reply::http_error(
                400,
                json!({"type":"error","error":{"type":"invalid_request_error","message":"bad field"},"request_id":"req_1"}),
            )],
        ),
        Case {
            check: |reqs| {
                assert_eq!(reqs.len(), 1, "x-should-retry: false must stop SDK retries");
                assert_eq!(reqs[0].status, 500);
                assert_eq!(reqs[0].step, None);
            },
            ..case("exhausted", vec![])
        },
        Case {
            check: |reqs| assert_eq!(reqs.len(), 1),
            ..case(
                "dropped",
                vec![
                    Reply::text("a fairly long answer that will be cut off").drop_after_bytes(300),
                ],
            )
        },
    ];
    run_cases("anthropic_sdk.py", cases);
}
