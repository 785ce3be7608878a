//! The token is in nothing crit prints or writes: not on stdout or stderr,
//! not in any file of the run (result, sessions, audit log, caches), not in
//! what the model is sent, not in what is posted; on the wire, only in the
//! `Authorization` header. Here the token matches no secret pattern and its
//! variable's name says nothing of a secret, so only crit's knowing it as
//! the token keeps it out.

use std::path::Path;

use crit_testkit::{FakeServer, GithubConfig};
use serde_json::json;

use super::*;

const TOKEN: &str = "plainforgecredential5b7e2c91d4a8f063";

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() && !p.is_symlink() {
            files_under(&p, out);
        } else if p.is_file() {
            out.push(p);
        }
    }
}

#[test]
fn the_token_is_in_nothing_crit_prints_or_writes() {
    let mut pr = Pr::new();
    // A file of the change holds the token: the model must not see it.
    pr.commit("deploy/notes.txt", &format!("poster = {TOKEN}\n"));
    let cfg = GithubConfig {
        token: TOKEN.into(),
        ..GithubConfig::default()
    };
    let s = pr.github(cfg);
    let model = FakeServer::start_blocking();
    // A model answer that quotes it anyway.
    let mut leaky = unwrap_finding();
    leaky["body"] = json!(format!("The job's token is {TOKEN}."));
    let doc = json!({"verdict": "FAIL", "summary": format!("token {TOKEN}"),
        "findings": [leaky, magic_finding()]});
    model.push(Reply::text(doc.to_string()));
    let saved = pr.runner.path().join("result.json");
    let out = pr
        .github_crit(&model, &s)
        .env_remove("GITHUB_TOKEN")
        .env("CRIT_POSTER", TOKEN)
        .args(["review", "code", "--verify", "off", "--no-cache", "-vv"])
        .args([
            "--post",
            "github",
            "--github-token-env",
            "CRIT_POSTER",
            "--out",
        ])
        .arg(&saved)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(s.review_comments(7).len(), 2, "it posted: {}", show(&out));

    // A failed post (read-only) prints its error without it either.
    s.set_access(crit_testkit::Access::Read);
    model.push(answer(vec![unwrap_finding()]));
    let failed = pr
        .github_crit(&model, &s)
        .env_remove("GITHUB_TOKEN")
        .env("CRIT_POSTER", TOKEN)
        .args(REVIEW)
        // The forge-neutral name for the same flag.
        .args(["--post", "github", "--token-env", "CRIT_POSTER"])
        .output()
        .unwrap();
    assert_eq!(failed.status.code(), Some(3), "{}", show(&failed));

    for o in [&out, &failed] {
        assert!(!String::from_utf8_lossy(&o.stdout).contains(TOKEN));
        assert!(
            !String::from_utf8_lossy(&o.stderr).contains(TOKEN),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let mut files = Vec::new();
    files_under(pr.path(), &mut files);
    files_under(pr.runner.path(), &mut files);
    let mut checked = 0;
    for f in &files {
        if f.components().any(|c| c.as_os_str() == ".git") {
            continue; // the repository itself: the change under review
        }
        if f.ends_with("deploy/notes.txt") {
            continue;
        }
        let bytes = std::fs::read(f).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(TOKEN),
            "{} holds the token",
            f.display()
        );
        checked += 1;
    }
    let sessions = crate::support::session_dirs(pr.path());
    assert_eq!(sessions.len(), 2, "both runs left a session");
    assert!(
        files
            .iter()
            .any(|f| f.starts_with(pr.path().join(".state"))),
        "the audit log was written"
    );
    assert!(checked > 5, "{files:?}");

    for r in model.model_requests() {
        assert!(!r.body.to_string().contains(TOKEN), "sent to the model");
    }
    let posted: Vec<String> = s
        .review_comments(7)
        .iter()
        .chain(s.issue_comments(7).iter())
        .map(|c| c["body"].to_string())
        .collect();
    for b in &posted {
        assert!(!b.contains(TOKEN), "{b}");
    }
    assert!(
        posted
            .iter()
            .any(|b| b.contains("The job's token is [REDACTED:forge-token]")),
        "{posted:#?}"
    );
    let wire = String::from_utf8_lossy(&s.raw_connections().concat()).into_owned();
    let header = format!("authorization: Bearer {TOKEN}\r\n");
    assert_eq!(wire.matches(TOKEN).count(), s.requests().len());
    assert_eq!(wire.matches(&header).count(), s.requests().len());
}
