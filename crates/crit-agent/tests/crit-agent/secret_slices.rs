//! A model that reads secret files in slices through every tool — Read with
//! offsets, Grep patterns that match half a token, `grep -o`, `head -c`,
//! `tail -c`, `cut`, `sed -n`, recursive greps, `git show`, `git log -p`,
//! `git log -L`, `git grep -o`, a character-level `--word-diff` — receives no
//! piece of any secret, and what it repeats is redacted in the transcript.

use crit_agent::transcript::JsonlTranscript;
use crit_agent::{RunStatus, ToolContext, ToolRegistry, run_agent};
use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::kit::{model, spec, tool_results};

const ENV_TOKEN: &str = "ghp_Zx8Cv7Bn6Mq5Wa4Es3Rd2Tf1Gy0Hu9Ij8Ok";
const ENV_PASSWORD: &str = "hunter2-Prod!x9";
const CODE_TOKEN: &str = "ghp_Qw3rTy7uIo9pAs2dFg5hJk8lZx1cVb4nM6pL";
const KEY_LINES: [&str; 4] = [
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
    "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK",
    "LxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo",
    "9z+tgR5Zba2kQXjKZ7GfTp2NeUgDdBsFRdp8oPBvqL4z",
];
const IGNORED_KEY_LINE: &str =
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2g";

