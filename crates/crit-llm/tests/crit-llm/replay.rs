//! Record against the fake server, then replay without it.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use crate::common;

use std::sync::Arc;

use common::*;
use crit_llm::{LlmError, Model, ModelRequest, Recorder, Replay, ToolSpec};
use crit_testkit::{FakeServer, Reply};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn req(text: &str) -> ModelRequest {
    let mut r = ModelRequest::new("opus", 300)
        .system("You review code.")
        .user(text);
    r.tools = vec![ToolSpec {
        name: "Read".into(),
        description: "Read a file".into(),
        input_schema: json!({"type":"object"}),
        strict: false,
    }];
    r
}

#[tokio::test]
async fn record_then_replay_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start().await;
    server.push(
        Reply::thinking("hm", "first answer")
            .then_tool_use("Read", json!({"file_path": "a.rs"}))
            .usage(10, 5, 2, 1),
    );
    server.push(Reply::text("again, differently"));
    server.push(Reply::text("other prompt"));
    let live: Arc<dyn Model> = Arc::new(anthropic(&server));
    let rec = Recorder::new(live, dir.path()).unwrap();
    let c = CancellationToken::new();
    let a1 = rec.complete(&req("review a"), c.clone()).await.unwrap();
    let a2 = rec.complete(&req("review a"), c.clone()).await.unwrap();
    let b = rec.complete(&req("review b"), c.clone()).await.unwrap();
    drop(server);

    let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(files.len(), 3);
    // Readable JSON with the normalized request and response.
    let any = std::fs::read_to_string(files[0].as_ref().unwrap().path()).unwrap();
    let v: serde_json::Value = serde_json::from_str(&any).unwrap();
    assert_eq!(v["crit_cassette"], 1);
    assert_eq!(v["backend"], "anthropic");
    assert!(v["request"]["messages"].is_array());
    assert!(any.contains("\n  "), "pretty-printed");

    let replay = Replay::open(dir.path()).unwrap();
    assert_eq!(
        replay.complete(&req("review a"), c.clone()).await.unwrap(),
        a1
    );
    assert_eq!(
        replay.complete(&req("review a"), c.clone()).await.unwrap(),
        a2
    );
    assert_eq!(
        replay.complete(&req("review b"), c.clone()).await.unwrap(),
        b
    );
    assert_eq!(a1.text(), "first answer");
    assert_eq!(a1.tool_calls().count(), 1);
    assert!(a1.cost.usd > 0.0);
}

#[tokio::test]
async fn a_mismatch_names_the_closest_cassette_and_the_first_difference() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start().await;
    server.push(Reply::text("one"));
    server.push(Reply::text("two"));
    let rec = Recorder::new(Arc::new(anthropic(&server)), dir.path()).unwrap();
    let c = CancellationToken::new();
    rec.complete(&req("review the parser"), c.clone())
        .await
        .unwrap();
    let mut other = req("something else entirely");
    other.system.clear();
    rec.complete(&other, c.clone()).await.unwrap();

    let replay = Replay::open(dir.path()).unwrap();
    let err = replay
        .complete(&req("review the lexer"), c)
        .await
        .unwrap_err();
    let LlmError::Replay { message } = &err else {
        panic!("{err:?}")
    };
    let closest = crit_llm::replay::request_key(&req("review the parser"));
    assert!(message.contains(&format!("{closest}.json")), "{message}");
    assert!(
        message.contains("at $.messages[0].content[0].text: recorded \"review the parser\", requested \"review the lexer\""),
        "{message}"
    );
}

#[tokio::test]
async fn an_empty_or_missing_directory_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    let replay = Replay::open(dir.path()).unwrap();
    let err = replay
        .complete(&req("x"), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("holds no cassettes"), "{err}");
    let err = Replay::open(dir.path().join("nope")).unwrap_err();
    assert!(
        err.to_string()
            .contains("cannot read the cassette directory")
    );
}

#[tokio::test]
async fn cassettes_hold_no_secret_and_still_replay() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start().await;
    let key = "ghp_0123456789abcdefghijABCDEFGHIJ";
    server.push(Reply::text(format!(
        "The diff hard-codes {key}; rotate it."
    )));
    let live: Arc<dyn Model> = Arc::new(anthropic(&server));
    let rec = Recorder::new(live, dir.path()).unwrap();
    let c = CancellationToken::new();
    let asked = req(&format!("review: TOKEN={key}\nDB_PASSWORD=hunter2hunter2"));
    rec.complete(&asked, c.clone()).await.unwrap();
    drop(server);
    let file = std::fs::read_dir(dir.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let text = std::fs::read_to_string(file.path()).unwrap();
    assert!(!text.contains(key) && !text.contains("hunter2"), "{text}");
    assert!(text.contains("[REDACTED:github-token]"), "{text}");
    let replay = Replay::open(dir.path()).unwrap();
    let again = replay.complete(&asked, c).await.unwrap();
    assert_eq!(
        again.text(),
        "The diff hard-codes [REDACTED:github-token]; rotate it."
    );
}

/// `--record DIR` may be a checkout's directory: a symlink planted under a
/// cassette's name is neither followed nor replaced.
#[tokio::test]
async fn recording_never_writes_through_a_planted_symlink() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim");
    std::fs::write(&victim, "keep me").unwrap();
    let server = FakeServer::start().await;
    server.push(Reply::text("first"));
    server.push(Reply::text("second"));
    let live: Arc<dyn Model> = Arc::new(anthropic(&server));
    let c = CancellationToken::new();
    // Learn the cassette's name from a recording elsewhere.
    let rec = Recorder::new(live.clone(), scratch.path()).unwrap();
    rec.complete(&req("review a"), c.clone()).await.unwrap();
    let name = std::fs::read_dir(scratch.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .file_name();
    let name = name.to_str().unwrap().to_string();
    // A dangling link under the cassette's name, and one to the victim under
    // the temp name a plain write-then-rename would use.
    let planted = outside.path().join("planted");
    std::os::unix::fs::symlink(&planted, dir.path().join(&name)).unwrap();
    std::os::unix::fs::symlink(&victim, dir.path().join(format!("{name}.tmp"))).unwrap();

    let rec = Recorder::new(live, dir.path()).unwrap();
    rec.complete(&req("review a"), c).await.unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    assert!(!planted.exists());
    assert!(
        std::fs::symlink_metadata(dir.path().join(&name))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let written = dir.path().join(name.replace(".json", "-2.json"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(written).unwrap()).unwrap();
    assert_eq!(v["crit_cassette"], 1);
}
