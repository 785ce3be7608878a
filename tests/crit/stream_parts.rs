//! A change bigger than one request is reviewed as it is prepared: its first
//! part is sent as soon as it is built, while the rest of the change is
//! still being planned, and the gate's invariants hold as before.

use std::fs::File;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{self, gate};
use crit_testkit::{FakeServer, Reply};

/// A file of `lines` added lines of about 85 bytes: 2,300 of them fill a part.
fn big_file(tag: &str, lines: usize) -> Vec<u8> {
    (0..lines)
        .map(|i| {
            format!("let {tag}_{i} = compute_{tag}({i}, \"padding padding padding padding\");\n")
        })
        .collect::<String>()
        .into_bytes()
}

/// Eight parts' worth of change.
fn eight_parts() -> tempfile::TempDir {
    let files: Vec<(String, Vec<u8>)> = (0..8)
        .map(|i| (format!("src/f{i}.rs"), big_file(&format!("f{i}"), 2300)))
        .collect();
    let files: Vec<(&str, Option<&[u8]>)> = files
        .iter()
        .map(|(p, b)| (p.as_str(), Some(b.as_slice())))
        .collect();
    gate::change_repo(&[], &files)
}

// With a budget the later parts wait for the first part's first answer, and
// the planning runs only a few parts ahead of what was sent: while the
// server holds that answer, the last parts cannot have been planned. The
// debug log says when each part is planned and when the plan is complete;
// it goes to a file, so whatever crit wrote before its first request is
// there when the server sees that request.
#[test]
fn the_first_part_is_sent_before_the_last_part_is_planned() {
    let dir = eight_parts();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(Reply::json(support::pass()).delay(Duration::from_secs(20)));
    gate::passes(&server, 20);
    let log_path = d.join(".state-log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_crit"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", d.join(".home"))
        .env("XDG_STATE_HOME", d.join(".state"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("ANTHROPIC_API_KEY", "sk-ant-review-secret-0123456789")
        .env("ANTHROPIC_BASE_URL", server.url())
        .current_dir(d)
        .env("XDG_CACHE_HOME", d.join(".cache"))
        .env("CRIT_LOG", "crit_review::kinds::template::planner=debug")
        .args([
            "review",
            "code",
            "--diff",
            "main..HEAD",
            "--json",
            "--no-log",
        ])
        .args(["--verify", "off", "--yes", "--max-budget-usd", "50"])
        .stdout(Stdio::null())
        .stderr(File::create(&log_path).unwrap())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while server.model_requests().is_empty() {
        if Instant::now() > deadline || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            panic!(
                "no request reached the server: {}",
                std::fs::read_to_string(&log_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let log = std::fs::read_to_string(&log_path).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(log.contains("part planned"), "{log}");
    assert!(!log.contains("the work plan is complete"), "{log}");
    let planned = log.matches("part planned").count();
    assert!(
        planned < 8,
        "{planned} of 8 parts planned before the first request: {log}"
    );
    // The first request holds the first part, and only it.
    let first = gate::sent(&server);
    assert!(first.contains("let f0_0 = "), "the first part is not f0.rs");
    assert!(
        !first.contains("let f7_0 = "),
        "the last file went with the first request"
    );
}

// The same change reviewed to the end: every part sent once, each added
// line reached a reviewer, the coverage complete, the progress counted.
#[test]
fn a_streamed_review_covers_every_line() {
    let dir = eight_parts();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    gate::passes(&server, 20);
    let (out, r) = gate::gated(d, &server, &["--verify", "off", "--yes"]);
    gate::assert_seen_or_held("eight parts", d, &server, &out, &r);
    assert_eq!(r["passed"], true, "{r:#}");
    assert_eq!(r["coverage"]["complete"], true, "{r:#}");
    assert_eq!(r["coverage"]["chunks"], 8, "{r:#}");
    assert_eq!(server.model_requests().len(), 8);
    assert!(gate::unseen(d, &server).is_empty());
}
