//! Retries, timeouts, deadlines and cancellation, end to end over HTTP.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use crate::common;

use std::time::{Duration, Instant};

use common::*;
use crit_llm::{LlmError, Model, ModelRequest, RetryPolicy, Timeouts};
use crit_testkit::{FakeServer, Reply};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn req() -> ModelRequest {
    ModelRequest::new("opus", 256).user("hello")
}

/// Time between the end of one answer and the arrival of the next request.
fn gap(server: &FakeServer, i: usize) -> Duration {
    let r = server.requests();
    r[i + 1].received_at.duration_since(r[i].responded_at)
}

#[tokio::test]
async fn retry_after_seconds_is_honoured_exactly() {
    let server = FakeServer::start().await;
    server.push(
        Reply::api_error(429, "rate_limit_error", "slow down").with_header("retry-after", "1"),
    );
    server.push(Reply::text("ok"));
    let m = anthropic(&server);
    let r = m.complete(&req(), CancellationToken::new()).await.unwrap();
    assert_eq!(r.text(), "ok");
    assert_eq!(server.requests().len(), 2);
    assert!(
        gap(&server, 0) >= Duration::from_secs(1),
        "{:?}",
        gap(&server, 0)
    );
}

#[tokio::test]
async fn retry_after_ms_wins_over_retry_after() {
    let server = FakeServer::start().await;
    server.push(
        Reply::api_error(529, "overloaded_error", "Overloaded")
            .with_header("retry-after-ms", "300")
            .with_header("retry-after", "30"),
    );
    server.push(Reply::text("ok"));
    let started = Instant::now();
    let r = anthropic(&server)
        .complete(&req(), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(r.text(), "ok");
    assert_eq!(server.requests().len(), 2);
    assert!(gap(&server, 0) >= Duration::from_millis(300));
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[tokio::test]
async fn x_should_retry_false_stops_at_once() {
    let server = FakeServer::start().await;
    server.push(
        Reply::api_error(529, "overloaded_error", "Overloaded")
            .with_header("x-should-retry", "false"),
    );
    server.push(Reply::text("never"));
    let err = anthropic(&server)
        .complete(&req(), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(
        matches!(err, LlmError::Overloaded { status: 529, .. }),
        "{err:?}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn client_errors_are_never_retried() {
    for (status, kind) in [
        (400, "invalid_request_error"),
        (401, "authentication_error"),
        (403, "permission_error"),
        (404, "not_found_error"),
        (413, "request_too_large"),
    ] {
        let server = FakeServer::start().await;
        // Even a server that says "retry" does not get one.
        server.push(Reply::api_error(status, kind, "no").with_header("x-should-retry", "true"));
        server.push(Reply::text("never"));
        let err = anthropic(&server)
            .complete(&req(), CancellationToken::new())
            .await
            .unwrap_err();
        assert!(!err.is_retryable(), "{status}: {err:?}");
        assert_eq!(server.requests().len(), 1, "{status}");
        let ok = match status {
            400 => matches!(err, LlmError::BadRequest { status: 400, .. }),
            401 => matches!(err, LlmError::Auth { status: 401, .. }),
            403 => matches!(err, LlmError::Forbidden { .. }),
            404 => matches!(err, LlmError::NotFound { .. }),
            _ => matches!(err, LlmError::TooLarge { .. }),
        };
        assert!(ok, "{status}: {err:?}");
    }
}

#[tokio::test]
async fn rate_limit_overload_and_server_errors_are_retried() {
    let server = FakeServer::start().await;
    server.push(Reply::api_error(429, "rate_limit_error", "slow"));
    server.push(Reply::api_error(529, "overloaded_error", "busy"));
    server.push(Reply::api_error(500, "api_error", "oops"));
    server.push(Reply::text("finally"));
    let m = anthropic_with(&server, fast_policy(4), timeouts());
    let r = m.complete(&req(), CancellationToken::new()).await.unwrap();
    assert_eq!(r.text(), "finally");
    assert_eq!(server.requests().len(), 4);
}

#[tokio::test]
async fn attempts_are_capped_by_the_policy() {
    let server = FakeServer::start().await;
    for _ in 0..5 {
        server.push(Reply::api_error(500, "api_error", "oops"));
    }
    let err = anthropic_with(&server, fast_policy(3), timeouts())
        .complete(&req(), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(
        matches!(err, LlmError::Server { status: 500, .. }),
        "{err:?}"
    );
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn stall_timeout_fires() {
    let server = FakeServer::start().await;
    server.push(Reply::text("slow").stall_after_bytes(40, Duration::from_secs(5)));
    let t = Timeouts {
        stall: Duration::from_millis(300),
        ..timeouts()
    };
    let started = Instant::now();
    let err = anthropic_with(&server, RetryPolicy::none(), t)
        .complete(&req(), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Stalled { .. }), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(4));
}

#[tokio::test]
async fn stall_before_content_is_retried() {
    let server = FakeServer::start().await;
    server.push(Reply::text("slow").stall_after_bytes(40, Duration::from_secs(5)));
    server.push(Reply::text("fast"));
    let t = Timeouts {
        stall: Duration::from_millis(300),
        ..timeouts()
    };
    let r = anthropic_with(&server, fast_policy(2), t)
        .complete(&req(), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(r.text(), "fast");
}

#[tokio::test]
async fn dropped_stream_before_content_is_retried() {
    let server = FakeServer::start().await;
    server.push(Reply::text("lost").drop_after_bytes(30));
    server.push(Reply::text("second try"));
    let r = anthropic(&server)
        .complete(&req(), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(r.text(), "second try");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn mid_stream_error_after_content_is_not_retried() {
    let server = FakeServer::start().await;
    server.push(Reply::stream_error("overloaded_error", "Overloaded"));
    server.push(Reply::text("never"));
    let err = anthropic(&server)
        .complete(&req(), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Overloaded { .. }), "{err:?}");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn overall_deadline_wins_over_retry_after() {
    let server = FakeServer::start().await;
    server.push(Reply::api_error(429, "rate_limit_error", "slow").with_header("retry-after", "5"));
    server.push(Reply::text("too late"));
    let t = Timeouts {
        deadline: Some(Duration::from_secs(1)),
        ..timeouts()
    };
    let started = Instant::now();
    let err = anthropic_with(&server, fast_policy(5), t)
        .complete(&req(), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Timeout { .. }), "{err:?}");
    assert!(
        started.elapsed() < Duration::from_millis(900),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn overall_deadline_cuts_a_slow_answer() {
    let server = FakeServer::start().await;
    server.push(Reply::text("slow").delay(Duration::from_secs(5)));
    let t = Timeouts {
        deadline: Some(Duration::from_millis(400)),
        ..timeouts()
    };
    let started = Instant::now();
    let err = anthropic_with(&server, fast_policy(5), t)
        .complete(&req(), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Timeout { .. }), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn cancellation_ends_the_call() {
    let server = FakeServer::start().await;
    server.push(Reply::text("slow").delay(Duration::from_secs(5)));
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        c2.cancel();
    });
    let started = Instant::now();
    let err = anthropic(&server)
        .complete(&req(), cancel)
        .await
        .unwrap_err();
    assert_eq!(err, LlmError::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn cancellation_during_retry_wait() {
    let server = FakeServer::start().await;
    server.push(Reply::api_error(429, "rate_limit_error", "slow").with_header("retry-after", "10"));
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        c2.cancel();
    });
    let started = Instant::now();
    let err = anthropic(&server)
        .complete(&req(), cancel)
        .await
        .unwrap_err();
    assert_eq!(err, LlmError::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn connection_refused_is_a_retryable_network_error() {
    // Bind then drop a listener: nothing listens on that port any more.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut c = crit_llm::AnthropicConfig::new(
        format!("http://127.0.0.1:{port}"),
        crit_llm::AnthropicAuth::ApiKey(crit_llm::Secret::new("sk-ant-zzz-secret")),
    );
    c.retry = fast_policy(2);
    let err = crit_llm::Anthropic::new(c)
        .unwrap()
        .complete(&req(), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Network { .. }), "{err:?}");
    assert!(err.is_retryable());
    assert!(!format!("{err} {err:?}").contains("zzz-secret"));
}

#[tokio::test]
async fn secrets_echoed_by_a_server_are_redacted() {
    let server = FakeServer::start().await;
    server.push(Reply::http_error(
        401,
        json!({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key sk-ant-test-key-123"}}),
    ));
    let err = anthropic(&server)
        .complete(&req(), CancellationToken::new())
        .await
        .unwrap_err();
    let shown = format!("{err} {err:?}");
    assert!(!shown.contains("sk-ant-test-key-123"), "{shown}");
    assert!(shown.contains("***"));
}
