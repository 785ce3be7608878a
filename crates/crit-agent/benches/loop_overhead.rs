//! The fixed cost crit adds around the model (see the budgets in CONTRIBUTING.md): a scripted
//! three-turn run (Read, Grep, final answer) against crit-testkit's fake server
//! with zero model latency. Everything measured is crit's: request building,
//! HTTP over loopback, SSE decoding, tool execution, bookkeeping.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crit_agent::transcript::NoTranscript;
use crit_agent::{AgentSpec, RunStatus, ToolContext, ToolRegistry, run_agent};
use crit_llm::{Anthropic, AnthropicAuth, AnthropicConfig, Secret, SystemBlock};
use crit_testkit::{FakeServer, Reply, Step};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn three_turns(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let body: String = (1..=400)
        .map(|i| format!("fn f{i}() -> u32 {{ {i} }}\n"))
        .collect();
    std::fs::write(dir.path().join("lib.rs"), body).unwrap();
    let server = FakeServer::start_blocking();
    let model = Anthropic::new(AnthropicConfig::new(
        server.url(),
        AnthropicAuth::ApiKey(Secret::new("sk-bench")),
    ))
    .unwrap();
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    let mut spec = AgentSpec::new("bench", "claude-sonnet-5-5", "Review lib.rs");
    spec.system = vec![SystemBlock::cached("You review code.".repeat(200))];
    spec.tools = ToolRegistry::builtin();
    spec.max_output_tokens = 4096;
    c.bench_function(
        "agent loop: 3 turns (Read, Grep, answer), zero model latency",
        |b| {
            b.iter(|| {
                server.push(Step::reply(Reply::tool_use(
                    "Read",
                    json!({"file_path": "lib.rs"}),
                )));
                server.push(Step::reply(Reply::tool_use(
                    "Grep",
                    json!({"pattern": "f4\\d\\b", "output_mode": "content"}),
                )));
                server.push(Step::reply(Reply::text("No findings.")));
                let out = rt.block_on(run_agent(
                    &model,
                    &spec,
                    &cx,
                    &mut NoTranscript,
                    CancellationToken::new(),
                ));
                assert_eq!(out.status, RunStatus::Completed);
            });
        },
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = three_turns
}
criterion_main!(benches);
