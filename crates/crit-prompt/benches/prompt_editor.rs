//! What prompt review costs besides the model: the deterministic editor on six
//! reviewers × ten findings (with duplicates, conflicts and replacements to
//! settle), and the whole pipeline with six reviewers against a fake server
//! that takes `L` to answer each: it should take about `L`, not `6·L`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use crit_llm::{Anthropic, AnthropicAuth, AnthropicConfig, Backend, RetryPolicy, Secret};
use crit_project::config::prompt_review::{Mode, PromptConfig};
use crit_prompt::critique::{Critique, Finding, Op, OpKind, Severity, Target};
use crit_prompt::editor::{EditorInput, edit};
use crit_prompt::{PromptOptions, PromptRequest, reviewers};
use crit_testkit::prompt_review::{critique, who};
use crit_testkit::{FakeServer, Reply, Step};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

const NAMES: [&str; 6] = [
    "domain_sme",
    "security",
    "clarity",
    "testing",
    "frontend_ux",
    "documentation",
];

fn prompt() -> String {
    (0..30)
        .map(|i| format!("Step {i}: optimize module {i} and make the settings page {i} better. Keep flag {i}.\n"))
        .collect()
}

/// Ten findings per reviewer, each with an op its reviewer may use; every
/// third one duplicates another reviewer's, some replace and remove text.
fn critiques() -> Vec<Critique> {
    let rules = reviewers::builtin_rules();
    NAMES
        .iter()
        .map(|name| {
            let r = rules.iter().find(|r| r.reviewer == *name).unwrap();
            let findings = (0..10)
                .map(|i| {
                    let op = r.ops[i % r.ops.len()];
                    let severity = r.severities[i % r.severities.len()];
                    let (evidence, value) = match op {
                        OpKind::ReplaceVague => (
                            format!("optimize module {i}"),
                            format!("cut module {i}'s p95 latency by 20%"),
                        ),
                        OpKind::RemoveConstraint => (String::new(), format!("Keep flag {i}.")),
                        _ if i % 3 == 0 => {
                            (String::new(), format!("Run the test suite for module {i}"))
                        }
                        _ => (
                            String::new(),
                            format!("{name} requirement {i}: name the files touched"),
                        ),
                    };
                    Finding {
                        id: format!("{}-{i:03}", name.to_uppercase()),
                        severity,
                        confidence: 0.5 + (i as f64) / 40.0,
                        issue: format!("issue {i}"),
                        evidence,
                        suggested_ops: vec![Op {
                            op,
                            target: Target::Constraints,
                            value,
                            original: None,
                        }],
                    }
                })
                .collect();
            Critique {
                reviewer_role: name.to_string(),
                severity_max: Severity::Blocker,
                confidence: 0.8,
                findings,
                no_issues: false,
            }
        })
        .collect()
}

fn editor(c: &mut Criterion) {
    let prompt = prompt();
    let critiques = critiques();
    let rules = reviewers::builtin_rules();
    let order: Vec<String> = PromptConfig::default().editor.priority_order;
    let input = EditorInput {
        prompt: &prompt,
        critiques: &critiques,
        rules: &rules,
        priority_order: &order,
    };
    let e = edit(&input).unwrap();
    eprintln!(
        "editor: {} applied, {} deduplicated, {} dropped, {} conflicts, {} disagreements",
        e.applied.len(),
        e.deduplicated.len(),
        e.dropped.len(),
        e.conflicts.len(),
        e.disagreements.len()
    );
    c.bench_function("prompt editor: 6 reviewers x 10 findings", |b| {
        b.iter(|| edit(std::hint::black_box(&input)).unwrap())
    });
}

fn panel(c: &mut Criterion) {
    let latency = Duration::from_millis(400);
    let server = FakeServer::start_blocking();
    let mut cfg = AnthropicConfig::new(server.url(), AnthropicAuth::ApiKey(Secret::new("k")));
    cfg.retry = RetryPolicy {
        max_attempts: 1,
        ..RetryPolicy::default()
    };
    let backend = Backend {
        model: Arc::new(Anthropic::new(cfg).unwrap()),
        agent: None,
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "# app\n").unwrap();
    let req = PromptRequest {
        prompt: "Add a button to the settings tab".into(),
        root: dir.path().to_path_buf(),
        cwd: dir.path().to_path_buf(),
        trigger: "bench".into(),
        source: None,
    };
    let opts = PromptOptions::new(PromptConfig::default(), Ok(backend), Mode::Api);
    let labels = [
        "Domain SME",
        "Security",
        "Clarity",
        "Testing",
        "Frontend/UX",
        "Documentation",
    ];
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut group = c.benchmark_group("prompt review");
    group.sample_size(10);
    group.bench_function("6 reviewers, each answering after 400 ms", |b| {
        b.iter(|| {
            for (label, name) in labels.iter().zip(NAMES) {
                server.push(
                    Step::when_contains(who(label))
                        .reply(Reply::json(critique(name, json!([]))).delay(latency)),
                );
            }
            let r = rt.block_on(crit_prompt::review(&req, &opts));
            assert_eq!(r.unavailable(), 0, "{:?}", r.warnings);
            assert_eq!(r.reviewers.iter().filter(|x| x.model.is_some()).count(), 6);
        })
    });
    group.finish();
}

criterion_group!(benches, editor, panel);
criterion_main!(benches);
