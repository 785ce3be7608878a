//! Secrets in the reviewed change never reach the model or anything crit
//! writes, and a model's words never reach the terminal as escape sequences.
//! A hostile change adds credentials of many shapes; a hostile model echoes a
//! secret it could only have from crit's own environment and answers with
//! control sequences in its titles.

use crate::support;

use std::path::Path;

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};
use support::{git, init_repo, json_out, write};

/// (file, line, text) added by the change, and the secret in it, and its kind.
const PLANTED: &[(&str, &str, &str, &str)] = &[
    (
        ".env",
        "DB_PASSWORD=Tr0ub4dor&3xyz",
        "Tr0ub4dor&3xyz",
        "password",
    ),
    (
        ".env",
        "GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ",
        "ghp_0123456789abcdefghijABCDEFGHIJ",
        "github-token",
    ),
    (
        ".env",
        "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
        "AKIAIOSFODNN7EXAMPLE",
        "aws-access-key",
    ),
    (
        "src/config.py",
        "OPENAI = \"sk-proj-abcdefghijklmnopqrstuvwx\"",
        "sk-proj-abcdefghijklmnopqrstuvwx",
        "openai-key",
    ),
    (
        "src/config.py",
        "CLAUDE = 'sk-ant-api03-QwErTy123456789'",
        "sk-ant-api03-QwErTy123456789",
        "anthropic-key",
    ),
    (
        "src/config.py",
        "DSN = \"postgres://app:pa55w0rd-x@db:5432/app\"",
        "pa55w0rd-x",
        "url-password",
    ),
    (
        "src/config.py",
        "SLACK = \"xoxb-123456789012-abcdefABCDEF\"",
        "xoxb-123456789012-abcdefABCDEF",
        "slack-token",
    ),
    (
        "settings.json",
        "{\"api_key\": \"q8w7e6r5t4y3u2\"}",
        "q8w7e6r5t4y3u2",
        "api-key",
    ),
    (
        "src/auth.ts",
        "const jwt = \"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U\";",
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "jwt",
    ),
    (
        "src/pay.rb",
        "Stripe.api_key = 'sk_live_0123456789abcdefABCD'",
        "sk_live_0123456789abcdefABCD",
        "stripe-key",
    ),
    (
        "src/maps.js",
        "const key = 'AIzaSyA-0123456789abcdefghijklmnopqrstu';",
        "AIzaSyA-0123456789abcdefghijklmnopqrstu",
        "google-api-key",
    ),
];

const PRIVATE_KEY: &str = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----\n";
const CONVENTION_SECRET: &str = "glpat-abcdefghij0123456789";
/// In a file the change does not touch: only a reviewer's tool can read it.
const UNCHANGED_SECRET: &str = "S3cr3t!prod-db-pw";
/// crit's own API key in the test environment (see `support::crit`).
const OWN_KEY: &str = "sk-ant-review-secret-0123456789";

/// `main` has the files empty; `work` adds every planted secret.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, "README.md", "# app\n");
    write(
        d,
        "config/prod.yaml",
        &format!("database:\n  host: db.internal\n  password: \"{UNCHANGED_SECRET}\"\n"),
    );
    write(
        d,
        "CLAUDE.md",
        &format!("Deploy with the token {CONVENTION_SECRET} only from CI.\n"),
    );
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    git(d, &["checkout", "-q", "-b", "work"]);
    let mut files: Vec<(&str, String)> = Vec::new();
    for (file, line, ..) in PLANTED {
        match files.iter_mut().find(|(f, _)| f == file) {
            Some((_, text)) => text.push_str(&format!("{line}\n")),
            None => files.push((file, format!("{line}\n"))),
        }
    }
    for (file, text) in &files {
        write(d, file, text);
    }
    write(d, "deploy/id_ed25519", PRIVATE_KEY);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "add config"]);
    dir
}

fn every_secret() -> Vec<&'static str> {
    let mut s: Vec<&str> = PLANTED.iter().map(|p| p.2).collect();
    s.extend([
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
        CONVENTION_SECRET,
        UNCHANGED_SECRET,
        OWN_KEY,
    ]);
    s
}

fn assert_clean(what: &str, text: &str) {
    for secret in every_secret() {
        assert!(
            !text.contains(secret),
            "{secret} leaked into {what}:\n{text}"
        );
    }
}

