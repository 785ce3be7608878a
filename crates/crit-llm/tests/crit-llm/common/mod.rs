//! Shared helpers for the integration tests (all against crit-testkit on 127.0.0.1).
#![allow(dead_code)]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use std::time::Duration;

use crit_llm::{
    Anthropic, AnthropicAuth, AnthropicConfig, OpenAi, OpenAiConfig, RetryPolicy, Secret, Timeouts,
};
use crit_testkit::FakeServer;

/// Fast backoff so retry tests take milliseconds.
pub fn fast_policy(max_attempts: u32) -> RetryPolicy {
    RetryPolicy {
        max_attempts,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(40),
        ..RetryPolicy::default()
    }
}

pub fn timeouts() -> Timeouts {
    Timeouts {
        connect: Duration::from_secs(2),
        request: Duration::from_secs(5),
        stall: Duration::from_secs(5),
        deadline: Some(Duration::from_secs(20)),
    }
}

pub fn anthropic_with(server: &FakeServer, retry: RetryPolicy, timeouts: Timeouts) -> Anthropic {
    let mut c = AnthropicConfig::new(
        server.url(),
        AnthropicAuth::ApiKey(Secret::new("sk-ant-test-key-123")),
    );
    c.retry = retry;
    c.timeouts = timeouts;
    Anthropic::new(c).unwrap()
}

pub fn anthropic(server: &FakeServer) -> Anthropic {
    anthropic_with(server, fast_policy(3), timeouts())
}

pub fn openai_with(server: &FakeServer, key: Option<&str>, retry: RetryPolicy) -> OpenAi {
    let mut c = OpenAiConfig::new(format!("{}/v1", server.url()), key.map(Secret::new));
    c.retry = retry;
    c.timeouts = timeouts();
    OpenAi::new(c).unwrap()
}

pub fn openai(server: &FakeServer) -> OpenAi {
    openai_with(server, Some("sk-openai-test"), fast_policy(3))
}
