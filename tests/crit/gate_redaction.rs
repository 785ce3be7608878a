//! Redaction of the change is bounded: a secret is hidden from the model,
//! but the code around it is not. A key without its END line, a key inside
//! a string, a URL "password" that swallows code: whatever redaction hid
//! beyond a credential is a coverage gap and the review does not pass; and
//! no redaction crosses into the next file. Each row is a hostile change;
//! crit-testkit records what the model received.

use crate::support;

use crit_testkit::FakeServer;
use support::gate;

/// A hostile change: files it adds, code that must reach the model or hold
/// the gate (`seen_or_held`), code that must reach the model whatever
/// happens (`always_seen`: the next file), and secrets that must never.
struct Row {
    name: &'static str,
    files: Vec<(&'static str, String)>,
    seen_or_held: Vec<&'static str>,
    always_seen: Vec<&'static str>,
    never_sent: Vec<&'static str>,
}

const EXEC: &str = "exec(bytes.fromhex(\"6f732e73797374656d2822696422\"))";
const NEXT: &str = "def backdoor(req): return req.args.get(\"k\") == \"open-sesame\"";
const KEY_BODY: &str = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun";
const KEY_BODY2: &str = "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK";
const AWS: &str = "AKIAZ7Q3RX5TYWPLM2K4";
const GH: &str = "ghp_R8kZ2mQ9vX4tL7pW1nB5cY3hJ6dF0sA2eG8u";

fn pem(body: &[&str], end: bool) -> String {
    let mut s = String::from("-----BEGIN RSA PRIVATE KEY-----\n");
    for l in body {
        s.push_str(l);
        s.push('\n');
    }
    if end {
        s.push_str("-----END RSA PRIVATE KEY-----\n");
    }
    s
}

fn rows() -> Vec<Row> {
    let next = format!("{NEXT}\n");
    vec![
        Row {
            name: "an unterminated key header in a comment, the backdoor in the next file",
            files: vec![
                (
                    "a_fixture.py",
                    "# -----BEGIN RSA PRIVATE KEY----- test fixture header\nx = 1\n".into(),
                ),
                ("b_views.py", next.clone()),
            ],
            seen_or_held: vec!["x = 1"],
            always_seen: vec![NEXT],
            never_sent: vec![],
        },
        Row {
            name: "an unterminated key header, the backdoor below it in the same file",
            files: vec![(
                "a.py",
                format!("# -----BEGIN RSA PRIVATE KEY-----\n{NEXT}\n"),
            )],
            seen_or_held: vec![NEXT],
            always_seen: vec![],
            never_sent: vec![],
        },
        Row {
            name: "a whole key, code after its END line",
            files: vec![(
                "a.py",
                format!(
                    "KEY = '''\n{}'''\n{NEXT}\n",
                    pem(&[KEY_BODY, KEY_BODY2], true)
                ),
            )],
            seen_or_held: vec![],
            always_seen: vec![NEXT],
            never_sent: vec![KEY_BODY, KEY_BODY2],
        },
        Row {
            name: "a key inside a one-line string, code after it on the line",
            files: vec![(
                "a.py",
                format!(
                    "K = \"-----BEGIN RSA PRIVATE KEY-----\\n{KEY_BODY}\\n-----END RSA PRIVATE KEY-----\"; {EXEC}\n"
                ),
            )],
            seen_or_held: vec![EXEC],
            always_seen: vec![],
            never_sent: vec![KEY_BODY],
        },
        Row {
            name: "a key's BEGIN in one file and END in the next",
            files: vec![
                ("a.py", pem(&[KEY_BODY], false)),
                ("b.py", format!("{NEXT}\n-----END RSA PRIVATE KEY-----\n")),
            ],
            seen_or_held: vec![],
            always_seen: vec![NEXT],
            never_sent: vec![],
        },
        Row {
            name: "a key header as the last line of a file, the next file starts with the backdoor",
            files: vec![
                (
                    "a.py",
                    "ok = True\n-----BEGIN OPENSSH PRIVATE KEY-----\n".into(),
                ),
                ("b.py", next.clone()),
            ],
            seen_or_held: vec!["ok = True"],
            always_seen: vec![NEXT],
            never_sent: vec![],
        },
        Row {
            name: "a key with no END line: its body, then code",
            files: vec![(
                "a.py",
                format!("{}{NEXT}\n", pem(&[KEY_BODY, KEY_BODY2], false)),
            )],
            seen_or_held: vec![NEXT],
            always_seen: vec![],
            never_sent: vec![KEY_BODY],
        },
        Row {
            name: "code inside a key block, before its END line",
            files: vec![(
                "a.py",
                format!(
                    "{}{NEXT}\n-----END RSA PRIVATE KEY-----\n",
                    pem(&[KEY_BODY, KEY_BODY2], false)
                ),
            )],
            seen_or_held: vec![NEXT],
            always_seen: vec![],
            never_sent: vec![KEY_BODY],
        },
        Row {
            name: "a URL password that swallows code",
            files: vec![("a.py", format!("u=\"http://a:\";{EXEC};\"@\"\n"))],
            seen_or_held: vec![EXEC],
            always_seen: vec![],
            never_sent: vec![],
        },
        Row {
            name: "a URL password that swallows a condition",
            files: vec![(
                "a.py",
                "allowed = \"http://a:\" if user.is_admin or True else \"@h\"\n".into(),
            )],
            seen_or_held: vec!["user.is_admin or True"],
            always_seen: vec![],
            never_sent: vec![],
        },
        Row {
            name: "a real URL password, code after it on the line",
            files: vec![(
                "a.py",
                format!("DB = \"postgres://app:S3cr3tPassw0rd@db:5432/app\"; {EXEC}\n"),
            )],
            seen_or_held: vec![EXEC],
            always_seen: vec![],
            never_sent: vec!["S3cr3tPassw0rd"],
        },
        Row {
            name: "an AWS key, code after it on the line",
            files: vec![("a.py", format!("k = \"{AWS}\"; {EXEC}\n"))],
            seen_or_held: vec![EXEC],
            always_seen: vec![],
            never_sent: vec![AWS],
        },
        Row {
            name: "a GitHub token in a string, code after it",
            files: vec![(
                "a.js",
                format!("const t = '{GH}'; require('child_process').execSync(process.argv[2]);\n"),
            )],
            seen_or_held: vec!["require('child_process').execSync(process.argv[2])"],
            always_seen: vec![],
            never_sent: vec![GH],
        },
        Row {
            name: "a password assignment with code on the same line",
            files: vec![("a.py", format!("password = \"hunter2-Xk9!qL\"; {EXEC}\n"))],
            seen_or_held: vec![EXEC],
            always_seen: vec![],
            never_sent: vec![],
        },
        Row {
            name: "a secret in the first file, nothing secret in three more",
            files: vec![
                ("a.py", format!("k = \"{AWS}\"\n")),
                ("b.py", next.clone()),
                ("c.py", "def c(): return 3\n".into()),
                ("d.py", "def d(): return 4\n".into()),
            ],
            seen_or_held: vec![],
            always_seen: vec![NEXT, "def c(): return 3", "def d(): return 4"],
            never_sent: vec![AWS],
        },
    ]
}

#[test]
fn redaction_hides_secrets_never_the_code_around_them() {
    let rows = rows();
    assert!(rows.len() >= 10);
    for row in rows {
        let files: Vec<(&str, Option<&[u8]>)> = row
            .files
            .iter()
            .map(|(p, t)| (*p, Some(t.as_bytes())))
            .collect();
        let dir = gate::change_repo(&[], &files);
        let d = dir.path();
        let server = FakeServer::start_blocking();
        gate::passes(&server, 4);
        let (out, r) = gate::gated(d, &server, &["--verify", "off"]);
        let name = row.name;
        let text = gate::sent(&server);
        assert!(
            !server.model_requests().is_empty(),
            "{name}: {}",
            support::show(&out)
        );
        for code in &row.always_seen {
            assert!(
                text.contains(code),
                "{name}: the model never saw {code:?}\n{text}"
            );
        }
        for code in &row.seen_or_held {
            if !text.contains(code) {
                assert_eq!(
                    r["passed"], false,
                    "{name}: {code:?} unseen, yet passed\n{r:#}"
                );
                assert_eq!(out.status.code(), Some(1), "{name}");
                assert!(
                    gate::gap_causes(&r).iter().any(|c| c == "redacted"),
                    "{name}: no redaction gap\n{r:#}"
                );
                assert_eq!(r["verdict"], "INCOMPLETE", "{name}");
            }
        }
        for secret in &row.never_sent {
            assert!(!text.contains(secret), "{name}: {secret} was sent");
            assert!(
                !String::from_utf8_lossy(&out.stdout).contains(secret),
                "{name}: {secret} printed"
            );
        }
        // Every redaction is said, at its file.
        assert!(
            row.never_sent.is_empty()
                || gate::rules(&r).iter().any(|x| x == "crit/secret-redacted"),
            "{name}: no note of the redaction\n{r:#}"
        );
    }
}

/// `--allow-partial` accepts what redaction hid; the coverage still says it.
#[test]
fn allow_partial_accepts_a_redaction_gap_and_still_lists_it() {
    let text = format!("{}{NEXT}\n", pem(&[KEY_BODY, KEY_BODY2], false));
    let dir = gate::change_repo(&[], &[("a.py", Some(text.as_bytes()))]);
    let d = dir.path();
    let server = FakeServer::start_blocking();
    gate::passes(&server, 4);
    let (out, r) = gate::gated(d, &server, &["--verify", "off"]);
    assert_eq!(out.status.code(), Some(1), "{}", support::show(&out));
    assert_eq!(r["verdict"], "INCOMPLETE", "{r:#}");
    assert!(
        gate::gap_causes(&r).iter().any(|c| c == "redacted"),
        "{r:#}"
    );
    let server = FakeServer::start_blocking();
    gate::passes(&server, 4);
    let (out, r2) = gate::gated(d, &server, &["--verify", "off", "--allow-partial"]);
    assert_eq!(out.status.code(), Some(0), "{}", support::show(&out));
    assert_eq!(r2["coverage"]["complete"], false);
    assert_eq!(r2["coverage"]["partial_allowed"], true);
    assert!(
        gate::gap_causes(&r2).iter().any(|c| c == "redacted"),
        "{r2:#}"
    );
}
