//! `--format github|codeclimate|junit` through the binary: a saved result with
//! secrets and hostile text in a finding comes out redacted (before the
//! format escapes anything, so no escaping hides a secret from the redactor),
//! free of control characters, and still well-formed.

use assert_cmd::Command;
use serde_json::{Value, json};

const SECRETS: [&str; 4] = [
    "ghp_0123456789abcdefghijABCDEFGH",
    "AKIAIOSFODNN7EXAMPLE",
    "sk-ant-api03-AbCdEfGh12345678",
    // Only its assignment says it is a secret, and XML escapes the quotes.
    "correct-horse-battery-staple-42",
];

fn saved() -> tempfile::NamedTempFile {
    let title = format!(
        "[P1] Token \"{}\" in config: a,b password=\"{}\"\n::error::x %0A \u{1b}]0;t\u{7}",
        SECRETS[0], SECRETS[3]
    );
    let body = format!("aws {} here\nkey = \"{}\"\n<b>&", SECRETS[1], SECRETS[2]);
    let doc = json!({
        "schema_version": 1, "review": "code", "verdict": "FAIL", "passed": false,
        "summary": format!("leaks {}", SECRETS[0]),
        "findings": [{"id": "", "title": title, "body": body, "severity": "P1", "reviewer": "security",
            "location": {"kind": "file", "path": "conf/app.yml", "line_start": 3, "line_end": 3}}],
    });
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), doc.to_string()).unwrap();
    file
}

fn report(file: &tempfile::NamedTempFile, format: &str) -> String {
    let out = Command::cargo_bin("crit")
        .unwrap()
        .env_remove("CRIT_PROVIDER")
        .args(["report"])
        .arg(file.path())
        .args(["--format", format])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn ci_formats_are_redacted_sanitized_and_well_formed() {
    let file = saved();
    for format in [
        "github",
        "codeclimate",
        "junit",
        "sarif",
        "rdjson",
        "markdown",
    ] {
        let text = report(&file, format);
        for s in SECRETS {
            assert!(!text.contains(s), "{format} leaks {s}:\n{text}");
        }
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{format}: {text:?}"
        );
    }
    let github = report(&file, "github");
    assert_eq!(github.lines().count(), 2, "{github}");
    assert!(
        github.lines().all(|l| l.starts_with("::error ")),
        "{github}"
    );
    assert!(
        github.starts_with("::error file=conf/app.yml,line=3,title=P1 Token "),
        "{github}"
    );
    let cq: Value = serde_json::from_str(&report(&file, "codeclimate")).unwrap();
    assert_eq!(cq[0]["location"]["path"], "conf/app.yml");
    assert_eq!(cq[0]["severity"], "critical");
    assert_eq!(
        cq[0]["fingerprint"].as_str().unwrap().len(),
        16,
        "filled in from crit's own"
    );
    let junit = report(&file, "junit");
    assert!(junit.contains("failures=\"2\""), "{junit}");
    assert!(junit.contains("&lt;b&gt;&amp;"), "{junit}");
}
