#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns
//! Path traversal and symlink escapes: Read, Glob and Grep must refuse them, or
//! (for walkers) never report or search what lies outside.
use crate::common;

use common::{Fixture, SECRET, symlink};
use crit_agent::{GlobTool, GrepTool, ReadTool, Roots, Tool};
use serde_json::json;

/// A project with escape hatches: symlinks to /etc, to the outside directory, to
/// a file outside, a dangling link outside, and an honest link inside.
fn hostile_project() -> Fixture {
    let f = Fixture::new();
    f.write("src/lib.rs", "fn inside() {}\n");
    let root = f.root();
    symlink(std::path::Path::new("/etc"), &root.join("etc_link"));
    symlink(&f.outside(), &root.join("out_dir"));
    symlink(
        &f.outside().join("secret.txt"),
        &root.join("secret_link.txt"),
    );
    symlink(&f.outside().join("not-yet.txt"), &root.join("dangling.txt"));
    symlink(&root.join("src/lib.rs"), &root.join("inner_link.rs"));
    f
}

fn outside_rel(f: &Fixture) -> String {
    // Both temp dirs share a parent, so `../<name>` reaches the outside one.
    format!(
        "../{}/secret.txt",
        f.outside().file_name().unwrap().to_str().unwrap()
    )
}

#[tokio::test]
async fn read_refuses_every_escape() {
    let f = hostile_project();
    let rel = outside_rel(&f);
    let abs = f.outside().join("secret.txt").display().to_string();
    let via_sub = format!("src/../{rel}");
    let cases: Vec<(&str, String, &str)> = vec![
        ("dot-dot", rel.clone(), "is outside the project root"),
        ("absolute outside", abs, "is outside the project root"),
        (
            "/etc/passwd",
            "/etc/passwd".into(),
            "is outside the project root",
        ),
        ("foo/../../x", via_sub, "is outside the project root"),
        (
            "many dot-dots",
            "../../../../../../etc/passwd".into(),
            "is outside the project root",
        ),
        (
            "symlink to /etc",
            "etc_link/passwd".into(),
            "is outside the project root",
        ),
        (
            "symlink to dir outside",
            "out_dir/secret.txt".into(),
            "is outside the project root",
        ),
        (
            "symlink to file outside",
            "secret_link.txt".into(),
            "is outside the project root",
        ),
        (
            "dangling symlink outside",
            "dangling.txt".into(),
            "cannot be resolved",
        ),
        (
            "missing tail under link",
            "out_dir/new/file.txt".into(),
            "is outside the project root",
        ),
    ];
    for (name, path, want) in cases {
        let out = f.call(&ReadTool, json!({"file_path": path})).await;
        assert!(out.is_error, "{name}: {}", out.content);
        assert!(out.content.contains(want), "{name}: {}", out.content);
        assert!(
            !out.content.contains(SECRET),
            "{name} leaked: {}",
            out.content
        );
        assert!(
            !out.content.contains("root:x:0"),
            "{name} leaked /etc/passwd"
        );
    }
    let msg = f
        .call(&ReadTool, json!({"file_path": "/etc/passwd"}))
        .await
        .content;
    assert!(
        msg.contains("allowed roots:") && msg.contains(&f.root().display().to_string()),
        "{msg}"
    );
}

#[tokio::test]
async fn read_follows_symlinks_that_stay_inside() {
    let f = hostile_project();
    let out = f
        .call(&ReadTool, json!({"file_path": "inner_link.rs"}))
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(out.content, "     1\tfn inside() {}\n");
}

#[tokio::test]
async fn glob_never_lists_outside_files() {
    let f = hostile_project();
    let out = f.call(&GlobTool, json!({"pattern": "**/*"})).await;
    assert!(!out.is_error, "{}", out.content);
    let listed: Vec<&str> = out.content.lines().collect();
    assert!(
        listed.contains(&"src/lib.rs") && listed.contains(&"inner_link.rs"),
        "{listed:?}"
    );
    for bad in [
        "etc_link",
        "out_dir",
        "secret_link.txt",
        "dangling.txt",
        "passwd",
        "secret.txt",
    ] {
        assert!(!out.content.contains(bad), "{bad} listed: {}", out.content);
    }
    for path in ["etc_link", "out_dir", "..", "/etc", "src/../.."] {
        let out = f
            .call(&GlobTool, json!({"pattern": "*", "path": path}))
            .await;
        assert!(out.is_error, "{path}: {}", out.content);
        assert!(
            out.content.contains("outside the project root"),
            "{path}: {}",
            out.content
        );
    }
}

#[tokio::test]
async fn grep_never_searches_outside_files() {
    let f = hostile_project();
    for mode in ["content", "files_with_matches", "count"] {
        let out = f
            .call(
                &GrepTool,
                json!({"pattern": "SECRET|root:", "output_mode": mode}),
            )
            .await;
        assert!(!out.is_error, "{}", out.content);
        assert!(
            out.content.starts_with("No matches"),
            "{mode}: {}",
            out.content
        );
    }
    let rel = outside_rel(&f);
    for path in [
        "etc_link",
        "out_dir",
        "secret_link.txt",
        "/etc/passwd",
        rel.as_str(),
        "src/../..",
    ] {
        let out = f
            .call(
                &GrepTool,
                json!({"pattern": ".", "path": path, "output_mode": "content"}),
            )
            .await;
        assert!(out.is_error, "{path}: {}", out.content);
        assert!(
            out.content.contains("outside the project root"),
            "{path}: {}",
            out.content
        );
        assert!(!out.content.contains(SECRET));
    }
    // The honest in-root link is searched.
    let out = f.call(&GrepTool, json!({"pattern": "inside"})).await;
    assert!(out.content.contains("inner_link.rs"), "{}", out.content);
}

#[test]
fn a_sibling_with_the_root_as_name_prefix_is_outside() {
    let f = Fixture::new();
    let sibling = std::path::PathBuf::from(format!("{}-evil", f.root().display()));
    std::fs::create_dir_all(&sibling).unwrap();
    let roots = Roots::new(f.root(), &[]).unwrap();
    let err = roots
        .resolve(&sibling.join("x").display().to_string())
        .unwrap_err();
    assert!(
        err.to_string().contains("outside the project root"),
        "{err}"
    );
    std::fs::remove_dir_all(&sibling).unwrap();
}

#[test]
fn extra_roots_are_allowed_and_listed() {
    let f = Fixture::new();
    let roots = Roots::new(f.root(), &[f.outside()]).unwrap();
    let secret = f.outside().join("secret.txt");
    assert_eq!(
        roots.resolve(&secret.display().to_string()).unwrap(),
        secret
    );
    let err = roots.resolve("/etc/passwd").unwrap_err().to_string();
    assert!(err.contains(&f.outside().display().to_string()), "{err}");
    assert!(Roots::new(f.root().join("missing"), &[]).is_err());
}

#[tokio::test]
async fn tools_are_read_only() {
    for tool in [
        &ReadTool as &dyn Tool,
        &GlobTool,
        &GrepTool,
        &crit_agent::BashTool,
    ] {
        assert!(!tool.is_mutating(), "{}", tool.name());
    }
}
