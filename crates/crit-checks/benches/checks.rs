//! 1,000 checks over a 1 MB plan (budget: < 100 ms, see CONTRIBUTING.md).

use std::hint::black_box;
use std::path::PathBuf;

use crit_checks::machine::{self, Answer, Asker, Limits, Question, Store};
use crit_checks::{Check, CheckError, CheckSet, FixAction, MatchRule, SourceKind, State};
use criterion::{Criterion, criterion_group, criterion_main};

/// 700 literal, 100 prescriptive, 100 negation-aware and 100 regex checks.
fn checks() -> Vec<Check> {
    (0..1000)
        .map(|i| {
            let (pattern, rule) = match i % 10 {
                0 => (format!(r"\bforbidden{i}_[a-z]+\("), MatchRule::Regex),
                1 => (format!("global_state_{i}"), MatchRule::Prescriptive),
                2 => (format!("unsafe_thing_{i}"), MatchRule::NegationAware),
                _ => (format!("anti_pattern_text_{i}"), MatchRule::Literal),
            };
            Check {
                id: format!("check_{i}"),
                pattern,
                match_rule: rule,
                fix: Some(FixAction::Replace {
                    with: format!("fixed_{i}"),
                }),
                reason: format!("reason {i}"),
                reject_if_persists: false,
                source: SourceKind::SessionChecks,
                origin: PathBuf::from("checks.yaml"),
            }
        })
        .collect()
}

/// About 1 MB of plan prose and bullets, with a few hits near the end.
fn plan() -> String {
    let para = "We will refactor the storage layer so that each request handler owns its connection. \
                The migration runs in two phases, and we don't rely on global state anywhere. \
                Tests cover the happy path and the failure modes we saw in production.\n\n\
                - Step one: add the new interface behind a flag\n- Step two: move callers over\n\n";
    let mut s = String::with_capacity(1 << 20);
    while s.len() < (1 << 20) - 400 {
        s.push_str(para);
    }
    s.push_str("Finally we call global_state_11 once. We do not use unsafe_thing_12 here.\n");
    s.push_str("- anti_pattern_text_13 slipped in\n- forbidden10_call(x)\n");
    s
}

struct NoStore;
impl Store for NoStore {
    fn save_state(&mut self, _: &State) -> Result<(), CheckError> {
        Ok(())
    }
    fn save_plan(&mut self, _: &str) -> Result<(), CheckError> {
        Ok(())
    }
}

struct Approve;
impl Asker for Approve {
    fn ask(&mut self, _: &Question) -> Option<Answer> {
        Some(Answer::Approve)
    }
}

fn bench(c: &mut Criterion) {
    let plan = plan();
    let set = CheckSet::compile(checks()).unwrap_or_else(|e| panic!("{e}"));
    c.bench_function("compile 1000 checks", |b| {
        b.iter(|| CheckSet::compile(black_box(checks())))
    });
    c.bench_function("scan 1000 checks over 1 MB (all failures)", |b| {
        b.iter(|| set.scan(black_box(&plan)).failures(|_| false).len())
    });
    c.bench_function("state machine: 1000 checks, 1 MB plan, 3 fixes", |b| {
        b.iter(|| {
            machine::run(
                &set,
                plan.clone(),
                State::default(),
                "Claude",
                Limits::default(),
                &mut NoStore,
                &mut Approve,
            )
            .map(|r| r.state.edits)
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
