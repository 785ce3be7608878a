//! Fidelity of the OpenAI chat completions and Responses wire formats: the
//! official `openai` Python SDK (3.54.0, installed by `.ci/install-test-deps`)
//! must accept every answer. Without the venv this test skips with a notice, or fails
//! when `CI` is set.

use crate::common;

use common::{Case, case, run_cases};
use crit_testkit::Reply;
use serde_json::json;

fn two_calls() -> Reply {
    Reply::tool_uses(vec![
        ("read_file", json!({"file_path": "a.rs"})),
        ("grep", json!({"pattern": "fn \"main\"", "n": [1, 2]})),
    ])
}

#[test]
#[cfg_attr(
    missing_sdk_venv,
    ignore = "the official SDKs are not installed: run .ci/install-test-deps"
)]
fn openai_sdk_accepts_every_answer() {
    let structured = json!({"verdict": "PASS", "n": 2});
    let cases = vec![
        Case {
            check: |reqs| {
                assert_eq!(reqs[0].path, "/v1/chat/completions");
                assert_eq!(reqs[0].header("authorization"), Some("Bearer sk-test"));
            },
            ..case("text_nonstream", vec![Reply::text("Hello there")])
        },
        Case {
            check: |reqs| {
                assert_eq!(reqs[0].body["stream_options"]["include_usage"], true);
            },
            ..case(
                "text_stream_usage",
                vec![
                    Reply::text("Hello there, streamed")
                        .usage(11, 22, 33, 44)
                        .stop_reason("max_tokens")
                        .chunked(9),
                ],
            )
        },
        case("stream_without_usage", vec![Reply::text("hi")]),
        case(
            "tool_calls_stream",
            vec![two_calls().chunked(11), two_calls()],
        ),
        case(
            "tool_calls_nonstream",
            vec![Reply::tool_use("read_file", json!({"file_path": "a.rs"}))],
        ),
        case(
            "structured_json",
            vec![Reply::json(structured.clone()), Reply::json(structured)],
        ),
        case(
            "http_error",
            vec![Reply::http_error(
                400,
                json!({"error":{"message":"bad","type":"invalid_request_error","param":null,"code":"bad_field"}}),
            )],
        ),
        Case {
            check: |reqs| {
                let statuses: Vec<u16> = reqs.iter().map(|r| r.status).collect();
                assert_eq!(statuses, vec![429, 200]);
            },
            ..case(
                "retry_429",
                vec![
                    Reply::api_error(429, "requests", "Rate limit reached")
                        .with_header("retry-after-ms", "50"),
                    Reply::text("after retry"),
                ],
            )
        },
        case(
            "stream_error",
            vec![Reply::stream_error("overloaded_error", "Overloaded")],
        ),
    ];
    run_cases("openai_sdk.py", cases);
}

#[test]
#[cfg_attr(
    missing_sdk_venv,
    ignore = "the official SDKs are not installed: run .ci/install-test-deps"
)]
fn openai_sdk_accepts_every_responses_api_answer() {
    let cases = vec![
        Case {
            check: |reqs| {
                assert_eq!(reqs[0].path, "/v1/responses");
                assert_eq!(reqs[0].header("authorization"), Some("Bearer sk-test"));
            },
            ..case("text_nonstream", vec![Reply::text("Hello there")])
        },
        case(
            "text_stream",
            vec![
                Reply::text("Hello there, streamed")
                    .usage(11, 22, 33, 44)
                    .chunked(9),
            ],
        ),
        case("tool_calls_stream", vec![two_calls().chunked(11)]),
        case(
            "reasoning_stream",
            vec![Reply::thinking("Let me think.", "Answer.")],
        ),
        case(
            "http_error",
            vec![Reply::api_error(400, "invalid_request_error", "bad")],
        ),
        case(
            "stream_failed",
            vec![Reply::stream_error("server_error", "Overloaded")],
        ),
    ];
    run_cases("openai_responses_sdk.py", cases);
}
