#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns
use crate::common;

use common::Fixture;
use crit_agent::{Limits, ReadTool};
use serde_json::json;

fn numbered(lines: &[(u64, &str)]) -> String {
    lines
        .iter()
        .map(|(n, l)| format!("{n:>6}\t{l}\n"))
        .collect()
}

#[tokio::test]
async fn read_happy_paths() {
    let f = Fixture::new();
    let ten: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    f.write("src/ten.txt", &ten);
    f.write("crlf.txt", "a\r\nb\r\n");
    f.write("no_newline.txt", "only");
    f.write("empty.txt", "");
    let abs = f.root().join("src/ten.txt").display().to_string();
    let on = |a: u64, b: u64| {
        format!(
            "\n[showing lines {a}-{b}; the file goes on: call Read with offset={} to read more]",
            b + 1
        )
    };
    let more = on(1, 3);
    let cases: Vec<(&str, serde_json::Value, String)> = vec![
        ("whole file", json!({"file_path": "src/ten.txt"}), {
            let v: Vec<(u64, String)> = (1..=10).map(|i| (i, format!("line {i}"))).collect();
            v.iter().map(|(n, l)| format!("{n:>6}\t{l}\n")).collect()
        }),
        (
            "absolute path",
            json!({"file_path": abs, "offset": 10}),
            numbered(&[(10, "line 10")]),
        ),
        (
            "offset and limit",
            json!({"file_path": "src/ten.txt", "offset": 4, "limit": 2}),
            numbered(&[(4, "line 4"), (5, "line 5")]) + &on(4, 5),
        ),
        (
            "limit says how to read on",
            json!({"file_path": "src/ten.txt", "limit": 3}),
            numbered(&[(1, "line 1"), (2, "line 2"), (3, "line 3")]) + &more,
        ),
        (
            "numbers as strings",
            json!({"file_path": "src/ten.txt", "offset": "9", "limit": "1"}),
            numbered(&[(9, "line 9")]) + &on(9, 9),
        ),
        (
            "dot segments inside",
            json!({"file_path": "./src/../src/ten.txt", "offset": 2, "limit": 1}),
            numbered(&[(2, "line 2")]) + &on(2, 2),
        ),
        (
            "crlf stripped",
            json!({"file_path": "crlf.txt"}),
            numbered(&[(1, "a"), (2, "b")]),
        ),
        (
            "no final newline",
            json!({"file_path": "no_newline.txt"}),
            numbered(&[(1, "only")]),
        ),
        (
            "empty file",
            json!({"file_path": "empty.txt"}),
            "(file `empty.txt` is empty)".to_string(),
        ),
    ];
    for (name, input, want) in cases {
        let out = f.call(&ReadTool, input).await;
        assert!(!out.is_error, "{name}: {}", out.content);
        assert_eq!(out.content, want, "{name}");
    }
}

#[tokio::test]
async fn read_cuts_long_lines_with_a_marker() {
    let f = Fixture::new();
    f.write("long.txt", &format!("{}\nshort\n", "é".repeat(5000)));
    let out = f.call(&ReadTool, json!({"file_path": "long.txt"})).await;
    assert!(!out.is_error);
    let first = out.content.lines().next().unwrap();
    assert_eq!(
        first,
        format!(
            "     1\t{}… [line cut at 2000 characters]",
            "é".repeat(2000)
        )
    );
    assert!(out.content.ends_with("     2\tshort\n"));
}

#[tokio::test]
async fn read_caps_bytes_and_says_how_to_read_on() {
    let mut f = Fixture::new();
    f.cx.limits = Limits {
        max_read_bytes: 100,
        ..Limits::default()
    };
    let body: String = (1..=50).map(|i| format!("row number {i:03}\n")).collect();
    f.write("big.txt", &body);
    let out = f.call(&ReadTool, json!({"file_path": "big.txt"})).await;
    assert!(!out.is_error);
    // Each shown line is 6 + 1 + 14 + 1 = 22 bytes: four fit under 100.
    assert!(out.content.starts_with(&numbered(&[(1, "row number 001")])));
    assert!(out.content.contains("     4\trow number 004\n"));
    assert!(!out.content.contains("row number 005"));
    assert!(
        out.content.ends_with(
            "[output cut at 100 bytes after line 4; call Read with offset=5 to read on]"
        )
    );
}

#[tokio::test]
async fn read_refusals_are_clear_error_outputs() {
    let f = Fixture::new();
    f.write("bin.dat", "abc\0def");
    f.write("dir/x.txt", "x");
    f.write("three.txt", "1\n2\n3\n");
    let cases: Vec<(&str, serde_json::Value, &str)> = vec![
        (
            "binary",
            json!({"file_path": "bin.dat"}),
            "looks like a binary file",
        ),
        (
            "directory",
            json!({"file_path": "dir"}),
            "is a directory, not a file",
        ),
        (
            "missing",
            json!({"file_path": "nope.txt"}),
            "does not exist",
        ),
        (
            "past the end",
            json!({"file_path": "three.txt", "offset": 9}),
            "offset 9 is past the end: `three.txt` has 3 lines",
        ),
        (
            "missing field",
            json!({}),
            "missing required field `file_path`",
        ),
        (
            "unknown field",
            json!({"file_path": "three.txt", "lines": 3}),
            "unknown field `lines`",
        ),
        (
            "bad offset",
            json!({"file_path": "three.txt", "offset": 0}),
            "field `offset` must be a positive integer, got 0",
        ),
        (
            "bad limit type",
            json!({"file_path": "three.txt", "limit": "many"}),
            "field `limit` must be a positive integer",
        ),
        (
            "wrong type",
            json!({"file_path": 7}),
            "field `file_path` must be a string, got 7",
        ),
        (
            "not an object",
            json!("three.txt"),
            "expected a JSON object",
        ),
        ("empty path", json!({"file_path": " "}), "path is empty"),
    ];
    for (name, input, want) in cases {
        let out = f.call(&ReadTool, input).await;
        assert!(out.is_error, "{name}: {}", out.content);
        assert!(out.content.contains(want), "{name}: {}", out.content);
    }
}

#[cfg(unix)]
#[tokio::test]
async fn read_refuses_a_fifo_instead_of_hanging() {
    let f = Fixture::new();
    let status = std::process::Command::new("mkfifo")
        .arg(f.root().join("pipe"))
        .status()
        .unwrap();
    assert!(status.success());
    let out = f.call(&ReadTool, json!({"file_path": "pipe"})).await;
    assert!(out.is_error);
    assert!(
        out.content.contains("not a regular file"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn read_extra_root_is_allowed() {
    let f = Fixture::new();
    let cx = crit_agent::ToolContext::new(f.root(), &[f.outside()]).unwrap();
    let path = f.outside().join("secret.txt").display().to_string();
    let out = crit_agent::Tool::call(&ReadTool, json!({"file_path": path}), &cx).await;
    assert!(!out.is_error, "{}", out.content);
    assert!(out.content.contains(common::SECRET));
}
