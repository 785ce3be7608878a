//! The fake server on the wire, seen through plain reqwest: event sequences,
//! chunk splitting, drops, stalls, delays, content matching, routing.

// Test helpers outside #[test] fns may unwrap too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use crit_testkit::{FakeServer, Reply, Step, anthropic_tool_id, openai_tool_id};
use futures_util::StreamExt;
use serde_json::{Value, json};

fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder().build().unwrap()
}

async fn post(server: &FakeServer, path: &str, body: Value) -> reqwest::Response {
    client()
        .post(format!("{}{path}", server.url()))
        .header("x-api-key", "sk-test")
        .json(&body)
        .send()
        .await
        .unwrap()
}

fn anthropic_req(stream: bool) -> Value {
    json!({"model":"claude-opus-5-5","max_tokens":100,"stream":stream,
           "messages":[{"role":"user","content":"hi"}]})
}

fn openai_req(stream: bool, include_usage: bool) -> Value {
    let mut v =
        json!({"model":"gpt-x","stream":stream,"messages":[{"role":"user","content":"hi"}]});
    if include_usage {
        v["stream_options"] = json!({"include_usage": true});
    }
    v
}

/// Parses an Anthropic SSE body into (event name, data) pairs, checking the
/// exact `event: X\ndata: {…}\n\n` framing.
fn anthropic_events(body: &str) -> Vec<(String, Value)> {
    assert!(body.ends_with("\n\n"), "body must end with a blank line");
    body.trim_end_matches("\n\n")
        .split("\n\n")
        .map(|ev| {
            let (name, data) = ev.split_once('\n').expect("two lines per event");
            let name = name
                .strip_prefix("event: ")
                .expect("event line")
                .to_string();
            let data: Value =
                serde_json::from_str(data.strip_prefix("data: ").expect("data line")).unwrap();
            assert_eq!(data["type"], name.as_str(), "data.type names the event");
            (name, data)
        })
        .collect()
}

/// Parses an OpenAI SSE body into its `data:` payloads (no `event:` lines).
fn openai_datas(body: &str) -> Vec<String> {
    assert!(body.ends_with("\n\n"));
    body.trim_end_matches("\n\n")
        .split("\n\n")
        .map(|ev| {
            ev.strip_prefix("data: ")
                .expect("only data lines")
                .to_string()
        })
        .collect()
}

