//! Where a review's findings pointed, for the audit line: per finding its
//! fingerprint, reviewer, rule, severity, a hash of its file's path, its
//! lines and a hash of those lines as they were, so `crit bench mine` can
//! later tell whether the lines were changed (the finding was likely acted
//! on) or left as they were. Hashes and line numbers only: never a path,
//! finding or code text (the log's rule). A file is recorded only when it is
//! a regular file of the project (reached without a symlink), so what a model
//! wrote as a path never decides what is read. Findings suppressed by the
//! team are recorded by fingerprint, with the cause.

use std::collections::BTreeMap;
use std::path::Path;

use crit_core::{Finding, ReviewResult};
use crit_os::write::Root;
use serde::{Deserialize, Serialize};

/// Findings recorded per review, at most.
const MAX_FLAGGED: usize = 200;
/// The longest range whose lines are hashed.
const MAX_LINES: u32 = 200;
/// Files read to hash their lines, at most this big.
const MAX_FILE: u64 = 4 * 1024 * 1024;

/// One finding of a review, as the audit log keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flagged {
    /// The finding's fingerprint (16 hex digits).
    pub fp: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reviewer: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// `P0` … `P3`, `info`.
    pub severity: String,
    /// [`path_hash`] of the file's path from the project root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// First and last line (1-based, inclusive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<[u32; 2]>,
    /// [`lines_hash`] of those lines when the review ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    /// Why it did not count, for a dismissed finding (`suppressed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dismissed: Option<String>,
}

/// The review's findings (crit's own notes aside) and the ones the team
/// suppressed, located in `root`.
pub(crate) fn flagged(result: &ReviewResult, root: Option<&Path>) -> Vec<Flagged> {
    let root = root.and_then(|r| Root::open(r).ok());
    let mut files: BTreeMap<String, Option<Vec<String>>> = BTreeMap::new();
    let mut out = Vec::new();
    let reported = result.findings.iter().filter(|f| f.reviewer != "crit");
    for f in reported.take(MAX_FLAGGED) {
        if let Some(mut entry) = entry(f, None) {
            locate(&mut entry, f, root.as_ref(), &mut files);
            out.push(entry);
        }
    }
    let suppressed = result.dismissed.iter().filter(|d| d.cause == "suppressed");
    for d in suppressed.take(MAX_FLAGGED.saturating_sub(out.len())) {
        out.extend(entry(&d.finding, Some(&d.cause)));
    }
    out
}

fn entry(f: &Finding, dismissed: Option<&str>) -> Option<Flagged> {
    let fp_ok = f.id.len() == 16 && f.id.bytes().all(|b| b.is_ascii_hexdigit());
    fp_ok.then(|| Flagged {
        fp: f.id.clone(),
        reviewer: Some(f.reviewer.as_str())
            .filter(|r| super::audit::is_identifier(r))
            .unwrap_or_default()
            .to_string(),
        rule: f.rule_id.clone().filter(|r| super::audit::is_identifier(r)),
        severity: f.severity.code().to_string(),
        file: None,
        lines: None,
        hash: None,
        dismissed: dismissed.map(str::to_string),
    })
}

/// The finding's file and lines, when they are the project's.
fn locate(
    entry: &mut Flagged,
    f: &Finding,
    root: Option<&Root>,
    files: &mut BTreeMap<String, Option<Vec<String>>>,
) {
    let (Some(root), Some(loc)) = (root, f.location.as_ref()) else {
        return;
    };
    let path = loc.path().trim_start_matches("./").to_string();
    if path.is_empty() || path.starts_with('/') || path.split('/').any(|c| c == "..") {
        return;
    }
    let lines = files.entry(path.clone()).or_insert_with(|| {
        let text = root
            .read_to_string(
                &path,
                crit_os::read::InputLimits {
                    max_bytes: MAX_FILE,
                },
            )
            .ok()?;
        Some(text.lines().map(str::to_string).collect())
    });
    let Some(lines) = lines else { return };
    entry.file = Some(path_hash(&path));
    let (Some(start), Some(end)) = (loc.start_line(), loc.end_line()) else {
        return;
    };
    let end = end.max(start);
    if start == 0 || end - start >= MAX_LINES || end as usize > lines.len() {
        return;
    }
    let window = &lines[start as usize - 1..end as usize];
    entry.lines = Some([start, end]);
    entry.hash = Some(lines_hash(window));
}

/// The hash of consecutive lines, trailing whitespace ignored: 16 hex
/// digits of 64-bit FNV-1a (not a secrecy measure: short lines can be
/// guessed; it only tells whether the same lines are still there).
pub fn lines_hash<S: AsRef<str>>(lines: &[S]) -> String {
    let joined: Vec<&str> = lines.iter().map(|l| l.as_ref().trim_end()).collect();
    path_hash(&joined.join("\n"))
}

/// The hash of a path (or any text) as the audit log records hashes: 16 hex
/// digits of 64-bit FNV-1a, as its hashed inputs.
pub fn path_hash(text: &str) -> String {
    format!("{:016x}", super::audit::fnv1a_64(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crit_core::{Dismissed, Location, Severity, Verdict};

    #[test]
    fn findings_are_located_only_in_the_projects_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.rs"), "one\ntwo  \nthree\n").unwrap();
        std::os::unix::fs::symlink("/etc/hostname", dir.path().join("link")).unwrap();
        let mut r = ReviewResult::new("code", Verdict::Fail);
        let at = |p: &str, s, e| {
            Finding::new(format!("t {p}"), Severity::P1, "code")
                .with_location(Location::lines(p, s, e))
        };
        r.findings = vec![
            at("a.rs", 2, 3),
            at("../outside", 1, 1),
            at("link", 1, 1),
            at("a.rs", 3, 9),
            Finding::new("note", Severity::Info, "crit"),
        ];
        r.dismissed.push(Dismissed {
            finding: at("a.rs", 1, 1),
            cause: "suppressed".into(),
            reason: "team".into(),
            proof: String::new(),
        });
        let got = flagged(&r, Some(dir.path()));
        assert_eq!(got.len(), 5, "{got:?}");
        assert_eq!(got[0].file, Some(path_hash("a.rs")));
        assert_eq!(got[0].lines, Some([2, 3]));
        assert_eq!(
            got[0].hash.as_deref(),
            Some(lines_hash(&["two", "three"]).as_str())
        );
        assert_eq!((got[1].file.as_ref(), got[2].file.as_ref()), (None, None));
        // A range past the end of the file: the file, no lines.
        assert_eq!(
            (got[3].file.clone(), got[3].hash.as_ref()),
            (Some(path_hash("a.rs")), None)
        );
        assert_eq!(got[4].dismissed.as_deref(), Some("suppressed"));
        assert_eq!(flagged(&r, None)[0].file, None);
    }

    #[test]
    fn path_hashes_are_the_audit_logs_fnv() {
        // The FNV-1a 64 specification's value for "a".
        assert_eq!(path_hash("a"), "af63dc4c8601ec8c");
    }

    #[test]
    fn line_hashes_ignore_trailing_space_only() {
        assert_eq!(lines_hash(&["a ", "b"]), lines_hash(&["a", "b\t"]));
        assert_ne!(lines_hash(&["a", "b"]), lines_hash(&["ab"]));
        assert_ne!(lines_hash(&[" a"]), lines_hash(&["a"]));
    }
}
