//! The fixed cost of `crit review code` (budget < 50 ms, see CONTRIBUTING.md): a
//! whole template review of a 20-file range in a 1,000-file repository against
//! crit-testkit's fake Anthropic server answering at once. Measured: scope via
//! git, conventions discovery, prompt rendering, the agent loop, one loopback
//! HTTP round trip with SSE, parsing and the finish steps, with and without
//! the session writes; and the parts alone, to see what dominates.
//! benches/review-fixed-cost.sh measures the release binary end to end.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use crit_core::Verdict;
use crit_llm::replay::Cassette;
use crit_llm::{
    Anthropic, AnthropicAuth, AnthropicConfig, Backend, ModelRequest, Recorder, Replay,
    RetryPolicy, Secret,
};
use crit_project::context::{self, ContextOptions, UnderReview};
use crit_project::scope::{self, Scope, ScopeOptions};
use crit_review::review::{ReviewOptions, ReviewRequest, run_template};
use crit_review::template::{Registry, Template};
use crit_testkit::{FakeServer, Reply, Step};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const RANGE: &str = "HEAD~1..HEAD";
const FILES: usize = 1_000;
const CHANGED: usize = 20;

fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// `src/<area>/<module>/f<i>.rs`: 10 areas × 10 modules × 10 files.
fn source_path(i: usize) -> String {
    format!("src/area{}/mod{}/f{}.rs", i / 100, (i / 10) % 10, i % 10)
}

/// About 40 lines of ordinary Rust; `edited` changes two of them.
fn source(i: usize, edited: bool) -> String {
    let mut s = format!(
        "//! Module {i}: request handling for part {i}.\n\nuse std::collections::HashMap;\n\n"
    );
    s.push_str(&format!(
        "pub struct Handler{i} {{\n    cache: HashMap<u64, String>,\n    limit: usize,\n}}\n\n"
    ));
    s.push_str(&format!("impl Handler{i} {{\n"));
    s.push_str("    pub fn new(limit: usize) -> Self {\n        Self { cache: HashMap::new(), limit }\n    }\n\n");
    s.push_str("    pub fn get(&self, id: u64) -> Option<&str> {\n        self.cache.get(&id).map(String::as_str)\n    }\n\n");
    s.push_str("    pub fn put(&mut self, id: u64, value: String) -> bool {\n");
    if edited {
        s.push_str("        if self.cache.len() > self.limit {\n");
        s.push_str("            self.cache.clear();\n");
    } else {
        s.push_str("        if self.cache.len() >= self.limit {\n");
        s.push_str("            return false;\n");
    }
    s.push_str("        }\n        self.cache.insert(id, value);\n        true\n    }\n\n");
    s.push_str("    pub fn len(&self) -> usize {\n        self.cache.len()\n    }\n}\n\n");
    s.push_str(&format!("#[cfg(test)]\nmod tests {{\n    use super::*;\n\n    #[test]\n    fn put_then_get_{i}() {{\n"));
    s.push_str("        let mut h = Handler0::new(2);\n        assert!(h.put(1, \"a\".into()));\n        assert_eq!(h.get(1), Some(\"a\"));\n    }\n}\n");
    s.replace("Handler0::", &format!("Handler{i}::"))
}

/// Conventions as a real project has them: a root CLAUDE.md, a nested one,
/// and path-scoped rules of which only some apply to the change.
fn conventions(d: &Path) {
    write(
        d,
        "CLAUDE.md",
        "# Conventions\n\nErrors are returned, never unwrapped.\nEvery public function has a doc comment.\nCaches are bounded and say what happens when full.\n",
    );
    write(
        d,
        "src/area0/CLAUDE.md",
        "# Area 0\n\nHandlers here are on the request path: no blocking I/O.\n",
    );
    let rules = [
        (
            "handlers",
            "\"src/**/mod*/**\"",
            "Handlers check the caller's permission first.",
        ),
        (
            "area0",
            "\"src/area0/**\"",
            "Area 0 logs every rejected request.",
        ),
        (
            "tests",
            "\"**/tests/**\"",
            "Tests name the behaviour, not the function.",
        ),
        ("docs", "\"docs/**\"", "Docs use sentence case headings."),
        ("ci", "\".github/**\"", "Workflows pin actions by commit."),
    ];
    for (name, glob, text) in rules {
        write(
            d,
            &format!(".claude/rules/{name}.md"),
            &format!("---\npaths:\n  - {glob}\n---\n{text}\n"),
        );
    }
}

/// 1,000 source files in one commit, then a commit changing 20 of them
/// (spread over the tree).
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    git(d, &["init", "-q", "-b", "main"]);
    git(d, &["config", "user.name", "Bench"]);
    git(d, &["config", "user.email", "bench@example.com"]);
    git(d, &["config", "commit.gpgsign", "false"]);
    conventions(d);
    for i in 0..FILES {
        write(d, &source_path(i), &source(i, false));
    }
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    for i in changed() {
        write(d, &source_path(i), &source(i, true));
    }
    git(
        d,
        &["commit", "-q", "-am", "handlers evict instead of refusing"],
    );
    dir
}

fn changed() -> impl Iterator<Item = usize> {
    (0..CHANGED).map(|k| k * (FILES / CHANGED) + 7)
}

fn answer() -> Value {
    json!({"verdict": "FAIL", "summary": "A full cache now drops every entry.", "findings": [{
        "file_path": source_path(7), "line_start": 20, "line_end": 21, "priority": 1,
        "title": "[P1] A full cache is cleared instead of refusing the write",
        "body": "Every entry is lost at the limit; callers relied on `false`."}]})
}

