//! Session directories, redaction and the audit log, on real temporary dirs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crit_core::{Finding, Location, ReviewResult, Severity, Usage, Verdict};
use crit_review::session::{self, Session, SessionError, SessionMeta, append_audit};
use serde_json::json;

/// 2026-11-21T13:05:09Z.
fn at(offset_secs: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_795_266_309 + offset_secs)
}

fn meta(review: &str) -> SessionMeta {
    SessionMeta {
        review: review.into(),
        inputs: BTreeMap::from([("diff".to_string(), "main..HEAD".to_string())]),
        config: json!({"provider": "anthropic", "model": "sonnet", "max_tokens": 4096}),
        cwd: "/repo".into(),
        started_at: "2026-11-21T13:05:09Z".into(),
        crit_version: "0.1.0".into(),
        prompt: None,
    }
}

fn result(review: &str, verdict: Verdict) -> ReviewResult {
    let mut r = ReviewResult::new(review, verdict);
    r.findings = vec![
        Finding::new("[P1] Connection leak", Severity::P1, "code")
            .with_body("the pool handle is dropped on the error path")
            .with_location(Location::lines("src/pool.rs", 41, 44)),
        Finding::new("Nit", Severity::P3, "code"),
    ];
    r
}

#[test]
fn create_lays_out_the_directory() {
    let root = tempfile::tempdir().unwrap();
    let s = Session::create(root.path(), &meta("code"), at(0)).unwrap();
    let name = s.dir().file_name().unwrap().to_str().unwrap().to_string();
    assert_eq!(name, format!("20261121T130509Z-{}", s.id()));
    assert_eq!(s.id().len(), 8);
    assert!(
        s.id()
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    );
    assert_eq!(
        s.dir().parent().unwrap(),
        root.path().join(".crit/sessions")
    );
    assert_eq!(s.transcript_path(), s.dir().join("transcript.jsonl"));
    assert_eq!(s.meta().unwrap(), meta("code"));
    assert_eq!(s.result().unwrap(), None);
    let gitignore = std::fs::read_to_string(root.path().join(".crit/.gitignore")).unwrap();
    assert!(gitignore.lines().any(|l| l == "sessions/"), "{gitignore}");
    assert!(!gitignore.lines().any(|l| l.trim() == "*"));
}

#[test]
fn an_existing_gitignore_is_left_alone() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join(".crit")).unwrap();
    std::fs::write(root.path().join(".crit/.gitignore"), "mine\n").unwrap();
    Session::create(root.path(), &meta("code"), at(0)).unwrap();
    assert_eq!(
        std::fs::read_to_string(root.path().join(".crit/.gitignore")).unwrap(),
        "mine\n"
    );
}

