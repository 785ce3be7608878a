//! Shared fixtures: a real project directory, a real directory outside it with a
//! secret, and helpers to call tools and run git.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use crit_agent::{Tool, ToolContext, ToolOutput};
use serde_json::Value;
use tempfile::TempDir;

pub const SECRET: &str = "TOP-SECRET-OUTSIDE";

pub struct Fixture {
    pub project: TempDir,
    pub outside: TempDir,
    pub cx: ToolContext,
}

impl Fixture {
    /// An empty project and an outside directory holding `secret.txt`.
    pub fn new() -> Self {
        let project = TempDir::new().unwrap();
        let outside = TempDir::new().unwrap();
        std::fs::write(outside.path().join("secret.txt"), format!("{SECRET}\n")).unwrap();
        let cx = ToolContext::new(project.path(), &[]).unwrap();
        Self {
            project,
            outside,
            cx,
        }
    }

    pub fn root(&self) -> PathBuf {
        self.cx.root().to_path_buf()
    }

    pub fn outside(&self) -> PathBuf {
        self.outside.path().canonicalize().unwrap()
    }

    /// Writes a file under the project, creating directories.
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.root().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }

    /// Makes the project a git repository with one commit of its current files.
    pub fn git_init(&self) {
        git(&self.root(), &["init", "-q", "-b", "main"]);
        git(&self.root(), &["add", "-A"]);
        git(
            &self.root(),
            &["commit", "-q", "--allow-empty", "-m", "initial commit"],
        );
    }

    pub async fn call(&self, tool: &dyn Tool, input: Value) -> ToolOutput {
        tool.call(input, &self.cx).await
    }
}

/// Runs the git CLI in `dir` with a fixed identity; panics on failure.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[cfg(unix)]
pub fn symlink(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}
