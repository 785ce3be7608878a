//! Shared setup for the code reviewer tests: a real temporary git repository,
//! a backend pointed at crit-testkit's fake server, hermetic review options,
//! and executable scripts standing in for external reviewer programs.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crit_llm::{Anthropic, AnthropicAuth, AnthropicConfig, Backend, RetryPolicy, Secret};
use crit_review::code::AgentReviewer;
use crit_review::review::ReviewOptions;
use crit_review::template::{Registry, Template};
use crit_testkit::FakeServer;
use tempfile::TempDir;

/// A git repository in a temp dir, with fixed identity and dates.
pub struct Repo {
    pub dir: TempDir,
}

impl Repo {
    /// `src/app.py` with ten numbered lines, committed on `main`.
    pub fn new() -> Repo {
        let repo = Repo {
            dir: tempfile::tempdir().unwrap(),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.name", "Test"]);
        repo.git(&["config", "user.email", "test@example.com"]);
        repo.git(&["config", "commit.gpgsign", "false"]);
        repo.write("src/app.py", &numbered(10, &[]));
        repo.commit("base");
        repo
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn git(&self, args: &[&str]) -> String {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(self.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", self.path())
            .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
            .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }

    pub fn write(&self, rel: &str, text: &str) {
        let p = self.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// Commits everything (allowing an empty commit) and returns its sha.
    pub fn commit(&self, message: &str) -> String {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
        self.git(&["rev-parse", "HEAD"])
    }
}

/// `count` lines `line N`, with the given (line, text) replacements.
pub fn numbered(count: u32, replaced: &[(u32, &str)]) -> String {
    (1..=count)
        .map(|n| {
            let text = replaced
                .iter()
                .find(|(at, _)| *at == n)
                .map_or_else(|| format!("line {n}"), |(_, t)| t.to_string());
            format!("{text}\n")
        })
        .collect()
}

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

pub fn code_template() -> Template {
    Registry::built_in().unwrap().get("code").unwrap().clone()
}

/// Options whose audit log lands inside `state` (never the real home). The
/// second look at blocking findings is off: these tests script the review's
/// requests one by one (`tests/quality.rs` tests that pass).
pub fn options(state: &Path) -> ReviewOptions {
    let mut opts = ReviewOptions::new("sonnet");
    opts.verify = Some(crit_review::review::VerifyMode::Off);
    let state = state.to_path_buf();
    opts.env = crit_os::Env::from_pairs([
        ("XDG_STATE_HOME", state.display().to_string()),
        ("HOME", state.display().to_string()),
    ]);
    opts
}

pub fn agent(server: &FakeServer, repo: &Repo, opts: ReviewOptions) -> AgentReviewer {
    AgentReviewer::new(
        backend(server),
        code_template(),
        repo.path().to_path_buf(),
        opts,
    )
}

/// An executable `sh` script at `dir/name`.
pub fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The seed's exact FAIL answer (R4).
pub fn seed_answer() -> serde_json::Value {
    serde_json::json!({"verdict": "FAIL", "findings": [{"file_path": "src/main.py", "line_start": 42,
        "line_end": 42, "priority": 1, "title": "[P1] Issue", "body": "Details"}]})
}

/// ESTABLISHED IPv4 connections to `port` on this machine (client side).
pub fn established_to(port: u16) -> usize {
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap_or_default();
    let port = format!("{port:04X}");
    table
        .lines()
        .skip(1)
        .filter(|l| {
            let cols: Vec<&str> = l.split_whitespace().collect();
            cols.len() > 3 && cols[2].ends_with(&format!(":{port}")) && cols[3] == "01"
        })
        .count()
}

/// A tracing subscriber that keeps every event's message, for asserting on
/// the info logs the seed asks for.
#[derive(Clone, Default)]
pub struct Logs(Arc<std::sync::Mutex<Vec<String>>>);

impl Logs {
    pub fn lines(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

struct Message<'a>(&'a mut String);

impl tracing::field::Visit for Message<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            *self.0 = format!("{value:?}");
        }
    }
}

impl tracing::Subscriber for Logs {
    /// Asked again at every event: tests in other threads run without this
    /// subscriber, and a cached "never" from them must not hide our events.
    fn register_callsite(
        &self,
        _: &'static tracing::Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        tracing::subscriber::Interest::sometimes()
    }
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut text = String::new();
        event.record(&mut Message(&mut text));
        let line = format!("{} {text}", event.metadata().level());
        self.0.lock().unwrap().push(line);
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}