fn git(dir: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(["-c", "user.email=t@t", "-c", "user.name=t"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}");
}

/// A repository with a tracked settings file and key holding secrets, and a
/// git-ignored `.env` and private key; the last commit changes one
/// character of the tracked token.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let w = |rel: &str, text: &str| {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    w(".gitignore", ".env\nkeys/\n");
    w(
        ".env",
        &format!(
            "# local settings\nPORT=3000\nGITHUB_TOKEN={ENV_TOKEN}\nDB_PASSWORD={ENV_PASSWORD}\n"
        ),
    );
    w(
        "keys/dev.pem",
        &format!(
            "-----BEGIN OPENSSH PRIVATE KEY-----\n{IGNORED_KEY_LINE}\n-----END OPENSSH PRIVATE KEY-----\n"
        ),
    );
    let settings = |token: &str| {
        format!(
            "DEBUG = False\nAPI_TOKEN = \"{token}\"\nPASSWORD_HASHER = \"django.contrib.auth.hashers.Argon2PasswordHasher\"\nTIMEOUT = 30\n"
        )
    };
    w(
        "config/settings.py",
        &settings(&CODE_TOKEN.replace("pL", "pK")),
    );
    w(
        "certs/service.pem",
        &format!(
            "-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----\n",
            KEY_LINES.join("\n")
        ),
    );
    git(dir.path(), &["init", "-q", "-b", "main"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-qm", "init"]);
    w("config/settings.py", &settings(CODE_TOKEN));
    git(dir.path(), &["commit", "-qam", "rotate the token"]);
    dir
}

/// Every piece of every secret a slice could show: its 8-byte windows.
fn pieces() -> Vec<String> {
    let mut secrets = vec![ENV_TOKEN, ENV_PASSWORD, CODE_TOKEN, IGNORED_KEY_LINE];
    secrets.extend(KEY_LINES);
    secrets
        .iter()
        .flat_map(|s| {
            s.as_bytes()
                .windows(8)
                .map(|w| String::from_utf8_lossy(w).into_owned())
        })
        .collect()
}

fn calls() -> Vec<(&'static str, Value)> {
    let bash = |c: &str| json!({"command": c});
    vec![
        ("Read", json!({"file_path": ".env"})),
        (
            "Read",
            json!({"file_path": ".env", "offset": 3, "limit": 1}),
        ),
        (
            "Read",
            json!({"file_path": "config/settings.py", "offset": 2, "limit": 1}),
        ),
        (
            "Read",
            json!({"file_path": "certs/service.pem", "offset": 3, "limit": 2}),
        ),
        ("Read", json!({"file_path": "keys/dev.pem"})),
        (
            "Grep",
            json!({"pattern": "ghp_.{10}", "path": ".env", "output_mode": "content"}),
        ),
        (
            "Grep",
            json!({"pattern": "ghp_[A-Za-z0-9]{4}", "output_mode": "content"}),
        ),
        (
            "Grep",
            json!({"pattern": "[A-Za-z0-9+/]{40}", "path": "certs", "output_mode": "content", "-A": 1}),
        ),
        (
            "Grep",
            json!({"pattern": "hunter", "path": ".env", "output_mode": "count"}),
        ),
        ("Bash", bash("grep -oE 'ghp_.{10}' .env")),
        ("Bash", bash("grep -oE '.{27}$' .env")),
        ("Bash", bash("head -c 40 config/settings.py")),
        ("Bash", bash("tail -c 30 .env")),
        ("Bash", bash("cut -c 1-20 .env")),
        ("Bash", bash("sed -n 3p .env")),
        ("Bash", bash("cat .env")),
        ("Bash", bash("grep -c hunter .env")),
        ("Bash", bash("grep -rn ghp_ .")),
        ("Bash", bash("rg -o 'MII[A-Za-z0-9]{20}'")),
        ("Bash", bash("git show HEAD:config/settings.py")),
        ("Bash", bash("git log -p")),
        ("Bash", bash("git grep -o 'ghp_.\\{8\\}'")),
        ("Bash", bash("git show HEAD:certs/service.pem")),
        ("Bash", bash("git log -p -L 3,4:certs/service.pem")),
        ("Bash", bash("git show --word-diff-regex=. HEAD")),
    ]
}

#[tokio::test]
async fn no_tool_hands_the_model_a_slice_of_a_secret() {
    let dir = project();
    let server = FakeServer::start().await;
    server.push(Step::reply(Reply::tool_uses(calls())));
    // The model repeats a secret it never received, as if it had guessed it.
    server.push(Step::reply(Reply::text(format!(
        "Found DB password {ENV_PASSWORD} and token {CODE_TOKEN}."
    ))));
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    let log = dir.path().join("transcript.jsonl");
    let mut transcript = JsonlTranscript::new(std::fs::File::create(&log).unwrap())
        .with_redactor(cx.redaction.redactor().clone());
    let out = run_agent(
        &model(&server),
        &spec(ToolRegistry::builtin()),
        &cx,
        &mut transcript,
        CancellationToken::new(),
    )
    .await;
    assert_eq!(out.status, RunStatus::Completed);
    let results = tool_results(&server, 1);
    assert_eq!(results.len(), calls().len());
    let pieces = pieces();
    for ((tool, input), (_, content, _)) in calls().iter().zip(&results) {
        for p in &pieces {
            assert!(
                !content.contains(p.as_str()),
                "{tool} {input} gave the model `{p}`:\n{content}"
            );
        }
    }
    let got = |i: usize| results[i].1.as_str();
    // Read: the ignored env file keeps its keys; the tracked file its code
    // and line numbers; a key's lines are masked wherever the window falls.
    assert!(
        got(0).contains("     2\tPORT=[REDACTED:env-value]"),
        "{}",
        got(0)
    );
    assert!(got(0).contains("     3\tGITHUB_TOKEN=[REDACTED:env-value]"));
    assert!(got(1).contains("     3\tGITHUB_TOKEN=[REDACTED:env-value]"));
    assert!(
        got(2).contains("     2\tAPI_TOKEN = \"[REDACTED:github-token]\""),
        "{}",
        got(2)
    );
    assert!(
        got(3).contains("     3\t[REDACTED:private-key]\n     4\t[REDACTED:private-key]"),
        "{}",
        got(3)
    );
    assert!(got(4).contains("credentials file"), "{}", got(4));
    // Grep searches the masked text: a pattern for half a token finds nothing.
    assert!(got(5).contains("No matches"), "{}", got(5));
    assert!(got(8).contains("No matches"), "{}", got(8));
    // Bash: slicing commands on files with secrets are refused with the way out.
    for i in [9, 10, 12, 15, 16, 17] {
        assert!(
            got(i).contains("secrets") && got(i).contains("Read tool"),
            "{i}: {}",
            got(i)
        );
    }
    assert!(got(11).contains("`config/settings.py` (1)"), "{}", got(11));
    assert!(got(13).contains("`cut` is not allowed"), "{}", got(13));
    assert!(got(14).contains("`sed` is not allowed"), "{}", got(14));
    // git shows the code around the secret: nothing but the secret is hidden.
    assert!(got(19).contains("Argon2PasswordHasher") && got(19).contains("TIMEOUT = 30"));
    assert!(got(20).contains("rotate the token"), "{}", got(20));
    // What the model repeated is redacted in the transcript crit wrote.
    let written = std::fs::read_to_string(&log).unwrap();
    assert!(written.contains("Found DB password"), "{written}");
    for p in &pieces {
        assert!(!written.contains(p.as_str()), "`{p}` in the transcript");
    }
    // Every secret masked at the source is on record with its file and line.
    let found = cx.redaction.found();
    assert!(
        found
            .iter()
            .any(|f| f.path.as_deref() == Some(".env") && f.line == Some(3))
    );
    assert!(
        found
            .iter()
            .any(|f| f.path.as_deref() == Some("config/settings.py") && f.line == Some(2))
    );
}

/// Commands on files that hold no secret run as before, and so do those that
/// show no file's content.
#[tokio::test]
async fn commands_on_files_without_secrets_still_run() {
    use crit_agent::{BashTool, Tool};
    let dir = project();
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    for (command, want) in [
        ("head -n 1 .gitignore", ".env\n[exit code 0]"),
        ("grep -n keys .gitignore", "2:keys/"),
        ("wc -c .env", ".env"),
        ("ls -a", ".env"),
        ("git log --oneline", "rotate the token"),
        ("git grep -n BEGIN -- .gitignore", "[exit code 1]"),
    ] {
        let out = BashTool.call(json!({"command": command}), &cx).await;
        assert!(out.content.contains(want), "{command}: {}", out.content);
        assert!(
            !out.content.contains("refused"),
            "{command}: {}",
            out.content
        );
    }
    // `git grep` over a file holding a secret is refused like `grep`.
    let out = BashTool
        .call(json!({"command": "git grep -n DEBUG -- config"}), &cx)
        .await;
    assert!(
        out.is_error && out.content.contains("holds secrets"),
        "{}",
        out.content
    );
}