#[test]
fn git_sees_config_but_not_sessions() {
    let root = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(root.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", root.path())
            .output()
            .expect("git is installed");
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    git(&["init", "-q"]);
    std::fs::create_dir(root.path().join(".crit")).unwrap();
    std::fs::write(root.path().join(".crit/config.yaml"), "model: sonnet\n").unwrap();
    let s = Session::create(root.path(), &meta("code"), at(0)).unwrap();
    s.write_result(&result("code", Verdict::Pass)).unwrap();
    let status = git(&["status", "--porcelain", "--untracked-files=all"]);
    let mut listed: Vec<&str> = status.lines().collect();
    listed.sort();
    assert_eq!(listed, ["?? .crit/.gitignore", "?? .crit/config.yaml"]);
}

#[test]
fn secrets_never_reach_session_json() {
    let root = tempfile::tempdir().unwrap();
    let secrets = [
        "sk-ant-api03-SECRETSECRETSECRET",
        "ghp_0123456789abcdefghijABCDEFGHIJ",
        "hunter2-password-value",
        "bearer-value-9",
        "AKIAIOSFODNN7EXAMPLE",
        "sk-proj-abcdefghijklmnopqrstuvwxyz",
        "xoxb-1234567890-abcdef",
        "gh-token-value",
    ];
    let mut m = meta("run");
    m.config = json!({
        "model": "sonnet",
        "api_key": secrets[0],
        "mcp_servers": {
            "github": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": secrets[7], "GH_HOST": "github.com"}},
        },
        "database": {"password": secrets[2]},
        "http": {"headers": [{"Authorization": secrets[3]}]},
        "notes": ["keys: ", secrets[4], format!("key={}", secrets[5])],
        "slack": secrets[6],
        "ghp": secrets[1],
    });
    m.prompt = Some(format!(
        "Review the auth code; the test key is {}.",
        secrets[0]
    ));
    let s = Session::create(root.path(), &m, at(0)).unwrap();
    let bytes = std::fs::read(s.dir().join("session.json")).unwrap();
    let text = String::from_utf8(bytes).unwrap();
    for secret in secrets {
        assert!(!text.contains(secret), "{secret} leaked:\n{text}");
    }
    // Everything else is kept.
    let saved = s.meta().unwrap();
    assert_eq!(saved.config["model"], "sonnet");
    assert_eq!(
        saved.config["mcp_servers"]["github"]["env"]["GH_HOST"],
        "github.com"
    );
    assert_eq!(
        saved.config["mcp_servers"]["github"]["env"]["GITHUB_TOKEN"],
        "[REDACTED:secret]"
    );
    assert_eq!(
        saved.prompt.as_deref(),
        Some("Review the auth code; the test key is [REDACTED:anthropic-key].")
    );
}

#[test]
fn result_round_trips_and_is_written_atomically() {
    let root = tempfile::tempdir().unwrap();
    let s = Session::create(root.path(), &meta("code"), at(0)).unwrap();
    let mut r = result("code", Verdict::Fail);
    r.session_log_path = Some(s.dir().display().to_string());
    s.write_result(&r).unwrap();
    assert_eq!(s.result().unwrap(), Some(r.clone()));
    r.verdict = Verdict::Pass;
    s.write_result(&r).unwrap();
    assert_eq!(s.result().unwrap(), Some(r));
    let mut names: Vec<String> = std::fs::read_dir(s.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["result.json", "session.json"], "no temp files left");
}

fn three_sessions(root: &Path) -> Vec<Session> {
    [0, 60, 120]
        .iter()
        .map(|t| Session::create(root, &meta(&format!("r{t}")), at(*t)).unwrap())
        .collect()
}

#[test]
fn open_by_id_name_prefix_or_latest() {
    let root = tempfile::tempdir().unwrap();
    let made = three_sessions(root.path());
    let name = |s: &Session| s.dir().file_name().unwrap().to_str().unwrap().to_string();
    for s in &made {
        assert_eq!(&Session::open(root.path(), s.id()).unwrap(), s);
        assert_eq!(&Session::open(root.path(), &name(s)).unwrap(), s);
        assert_eq!(&Session::open(root.path(), &name(s)[..18]).unwrap(), s);
    }
    assert_eq!(Session::open(root.path(), "latest").unwrap(), made[2]);
    assert_eq!(
        Session::open(root.path(), "20261121T1307").unwrap(),
        made[2]
    );

    let e = Session::open(root.path(), "2026").unwrap_err();
    assert!(matches!(&e, SessionError::Ambiguous { matches, .. } if matches.len() == 3));
    assert!(e.to_string().contains("give more characters"), "{e}");
    for missing in ["zzzz", "", "  "] {
        let e = Session::open(root.path(), missing).unwrap_err();
        assert!(
            matches!(e, SessionError::NotFound { .. }),
            "{missing:?}: {e}"
        );
    }
    let empty = tempfile::tempdir().unwrap();
    let e = Session::open(empty.path(), "latest").unwrap_err();
    assert!(e.to_string().contains("or `latest`"), "{e}");
}

#[test]
fn list_is_newest_first_and_skips_strangers() {
    let root = tempfile::tempdir().unwrap();
    let made = three_sessions(root.path());
    made[1].write_result(&result("r60", Verdict::Fail)).unwrap();
    let sessions = root.path().join(".crit/sessions");
    std::fs::create_dir(sessions.join("notes")).unwrap();
    std::fs::create_dir(sessions.join("20261121T000000Z-broken")).unwrap();
    std::fs::write(sessions.join("20261121T000000Z-broken/session.json"), "{").unwrap();

    let listed = session::list(root.path()).unwrap();
    let reviews: Vec<&str> = listed.iter().map(|s| s.review.as_str()).collect();
    assert_eq!(reviews, ["r120", "r60", "r0"]);
    assert_eq!(listed[1].verdict, Some(Verdict::Fail));
    assert_eq!(listed[1].findings, Some(2));
    assert_eq!(listed[0].verdict, None);
    assert_eq!(listed[0].id, made[2].id());

    let nothing = tempfile::tempdir().unwrap();
    assert!(session::list(nothing.path()).unwrap().is_empty());
}

#[test]
fn sessions_in_the_same_second_get_distinct_dirs() {
    let root = tempfile::tempdir().unwrap();
    let dirs: std::collections::BTreeSet<PathBuf> = (0..50)
        .map(|_| {
            Session::create(root.path(), &meta("code"), at(0))
                .unwrap()
                .dir()
                .to_path_buf()
        })
        .collect();
    assert_eq!(dirs.len(), 50);
}

fn state_env(dir: &Path) -> crit_os::Env {
    crit_os::Env::new().with("XDG_STATE_HOME", dir.display().to_string())
}

#[test]
fn audit_line_holds_counts_and_hashes_never_text() {
    let state = tempfile::tempdir().unwrap();
    let mut r = result("code", Verdict::Fail);
    r.summary = "SUMMARY-TEXT".into();
    r.raw_output = "RAW-MODEL-OUTPUT".into();
    r.inputs = BTreeMap::from([("prompt".into(), "PROMPT-TEXT review the auth".into())]);
    r.usage = Usage {
        input_tokens: 10,
        output_tokens: 20,
        cache_read_tokens: 30,
        cache_write_tokens: 40,
    };
    r.cost_usd = Some(0.25);
    r.duration_ms = 1234;
    r.parse_error = Some("PARSE-ERROR-TEXT".into());
    let path = append_audit(&state_env(state.path()), &r, Some("3fa9c2d1"), at(0)).unwrap();
    assert_eq!(path, state.path().join("crit/audit/2026-11-21.jsonl"));
    let text = std::fs::read_to_string(&path).unwrap();
    for leak in [
        "SUMMARY-TEXT",
        "RAW-MODEL-OUTPUT",
        "PROMPT-TEXT",
        "PARSE-ERROR-TEXT",
        "Connection leak",
        "pool handle",
        "src/pool.rs",
    ] {
        assert!(!text.contains(leak), "{leak} in {text}");
    }
    let line: serde_json::Value = serde_json::from_str(text.trim_end()).unwrap();
    assert_eq!(line["ts"], "2026-11-21T13:05:09Z");
    assert_eq!(line["review"], "code");
    assert_eq!(line["verdict"], "FAIL");
    assert_eq!(line["passed"], false);
    assert_eq!(line["parse_error"], true);
    assert_eq!(line["fatal_error"], false);
    assert_eq!(
        line["findings"],
        json!({"P0": 0, "P1": 1, "P2": 0, "P3": 1, "info": 0})
    );
    assert_eq!(
        line["tokens"],
        json!({"input": 10, "output": 20, "cache_read": 30, "cache_write": 40})
    );
    assert_eq!(line["cost_usd"], 0.25);
    assert_eq!(line["duration_ms"], 1234);
    assert_eq!(line["reviewers"], 0);
    assert_eq!(line["session"], "3fa9c2d1");
    let hash = line["inputs"]["prompt"].as_str().unwrap();
    assert_eq!(hash.len(), 16);
    assert!(hash.bytes().all(|b| b.is_ascii_hexdigit()));
}

#[test]
fn concurrent_appends_keep_every_line_whole() {
    let state = tempfile::tempdir().unwrap();
    let env = state_env(state.path());
    let mut r = result("code", Verdict::Concerns);
    // Long enough that a torn write would show.
    r.review = "x".repeat(300);
    std::thread::scope(|scope| {
        for n in 0..2 {
            let (env, r) = (env.clone(), &r);
            scope.spawn(move || {
                for i in 0..200 {
                    let id = format!("t{n}-{i}");
                    append_audit(&env, r, Some(&id), at(0)).unwrap();
                }
            });
        }
    });
    let text = std::fs::read_to_string(state.path().join("crit/audit/2026-11-21.jsonl")).unwrap();
    let ids: std::collections::BTreeSet<String> = text
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a whole JSON line");
            v["session"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(text.lines().count(), 400);
    assert_eq!(ids.len(), 400);
}

#[test]
fn audit_dates_roll_over_and_home_is_the_fallback() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path().display().to_string();
    let env = crit_os::Env::new().with("HOME", h);
    let r = result("code", Verdict::Pass);
    let a = append_audit(&env, &r, None, at(0)).unwrap();
    let b = append_audit(&env, &r, None, at(86_400)).unwrap();
    assert_eq!(
        a,
        home.path().join(".local/state/crit/audit/2026-11-21.jsonl")
    );
    assert_eq!(
        b,
        home.path().join(".local/state/crit/audit/2026-11-22.jsonl")
    );
    let line = std::fs::read_to_string(&a).unwrap();
    assert!(!line.contains("\"session\""), "no session: {line}");

    let e = append_audit(&crit_os::Env::new(), &r, None, at(0)).unwrap_err();
    assert!(matches!(e, SessionError::NoStateDir));
    assert!(e.to_string().contains("XDG_STATE_HOME"));
}

#[test]
fn a_key_quoted_in_a_finding_is_redacted_in_result_json() {
    let root = tempfile::tempdir().unwrap();
    let s = Session::create(root.path(), &meta("code"), at(0)).unwrap();
    let mut r = result("code", Verdict::Fail);
    r.findings[0].body = "hard-coded AKIAIOSFODNN7EXAMPLE in config.rs".into();
    s.write_result(&r).unwrap();
    let text = std::fs::read_to_string(s.dir().join("result.json")).unwrap();
    assert!(!text.contains("AKIAIOSFODNN7EXAMPLE"));
    let saved = s.result().unwrap().unwrap();
    assert_eq!(
        saved.findings[0].body,
        "hard-coded [REDACTED:aws-access-key] in config.rs"
    );
    assert_eq!(saved.findings[1], r.findings[1]);
}
