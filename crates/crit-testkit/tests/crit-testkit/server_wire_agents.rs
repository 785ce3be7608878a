//! The wire formats of the coding agents' own APIs, seen through plain
//! reqwest: OpenAI's Responses API (Codex CLI) and Google's Gemini API
//! (Gemini CLI). The real CLIs run against them in the crit binary's tests;
//! the official `openai` SDK reads the Responses answers in `sdk_openai`.

// Test helpers outside #[test] fns may unwrap too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crit_testkit::{FakeServer, Reply, openai_tool_id};
use serde_json::{Value, json};

async fn post(server: &FakeServer, path: &str, body: Value) -> (u16, String) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let resp = reqwest::Client::new()
        .post(format!("{}{path}", server.url()))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    (status, resp.text().await.unwrap())
}

/// `event: X\ndata: {…}\n\n` events, `data.type` naming each.
fn named_events(body: &str) -> Vec<Value> {
    assert!(body.ends_with("\n\n"), "{body}");
    body.trim_end_matches("\n\n")
        .split("\n\n")
        .map(|ev| {
            let (name, data) = ev.split_once('\n').expect("two lines per event");
            let name = name.strip_prefix("event: ").expect("event line");
            let data: Value =
                serde_json::from_str(data.strip_prefix("data: ").expect("data line")).unwrap();
            assert_eq!(data["type"], name, "data.type names the event");
            data
        })
        .collect()
}

#[tokio::test]
async fn responses_stream_sends_each_item_then_the_completed_response() {
    let server = FakeServer::start().await;
    server.push(
        Reply::text("Let me look.")
            .then_tool_use("exec_command", json!({"cmd": "ls"}))
            .then_tool_use("mcp__crit/review_code", json!({"scope": "uncommitted"})),
    );
    let (status, body) = post(
        &server,
        "/v1/responses",
        json!({"model": "gpt-x", "stream": true, "input": "hi", "tools": []}),
    )
    .await;
    assert_eq!(status, 200);
    let events = named_events(&body);
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(&types[..2], ["response.created", "response.in_progress"]);
    assert_eq!(types.last(), Some(&"response.completed"));
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e["sequence_number"], i, "{e}");
    }
    let done: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "response.output_item.done")
        .map(|e| &e["item"])
        .collect();
    let completed = &events.last().unwrap()["response"];
    assert_eq!(completed["status"], "completed");
    assert_eq!(completed["output"].as_array().unwrap().len(), 3);
    for (i, item) in done.iter().enumerate() {
        assert_eq!(&&completed["output"][i], item);
    }
    assert_eq!(done[0]["content"][0]["text"], "Let me look.");
    let text: String = events
        .iter()
        .filter(|e| e["type"] == "response.output_text.delta")
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert_eq!(text, "Let me look.");
    assert_eq!(done[1]["type"], "function_call");
    assert_eq!(done[1]["name"], "exec_command");
    assert_eq!(done[1]["arguments"], r#"{"cmd":"ls"}"#);
    assert_eq!(done[1]["call_id"], openai_tool_id(0, 0));
    assert!(done[1].get("namespace").is_none());
    // A namespaced tool: its own name, the namespace beside it.
    assert_eq!(done[2]["name"], "review_code");
    assert_eq!(done[2]["namespace"], "mcp__crit");
    assert_eq!(done[2]["call_id"], openai_tool_id(0, 1));
    let usage = &completed["usage"];
    assert_eq!(usage["input_tokens"], 25);
    assert_eq!(usage["output_tokens"], 10);
    assert_eq!(usage["total_tokens"], 35);
}

#[tokio::test]
async fn responses_errors_and_an_exhausted_script() {
    let server = FakeServer::start().await;
    server.push(Reply::api_error(429, "rate_limit_error", "slow down"));
    server.push(Reply::stream_error("server_error", "Overloaded"));
    let req = json!({"model": "gpt-x", "stream": true, "input": "hi"});
    let (status, body) = post(&server, "/v1/responses", req.clone()).await;
    assert_eq!(status, 429);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["error"]["type"], "rate_limit_error");
    let (status, body) = post(&server, "/v1/responses", req.clone()).await;
    assert_eq!(status, 200);
    let last = named_events(&body).pop().unwrap();
    assert_eq!(last["type"], "response.failed");
    assert_eq!(last["response"]["status"], "failed");
    assert_eq!(last["response"]["error"]["message"], "Overloaded");
    let (status, body) = post(&server, "/v1/responses", req).await;
    assert_eq!(status, 500);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["error"]["code"], "testkit_script_exhausted");
}

