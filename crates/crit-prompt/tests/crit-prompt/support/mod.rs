//! Shared by the prompt review tests: a backend on crit-testkit's fake server,
//! throwaway projects, requests and options.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use crit_llm::{Anthropic, AnthropicAuth, AnthropicConfig, Backend, RetryPolicy, Secret};
use crit_project::config::prompt_review::{Mode, PromptConfig};
use crit_prompt::{PromptOptions, PromptRequest};
use crit_testkit::prompt_review::{GUARDRAIL_CHECK, no_contradictions, who};
use crit_testkit::{FakeServer, Reply, Step};
use serde_json::Value;

/// The Anthropic backend on `server`, no retries.
pub fn backend(server: &FakeServer) -> Backend {
    let mut c = AnthropicConfig::new(
        server.url(),
        AnthropicAuth::ApiKey(Secret::new("sk-ant-test")),
    );
    c.retry = RetryPolicy {
        max_attempts: 1,
        ..RetryPolicy::default()
    };
    Backend {
        model: Arc::new(Anthropic::new(c).unwrap()),
        agent: None,
    }
}

/// A temporary project holding `files` (path, text).
pub fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (rel, text) in files {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

pub fn request(dir: &Path, prompt: &str) -> PromptRequest {
    PromptRequest {
        prompt: prompt.into(),
        root: dir.to_path_buf(),
        cwd: dir.to_path_buf(),
        trigger: "cli".into(),
        source: None,
    }
}

/// API mode on `server` with `config`.
pub fn options(server: &FakeServer, config: PromptConfig) -> PromptOptions {
    let mut o = PromptOptions::new(config, Ok(backend(server)), Mode::Api);
    o.backend_label = "anthropic".into();
    o
}

/// Each reviewer of `answers` (label, critique) answers once.
pub fn script(server: &FakeServer, answers: Vec<(&str, Value)>) {
    for (label, answer) in answers {
        server.push(Step::when_contains(who(label)).reply(Reply::json(answer)));
    }
    // The refined prompt held against Security's guardrails: none broken.
    server.push(Step::when_contains(GUARDRAIL_CHECK).reply(Reply::json(no_contradictions())));
}
