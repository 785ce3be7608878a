#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns
use crate::common;

use std::time::{Duration, SystemTime};

use common::Fixture;
use crit_agent::GlobTool;
use serde_json::json;

fn touch_at(path: &std::path::Path, secs_after_epoch: u64) {
    let t = SystemTime::UNIX_EPOCH + Duration::from_secs(secs_after_epoch);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

fn project() -> Fixture {
    let f = Fixture::new();
    for (i, rel) in [
        "src/lib.rs",
        "src/main.rs",
        "src/deep/mod.rs",
        "README.md",
        "docs/guide.md",
        "web/app.ts",
        "web/view.tsx",
        "target/out.rs",
        ".hidden/secret.rs",
        ".env.rs",
    ]
    .iter()
    .enumerate()
    {
        let p = f.write(rel, "x\n");
        touch_at(&p, 1_000_000 + i as u64 * 100);
    }
    f.write(".gitignore", "target/\n");
    f
}

#[tokio::test]
async fn glob_happy_paths() {
    let f = project();
    let sub = f.root().join("src").display().to_string();
    let cases: Vec<(&str, serde_json::Value, &str)> = vec![
        // Newest first: deep/mod.rs was touched last of the three.
        (
            "recursive",
            json!({"pattern": "**/*.rs"}),
            "src/deep/mod.rs\nsrc/main.rs\nsrc/lib.rs\n",
        ),
        (
            "star stays in its directory",
            json!({"pattern": "*.md"}),
            "README.md\n",
        ),
        (
            "braces",
            json!({"pattern": "web/*.{ts,tsx}"}),
            "web/view.tsx\nweb/app.ts\n",
        ),
        (
            "relative path",
            json!({"pattern": "*.rs", "path": "src"}),
            "src/main.rs\nsrc/lib.rs\n",
        ),
        (
            "absolute path",
            json!({"pattern": "**/mod.rs", "path": sub}),
            "src/deep/mod.rs\n",
        ),
        (
            "nothing",
            json!({"pattern": "**/*.py"}),
            "No files found matching `**/*.py`",
        ),
    ];
    for (name, input, want) in cases {
        let out = f.call(&GlobTool, input).await;
        assert!(!out.is_error, "{name}: {}", out.content);
        if want.starts_with("No files") {
            assert!(out.content.starts_with(want), "{name}: {}", out.content);
        } else {
            assert_eq!(out.content, want, "{name}");
        }
    }
}

#[tokio::test]
async fn glob_skips_gitignored_hidden_and_dot_git() {
    let f = project();
    f.write(".git/config.rs", "x");
    let out = f.call(&GlobTool, json!({"pattern": "**/*"})).await;
    assert!(!out.is_error);
    for absent in ["target/out.rs", ".hidden", ".env.rs", ".git", ".gitignore"] {
        assert!(
            !out.content.contains(absent),
            "{absent} listed:\n{}",
            out.content
        );
    }
    assert!(out.content.contains("src/lib.rs"));
}

#[tokio::test]
async fn glob_caps_the_count_with_a_note() {
    let f = Fixture::new();
    for i in 0..130 {
        f.write(&format!("many/f{i:03}.txt"), "x");
    }
    let out = f.call(&GlobTool, json!({"pattern": "many/*.txt"})).await;
    assert!(!out.is_error);
    assert_eq!(out.content.lines().count(), 101, "{}", out.content);
    assert!(
        out.content
            .ends_with("(30 more files not shown; use a more specific pattern or path)\n")
    );
}

#[tokio::test]
async fn glob_input_errors_name_the_field() {
    let f = project();
    let cases: Vec<(serde_json::Value, &str)> = vec![
        (json!({}), "missing required field `pattern`"),
        (
            json!({"pattern": "a[", "path": "src"}),
            "field `pattern`: invalid glob",
        ),
        (
            json!({"pattern": "/etc/*"}),
            "field `pattern`: `/etc/*` must be relative",
        ),
        (json!({"pattern": "../*"}), "must not contain `..`"),
        (
            json!({"pattern": "*", "path": "README.md"}),
            "field `path`: `README.md` is not a directory",
        ),
        (
            json!({"pattern": "*", "recursive": true}),
            "unknown field `recursive`",
        ),
    ];
    for (input, want) in cases {
        let out = f.call(&GlobTool, input.clone()).await;
        assert!(out.is_error, "{input}: {}", out.content);
        assert!(out.content.contains(want), "{input}: {}", out.content);
    }
}
