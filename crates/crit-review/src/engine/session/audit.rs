//! The audit log: one JSON line per review in
//! `$XDG_STATE_HOME/crit/audit/YYYY-MM-DD.jsonl` (UTC date), for counting what
//! reviews cost and how they ended. It holds counts, tokens, cost, timing and
//! hashes of the inputs; never prompt, code, summary or finding text. Rule ids
//! (names from a check's configuration) and finding fingerprints (hashes) are
//! kept so `crit stats` can say which problems come back; a rule id that does
//! not look like an identifier is left out, since a model may have written it.
//! A review saved in a project also records a hash of the project's root
//! (`repo`) and where each finding pointed (`flagged`: fingerprint, reviewer,
//! rule, severity, a hash of the file's path, the lines and a hash of those
//! lines), so `crit bench mine` can tell later whether the flagged lines
//! changed.
//!
//! Concurrent crit processes append to the same file. Each line is written
//! with one `write` on a file opened with `O_APPEND`, under an exclusive
//! advisory lock (`File::lock`): `O_APPEND` alone keeps lines whole on local
//! file systems for small writes (most lines are a few hundred bytes, below
//! `PIPE_BUF`), and the lock covers file systems where it does not and the
//! lines of reviews with many findings, which run to a few kilobytes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crit_core::{ReviewResult, Severity, timestamp};
use serde::Serialize;

use super::SessionError;

#[derive(Serialize)]
struct AuditLine<'a> {
    ts: String,
    review: &'a str,
    verdict: &'a str,
    passed: bool,
    parse_error: bool,
    fatal_error: bool,
    findings: BTreeMap<&'static str, usize>,
    tokens: Tokens,
    cost_usd: Option<f64>,
    duration_ms: u64,
    reviewers: usize,
    /// Rule id to how many findings it produced.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    rules: BTreeMap<&'a str, usize>,
    /// The findings' fingerprints (16 hex digits each).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    fingerprints: Vec<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    session: Option<&'a str>,
    /// A hash of the project root the review ran in ([`super::path_hash`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    repo: Option<String>,
    /// Where its findings pointed (see [`super::flagged`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    flagged: Vec<super::flagged::Flagged>,
    /// Input name to a hash of its value (see [`fnv1a_64`]).
    inputs: BTreeMap<&'a str, String>,
}

#[derive(Serialize)]
struct Tokens {
    input: u64,
    output: u64,
    cache_read: u64,
    cache_write: u64,
}

/// `$XDG_STATE_HOME/crit/audit`, else `~/.local/state/crit/audit`, by crit-os's
/// one XDG rule (a relative `XDG_STATE_HOME` is ignored). `env` is injected so
/// tests never touch the real home.
pub fn audit_dir(env: &crit_os::Env) -> Option<PathBuf> {
    crit_os::dirs::state_dir(env).map(|s| s.join("audit"))
}

/// Append one line for `result` to today's (UTC, from `now`) audit file and
/// return its path.
pub fn append_audit(
    state_dir_env: &crit_os::Env,
    result: &ReviewResult,
    session_id: Option<&str>,
    now: SystemTime,
) -> Result<PathBuf, SessionError> {
    append_audit_at(state_dir_env, result, session_id, None, now)
}

/// [`append_audit`] for a review that ran in the project at `root`: the line
/// also records (as hashes) the project and where the findings pointed in it.
pub fn append_audit_at(
    state_dir_env: &crit_os::Env,
    result: &ReviewResult,
    session_id: Option<&str>,
    root: Option<&Path>,
    now: SystemTime,
) -> Result<PathBuf, SessionError> {
    let dir = audit_dir(state_dir_env).ok_or(SessionError::NoStateDir)?;
    let secs = timestamp::unix_secs(now);
    let mut line = audit_line(result, session_id, secs);
    if let Some(root) = root {
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        line.flagged = super::flagged::flagged(result, Some(&root));
        line.repo = Some(super::flagged::path_hash(&root.display().to_string()));
    }
    append_line(&dir, &line, secs)
}

/// One line for a gate's decision that no review stands behind (Claude
/// Code's Stop gate letting the agent stop after its round limit, or on an
/// error): which gate, what it did, why.
pub fn append_gate(
    dir: &Path,
    gate: &str,
    decision: &str,
    why: &str,
    now: SystemTime,
) -> Result<PathBuf, SessionError> {
    #[derive(Serialize)]
    struct GateLine<'a> {
        ts: String,
        gate: &'a str,
        action: &'a str,
        why: &'a str,
    }
    let secs = timestamp::unix_secs(now);
    let line = GateLine {
        ts: timestamp::rfc3339(secs),
        gate,
        action: decision,
        why,
    };
    append_line(dir, &line, secs)
}

