//! The audit line a saved review appends: where each finding pointed, in
//! hashes and line numbers only (what `crit bench mine` reads later).

use std::time::{Duration, SystemTime};

use crit_core::{Finding, Location, ReviewResult, Severity, Verdict};
use crit_review::session::{self, Session, SessionMeta, lines_hash, path_hash};

#[test]
fn a_saved_review_records_where_its_findings_pointed_and_no_text() {
    let project = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(project.path().join("src")).unwrap();
    std::fs::write(
        project.path().join("src/db.rs"),
        "fn a() {}\nlet password = \"SECRET-CODE-TEXT\";\nfn b() {}\n",
    )
    .unwrap();
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_770_000_000);
    let meta = SessionMeta {
        review: "code".into(),
        ..SessionMeta::default()
    };
    let s = Session::create(project.path(), &meta, now).unwrap();
    let mut r = ReviewResult::new("code", Verdict::Fail);
    r.findings.push(
        Finding::new("FINDING-TITLE-TEXT", Severity::P1, "security")
            .with_location(Location::lines("src/db.rs", 2, 2))
            .with_body("FINDING-BODY-TEXT")
            .with_rule("hardcoded-secret"),
    );
    let env = crit_os::Env::new().with("XDG_STATE_HOME", state.path().display().to_string());
    session::save(&s, &r, None, &env, now);
    let dir = state.path().join("crit/audit");
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let text = std::fs::read_to_string(file).unwrap();
    for secret in [
        "FINDING-TITLE-TEXT",
        "FINDING-BODY-TEXT",
        "SECRET-CODE-TEXT",
    ] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    let line: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    let root = project.path().canonicalize().unwrap().display().to_string();
    assert_eq!(line["repo"], path_hash(&root).as_str());
    assert!(
        !text.contains("src/db.rs") && !text.contains(&root),
        "no path: {text}"
    );
    let f = &line["flagged"][0];
    assert_eq!(f["fp"], r.findings[0].id.as_str());
    assert_eq!(f["reviewer"], "security");
    assert_eq!(f["rule"], "hardcoded-secret");
    assert_eq!(f["severity"], "P1");
    assert_eq!(f["file"], path_hash("src/db.rs").as_str());
    assert_eq!(f["lines"], serde_json::json!([2, 2]));
    assert_eq!(
        f["hash"],
        lines_hash(&["let password = \"SECRET-CODE-TEXT\";"]).as_str()
    );
}
