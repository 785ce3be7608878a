//! The README's commands, run as a new user runs them: each block marked
//! `<!-- test: NAME -->` in README.md is extracted and run in a scratch copy of
//! the example it names, with the `crit` built here on PATH, and the output
//! shown under it (marked `<!-- output: NAME -->`) must be what the user sees.
//! So the README and crit cannot drift apart.
//!
//! The offline example replays recorded model answers (cassettes under
//! `examples/demo/cassettes`). When a prompt changes, this test fails saying so;
//! `CRIT_RECORD_EXAMPLES=1 cargo test --test crit readme::` records them again against
//! crit-testkit's fake server, with the scripted answers below, and writes what
//! the commands print into the README's output block (review the diff).

use std::path::{Path, PathBuf};
use std::process::Command;

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::json;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The fenced block after `<!-- {kind}: {name} -->`.
fn block(kind: &str, name: &str) -> String {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let marker = format!("<!-- {kind}: {name} -->");
    let at = readme
        .find(&marker)
        .unwrap_or_else(|| panic!("README.md has no `{marker}`"));
    let rest = &readme[at + marker.len()..];
    let open = rest.find("```").unwrap();
    let body = &rest[open..];
    let body = &body[body.find('\n').unwrap() + 1..];
    body[..body.find("```").unwrap()].to_string()
}

/// Replaces the fenced block after `<!-- {kind}: {name} -->` (recording mode).
fn set_block(kind: &str, name: &str, text: &str) {
    let path = root().join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let marker = format!("<!-- {kind}: {name} -->");
    let at = readme.find(&marker).unwrap() + marker.len();
    let open = at + readme[at..].find("```").unwrap();
    let body = open + readme[open..].find('\n').unwrap() + 1;
    let close = body + readme[body..].find("```").unwrap();
    let new = format!("{}{}{}", &readme[..body], text, &readme[close..]);
    std::fs::write(&path, new).unwrap();
}