/// The hostile model: echoes crit's key and hides escape sequences in its words.
fn answer() -> Reply {
    Reply::json(json!({
        "verdict": "FAIL",
        "summary": format!("Found a key {OWN_KEY}.\x1b]0;pwned\x07"),
        "findings": [{
            "file_path": ".env", "line_start": 1, "line_end": 1, "priority": 1,
            "title": "\x1b[2J\x1b[HCredentials committed\x1b]8;;https://evil.example\x07",
            "body": format!("Uses {OWN_KEY} \u{9b}31m and \u{202E}reversed")
        }]
    }))
}

fn review(d: &Path, server: &FakeServer, format: &str) -> std::process::Output {
    support::crit(d, server, None)
        .args([
            "review",
            "code",
            "--verify",
            "off",
            "--no-cache",
            "--diff",
            "main..HEAD",
            "--format",
            format,
        ])
        .output()
        .unwrap()
}

#[test]
fn secrets_are_redacted_before_the_model_and_reported_where_they_were() {
    let dir = repo();
    let server = FakeServer::start_blocking();
    // The reviewer reads a file outside the change, greps and runs git.
    server.push(Step::reply(Reply::tool_uses(vec![
        ("Read", json!({"file_path": "config/prod.yaml"})),
        (
            "Grep",
            json!({"pattern": "password|TOKEN", "output_mode": "content"}),
        ),
        ("Bash", json!({"command": "git show HEAD -- .env"})),
    ])));
    server.push(Step::reply(answer()));
    let out = review(dir.path(), &server, "json");
    let result = json_out(&out);

    // What the model received, before and after its tools ran.
    let reqs = server.model_requests();
    assert_eq!(reqs.len(), 2, "{result}");
    let after_tools = reqs[1].body["messages"].to_string();
    assert!(after_tools.contains("tool_result"), "{after_tools}");
    assert!(
        after_tools.contains("password: \\\"[REDACTED:password]\\\""),
        "{after_tools}"
    );
    for r in &reqs {
        assert_clean("a request", &r.body.to_string());
    }
    let req = reqs[0].body.to_string();
    for (.., kind) in PLANTED {
        assert!(req.contains(&format!("[REDACTED:{kind}]")), "{kind}: {req}");
    }
    assert!(req.contains("[REDACTED:private-key]"), "{req}");
    assert!(
        req.contains("[REDACTED:gitlab-token]"),
        "the convention: {req}"
    );
    // The rest of the change is intact.
    assert!(
        req.contains("AWS_ACCESS_KEY_ID=") && req.contains("const key = "),
        "{req}"
    );

    // Each secret is an info finding at its file and line.
    let info: Vec<&Value> = result["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule_id"] == "crit/secret-redacted")
        .collect();
    for (file, line, _, kind) in PLANTED {
        let at = PLANTED
            .iter()
            .filter(|p| p.0 == *file)
            .position(|p| p.1 == *line)
            .unwrap()
            + 1;
        assert!(
            info.iter().any(|f| f["location"]["path"] == *file
                && f["location"]["line_start"] == at
                && f["title"].as_str().unwrap().contains(kind)
                && f["severity"] == "info"),
            "no info finding for {kind} at {file}:{at}: {info:#?}"
        );
    }
    assert!(
        info.iter()
            .any(|f| f["location"]["path"] == "deploy/id_ed25519")
    );
    assert!(
        info.iter()
            .any(|f| f["location"]["path"] == "CLAUDE.md" && f["location"]["line_start"] == 1)
    );

    // What crit printed and saved.
    assert_clean("stdout", &String::from_utf8_lossy(&out.stdout));
    assert_clean("stderr", &String::from_utf8_lossy(&out.stderr));
    let session = result["session_log_path"].as_str().unwrap();
    for f in ["session.json", "result.json", "transcript.jsonl"] {
        let text = std::fs::read_to_string(Path::new(session).join(f)).unwrap();
        assert_clean(f, &text);
    }
}

#[test]
fn every_output_format_is_redacted() {
    let dir = repo();
    for format in [
        "terminal",
        "markdown",
        "sarif",
        "rdjson",
        "json",
        "github",
        "codeclimate",
        "junit",
    ] {
        let server = FakeServer::start_blocking();
        server.push(Step::reply(answer()));
        let out = review(dir.path(), &server, format);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!text.is_empty(), "{format}");
        assert_clean(format, &text);
    }
}

