#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns
use crate::common;

use common::Fixture;
use crit_agent::{GrepTool, Limits};
use serde_json::json;

fn project() -> Fixture {
    let f = Fixture::new();
    f.write(
        "src/lib.rs",
        "pub fn alpha() {}\n// TODO: beta\nfn gamma() {\n    alpha();\n}\n",
    );
    f.write("src/main.rs", "fn main() {\n    Alpha::new();\n}\n");
    f.write("app/index.js", "function alpha() { return 1; }\n");
    f.write(
        "notes.md",
        "one\ntwo\nthree alpha\nfour\nfive\nsix\nseven alpha\n",
    );
    f.write("ignored/skip.rs", "fn alpha() {}\n");
    f.write(".gitignore", "ignored/\n");
    f.write("bin/data.bin", "alpha\0\x01\x02 binary");
    f
}

#[tokio::test]
async fn grep_happy_paths() {
    let f = project();
    let cases: Vec<(&str, serde_json::Value, &str)> = vec![
        (
            "files default",
            json!({"pattern": "alpha"}),
            "Found 3 file(s)\napp/index.js\nnotes.md\nsrc/lib.rs\n",
        ),
        (
            "case insensitive",
            json!({"pattern": "alpha", "-i": true, "path": "src"}),
            "Found 2 file(s)\nsrc/lib.rs\nsrc/main.rs\n",
        ),
        (
            "type filter",
            json!({"pattern": "alpha", "type": "rust"}),
            "Found 1 file(s)\nsrc/lib.rs\n",
        ),
        (
            "glob filter",
            json!({"pattern": "alpha", "glob": "*.{js,md}"}),
            "Found 2 file(s)\napp/index.js\nnotes.md\n",
        ),
        (
            "content",
            json!({"pattern": "alpha", "output_mode": "content", "path": "src/lib.rs"}),
            "src/lib.rs:1:pub fn alpha() {}\nsrc/lib.rs:4:    alpha();\n",
        ),
        (
            "content without numbers",
            json!({"pattern": "TODO", "output_mode": "content", "-n": false}),
            "src/lib.rs:// TODO: beta\n",
        ),
        (
            "context",
            json!({"pattern": "alpha", "output_mode": "content", "path": "notes.md", "-C": 1}),
            "notes.md-2-two\nnotes.md:3:three alpha\nnotes.md-4-four\n--\nnotes.md-6-six\nnotes.md:7:seven alpha\n",
        ),
        (
            "before only",
            json!({"pattern": "seven", "output_mode": "content", "-B": 2, "path": "notes.md"}),
            "notes.md-5-five\nnotes.md-6-six\nnotes.md:7:seven alpha\n",
        ),
        (
            "count",
            json!({"pattern": "alpha", "output_mode": "count"}),
            "app/index.js:1\nnotes.md:2\nsrc/lib.rs:2\n",
        ),
        (
            "head limit",
            json!({"pattern": "alpha", "output_mode": "count", "head_limit": 1}),
            "app/index.js:1\n[2 more entries not shown; narrow the pattern, path, glob or type, or page with head_limit]\n",
        ),
        (
            "multiline",
            json!({"pattern": "gamma\\(\\) \\{.*alpha", "multiline": true, "output_mode": "content"}),
            "src/lib.rs:3:fn gamma() {\nsrc/lib.rs:4:    alpha();\n",
        ),
        (
            "no match",
            json!({"pattern": "zeta"}),
            "No matches for `zeta`",
        ),
    ];
    for (name, input, want) in cases {
        let out = f.call(&GrepTool, input).await;
        assert!(!out.is_error, "{name}: {}", out.content);
        assert_eq!(out.content, want, "{name}");
    }
}

#[tokio::test]
async fn grep_skips_binary_ignored_and_hidden_files() {
    let f = project();
    f.write(".hidden/h.rs", "alpha");
    f.write(".git/HEAD", "alpha");
    let out = f
        .call(
            &GrepTool,
            json!({"pattern": "alpha", "output_mode": "files_with_matches"}),
        )
        .await;
    for absent in ["bin/data.bin", "ignored/skip.rs", ".hidden", ".git"] {
        assert!(!out.content.contains(absent), "{absent}:\n{}", out.content);
    }
}

#[tokio::test]
async fn grep_caps_output() {
    let mut f = Fixture::new();
    f.cx.limits = Limits {
        max_output_bytes: 200,
        ..Limits::default()
    };
    f.write("big.txt", &"match me\n".repeat(1000));
    let out = f
        .call(
            &GrepTool,
            json!({"pattern": "match", "output_mode": "content"}),
        )
        .await;
    assert!(!out.is_error);
    assert!(out.content.len() < 400, "{}", out.content.len());
    assert!(
        out.content.contains("more lines not shown"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn grep_input_errors_name_the_field() {
    let f = project();
    let cases: Vec<(serde_json::Value, &str)> = vec![
        (json!({"pattern": "("}), "field `pattern`: invalid regex"),
        (
            json!({"pattern": "a", "type": "klingon"}),
            "field `type`: unknown file type `klingon`",
        ),
        (
            json!({"pattern": "a", "output_mode": "lines"}),
            "field `output_mode` must be one of",
        ),
        (
            json!({"pattern": "a", "-A": -1}),
            "field `-A` must be a non-negative integer",
        ),
        (
            json!({"pattern": "a", "-i": "yes"}),
            "field `-i` must be true or false",
        ),
        (
            json!({"pattern": "a", "path": "nope"}),
            "field `path`: `nope` does not exist",
        ),
        (
            json!({"pattern": "a", "glob": "{"}),
            "field `glob`: invalid glob",
        ),
        (
            json!({"pattern": "a", "--pre": "sh"}),
            "unknown field `--pre`",
        ),
    ];
    for (input, want) in cases {
        let out = f.call(&GrepTool, input.clone()).await;
        assert!(out.is_error, "{input}: {}", out.content);
        assert!(out.content.contains(want), "{input}: {}", out.content);
    }
}
