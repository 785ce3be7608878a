//! Shared by the gate's adversarial tests: a hostile change in a real
//! repository (`main` holds the base, `HEAD` one commit on top), `crit
//! review code` over it against crit-testkit, and the gate's first
//! invariant as an assertion: a review that passes had every added line of
//! its change reach the model.

use std::path::Path;
use std::process::Output;

use crit_testkit::{FakeServer, Reply};
use serde_json::{Value, json};
use tempfile::TempDir;

use super::{crit, git, init_repo, json_out};

/// One file of a base or a change: a path and its bytes (`None`: deleted).
pub type File<'a> = (&'a str, Option<&'a [u8]>);

/// `main` with `base`, then a commit on top applying `change`.
pub fn change_repo(base: &[File<'_>], change: &[File<'_>]) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    put(d, &[(".gitignore", Some(b".state/\n.home/\n.cache/\n"))]);
    put(d, base);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "--allow-empty", "-m", "base"]);
    git(d, &["checkout", "-q", "-b", "work"]);
    put(d, change);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "--allow-empty", "-m", "the change"]);
    dir
}

/// Writes (or deletes) files in the working tree.
pub fn put(d: &Path, files: &[File<'_>]) {
    for (rel, bytes) in files {
        let p = d.join(rel);
        match bytes {
            Some(b) => {
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(&p, b).unwrap();
            }
            None => {
                let _ = std::fs::remove_file(&p);
            }
        }
    }
}

/// `crit review code --diff main..HEAD --json --no-log EXTRA…` with the
/// hunk cache in `d/.cache`.
pub fn review(d: &Path, server: &FakeServer, extra: &[&str]) -> Output {
    crit(d, server, None)
        .env("XDG_CACHE_HOME", d.join(".cache"))
        .args([
            "review",
            "code",
            "--diff",
            "main..HEAD",
            "--json",
            "--no-log",
        ])
        .args(extra)
        .output()
        .unwrap()
}

/// `review` with `--exit-code`, and its JSON.
pub fn gated(d: &Path, server: &FakeServer, extra: &[&str]) -> (Output, Value) {
    let mut args = vec!["--exit-code"];
    args.extend_from_slice(extra);
    let out = review(d, server, &args);
    let r = json_out(&out);
    (out, r)
}

/// A clean answer, scripted `n` times (parts, retries).
pub fn passes(server: &FakeServer, n: usize) {
    for _ in 0..n {
        server.push(Reply::json(super::pass()));
    }
}

/// An answer in the findings contract.
pub fn answer(verdict: &str, findings: Vec<Value>) -> Reply {
    Reply::json(json!({"verdict": verdict, "summary": "As found.", "findings": findings}))
}

/// A finding in the findings contract.
pub fn finding(path: &str, line: u32, priority: u8, title: &str) -> Value {
    json!({"file_path": path, "line_start": line, "line_end": line, "priority": priority,
        "title": title, "body": "Why it matters."})
}

/// Every string of every model request the server received, one per line:
/// what the model was shown, unescaped.
pub fn sent(server: &FakeServer) -> String {
    let mut out = String::new();
    for r in server.model_requests() {
        strings(&r.body, &mut out);
    }
    out
}

fn strings(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// The added lines (without `+`) of the change `main..HEAD`, as git shows
/// them with every file as text, lossily decoded, blank ones left out.
pub fn added_lines(d: &Path) -> Vec<String> {
    let out = std::process::Command::new("git")
        .args([
            "-c",
            "core.attributesFile=/dev/null",
            "--attr-source=4b825dc642cb6eb9a060e54bf8d69288fbee4904",
            "diff",
            "--text",
            "--no-ext-diff",
            "--no-textconv",
            "--no-color",
            "main..HEAD",
        ])
        .current_dir(d)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", d)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
        .map(|l| l[1..].trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// Added lines of the change that no model request held.
pub fn unseen(d: &Path, server: &FakeServer) -> Vec<String> {
    let text = sent(server);
    added_lines(d)
        .into_iter()
        .filter(|l| {
            // Bytes that are not text reach the model as escapes or U+FFFD:
            // the text between them must arrive.
            l.split(|c: char| (c.is_control() && c != '\t') || c == '\u{FFFD}')
                .map(str::trim)
                .any(|piece| !piece.is_empty() && !text.contains(piece))
        })
        .collect()
}

/// The gate's first invariant: a review that passed showed the model every
/// added line of its change; one that did not see them all did not pass,
/// and its coverage lists a gap.
pub fn assert_seen_or_held(name: &str, d: &Path, server: &FakeServer, out: &Output, r: &Value) {
    let missing = unseen(d, server);
    if r["passed"] == true {
        assert!(
            missing.is_empty(),
            "{name}: passed, but the model never saw {missing:?}\n{}",
            super::show(out)
        );
        assert_eq!(out.status.code(), Some(0), "{name}: {}", super::show(out));
    } else if !missing.is_empty() {
        let left_out = r["coverage"]["left_out"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert!(
            !left_out.is_empty() || r["fatal_error"] == true,
            "{name}: lines unseen and no coverage gap: {missing:?}\n{r:#}"
        );
    }
}

/// `left_out` causes of the result's coverage.
pub fn gap_causes(r: &Value) -> Vec<String> {
    r["coverage"]["left_out"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|g| g["cause"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The rule ids of the result's findings.
pub fn rules(r: &Value) -> Vec<String> {
    r["findings"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|f| f["rule_id"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// `review` with crit's cache and state (its sealing key) under `home`
/// instead of the repository, so two repositories can share them.
pub fn review_in(d: &Path, home: &Path, server: &FakeServer, extra: &[&str]) -> Output {
    crit(d, server, None)
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("XDG_STATE_HOME", home.join("state"))
        .args([
            "review",
            "code",
            "--diff",
            "main..HEAD",
            "--json",
            "--no-log",
        ])
        .args(extra)
        .output()
        .unwrap()
}

/// The hunk cache's entries under `home`.
pub fn cache_entries(home: &Path) -> Vec<std::path::PathBuf> {
    // One store file holds every entry, sealed one by one.
    let store = home.join("cache/crit/hunks-v3/hunks.bin");
    match store.exists() {
        true => vec![store],
        false => Vec::new(),
    }
}