#[test]
fn the_terminal_never_gets_a_models_escape_sequences() {
    let dir = repo();
    for color in ["never", "always"] {
        let server = FakeServer::start_blocking();
        server.push(Step::reply(answer()));
        let out = support::crit(dir.path(), &server, None)
            .args([
                "review",
                "code",
                "--verify",
                "off",
                "--no-cache",
                "--diff",
                "main..HEAD",
                "--color",
                color,
                "-v",
            ])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("Credentials committed"), "{text}");
        assert!(text.contains("<U+202E>reversed"), "{text}");
        for bad in ["\x1b]", "\x1b[2J", "\x1b[H", "\u{9b}", "\x07"] {
            assert!(!text.contains(bad), "{color}: {bad:?} in {text:?}");
        }
        if color == "never" {
            assert!(!text.contains('\x1b'), "{text:?}");
        }
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("\x1b]") && !err.contains("\x07"), "{err:?}");
    }
}

/// In the change: found by its name, learned by the review's redactor.
const DB_PASSWORD: &str = "Zx9wQlongdbpass77";
/// In a git-ignored `.env` a reviewer reads: learned when its tool masks it.
const ENV_TOKEN: &str = "tok4Rr9longenvvalue";

/// Settings named like secrets that are none: the reviewer must see them
/// (a change that weakens password hashing is the finding).
const NOT_SECRETS: &str = "PASSWORD_HASHER = 'django.contrib.auth.hashers.MD5PasswordHasher'\nCOOKIE_DOMAIN = '.example.com'\nCREDENTIALS_DIRECTORY = '/run/credentials/app.service'\n";

/// In a file's name and in a commit subject: prompt text, not file text.
const NAMED_KEY: &str = "sk_live_0123456789abcdefWXYZ";
const SUBJECT_TOKEN: &str = "ghp_9876543210abcdefghijABCDEFGHIJ";

/// Every file under `dir` (but `.git` and `skip`), with its text.
fn files_under(dir: &Path, skip: &[&str]) -> Vec<(std::path::PathBuf, String)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            if rel == ".git" || skip.contains(&rel.as_str()) {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(bytes) = std::fs::read(&p) {
                found.push((p, String::from_utf8_lossy(&bytes).into_owned()));
            }
        }
    }
    found
}

