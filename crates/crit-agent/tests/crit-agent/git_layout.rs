#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns
//! Where the repository is, found without git: the legitimate layouts (a plain
//! checkout, a linked worktree, a submodule, a directory of a larger
//! repository) are found and git runs in them through the Bash tool; pointers
//! elsewhere are refused (end to end in the binary's `confine_git` tests).
use crate::common;

use std::path::Path;

use common::git;
use crit_agent::git_layout::{GitLayoutError, discover};
use crit_agent::{BashTool, Tool, ToolContext};
use serde_json::json;
use tempfile::TempDir;

fn commit(dir: &Path, file: &str, msg: &str) {
    std::fs::write(dir.join(file), format!("{msg}\n")).unwrap();
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", msg]);
}

async fn bash(root: &Path, command: &str) -> crit_agent::ToolOutput {
    let cx = ToolContext::new(root, &[]).unwrap();
    BashTool.call(json!({ "command": command }), &cx).await
}

#[tokio::test]
async fn legitimate_layouts_are_found_and_git_runs_in_them() {
    let dir = TempDir::new().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let main = base.join("main");
    std::fs::create_dir_all(&main).unwrap();
    git(&main, &["init", "-q", "-b", "main"]);
    commit(&main, "a.txt", "main commit");

    // A plain checkout.
    let l = discover(&main).unwrap();
    assert_eq!(
        (l.work_tree.as_path(), l.git_dir.as_path()),
        (main.as_path(), main.join(".git").as_path())
    );
    assert!(!l.encloses_project());

    // A linked worktree: its admin directory lives in the main repository.
    let wt = base.join("wt");
    git(
        &main,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "feature",
            wt.to_str().unwrap(),
        ],
    );
    let l = discover(&wt).unwrap();
    assert_eq!(l.work_tree, wt);
    assert_eq!(l.common_dir, main.join(".git"));
    assert!(l.git_dir.starts_with(main.join(".git/worktrees")));
    let out = bash(&wt, "git log --oneline").await;
    assert!(out.content.contains("main commit"), "{}", out.content);

    // A submodule: its git directory lives in the superproject's `.git`.
    let lib = base.join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    git(&lib, &["init", "-q", "-b", "main"]);
    commit(&lib, "l.txt", "lib commit");
    git(
        &main,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            lib.to_str().unwrap(),
            "vendor/lib",
        ],
    );
    let sub = main.join("vendor/lib");
    let l = discover(&sub).unwrap();
    assert_eq!(l.work_tree, sub);
    assert!(l.git_dir.starts_with(main.join(".git/modules")));
    let out = bash(&sub, "git log --oneline").await;
    assert!(out.content.contains("lib commit"), "{}", out.content);

    // A directory inside a repository.
    let inner = main.join("docs");
    std::fs::create_dir_all(&inner).unwrap();
    let l = discover(&inner).unwrap();
    assert_eq!(l.prefix, Path::new("docs"));
    assert!(l.encloses_project());

    // No repository at all.
    let none = TempDir::new().unwrap();
    assert!(matches!(
        discover(none.path()),
        Err(GitLayoutError::NotARepository { .. })
    ));
}

/// A worktree admin directory of another repository, named by a `.git` file
/// whose back-pointer does not lead here, is refused.
#[test]
fn a_worktree_of_another_checkout_is_refused() {
    let dir = TempDir::new().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let main = base.join("main");
    std::fs::create_dir_all(&main).unwrap();
    git(&main, &["init", "-q", "-b", "main"]);
    commit(&main, "a.txt", "main commit");
    let wt = base.join("wt");
    git(
        &main,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "feature",
            wt.to_str().unwrap(),
        ],
    );
    let intruder = base.join("intruder");
    std::fs::create_dir_all(&intruder).unwrap();
    std::fs::copy(wt.join(".git"), intruder.join(".git")).unwrap();
    assert!(matches!(
        discover(&intruder),
        Err(GitLayoutError::Elsewhere { .. })
    ));
}