fn backend(server: &FakeServer) -> Backend {
    let mut c = AnthropicConfig::new(server.url(), AnthropicAuth::ApiKey(Secret::new("sk-bench")));
    c.retry = RetryPolicy {
        max_attempts: 1,
        ..RetryPolicy::default()
    };
    Backend {
        model: Arc::new(Anthropic::new(c).unwrap()),
        agent: None,
    }
}

/// The one request the recorded run sent, as crit built it.
fn recorded_request(dir: &Path) -> ModelRequest {
    let mut files = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path());
    let path = files.next().unwrap();
    assert!(files.next().is_none(), "one review, one request");
    let c: Cassette = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    c.request
}

/// A fresh fake server holding `n` instant answers, and a backend on it.
fn answering(n: u64) -> (FakeServer, Backend) {
    let server = FakeServer::start_blocking();
    server.push_all((0..n).map(|_| Step::reply(Reply::json(answer()))));
    let backend = backend(&server);
    (server, backend)
}

fn request(template: &Template, root: &Path) -> ReviewRequest {
    ReviewRequest {
        template: template.clone(),
        inputs: BTreeMap::from([("diff".to_string(), RANGE.to_string())]),
        scope: Some(Scope::Range(RANGE.into())),
        change: None,
        context_file: None,
        root: root.to_path_buf(),
        cwd: root.to_path_buf(),
    }
}

fn options(log: bool, state: &Path) -> ReviewOptions {
    let mut opts = ReviewOptions::new("claude-opus-5-5");
    opts.log = log;
    let state = state.to_path_buf();
    opts.env = crit_os::Env::from_pairs([
        ("XDG_STATE_HOME", state.display().to_string()),
        ("HOME", state.display().to_string()),
    ]);
    opts
}

fn fixed_cost(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = repo();
    let root = dir.path().canonicalize().unwrap();
    let state = tempfile::tempdir().unwrap();
    let server = FakeServer::start_blocking();
    let backend = backend(&server);
    let registry = Registry::built_in().unwrap();
    let req = request(registry.get("code").unwrap(), &root);
    let scope = Scope::Range(RANGE.into());
    let files: Vec<String> = changed().map(source_path).collect();

    // One run first, recorded: the setup is right and the answer parses (or
    // the numbers below would measure an error path), and its cassette gives
    // the exact model request and a backend without HTTP.
    let cassettes = tempfile::tempdir().unwrap();
    let recording = Backend {
        model: Arc::new(Recorder::new(backend.model.clone(), cassettes.path()).unwrap()),
        agent: None,
    };
    server.push(Step::reply(Reply::json(answer())));
    let first = rt
        .block_on(run_template(
            &recording,
            &req,
            &options(false, state.path()),
        ))
        .unwrap();
    assert_eq!(first.verdict, Verdict::Fail, "{first:?}");
    assert_eq!(first.findings.len(), 1);
    let sent = server.model_requests();
    let text = sent[0].body.to_string();
    assert!(
        text.contains("Handlers check the caller"),
        "rules were not sent"
    );
    assert!(
        !text.contains("sentence case"),
        "a rule that does not apply was sent"
    );
    assert_eq!(
        scope::compute(&root, &scope, &ScopeOptions::default())
            .unwrap()
            .files
            .len(),
        CHANGED
    );

    // crit's git calls fork (std falls back from posix_spawn when PATH is set
    // on a bare `git`), so their cost grows with this process; the fake server
    // keeps every request it served, so each sample gets a fresh one (set up
    // unmeasured) and the process stays the same size from bench to bench.
    let mut g = c.benchmark_group("review code, 1,000 files, 20 changed");
    g.sample_size(30);
    for (name, log) in [
        ("run_template, --no-log", false),
        ("run_template, session log and audit", true),
    ] {
        let opts = options(log, state.path());
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let (server, backend) = answering(iters);
                let started = Instant::now();
                for _ in 0..iters {
                    let r = rt.block_on(run_template(&backend, &req, &opts)).unwrap();
                    assert_eq!(r.verdict, Verdict::Fail);
                }
                let took = started.elapsed();
                drop(server);
                took
            });
        });
    }
    let replay = Backend {
        model: Arc::new(Replay::open(cassettes.path()).unwrap()),
        agent: None,
    };
    let opts = options(false, state.path());
    g.bench_function("run_template, --no-log, replayed (no HTTP)", |b| {
        b.iter(|| {
            let r = rt.block_on(run_template(&replay, &req, &opts)).unwrap();
            assert_eq!(r.verdict, Verdict::Fail);
        });
    });
    g.bench_function("scope::compute HEAD~1..HEAD", |b| {
        b.iter(|| scope::compute(&root, &scope, &ScopeOptions::default()).unwrap());
    });
    g.bench_function("context::discover (20 files)", |b| {
        b.iter(|| {
            context::discover(
                &root,
                &root,
                UnderReview::Files(&files),
                &ContextOptions::default(),
            )
            .unwrap()
            .render()
        });
    });
    g.bench_function("Registry::built_in", |b| {
        b.iter(|| Registry::built_in().unwrap());
    });
    let model_request = recorded_request(cassettes.path());
    g.bench_function("one model call: loopback HTTP, SSE, decoding", |b| {
        b.iter_custom(|iters| {
            let (server, backend) = answering(iters);
            let started = Instant::now();
            for _ in 0..iters {
                rt.block_on(
                    backend
                        .model
                        .complete(&model_request, CancellationToken::new()),
                )
                .unwrap();
            }
            let took = started.elapsed();
            drop(server);
            took
        });
    });
    g.finish();
}

criterion_group!(benches, fixed_cost);
criterion_main!(benches);