/// Appends `value` as one JSON line to today's file in `dir`.
fn append_line(dir: &Path, value: &impl Serialize, secs: u64) -> Result<PathBuf, SessionError> {
    let name = format!("{}.jsonl", timestamp::date(secs));
    let path = dir.join(&name);
    let mut line = serde_json::to_vec(value).map_err(|source| SessionError::Json {
        what: "audit line",
        path: path.clone(),
        source,
    })?;
    line.push(b'\n');
    append_confined(dir, &name, &line).map_err(|source| SessionError::Fs {
        action: "append to the audit log",
        source,
    })?;
    Ok(path)
}

/// One line appended to `name` in the user's state directory `dir` (owner
/// only, no symlink followed, one locked `O_APPEND` write).
pub fn append_confined(dir: &Path, name: &str, line: &[u8]) -> Result<(), crit_os::write::FsError> {
    crit_os::write::Root::open_or_create(dir, 0o700)?.append(name, line, 0o600)
}

fn audit_line<'a>(result: &'a ReviewResult, session: Option<&'a str>, secs: u64) -> AuditLine<'a> {
    let findings = Severity::ALL
        .iter()
        .map(|s| {
            let n = result.findings.iter().filter(|f| f.severity == *s).count();
            (s.code(), n)
        })
        .collect();
    AuditLine {
        ts: timestamp::rfc3339(secs),
        review: &result.review,
        verdict: result.verdict.as_str(),
        passed: result.passed,
        parse_error: result.parse_error.is_some(),
        fatal_error: result.fatal_error,
        findings,
        tokens: Tokens {
            input: result.usage.input_tokens,
            output: result.usage.output_tokens,
            cache_read: result.usage.cache_read_tokens,
            cache_write: result.usage.cache_write_tokens,
        },
        cost_usd: result.cost_usd,
        duration_ms: result.duration_ms,
        reviewers: result.reviewers.len(),
        rules: result
            .findings
            .iter()
            .filter_map(|f| f.rule_id.as_deref().filter(|r| is_identifier(r)))
            .fold(BTreeMap::new(), |mut m, r| {
                *m.entry(r).or_insert(0) += 1;
                m
            }),
        fingerprints: result
            .findings
            .iter()
            .map(|f| f.id.as_str())
            .filter(|id| id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit()))
            .collect(),
        session,
        repo: None,
        flagged: Vec::new(),
        inputs: result
            .inputs
            .iter()
            .map(|(k, v)| (k.as_str(), format!("{:016x}", fnv1a_64(v.as_bytes()))))
            .collect(),
    }
}

/// A rule id as configurations write them (`no_eval`, `SEC-001`,
/// `python/eval`): short, no spaces, nothing that could be prose or code.
pub(crate) fn is_identifier(s: &str) -> bool {
    (1..=64).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/' | b':'))
}

/// 64-bit FNV-1a, the same function as crit-core's fingerprints (whose hasher is
/// private there). Enough to tell whether two runs reviewed the same input; it
/// is not a secrecy measure, as short inputs such as paths can be guessed.
pub(super) fn fnv1a_64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_known_values() {
        // Reference values of the FNV-1a 64 specification.
        assert_eq!(fnv1a_64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a_64(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn only_identifiers_are_kept_as_rule_ids() {
        for ok in ["no_eval", "SEC-001", "python/eval", "crit:plan.rule"] {
            assert!(is_identifier(ok), "{ok}");
        }
        for bad in [
            "",
            "eval(input())",
            "a b",
            "x\ny",
            &"r".repeat(65),
            "key=sk-ant",
        ] {
            assert!(!is_identifier(bad), "{bad}");
        }
    }

    #[test]
    fn state_dir_fallbacks() {
        let env = |vars: &[(&str, &str)]| crit_os::Env::from_pairs(vars.iter().copied());
        assert_eq!(
            audit_dir(&env(&[("XDG_STATE_HOME", "/s"), ("HOME", "/h")])),
            Some(PathBuf::from("/s/crit/audit"))
        );
        assert_eq!(
            audit_dir(&env(&[("XDG_STATE_HOME", ""), ("HOME", "/h")])),
            Some(PathBuf::from("/h/.local/state/crit/audit"))
        );
        assert_eq!(audit_dir(&env(&[])), None);
        // Relative values are ignored, as the specification says: a log
        // written relative to wherever crit happened to run is lost.
        assert_eq!(
            audit_dir(&env(&[("XDG_STATE_HOME", "state"), ("HOME", "/h")])),
            Some(PathBuf::from("/h/.local/state/crit/audit"))
        );
        assert_eq!(audit_dir(&env(&[("HOME", "rel")])), None);
    }
}