/// A model that echoes secret values in its own words, where no detector
/// would know them for secrets ("the password X is weak"): the values the
/// review found in its inputs are hidden in everything crit wrote (stdout,
/// stderr, result.json, the session directory, the transcript, the audit
/// log, the cassettes `--record` wrote).
#[test]
fn a_secret_the_model_echoes_is_hidden_everywhere_crit_writes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, ".gitignore", ".env\n");
    write(d, "settings.py", "DEBUG = False\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    git(d, &["checkout", "-q", "-b", "work"]);
    write(
        d,
        "settings.py",
        &format!("DEBUG = False\nDB_PASSWORD = \"{DB_PASSWORD}\"\n{NOT_SECRETS}"),
    );
    write(d, ".env", &format!("API_TOKEN={ENV_TOKEN}\n"));
    // A file name and a commit subject hold secrets too.
    write(d, &format!("deploy/{NAMED_KEY}.txt"), "rotate me\n");
    git(d, &["add", "-A"]);
    let subject = format!("configure the database, github token {SUBJECT_TOKEN}");
    git(d, &["commit", "-q", "-m", &subject]);
    let record = tempfile::tempdir().unwrap();

    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::tool_use(
        "Read",
        json!({"file_path": ".env"}),
    )));
    let echo = format!("the password {DB_PASSWORD} and the token {ENV_TOKEN} are weak");
    server.push(Step::reply(
        Reply::text(format!("Thinking aloud: {echo}.\n")).then_text(
            json!({
                "verdict": "FAIL",
                "summary": format!("Summary: {echo}."),
                "findings": [{
                    "file_path": "settings.py", "line_start": 2, "line_end": 2, "priority": 1,
                    "title": format!("Weak {DB_PASSWORD}"),
                    "body": format!("Body: {echo}.")
                }]
            })
            .to_string(),
        ),
    ));
    let out = support::crit(d, &server, None)
        .args([
            "review",
            "code",
            "--verify",
            "off",
            "--no-cache",
            "--diff",
            "main..HEAD",
            "--format",
            "json",
            "--record",
        ])
        .arg(record.path())
        // The working directory is no secret: paths crit prints keep it.
        .env("PWD", d)
        .env("OLDPWD", d.join(".home"))
        .output()
        .unwrap();
    let result = json_out(&out);
    assert_eq!(result["verdict"], "FAIL", "{result}");
    // The model's words are kept, the values hidden.
    let title = result["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["title"].as_str().unwrap().starts_with("Weak "))
        .unwrap_or_else(|| panic!("{result}"));
    // Hidden by what the review learned where each was found.
    let body = title["body"].as_str().unwrap();
    assert!(
        body.contains("password [REDACTED:password] and the token [REDACTED:env-value] are weak"),
        "{title}"
    );

    let leaks = |what: &str, text: &str| {
        for secret in [DB_PASSWORD, ENV_TOKEN, NAMED_KEY, SUBJECT_TOKEN] {
            assert!(
                !text.contains(secret),
                "{secret} leaked into {what}:\n{text}"
            );
        }
    };
    leaks("stdout", &String::from_utf8_lossy(&out.stdout));
    leaks("stderr", &String::from_utf8_lossy(&out.stderr));
    let requests = server.model_requests();
    let first = requests[0].body.to_string();
    assert!(
        first.contains("configure the database, github token [REDACTED:"),
        "{first}"
    );
    assert!(first.contains("deploy/[REDACTED:"), "{first}");
    for line in NOT_SECRETS.lines() {
        assert!(first.contains(line), "{line} hidden: {first}");
    }
    let session_path = result["session_log_path"].as_str().unwrap();
    assert!(
        session_path.starts_with(&d.display().to_string()) && !session_path.contains("REDACTED"),
        "{session_path}"
    );
    let written = files_under(d, &["settings.py", ".env", "deploy"]);
    let session = Path::new(result["session_log_path"].as_str().unwrap());
    for name in ["result.json", "session.json", "transcript.jsonl"] {
        assert!(
            written.iter().any(|(p, _)| p == &session.join(name)),
            "{name} not written: {written:?}"
        );
    }
    assert!(
        written.iter().any(|(p, _)| p.starts_with(d.join(".state"))),
        "nothing in the state directory (the audit log)"
    );
    for (path, text) in &written {
        leaks(&path.display().to_string(), text);
    }
    let cassettes = files_under(record.path(), &[]);
    assert!(!cassettes.is_empty(), "--record wrote nothing");
    for (path, text) in &cassettes {
        leaks(&path.display().to_string(), text);
    }
    // The model was never sent either value.
    for r in server.model_requests() {
        leaks("a request", &r.body.to_string());
    }
}

/// `crit run`, `crit plan` and the other kinds learn as the code review
/// does: a token a reviewer's tool found in a git-ignored `.env` and the
/// model echoed is hidden in what crit printed and wrote.
#[test]
fn every_kind_hides_what_its_tools_found() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, ".gitignore", ".env\n");
    write(d, "notes.md", "# Plan\n\nShip it.\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    write(d, ".env", &format!("API_TOKEN={ENV_TOKEN}\n"));
    let echo = format!("The token {ENV_TOKEN} is weak.");
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::tool_use(
        "Read",
        json!({"file_path": ".env"}),
    )));
    server.push(Step::reply(Reply::json(
        json!({"verdict": "FAIL", "summary": echo, "findings": [{
            "file_path": ".env", "line_start": 1, "line_end": 1, "priority": 1,
            "title": echo, "body": echo}]}),
    )));
    let out = support::crit(d, &server, None)
        .args(["run", "Review the project", "--json"])
        .output()
        .unwrap();
    let result = json_out(&out);
    assert_eq!(server.model_requests().len(), 2, "{result}");
    let leaks = |what: &str, text: &str| {
        assert!(!text.contains(ENV_TOKEN), "leaked into {what}:\n{text}");
    };
    assert!(
        result["summary"]
            .as_str()
            .unwrap()
            .contains("[REDACTED:env-value]"),
        "{result}"
    );
    leaks("stdout", &String::from_utf8_lossy(&out.stdout));
    leaks("stderr", &String::from_utf8_lossy(&out.stderr));
    for (path, text) in files_under(d, &[".env"]) {
        leaks(&path.display().to_string(), &text);
    }
}
