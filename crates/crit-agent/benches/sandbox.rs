//! What the kernel sandbox costs a tool call: the same process (`true`) spawned
//! and captured directly and through a Landlock-restricted spawner thread, a
//! whole Bash `git status` call (session already set up), and setting a
//! sandbox up (once per agent).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use crit_agent::process::{Spawn, spawn_capture, spawn_capture_in};
use crit_agent::sandbox::{Sandbox, SandboxRules};
use crit_agent::{BashTool, Tool, ToolContext};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn spawn(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cancel = CancellationToken::new();
    let args: Vec<String> = Vec::new();
    let run = || Spawn {
        program: "/bin/true",
        args: &args,
        cwd: dir.path(),
        env: Vec::new(),
        clear_env: true,
        stdin: None,
        timeout: Duration::from_secs(10),
        caps: (1024, 1024),
        cancel: &cancel,
    };
    let sandbox = Sandbox::start(SandboxRules::system().read(dir.path())).unwrap();
    eprintln!("sandbox: {}", sandbox.status());
    let mut g = c.benchmark_group("spawn_true");
    g.bench_function("direct", |b| {
        b.iter(|| rt.block_on(spawn_capture(run())).unwrap())
    });
    g.bench_function("sandboxed", |b| {
        b.iter(|| rt.block_on(spawn_capture_in(run(), &sandbox)).unwrap())
    });
    g.finish();

    c.bench_function("sandbox_start", |b| {
        b.iter(|| Sandbox::start(SandboxRules::system().read(dir.path())).unwrap())
    });

    let repo = tempfile::tempdir().unwrap();
    let git = |a: &[&str]| {
        std::process::Command::new("git")
            .args(a)
            .current_dir(repo.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap()
    };
    git(&["init", "-q"]);
    std::fs::write(repo.path().join("a.txt"), "a\n").unwrap();
    let cx = ToolContext::new(repo.path(), &[]).unwrap();
    rt.block_on(BashTool.call(json!({"command": "git status"}), &cx));
    c.bench_function("bash_git_status", |b| {
        b.iter(|| rt.block_on(BashTool.call(json!({"command": "git status --short"}), &cx)))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(50)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_secs(1));
    targets = spawn
}
criterion_main!(benches);