/// Gemini's `data: {…}\r\n\r\n` pieces.
fn gemini_pieces(body: &str) -> Vec<Value> {
    assert!(body.ends_with("\r\n\r\n"), "{body:?}");
    body.trim_end_matches("\r\n\r\n")
        .split("\r\n\r\n")
        .map(|p| serde_json::from_str(p.strip_prefix("data: ").expect("data line")).unwrap())
        .collect()
}

#[tokio::test]
async fn gemini_streams_pieces_with_the_finish_reason_on_the_last() {
    let server = FakeServer::start().await;
    server.push(
        Reply::thinking("Hmm.", "Fixing the line now.")
            .then_tool_use("run_shell_command", json!({"command": "ls"}))
            .usage(30, 12, 0, 8),
    );
    let (status, body) = post(
        &server,
        "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
        json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}),
    )
    .await;
    assert_eq!(status, 200);
    let pieces = gemini_pieces(&body);
    assert!(pieces.len() > 3, "{pieces:?}");
    let parts: Vec<&Value> = pieces
        .iter()
        .flat_map(|p| p["candidates"][0]["content"]["parts"].as_array().unwrap())
        .collect();
    let said = |thought: bool| -> String {
        parts
            .iter()
            .filter(|p| p.get("text").is_some() && p.get("thought").is_some() == thought)
            .map(|p| p["text"].as_str().unwrap())
            .collect()
    };
    assert_eq!(said(true), "Hmm.");
    assert_eq!(said(false), "Fixing the line now.");
    let call = parts
        .iter()
        .find(|p| p.get("functionCall").is_some())
        .unwrap();
    assert_eq!(
        call["functionCall"],
        json!({"name": "run_shell_command", "args": {"command": "ls"}})
    );
    for (i, p) in pieces.iter().enumerate() {
        assert_eq!(p["candidates"][0]["content"]["role"], "model");
        assert_eq!(p["modelVersion"], "gemini-2.5-pro");
        let finish = &p["candidates"][0]["finishReason"];
        if i + 1 == pieces.len() {
            assert_eq!(finish, "STOP");
        } else {
            assert!(finish.is_null(), "{p}");
        }
        assert_eq!(p["usageMetadata"]["promptTokenCount"], 38);
        assert_eq!(p["usageMetadata"]["cachedContentTokenCount"], 8);
    }
}

#[tokio::test]
async fn gemini_answers_whole_and_errors_in_google_s_shape() {
    let server = FakeServer::start().await;
    server.push(Reply::json(json!({"complexity_score": 10})).stop_reason("max_tokens"));
    server.push(Reply::api_error(429, "rate_limit_error", "Quota exceeded"));
    let path = "/v1beta/models/gemini-flash:generateContent";
    let req = json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]});
    let (status, body) = post(&server, path, req.clone()).await;
    assert_eq!(status, 200);
    let v: Value = serde_json::from_str(&body).unwrap();
    let c = &v["candidates"][0];
    assert_eq!(c["finishReason"], "MAX_TOKENS");
    let text = c["content"]["parts"][0]["text"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap(),
        json!({"complexity_score": 10})
    );
    assert_eq!(v["usageMetadata"]["totalTokenCount"], 35);
    let (status, body) = post(&server, path, req.clone()).await;
    assert_eq!(status, 429);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        v,
        json!({"error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED"}})
    );
    let (status, body) = post(&server, path, req).await;
    assert_eq!(status, 500);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["error"]["status"], "INTERNAL");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no scripted step left")
    );
    let recorded = server.model_requests();
    assert_eq!(recorded.len(), 3);
    assert!(recorded.iter().all(|r| r.path == path));
}
