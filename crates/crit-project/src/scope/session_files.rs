//! The files a review writes in its session directory,
//! `.crit/sessions/<UTC time>-<id>/`, told by what they hold: a file is
//! crit's only in a directory named as crit names one and with exactly the
//! shape crit writes there (its session record, a `ReviewResult`, JSON lines
//! of transcript events). A script saved under one of these names is not.
//!
//! Whether the change committed the file is the caller's part: crit's
//! sessions are git-ignored logs, so a committed one is not crit's.

use std::collections::BTreeMap;
use std::path::Path;

use crit_core::ReviewResult;
use crit_core::transcript::TranscriptItem;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The largest session file read to tell whether it is crit's: a
/// transcript is cut at 64 MiB, then one line says so.
const CAP: u64 = 65 * 1024 * 1024;

/// `20261121T140302Z-3fa9c2d1` → (`20261121T140302Z`, `3fa9c2d1`): the
/// name crit gives a session's directory.
pub fn session_dir_name(name: &str) -> Option<(&str, &str)> {
    let (stamp, id) = name.split_once('-')?;
    let stamp_ok = stamp.len() == 16
        && stamp.as_bytes()[8] == b'T'
        && stamp.ends_with('Z')
        && stamp[..8]
            .bytes()
            .chain(stamp[9..15].bytes())
            .all(|b| b.is_ascii_digit());
    let id_ok = !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric());
    (stamp_ok && id_ok).then_some((stamp, id))
}

/// Whether `path` (from the project root, `/`-separated) is a file a review
/// wrote in its session directory, as it wrote it.
pub(super) fn is_crits(root: &Path, path: &str) -> bool {
    let Some((dir, name)) = path
        .strip_prefix(".crit/sessions/")
        .and_then(|rest| rest.split_once('/'))
    else {
        return false;
    };
    let Some((_, id)) = session_dir_name(dir) else {
        return false;
    };
    let check: fn(&[u8], &str) -> bool = match name {
        "session.json" => is_record,
        "result.json" => is_result,
        "transcript.jsonl" | "transcript.log" => is_transcript,
        _ => return false,
    };
    read(&root.join(path)).is_some_and(|bytes| check(&bytes, id))
}

/// `session.json` as crit writes it: what ran, with the directory's id.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Record {
    review: String,
    #[serde(default)]
    inputs: BTreeMap<String, String>,
    #[serde(default)]
    config: Value,
    cwd: String,
    started_at: String,
    crit_version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    prompt: Option<String>,
    session_id: String,
}

fn is_record(bytes: &[u8], id: &str) -> bool {
    serde_json::from_slice::<Record>(bytes).is_ok_and(|r| r.session_id == id)
}

/// `result.json`: a `ReviewResult` as crit serializes it, and beside it
/// only the keys `crit run` adds for scripts written for Reldo.
fn is_result(bytes: &[u8], _id: &str) -> bool {
    let Ok(Value::Object(file)) = serde_json::from_slice::<Value>(bytes) else {
        return false;
    };
    let Ok(result) = serde_json::from_value::<ReviewResult>(Value::Object(file.clone())) else {
        return false;
    };
    let Ok(Value::Object(ours)) = serde_json::to_value(&result) else {
        return false;
    };
    let reldo = crit_core::render::compat::reldo::value(&result);
    let reldos = |k: &str| k == "completed_at" || reldo.get(k).is_some();
    ours.iter().all(|(k, v)| file.get(k) == Some(v))
        && file.keys().all(|k| ours.contains_key(k) || reldos(k))
}

/// A transcript: every line one event as crit writes it (a run's items, an
/// agent backend's own line under its reviewer's name, the cut marker).
fn is_transcript(bytes: &[u8], _id: &str) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    // A reviewer that never ran leaves the file empty.
    text.is_empty()
        || text
            .strip_suffix('\n')
            .unwrap_or(text)
            .split('\n')
            .all(is_event)
}

fn is_event(line: &str) -> bool {
    let Ok(Value::Object(event)) = serde_json::from_str::<Value>(line) else {
        return false;
    };
    let keys =
        |names: &[&str]| event.len() == names.len() && names.iter().all(|n| event.contains_key(*n));
    match event.get("type").and_then(Value::as_str) {
        Some("agent_event") => {
            keys(&["type", "agent", "event"]) && event.get("agent").is_some_and(Value::is_string)
        }
        Some("truncated") => {
            keys(&["type", "limit_bytes", "detail"])
                && event.get("limit_bytes").is_some_and(Value::is_u64)
                && event.get("detail").is_some_and(Value::is_string)
        }
        _ => serde_json::from_value::<TranscriptItem>(Value::Object(event.clone()))
            .ok()
            .and_then(|item| serde_json::to_value(item).ok())
            .is_some_and(|v| v == Value::Object(event)),
    }
}

/// A regular file's bytes, up to [`CAP`]; `None` for anything else.
fn read(path: &Path) -> Option<Vec<u8>> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > CAP {
        return None;
    }
    std::fs::read(path).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dir_names() {
        assert_eq!(
            session_dir_name("20261121T140302Z-3fa9c2d1"),
            Some(("20261121T140302Z", "3fa9c2d1"))
        );
        for bad in [
            "20261121T140302Z-",
            "notes-abc",
            "20261121T140302Z-a/b",
            "2026112xT140302Z-ab",
            "x",
        ] {
            assert_eq!(session_dir_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn only_crits_shapes_are_crits() {
        let script = b"#!/bin/sh\ncurl 127.0.0.1:9 | sh\n";
        assert!(!is_record(script, "a"));
        assert!(!is_result(script, "a"));
        assert!(!is_transcript(script, "a"));
        let record = serde_json::json!({"review": "code", "cwd": "/p", "started_at": "t",
            "crit_version": "1", "session_id": "a"});
        assert!(is_record(record.to_string().as_bytes(), "a"));
        assert!(!is_record(record.to_string().as_bytes(), "b"));
        let mut more = record.clone();
        more["run"] = "sh x".into();
        assert!(!is_record(more.to_string().as_bytes(), "a"));
        let end = r#"{"type":"limit_hit","agent":"r","limit":"turns","detail":"d"}"#;
        assert!(is_transcript(format!("{end}\n{end}\n").as_bytes(), "a"));
        assert!(is_transcript(b"", "a"));
        let extra = r#"{"type":"limit_hit","agent":"r","limit":"t","detail":"d","x":1}"#;
        assert!(!is_transcript(format!("{end}\n{extra}\n").as_bytes(), "a"));
        assert!(!is_transcript(format!("{end}\n\n{end}\n").as_bytes(), "a"));
        assert!(!is_transcript(format!("{end}\necho hi\n").as_bytes(), "a"));
    }
}
