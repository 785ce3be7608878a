//! `ignore:` globs in the settings and `--ignore GLOB`: files the user chose
//! not to have reviewed leave the change, and every one is listed in the
//! coverage as `ignored`. Ignoring is only ever the user's decision: a
//! project's `ignore:` counts once trusted, or from the base revision whose
//! rules judge the change, never from the change under review.

use crit_testkit::FakeServer;
use serde_json::Value;

use crate::support::gate::{change_repo, passes, review, sent};
use crate::support::{self, json_out, show, stderr};

const LOCK: &str = "lock-line-never-to-be-sent\n";
const VENDOR: &str = "vendored-line-never-to-be-sent\n";
const CODE: &str = "x = eval(input())  # reviewed-line\n";

fn repo(config: Option<&str>) -> tempfile::TempDir {
    let mut change: Vec<(&str, Option<&[u8]>)> = vec![
        ("app.py", Some(CODE.as_bytes())),
        ("Cargo.lock", Some(LOCK.as_bytes())),
        ("vendor/lib/x.js", Some(VENDOR.as_bytes())),
    ];
    if let Some(c) = config {
        change.push((".crit/config.yaml", Some(c.as_bytes())));
    }
    change_repo(&[("app.py", Some(b"x = 1\n"))], &change)
}

/// `(path, cause, reason)` of each `left_out` entry.
fn left_out(r: &Value) -> Vec<(String, String, String)> {
    r["coverage"]["left_out"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|l| {
                    let s = |k: &str| l[k].as_str().unwrap_or_default().to_string();
                    (s("path"), s("cause"), s("reason"))
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn trusted_ignore_globs_and_the_flag_leave_files_out_and_list_them() {
    let dir = repo(Some("ignore: [Cargo.lock]\n"));
    let d = dir.path();
    let server = FakeServer::start_blocking();
    let trust = support::crit(d, &server, None)
        .args(["trust", "--yes"])
        .output()
        .unwrap();
    assert!(trust.status.success(), "{}", show(&trust));
    passes(&server, 1);
    let out = review(
        d,
        &server,
        &[
            "--verify",
            "off",
            "--no-cache",
            "--exit-code",
            "--ignore",
            "vendor/**",
        ],
    );
    let r = json_out(&out);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let sent = sent(&server);
    assert!(sent.contains("reviewed-line"), "{sent}");
    assert!(
        !sent.contains("lock-line") && !sent.contains("vendored-line"),
        "{sent}"
    );
    let mut listed = left_out(&r);
    listed.sort();
    assert_eq!(listed.len(), 2, "{r:#}");
    assert_eq!(
        (listed[0].0.as_str(), listed[0].1.as_str()),
        ("Cargo.lock", "ignored")
    );
    assert!(listed[0].2.contains("`Cargo.lock`"), "{listed:?}");
    assert_eq!(
        (listed[1].0.as_str(), listed[1].1.as_str()),
        ("vendor/lib/x.js", "ignored")
    );
    assert!(listed[1].2.contains("`vendor/**`"), "{listed:?}");
    assert_eq!(
        r["coverage"]["complete"], true,
        "ignoring is not a gap: {r:#}"
    );
    assert_eq!(r["passed"], true);

    // `crit config` shows where each glob came from.
    let out = support::crit(d, &server, None)
        .args(["config", "--ignore", "gen/*.rs"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Cargo.lock") && text.contains("config.yaml:1") && text.contains("--ignore"),
        "{text}"
    );

    // The terminal report names them.
    passes(&server, 1);
    let out = support::crit(d, &server, None)
        .args([
            "review",
            "code",
            "--diff",
            "main..HEAD",
            "--no-log",
            "--verify",
            "off",
            "--no-cache",
            "--ignore",
            "vendor/**",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("2 files ignored") && text.contains("vendor/lib/x.js"),
        "{text}"
    );
}

/// A bad glob is refused before anything runs, naming it.
#[test]
fn a_bad_ignore_glob_is_refused() {
    let dir = repo(None);
    let d = dir.path();
    let server = FakeServer::start_blocking();
    let out = review(d, &server, &["--ignore", "src/[x"]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(stderr(&out).contains("src/[x"), "{}", show(&out));
    support::write(d, ".crit/config.yaml", "ignore: [\"a[\"]\n");
    let out = support::crit(d, &server, None)
        .arg("config")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        stderr(&out).contains(".crit/config.yaml:1:") && stderr(&out).contains("a["),
        "{}",
        show(&out)
    );
    assert_eq!(server.model_requests().len(), 0);
}

/// The change under review cannot leave itself out: an `ignore:` it adds is
/// not trusted, so every file is reviewed, and with the base revision's
/// rules (CI, `--rules-from`) only the base's config counts.
#[test]
fn an_ignore_the_change_brings_never_applies() {
    let hostile = [
        "ignore: [\"**\"]\n",
        "ignore: [app.py, Cargo.lock, vendor]\n",
        "ignore: ['*', '**/*', '.*']\n",
    ];
    for config in hostile {
        let dir = repo(Some(config));
        let d = dir.path();
        let server = FakeServer::start_blocking();
        // Untrusted working tree.
        passes(&server, 1);
        let out = review(d, &server, &["--verify", "off", "--no-cache"]);
        let r = json_out(&out);
        assert!(left_out(&r).is_empty(), "{config}: {r:#}");
        let seen = sent(&server);
        for line in ["reviewed-line", "lock-line", "vendored-line"] {
            assert!(seen.contains(line), "{config}: {line} unseen");
        }
        assert!(stderr(&out).contains("ignore"), "said why: {}", show(&out));
        // The base revision's rules: the change's config is not theirs.
        passes(&server, 1);
        let out = review(
            d,
            &server,
            &["--verify", "off", "--no-cache", "--rules-from", "main"],
        );
        let r = json_out(&out);
        assert!(left_out(&r).is_empty(), "{config}: {r:#}");
        assert_eq!(server.model_requests().len(), 2);
    }
}

/// The base revision's own `ignore:` is the team's decision: honoured when
/// its rules judge the change.
#[test]
fn the_base_revisions_ignore_applies_under_its_rules() {
    let dir = change_repo(
        &[
            ("app.py", Some(b"x = 1\n")),
            (".crit/config.yaml", Some(b"ignore: [Cargo.lock]\n")),
        ],
        &[
            ("app.py", Some(CODE.as_bytes())),
            ("Cargo.lock", Some(LOCK.as_bytes())),
        ],
    );
    let d = dir.path();
    let server = FakeServer::start_blocking();
    passes(&server, 1);
    let out = review(
        d,
        &server,
        &["--verify", "off", "--no-cache", "--rules-from", "main"],
    );
    let r = json_out(&out);
    assert_eq!(
        left_out(&r)
            .iter()
            .map(|l| (l.0.as_str(), l.1.as_str()))
            .collect::<Vec<_>>(),
        [("Cargo.lock", "ignored")],
        "{r:#}"
    );
    assert!(!sent(&server).contains("lock-line"));
}