#[tokio::test]
async fn anthropic_text_stream_event_sequence() {
    let server = FakeServer::start().await;
    server.push(Reply::text("Hello there, world").usage(5, 7, 3, 2));
    let resp = post(&server, "/v1/messages", anthropic_req(true)).await;
    assert_eq!(resp.status(), 200);
    assert!(
        resp.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let events = anthropic_events(&resp.text().await.unwrap());
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "message_start",
            "content_block_start",
            "ping",
            "content_block_delta",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "ping",
            "message_delta",
            "message_stop"
        ]
    );
    let start = &events[0].1["message"];
    assert_eq!(start["usage"]["input_tokens"], 5);
    assert_eq!(start["usage"]["cache_creation_input_tokens"], 3);
    assert_eq!(start["usage"]["cache_read_input_tokens"], 2);
    assert_eq!(start["content"], json!([]));
    assert_eq!(start["stop_reason"], Value::Null);
    let text: String = events
        .iter()
        .filter(|(n, _)| n == "content_block_delta")
        .map(|(_, d)| d["delta"]["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(text, "Hello there, world");
    let delta = &events[8].1;
    assert_eq!(delta["delta"]["stop_reason"], "end_turn");
    assert_eq!(delta["usage"]["output_tokens"], 7);
    assert_eq!(delta["usage"]["input_tokens"], 5, "cumulative usage");
}

#[tokio::test]
async fn anthropic_tool_input_arrives_as_json_fragments() {
    let server = FakeServer::start().await;
    let input = json!({"file_path": "src/main.rs", "limit": 20});
    server.push(Reply::text("Reading.").then_tool_use("Read", input.clone()));
    let body = post(&server, "/v1/messages", anthropic_req(true))
        .await
        .text()
        .await
        .unwrap();
    let events = anthropic_events(&body);
    let start = events
        .iter()
        .find(|(n, d)| n == "content_block_start" && d["index"] == 1)
        .unwrap();
    assert_eq!(
        start.1["content_block"],
        json!({"type":"tool_use","id":anthropic_tool_id(0, 1),"name":"Read","input":{}})
    );
    let fragments: Vec<&str> = events
        .iter()
        .filter(|(n, d)| n == "content_block_delta" && d["index"] == 1)
        .map(|(_, d)| {
            assert_eq!(d["delta"]["type"], "input_json_delta");
            d["delta"]["partial_json"].as_str().unwrap()
        })
        .collect();
    assert_eq!(
        fragments[0], "",
        "the first fragment is empty, as the API often sends"
    );
    assert!(fragments.len() >= 3);
    assert_eq!(
        serde_json::from_str::<Value>(&fragments.concat()).unwrap(),
        input
    );
    let delta = events.iter().find(|(n, _)| n == "message_delta").unwrap();
    assert_eq!(delta.1["delta"]["stop_reason"], "tool_use");
}

#[tokio::test]
async fn anthropic_non_streaming_message() {
    let server = FakeServer::start().await;
    server.push(Reply::tool_use("Read", json!({"file_path": "a"})).usage(1, 2, 3, 4));
    let resp = post(&server, "/v1/messages", anthropic_req(false)).await;
    assert!(
        resp.headers()["request-id"]
            .to_str()
            .unwrap()
            .starts_with("req_")
    );
    let v: Value = resp.json().await.unwrap();
    assert_eq!(v["type"], "message");
    assert_eq!(v["id"], "msg_testkit_0");
    assert_eq!(v["stop_reason"], "tool_use");
    assert_eq!(
        v["content"],
        json!([{"type":"tool_use","id":"toolu_testkit_0_0","name":"Read","input":{"file_path":"a"}}])
    );
    assert_eq!(v["usage"]["cache_creation_input_tokens"], 3);
    assert_eq!(v["usage"]["cache_read_input_tokens"], 4);
}

#[tokio::test]
async fn openai_stream_tool_call_fragments_and_usage_chunk() {
    let server = FakeServer::start().await;
    let a = json!({"file_path": "x.rs"});
    let b = json!({"pattern": "todo"});
    server.push(
        Reply::tool_uses(vec![("read_file", a.clone()), ("grep", b.clone())]).usage(10, 4, 1, 6),
    );
    server.push(Reply::text("no usage here"));
    let body = post(&server, "/v1/chat/completions", openai_req(true, true))
        .await
        .text()
        .await
        .unwrap();
    assert!(!body.contains("event:"));
    let datas = openai_datas(&body);
    assert_eq!(datas.last().unwrap(), "[DONE]");
    let chunks: Vec<Value> = datas[..datas.len() - 1]
        .iter()
        .map(|d| serde_json::from_str(d).unwrap())
        .collect();
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
    let mut args = [String::new(), String::new()];
    let mut firsts = 0;
    for c in &chunks {
        assert_eq!(c["object"], "chat.completion.chunk");
        let Some(calls) = c["choices"][0]["delta"]["tool_calls"].as_array() else {
            continue;
        };
        for call in calls {
            let i = call["index"].as_u64().unwrap() as usize;
            if call.get("id").is_some() {
                firsts += 1;
                assert_eq!(call["id"], openai_tool_id(0, i));
                assert_eq!(call["type"], "function");
                assert!(call["function"]["name"].is_string());
            } else {
                assert!(
                    call["function"].get("name").is_none(),
                    "name only on the first fragment"
                );
            }
            args[i].push_str(call["function"]["arguments"].as_str().unwrap());
        }
    }
    assert_eq!(firsts, 2);
    assert_eq!(serde_json::from_str::<Value>(&args[0]).unwrap(), a);
    assert_eq!(serde_json::from_str::<Value>(&args[1]).unwrap(), b);
    let finish = &chunks[chunks.len() - 2];
    assert_eq!(finish["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(
        finish["usage"],
        Value::Null,
        "usage: null on every other chunk"
    );
    let usage = &chunks[chunks.len() - 1];
    assert_eq!(usage["choices"], json!([]));
    assert_eq!(usage["usage"]["prompt_tokens"], 17);
    assert_eq!(usage["usage"]["completion_tokens"], 4);
    assert_eq!(usage["usage"]["prompt_tokens_details"]["cached_tokens"], 6);

    // Without include_usage: no usage chunk and no `usage` keys at all.
    let body = post(&server, "/v1/chat/completions", openai_req(true, false))
        .await
        .text()
        .await
        .unwrap();
    assert!(!body.contains("usage"));
    assert!(body.ends_with("data: [DONE]\n\n"));
}

#[tokio::test]
async fn openai_non_streaming_and_finish_reason_mapping() {
    let server = FakeServer::start().await;
    server.push(Reply::text("cut").stop_reason("max_tokens"));
    server.push(Reply::text("no").stop_reason("refusal"));
    for want in ["length", "content_filter"] {
        let v: Value = post(&server, "/v1/chat/completions", openai_req(false, false))
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(v["object"], "chat.completion");
        assert_eq!(v["choices"][0]["finish_reason"], want);
        assert!(v["usage"]["prompt_tokens_details"]["cached_tokens"].is_u64());
    }
}

#[tokio::test]
async fn structured_output_tool_is_used_when_offered() {
    let server = FakeServer::start().await;
    server.push(Reply::json(json!({"ok": true})));
    server.push(Reply::json(json!({"ok": true})));
    let mut req = anthropic_req(false);
    req["tools"] = json!([{"name":"StructuredOutput","input_schema":{"type":"object"}}]);
    let v: Value = post(&server, "/v1/messages", req)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(v["content"][0]["name"], "StructuredOutput");
    assert_eq!(v["content"][0]["input"], json!({"ok": true}));
    let mut req = openai_req(false, false);
    req["tools"] =
        json!([{"type":"function","function":{"name":"StructuredOutput","parameters":{}}}]);
    let v: Value = post(&server, "/v1/chat/completions", req)
        .await
        .json()
        .await
        .unwrap();
    let call = &v["choices"][0]["message"]["tool_calls"][0];
    assert_eq!(call["function"]["name"], "StructuredOutput");
    assert_eq!(call["function"]["arguments"], "{\"ok\":true}");
}

#[tokio::test]
async fn stream_errors_in_both_formats() {
    let server = FakeServer::start().await;
    for _ in 0..3 {
        server.push(Reply::stream_error("overloaded_error", "Overloaded"));
    }
    let body = post(&server, "/v1/messages", anthropic_req(true))
        .await
        .text()
        .await
        .unwrap();
    let events = anthropic_events(&body);
    let (name, data) = events.last().unwrap();
    assert_eq!(name, "error");
    assert_eq!(
        data["error"],
        json!({"type":"overloaded_error","message":"Overloaded"})
    );
    assert!(
        events.iter().any(|(n, _)| n == "content_block_delta"),
        "some events come first"
    );

    let resp = post(&server, "/v1/chat/completions", openai_req(true, false)).await;
    assert_eq!(resp.status(), 200);
    let datas = openai_datas(&resp.text().await.unwrap());
    let last: Value = serde_json::from_str(datas.last().unwrap()).unwrap();
    assert_eq!(last["error"]["type"], "overloaded_error");
    assert!(!datas.iter().any(|d| d == "[DONE]"));

    // A non-streaming request gets the equivalent HTTP error.
    let resp = post(&server, "/v1/messages", anthropic_req(false)).await;
    assert_eq!(resp.status(), 529);
}

#[tokio::test]
async fn errors_carry_status_headers_and_body() {
    let server = FakeServer::start().await;
    server.push(
        Reply::api_error(429, "rate_limit_error", "slow")
            .with_header("retry-after", "2")
            .with_header("x-should-retry", "true"),
    );
    server.push(Reply::http_error(418, json!({"custom": 1})).with_header("retry-after-ms", "5"));
    let resp = post(&server, "/v1/messages", anthropic_req(true)).await;
    assert_eq!(resp.status(), 429);
    assert_eq!(resp.headers()["retry-after"], "2");
    assert!(
        resp.headers()
            .contains_key("anthropic-ratelimit-tokens-reset")
    );
    assert_eq!(resp.headers()["x-should-retry"], "true");
    let v: Value = resp.json().await.unwrap();
    assert_eq!(v["type"], "error");
    assert_eq!(
        v["error"],
        json!({"type":"rate_limit_error","message":"slow"})
    );
    let resp = post(&server, "/v1/chat/completions", openai_req(false, false)).await;
    assert_eq!(resp.status(), 418);
    assert_eq!(resp.headers()["retry-after-ms"], "5");
    assert_eq!(resp.json::<Value>().await.unwrap(), json!({"custom": 1}));
}

#[tokio::test]
async fn chunked_splits_the_body_into_small_writes() {
    let server = FakeServer::start().await;
    server.push(Reply::text("split me into many small pieces please").chunked(16));
    server.push(Reply::text("split me into many small pieces please"));
    let mut frames = Vec::new();
    let mut stream = post(&server, "/v1/messages", anthropic_req(true))
        .await
        .bytes_stream();
    while let Some(frame) = stream.next().await {
        frames.push(frame.unwrap());
    }
    let whole: Vec<u8> = frames.concat();
    assert!(
        frames.iter().all(|f| f.len() <= 16),
        "no frame exceeds the chunk size"
    );
    assert!(frames.len() >= whole.len() / 16);
    let chunked = String::from_utf8(whole).unwrap();
    let plain = post(&server, "/v1/messages", anthropic_req(true))
        .await
        .text()
        .await
        .unwrap();
    // Same bytes apart from the per-step message id.
    assert_eq!(chunked.replace("msg_testkit_0", "msg_testkit_1"), plain);
}

#[tokio::test]
async fn drop_after_bytes_cuts_the_connection() {
    let server = FakeServer::start().await;
    server.push(Reply::text("a long enough answer to be cut").drop_after_bytes(120));
    server.push(Reply::text("a long enough answer to be cut").drop_after_bytes(40));
    let mut stream = post(&server, "/v1/messages", anthropic_req(true))
        .await
        .bytes_stream();
    let mut got = 0;
    let mut failed = false;
    while let Some(frame) = stream.next().await {
        match frame {
            Ok(b) => got += b.len(),
            Err(_) => {
                failed = true;
                break;
            }
        }
    }
    assert_eq!(got, 120);
    assert!(failed, "the body must end in an error, not a clean end");

    // Non-streaming: content-length announces more than arrives.
    let resp = post(&server, "/v1/messages", anthropic_req(false)).await;
    let announced: usize = resp.headers()["content-length"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(announced > 40);
    assert!(resp.bytes().await.is_err());
}

#[tokio::test]
async fn stall_after_bytes_goes_silent_then_finishes() {
    let server = FakeServer::start().await;
    server.push(
        Reply::text("stall in the middle of this")
            .stall_after_bytes(50, Duration::from_millis(400)),
    );
    let mut stream = post(&server, "/v1/messages", anthropic_req(true))
        .await
        .bytes_stream();
    let mut frames = Vec::new();
    while let Some(frame) = stream.next().await {
        frames.push((Instant::now(), frame.unwrap()));
    }
    let mut sent = 0;
    let mut gap = None;
    for pair in frames.windows(2) {
        sent += pair[0].1.len();
        if sent == 50 {
            gap = Some(pair[1].0 - pair[0].0);
        }
    }
    // Exactly 50 bytes came before the silence, which lasted (at least) the stall.
    let gap = gap.expect("a frame boundary at byte 50");
    assert!(gap >= Duration::from_millis(350), "gap {gap:?}");
    let body: Vec<u8> = frames.into_iter().flat_map(|(_, f)| f.to_vec()).collect();
    let text = String::from_utf8(body).unwrap();
    assert!(text.ends_with("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"));
}

#[tokio::test]
async fn delay_holds_back_the_response_head() {
    let server = FakeServer::start().await;
    server.push(Reply::text("late").delay(Duration::from_millis(200)));
    let sent = Instant::now();
    let resp = post(&server, "/v1/messages", anthropic_req(false)).await;
    assert!(sent.elapsed() >= Duration::from_millis(200));
    assert_eq!(resp.status(), 200);
    let r = &server.requests()[0];
    assert!(r.responded_at - r.received_at >= Duration::from_millis(200));
}

#[tokio::test]
async fn content_matched_steps_serve_concurrent_requests_in_any_order() {
    let server = FakeServer::start().await;
    server.push(Step::reply(Reply::text("orchestrator")));
    server.push(
        Step::when_contains("agent-A")
            .reply(Reply::text("from A").delay(Duration::from_millis(150))),
    );
    server.push(
        Step::when_contains("agent-B")
            .reply(Reply::text("from B").delay(Duration::from_millis(150))),
    );
    server.push(Step::reply(Reply::text("final")));
    let ask = |who: &'static str| {
        let server = &server;
        async move {
            let mut req = anthropic_req(false);
            req["system"] = json!(format!("You are {who}"));
            let v: Value = post(server, "/v1/messages", req)
                .await
                .json()
                .await
                .unwrap();
            v["content"][0]["text"].as_str().unwrap().to_string()
        }
    };
    assert_eq!(ask("the orchestrator").await, "orchestrator");
    // B first, A second, at the same time.
    let (b, a) = tokio::join!(ask("agent-B"), ask("agent-A"));
    assert_eq!((a.as_str(), b.as_str()), ("from A", "from B"));
    assert_eq!(ask("the orchestrator").await, "final");
    assert_eq!(server.remaining_steps(), 0);
    let reqs = server.requests();
    let by_step = |s| reqs.iter().find(|r| r.step == Some(s)).unwrap();
    assert!(
        by_step(1).overlaps(by_step(2)),
        "sub-agent requests were in flight together"
    );
    assert!(!by_step(0).overlaps(by_step(3)));
}

#[tokio::test]
async fn head_query_strings_count_tokens_and_unknown_paths() {
    let server = FakeServer::start().await;
    server.push(Reply::text("one"));
    let c = client();
    let head = c
        .head(format!("{}/api/hello", server.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(head.status(), 200);
    let count: Value = post(&server, "/v1/messages/count_tokens", anthropic_req(false))
        .await
        .json()
        .await
        .unwrap();
    assert!(count["input_tokens"].as_u64().unwrap() > 0);
    let resp = post(&server, "/v1/messages?beta=true", anthropic_req(false)).await;
    assert_eq!(resp.status(), 200);
    let missing = post(&server, "/v1/models", json!({})).await;
    assert_eq!(missing.status(), 404);
    let not_json = c
        .post(format!("{}/v1/messages", server.url()))
        .body("not json")
        .send()
        .await
        .unwrap();
    assert_eq!(not_json.status(), 400);

    let reqs = server.requests();
    assert_eq!(reqs.len(), 5);
    assert_eq!(reqs[0].method, "HEAD");
    assert_eq!(reqs[2].path, "/v1/messages");
    assert_eq!(reqs[2].query.as_deref(), Some("beta=true"));
    assert_eq!(reqs[2].step, Some(0));
    assert_eq!(reqs[2].header("X-API-KEY"), Some("sk-test"));
    assert_eq!(reqs[4].body, json!("not json"));
    assert_eq!(server.model_requests().len(), 2);
}

#[tokio::test]
async fn exhausted_script_answers_a_loud_non_retryable_500() {
    let server = FakeServer::start().await;
    let resp = post(&server, "/v1/messages", anthropic_req(true)).await;
    assert_eq!(resp.status(), 500);
    assert_eq!(resp.headers()["x-should-retry"], "false");
    let v: Value = resp.json().await.unwrap();
    assert_eq!(v["error"]["type"], "api_error");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no scripted step left")
    );
    let v: Value = post(&server, "/v1/chat/completions", openai_req(false, false))
        .await
        .json()
        .await
        .unwrap();
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no scripted step left")
    );
}

#[test]
fn serves_blocking_callers_over_raw_http() {
    use std::io::{Read, Write};
    let server = FakeServer::start_blocking();
    server.push(Reply::text("hi").chunked(10));
    let body = anthropic_req(true).to_string();
    let mut tcp = std::net::TcpStream::connect(server.addr()).unwrap();
    write!(
        tcp,
        "POST /v1/messages?beta=true HTTP/1.1\r\nhost: x\r\nauthorization: Bearer tok\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = String::new();
    tcp.read_to_string(&mut raw).unwrap();
    assert!(raw.starts_with("HTTP/1.1 200 OK\r\n"));
    assert!(
        raw.to_ascii_lowercase()
            .contains("transfer-encoding: chunked")
    );
    assert!(
        raw.contains("\r\nA\r\nevent: mes\r\nA\r\nsage_start"),
        "10-byte chunks on the wire: {raw}"
    );
    assert!(raw.ends_with("\r\n0\r\n\r\n"));
    assert_eq!(server.requests()[0].api_key(), Some("tok"));
}

#[tokio::test]
async fn thinking_in_both_formats() {
    let server = FakeServer::start().await;
    server.push(Reply::thinking("hmm, let me see", "answer"));
    server.push(Reply::thinking("hmm, let me see", "answer"));
    server.push(Reply::thinking("hmm", "answer"));
    let body = post(&server, "/v1/messages", anthropic_req(true))
        .await
        .text()
        .await
        .unwrap();
    let events = anthropic_events(&body);
    assert_eq!(
        events[1].1["content_block"],
        json!({"type":"thinking","thinking":""})
    );
    let deltas: Vec<&Value> = events
        .iter()
        .filter(|(n, d)| n == "content_block_delta" && d["index"] == 0)
        .map(|(_, d)| &d["delta"])
        .collect();
    let thought: String = deltas
        .iter()
        .filter(|d| d["type"] == "thinking_delta")
        .map(|d| d["thinking"].as_str().unwrap())
        .collect();
    assert_eq!(thought, "hmm, let me see");
    assert_eq!(deltas.last().unwrap()["type"], "signature_delta");

    let body = post(&server, "/v1/chat/completions", openai_req(true, false))
        .await
        .text()
        .await
        .unwrap();
    let reasoning: String = openai_datas(&body)
        .iter()
        .filter(|d| *d != "[DONE]")
        .filter_map(|d| {
            let v: Value = serde_json::from_str(d).unwrap();
            v["choices"][0]["delta"]["reasoning_content"]
                .as_str()
                .map(str::to_string)
        })
        .collect();
    assert_eq!(reasoning, "hmm, let me see");
    let v: Value = post(&server, "/v1/chat/completions", openai_req(false, false))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(v["choices"][0]["message"]["reasoning_content"], "hmm");
    assert_eq!(v["choices"][0]["message"]["content"], "answer");
}