/// A scratch copy of `examples/<name>`, as the README's commands make one.
fn scratch(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root().join("examples").join(name), dir.path());
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// Runs one README command line with `sh` in `dir`: the crit built here first
/// on PATH, a home of its own, no credentials, no colours.
fn sh(dir: &Path, line: &str) -> std::process::Output {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_crit"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("sh")
        .args(["-c", line])
        .current_dir(dir)
        .env_clear()
        .env("PATH", path)
        .env("HOME", dir.join(".home"))
        .env("XDG_STATE_HOME", dir.join(".state"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

/// Durations differ run to run: `0.0s`-style numbers become `…s`.
fn stable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_ascii_digit() {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            if i < chars.len() && chars[i] == 's' && chars[start..i].contains(&'.') {
                out.push_str("…s");
                i += 1;
                continue;
            }
            out.extend(&chars[start..i]);
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// The model's answers the offline example was recorded with.
fn scripted() -> Vec<Reply> {
    let finding = |path: &str, a: u32, b: u32, p: u8, title: &str, body: &str| json!({"file_path": path, "line_start": a, "line_end": b, "priority": p, "title": title, "body": body});
    let code = json!({
        "verdict": "FAIL",
        "summary": "Search builds SQL from user input, and export writes wherever the caller says.",
        "findings": [
            finding("src/notes.py", 19, 20, 0, "SQL injection in search_notes",
                "`query` and `user_id` are formatted into the SQL text, so a query like `' OR 1=1 --` returns every user's notes. CLAUDE.md requires `?` parameters: `db.execute(\"... WHERE user_id = ? AND text LIKE ?\", (user_id, f\"%{query}%\"))`."),
            finding("src/notes.py", 23, 26, 1, "export_notes writes to any path the caller gives",
                "`path` is opened for writing as given, so `../../.bashrc` overwrites a file outside the export directory. CLAUDE.md allows paths inside `EXPORT_DIR` only: build the path from the user id under `EXPORT_DIR` instead of taking it from the caller."),
        ]
    });
    let arch = json!({
        "verdict": "FAIL",
        "summary": "The export slice lets the caller choose the file path, which the HLD forbids.",
        "findings": [
            finding("docs/export-slice.md", 7, 8, 1, "Export path comes from the query string",
                "The HLD says exports are written under `EXPORT_DIR`, one file per user, never to a path the caller chooses (Principles). `GET /export?path=...` passes the caller's path to `export_notes`. Derive the path from the user id under `EXPORT_DIR`."),
        ]
    });
    let run = json!({
        "verdict": "FAIL",
        "summary": "One blocking security problem: SQL built from user input.",
        "findings": [
            finding("src/notes.py", 19, 20, 0, "SQL injection in search_notes",
                "The search query is formatted into the SQL string; use `?` parameters as CLAUDE.md requires."),
        ]
    });
    // The second look each blocking finding gets (on haiku); the checks of
    // one review run side by side, so every one answers alike.
    let confirmed = || {
        Reply::json(json!({"outcome": "confirmed", "reason": "The code at these lines does what the finding says."}))
            .usage(900, 40, 0, 0)
    };
    // Token counts of a real review of this size, so the costs shown are too.
    vec![
        Reply::json(code).usage(1_850, 420, 0, 3_612),
        confirmed(),
        confirmed(),
        Reply::json(arch).usage(1_240, 260, 0, 3_612),
        confirmed(),
        Reply::json(run).usage(2_310, 210, 0, 3_480),
    ]
}

#[test]
fn the_offline_example_in_the_readme() {
    let commands = block("test", "offline");
    let mut lines: Vec<&str> = commands
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    // The first line makes the scratch copy the rest run in; so does this test.
    assert_eq!(
        lines.first().copied(),
        Some(r#"d=$(mktemp -d) && cp -r examples/demo/. "$d" && cd "$d""#)
    );
    lines.remove(0);
    assert!(!lines.is_empty());
    let cassettes = root().join("examples/demo/cassettes");
    if std::env::var_os("CRIT_RECORD_EXAMPLES").is_some() {
        record(&lines, &cassettes);
    }
    let dir = scratch("demo");
    let mut shown = String::new();
    for line in &lines {
        let out = sh(dir.path(), line);
        shown.push_str(&String::from_utf8_lossy(&out.stdout));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !err.contains("no cassette matches"),
            "a prompt changed since the example was recorded; run \
             CRIT_RECORD_EXAMPLES=1 cargo test --test crit readme:: and commit examples/demo/cassettes:\n{err}"
        );
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "`{line}` exited {:?}:\n{err}",
            out.status.code()
        );
    }
    if std::env::var_os("CRIT_RECORD_EXAMPLES").is_some() {
        set_block("output", "offline", &shown);
    }
    let want = block("output", "offline");
    assert_eq!(
        stable(&shown),
        stable(&want),
        "the README's output block differs from what the commands print"
    );
}

/// Runs each command against the fake server, recording its exchanges.
fn record(lines: &[&str], cassettes: &Path) {
    let _ = std::fs::remove_dir_all(cassettes);
    std::fs::create_dir_all(cassettes).unwrap();
    let dir = scratch("demo");
    let server = FakeServer::start_blocking();
    for reply in scripted() {
        server.push(Step::reply(reply));
    }
    for line in lines {
        let live = line.replace(
            "--provider replay --cassettes cassettes",
            &format!("--provider anthropic --record {}", cassettes.display()),
        );
        let out = Command::new("sh")
            .args(["-c", &live])
            .current_dir(dir.path())
            .env_clear()
            .env(
                "PATH",
                format!(
                    "{}:{}",
                    PathBuf::from(env!("CARGO_BIN_EXE_crit"))
                        .parent()
                        .unwrap()
                        .display(),
                    std::env::var("PATH").unwrap_or_default()
                ),
            )
            .env("HOME", dir.path().join(".home"))
            .env("XDG_STATE_HOME", dir.path().join(".state"))
            .env("ANTHROPIC_API_KEY", "sk-ant-example-recording")
            .env("ANTHROPIC_BASE_URL", server.url())
            .output()
            .unwrap();
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "recording `{live}`: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(
        server.remaining_steps(),
        0,
        "every scripted answer was asked for"
    );
}

/// Every fenced block after a `<!-- runnable -->` marker: its language and text.
fn runnable_blocks() -> Vec<(String, String)> {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let marker = "<!-- runnable -->";
    readme
        .match_indices(marker)
        .map(|(at, _)| {
            let rest = &readme[at + marker.len()..];
            let open = rest.find("```").unwrap();
            let after = &rest[open + 3..];
            let nl = after.find('\n').unwrap();
            let lang = after[..nl].trim().to_string();
            let body = &after[nl + 1..];
            (lang, body[..body.find("```").unwrap()].to_string())
        })
        .collect()
}

/// The exit status a README line documents (`# exit 1: …`), else 0.
fn documented_status(line: &str) -> i32 {
    line.split_once("# exit ")
        .and_then(|(_, rest)| {
            rest.split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}

/// Each shell block marked runnable, line by line, as a new user runs it
/// from a checkout: in a scratch copy of the repository's examples, with a
/// home of its own and the crit built here first on PATH. Each line exits 0,
/// or with the status its comment documents. Python blocks are run by the
/// Python suite (`test_readme.py`), with the package installed.
#[test]
fn every_runnable_block_in_the_readme_runs_as_written() {
    let blocks = runnable_blocks();
    assert!(blocks.len() >= 3, "{blocks:?}");
    let mut ran = 0;
    for (lang, body) in &blocks {
        match lang.as_str() {
            "sh" => {}
            "python" => continue,
            other => panic!("a runnable block in `{other}`, which no test runs"),
        }
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&root().join("examples"), &dir.path().join("examples"));
        for line in body.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let out = sh(dir.path(), line);
            assert_eq!(
                out.status.code(),
                Some(documented_status(line)),
                "`{line}`:\nstdout: {}\nstderr: {}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            ran += 1;
        }
    }
    assert!(ran >= 8, "{ran} lines ran");
}

#[test]
fn the_readme_names_only_files_that_exist() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    // Markdown links to files of the repository.
    for (at, _) in readme.match_indices("](") {
        let rest = &readme[at + 2..];
        let target = &rest[..rest.find(')').unwrap()];
        if target.starts_with("http") || target.starts_with('#') {
            continue;
        }
        assert!(root().join(target).exists(), "README.md links to {target}");
    }
    // Paths of the examples the commands use.
    for (at, _) in readme.match_indices("examples/") {
        let rest = &readme[at..];
        let path: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || "/._-".contains(*c))
            .collect();
        let path = path.trim_end_matches(['.', '/']);
        if path.contains('*') || path.ends_with("crit-") {
            continue;
        }
        assert!(root().join(path).exists(), "README.md names {path}");
    }
}
