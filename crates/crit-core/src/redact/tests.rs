use super::*;

fn kinds(text: &str) -> Vec<&'static str> {
    Redactor::new()
        .redact(text)
        .found
        .iter()
        .map(|r| r.kind)
        .collect()
}

fn clean(text: &str) -> String {
    Redactor::new().redact_str(text).into_owned()
}

#[test]
fn known_credential_shapes() {
    let cases: &[(&str, &str)] = &[
        ("key = \"sk-ant-api03-AbCdEfGh12345678\"", "anthropic-key"),
        ("OPENAI=sk-proj-abcdefghijklmnopqrstuvwx", "openai-key"),
        ("token ghp_0123456789abcdefghijABCDEFGH", "github-token"),
        (
            "github_pat_11ABCDEFG0123456789_abcdefghijkl",
            "github-token",
        ),
        ("glpat-abcdefghij0123456789", "gitlab-token"),
        ("xoxb-123456789012-abcdef", "slack-token"),
        (
            "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX",
            "slack-webhook",
        ),
        ("aws AKIAIOSFODNN7EXAMPLE here", "aws-access-key"),
        ("AIzaSyA-0123456789abcdefghijklmnopqrstu", "google-api-key"),
        ("sk_live_0123456789abcdefABCD", "stripe-key"),
        ("npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm-token"),
        (
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "jwt",
        ),
        (
            "postgres://admin:s3cr3t-pw@db.internal:5432/app",
            "url-password",
        ),
        (
            "Authorization: Bearer abcdefghijklmnop1234",
            "authorization-header",
        ),
    ];
    for (text, kind) in cases {
        assert_eq!(kinds(text), vec![*kind], "{text}");
        assert!(clean(text).contains(&marker(kind)), "{text}");
    }
}

#[test]
fn private_keys_go_whole_even_inside_a_diff() {
    let diff = "+-----BEGIN OPENSSH PRIVATE KEY-----\n+b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n+AAAAB3NzaC1yc2EAAAADAQABAAABAQC7\n+-----END OPENSSH PRIVATE KEY-----\n+fn main() {}\n";
    let r = Redactor::new().redact(diff);
    assert_eq!(
        r.text, "+[REDACTED:private-key]\n+fn main() {}\n",
        "{}",
        r.text
    );
    assert_eq!(r.found.len(), 1);
    assert_eq!(r.found[0].line, 1);
    // A key cut off before its END line is still removed, to the end.
    assert_eq!(
        clean("x\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow"),
        "x\n[REDACTED:private-key]"
    );
}

const BODY: &str = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun";

#[test]
fn a_private_key_without_its_end_hides_its_own_lines_only() {
    // The marker in a comment, with no key after it: nothing is a secret.
    let patch = "diff --git a/fixture.rs b/fixture.rs\n+// -----BEGIN RSA PRIVATE KEY----- test fixture header\n\
         diff --git a/auth.rs b/auth.rs\n+fn check(u: &str) -> bool { u == \"admin\" || true }\n"
        .to_string();
    let r = Redactor::new().redact(&patch);
    assert!(r.found.is_empty(), "{:?}", r.found);
    assert_eq!(r.text, patch);
    // A real key cut off before its END: its lines go, the next file stays.
    let patch = format!(
        "+-----BEGIN RSA PRIVATE KEY-----\n+{BODY}\n+{BODY}\n\
         diff --git a/auth.rs b/auth.rs\n+fn backdoor() {{ exec(\"sh\") }}\n"
    );
    let r = Redactor::new().redact(&patch);
    assert_eq!(r.found.len(), 1);
    // Without its END line, what it hid could be more than a key.
    assert!(r.found[0].more_than_credential);
    assert!(!r.text.contains(&BODY[..20]), "{}", r.text);
    assert!(
        r.text
            .contains("diff --git a/auth.rs b/auth.rs\n+fn backdoor() { exec(\"sh\") }"),
        "{}",
        r.text
    );
    // A short word right after a key is code, not the key's last line.
    let text = format!("-----BEGIN EC PRIVATE KEY-----\n{BODY}\nreturn\n}}\n");
    assert_eq!(clean(&text), "[REDACTED:private-key]\nreturn\n}\n");
}

#[test]
fn no_redaction_crosses_a_file_start() {
    let first = format!("-----BEGIN PRIVATE KEY-----\n{BODY}\n");
    let second = format!("{BODY}\nfn main() {{}}\n");
    let text = format!("{first}{second}");
    // Without the boundary the second file's base64 reads as the same key...
    assert!(!clean(&text).contains(&BODY[..20]));
    // ...with it, the second file reaches the reviewer whole.
    let r = Redactor::new().redact_with(
        &text,
        Options {
            file_starts: &[first.len()],
            ..Options::default()
        },
    );
    assert_eq!(r.found.len(), 1);
    assert!(r.found[0].end <= first.len());
    assert!(r.text.ends_with(&second), "{}", r.text);
}

#[test]
fn keys_in_strings_yaml_and_encrypted_pem() {
    let json = format!(
        "{{\"key\": \"-----BEGIN RSA PRIVATE KEY-----\\n{BODY}\\n{BODY}\\nAB==\\n-----END RSA PRIVATE KEY-----\\n\", \"next\": run()}}"
    );
    assert_eq!(
        clean(&json),
        "{\"key\": \"[REDACTED:private-key]\\n\", \"next\": run()}"
    );
    let yaml = format!(
        "tls:\n  key: |\n    -----BEGIN PRIVATE KEY-----\n    {BODY}\n    -----END PRIVATE KEY-----\n  port: 443\n"
    );
    assert_eq!(
        clean(&yaml),
        "tls:\n  key: |\n    [REDACTED:private-key]\n  port: 443\n"
    );
    let code = format!(
        "const K = \"-----BEGIN RSA PRIVATE KEY-----\\n\" +\n  \"{BODY}\\n\" +\n  \"-----END RSA PRIVATE KEY-----\";\nlaunch();\n"
    );
    assert_eq!(
        clean(&code),
        "const K = \"[REDACTED:private-key]\";\nlaunch();\n"
    );
    let encrypted = format!(
        "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,3F17F5316E2BAC89\n\n{BODY}\n-----END RSA PRIVATE KEY-----\nok\n"
    );
    assert_eq!(clean(&encrypted), "[REDACTED:private-key]\nok\n");
}

#[test]
fn a_url_password_holds_no_code() {
    let attack = r#"u="http://a:";exec(bytes.fromhex("6f732e73797374656d28276964272926"));"@""#;
    assert_eq!(kinds(attack), Vec::<&str>::new());
    assert_eq!(clean(attack), attack);
    for (text, secret) in [
        ("redis://default:Rd5-pw9Kq@host:6379", "Rd5-pw9Kq"),
        (
            "https://bot:p%40ss%3Bw0rd@git.example.com/x.git",
            "p%40ss%3Bw0rd",
        ),
        ("amqp://u:S3cr3t!$&*+=@mq", "S3cr3t!$&*+="),
    ] {
        let r = Redactor::new().redact(text);
        assert_eq!(r.found.len(), 1, "{text}");
        assert_eq!(&text[r.found[0].start..r.found[0].end], secret);
    }
}

#[test]
fn spans_that_hold_more_than_a_credential_say_so() {
    let flagged = |text: &str| -> Vec<bool> {
        Redactor::new()
            .redact(text)
            .found
            .iter()
            .map(|r| r.more_than_credential)
            .collect()
    };
    assert_eq!(flagged("DB_PASSWORD=hunter2hunter2"), [false]);
    assert_eq!(flagged("password: \"correct horse 9\""), [false]);
    assert_eq!(flagged("api_key = \"x1'); exec(payload); ('\""), [true]);
    let whole = format!("-----BEGIN PRIVATE KEY-----\n{BODY}\n-----END PRIVATE KEY-----\n");
    assert_eq!(flagged(&whole), [false]);
    let huge: String = std::iter::repeat_n(BODY, MAX_KEY_BYTES / BODY.len() + 2)
        .collect::<Vec<_>>()
        .join("\n");
    let text = format!("-----BEGIN PRIVATE KEY-----\n{huge}\n");
    assert_eq!(flagged(&text), [true]);
    let long = format!("TOKEN=\"a1{}\"", "b".repeat(MAX_SECRET_BYTES));
    assert_eq!(flagged(&long), [true]);
}

#[test]
fn keeping_lines_leaves_a_marker_on_each() {
    let text = format!("a\n-----BEGIN PRIVATE KEY-----\n{BODY}\n-----END PRIVATE KEY-----\nb\n");
    let r = Redactor::new().redact_with(
        &text,
        Options {
            keep_lines: true,
            ..Options::default()
        },
    );
    assert_eq!(r.text.lines().count(), text.lines().count());
    assert_eq!(
        r.text,
        "a\n[REDACTED:private-key]\n[REDACTED:private-key]\n[REDACTED:private-key]\nb\n"
    );
}

#[test]
fn found_secrets_are_learned_and_shared_by_clones_across_threads() {
    let review = Redactor::new();
    let tools = review.clone();
    let own = review.detached();
    let input = "DB_PASSWORD=Zq7-vR2pL9xT\nHOST=db\n";
    let worker = std::thread::spawn(move || {
        tools.redact_with(
            input,
            Options {
                learn: true,
                ..Options::default()
            },
        )
    });
    let r = worker.join().unwrap();
    assert_eq!(r.found.len(), 1);
    // The model echoes the bare value later: hidden everywhere the review writes.
    let echo = "The password Zq7-vR2pL9xT is weak.";
    assert_eq!(
        review.redact_str(echo),
        "The password [REDACTED:password] is weak."
    );
    assert_eq!(
        own.redact_str(echo),
        echo,
        "a detached copy learns on its own"
    );
    // Plain redaction does not learn.
    let quiet = Redactor::new();
    quiet.redact("API_TOKEN=Hc3_8vQy1ZkX0pLw");
    assert_eq!(quiet.known_count(), 0);
    // A key's lines are learned one by one: a few of them alone are hidden.
    let key = format!(
        "-----BEGIN PRIVATE KEY-----\n{BODY}\n{}\n-----END PRIVATE KEY-----\n",
        &BODY[2..]
    );
    let learner = Redactor::new();
    learner.redact_with(
        &key,
        Options {
            learn: true,
            ..Options::default()
        },
    );
    let slice = format!("@@ -2,1 +2,1 @@\n {}\n", &BODY[2..]);
    assert!(!learner.redact_str(&slice).contains(&BODY[10..30]));
}

#[test]
fn secret_assignments_in_env_yaml_json_and_code() {
    let cases: &[(&str, &str)] = &[
        ("DB_PASSWORD=hunter2hunter2", "password"),
        ("+DB_PASS=Tr0ub4dor&3", "password"),
        ("password: \"correct horse 9\"", "password"),
        ("  client_secret: 'a1b2c3d4e5f6'", "secret"),
        ("{\"api_key\": \"q8w7e6r5t4y3\"}", "api-key"),
        ("export GITHUB_TOKEN=\"abc123def456\"", "token"),
        ("x-api-key: 9f8e7d6c5b4a", "api-key"),
        ("SECRET_KEY = 'dj@ngo-insecure-k3y!'", "secret"),
        ("config.auth_token => 'Zq3!x9Lm'", "token"),
    ];
    for (text, kind) in cases {
        assert_eq!(kinds(text), vec![*kind], "{text}");
    }
    assert_eq!(
        clean("DB_PASSWORD=hunter2hunter2\nDB_HOST=localhost\n"),
        "DB_PASSWORD=[REDACTED:password]\nDB_HOST=localhost\n"
    );
}

#[test]
fn code_placeholders_and_plain_words_are_not_secrets() {
    for text in [
        "password = form.password",
        "api_key = settings.API_KEY",
        "token: string",
        "let password: &str = &args.password;",
        "DB_PASSWORD=${DB_PASSWORD}",
        "API_KEY=<your-api-key>",
        "password: changeme",
        "token = os.environ[\"TOKEN\"]",
        "secret = process.env.SECRET",
        "max_tokens: 4096",
        "input_tokens = 1234567890",
        "password: '********'",
        "token_url = https://example.com/oauth/token",
        "sk-short",
        "AKIAlowercase0000000",
        "passed: true",
        "cache_read_tokens: 12",
        "the password is checked by verify_password()",
        "",
    ] {
        assert_eq!(kinds(text), Vec::<&str>::new(), "{text}");
        assert_eq!(clean(text), text);
    }
}

#[test]
fn a_github_token_glued_to_a_word_is_still_found() {
    let classic = "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    let fine = format!("11{}_{}", "A".repeat(20), "b3".repeat(29) + "c");
    let mut tokens: Vec<String> = ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]
        .iter()
        .map(|p| format!("{p}{classic}"))
        .collect();
    tokens.push(format!("github_pat_{fine}"));
    for token in &tokens {
        for before in ["url?q=Bearer%20", "x=abc", "x0", "x_", "Bearer"] {
            let text = format!("{before}{token}&next=1");
            assert_eq!(kinds(&text), ["github-token"], "{text}");
            assert!(!clean(&text).contains(&token[6..]), "{text}");
        }
        // Where a secret's name is assigned it, it goes either way.
        let text = format!("Authorization=Bearer%20{token}");
        assert!(!clean(&text).contains(&token[6..]), "{text}");
    }
    // A word that only ends like a token's prefix is not one.
    for text in [
        "laughs_ABCDEFGHIJKLMNOPQRSTUVWXYZab",
        "coughs_MeasurementCountTotalValueOfTheFirstThing",
        "my_github_pat_environment_variable_name_here",
        "weighs_1234567890123456789012345678901234567",
    ] {
        assert_eq!(kinds(text), Vec::<&str>::new(), "{text}");
        assert_eq!(clean(text), text);
    }
}

#[test]
fn known_values_from_the_environment() {
    let r = Redactor::from_env([
        ("ANTHROPIC_API_KEY", "plain-looking-key-value"),
        ("HOME", "/home/someone-long"),
        ("MY_SERVICE_PASSWORD", "short"),
        ("PWD", "/home/someone/project"),
        ("OLDPWD", "/home/someone/previous"),
    ]);
    // The working directory is no secret: errors and paths keep it.
    assert_eq!(
        r.redact_str("/home/someone/project is not a git repository"),
        "/home/someone/project is not a git repository"
    );
    assert_eq!(
        r.redact_str("sent plain-looking-key-value and /home/someone-long"),
        "sent [REDACTED:environment-secret] and /home/someone-long"
    );
    // Too short to be told apart from a word.
    assert_eq!(r.redact_str("a short word"), "a short word");
    assert!(!format!("{r:?}").contains("plain-looking"));
}

#[test]
fn lines_offsets_and_overlaps() {
    let text = "a\nb ghp_0123456789abcdefghijABCDEFGH\nc\nTOKEN=ghp_ZZZZZZZZZZZZZZZZZZZZZZZZ\n";
    let r = Redactor::new().redact(text);
    let lines: Vec<u32> = r.found.iter().map(|f| f.line).collect();
    assert_eq!(lines, [2, 4]);
    // The shape and the assignment overlap on line 4: one redaction.
    assert_eq!(r.found.len(), 2);
    assert_eq!(
        &text[r.found[0].start..r.found[0].end],
        "ghp_0123456789abcdefghijABCDEFGH"
    );
    assert!(!r.text.contains("ghp_"));
}

#[test]
fn json_strings_are_redacted_and_stay_valid() {
    let mut v = serde_json::json!({
        "title": "Leaked key sk-ant-api03-AbCdEfGh12345678",
        "nested": [{"body": "DB_PASSWORD=hunter2hunter2"}],
        "n": 3
    });
    assert_eq!(Redactor::new().redact_json(&mut v), 2);
    let text = v.to_string();
    assert!(
        !text.contains("sk-ant-api03") && !text.contains("hunter2"),
        "{text}"
    );
    // Redacting rendered JSON text keeps it JSON.
    let rendered = serde_json::json!({"a": "key\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----"}).to_string();
    let redacted = clean(&rendered);
    let back: serde_json::Value = serde_json::from_str(&redacted).unwrap();
    assert_eq!(
        back["a"],
        "key\\n[REDACTED:private-key]".replace("\\n", "\n")
    );
}

#[test]
fn secret_key_names() {
    for k in [
        "api_key",
        "ApiKey",
        "API-KEY",
        "x-api-key",
        "GITHUB_TOKEN",
        "access_token",
        "client_secret",
        "Authorization",
        "password",
        "DB_PASS",
        "Cookie",
        "credentials",
        "AWS_ACCESS_KEY",
        "DB_PWD",
        "APP_KEY",
        "SIGNING_KEY",
        "client-key-data",
        "SECRET_KEY_BASE",
        "encryption.primary_key",
        "_authToken",
    ] {
        assert!(is_secret_key(k), "{k}");
    }
    for k in [
        "max_tokens",
        "tokenizer",
        "model",
        "input_tokens",
        "keyboard",
        "secretary_name",
        "passed",
        "bypass",
        "PWD",
        "OLDPWD",
        "PASSWORD_HASHER",
        "COOKIE_DOMAIN",
        "CREDENTIALS_DIRECTORY",
        "TOKEN_URL",
        "SECRET_LENGTH",
        "JWT_ALGORITHM",
        "PASSWORD_RESET_TIMEOUT",
        "AWS_SHARED_CREDENTIALS_FILE",
        "session_cookie_name",
        "primary_key",
        "public_key",
    ] {
        assert!(!is_secret_key(k), "{k}");
    }
}

#[test]
fn assignments_nested_in_other_values_and_json_escapes() {
    assert_eq!(
        clean("env: DB_PASSWORD=hunter2hunter2"),
        "env: DB_PASSWORD=[REDACTED:password]"
    );
    // As it appears inside a JSON string: `\n` is two characters there.
    assert_eq!(
        clean(r#""text": "review:\nDB_PASSWORD=hunter2hunter2\nnext""#),
        r#""text": "review:\nDB_PASSWORD=[REDACTED:password]\nnext""#
    );
}

#[test]
fn long_values_are_hidden_whole_and_non_ascii_neighbours_do_not_hide_a_token() {
    // Past the old 256-character bound: nothing of the value is left.
    let alphabet = b"aZ3kQ9xR7mT2vB8nW4";
    let long: String = (0..300)
        .map(|i| alphabet[i * 7 % alphabet.len()] as char)
        .collect();
    for text in [
        format!("API_TOKEN = \"{long}\"\n"),
        format!("password: {long}\n"),
        format!("https://user:{long}@example.com/x\n"),
    ] {
        let out = clean(&text);
        assert!(!out.contains(&long[..40]), "{out}");
        assert!(!out.contains(&long[250..]), "{out}");
    }
    // A token right after a non-ASCII letter is still found (an ASCII word
    // boundary holds there; a Unicode one would not).
    assert_eq!(
        kinds("éghp_0123456789abcdefghijABCDEFGHIJ"),
        ["github-token"]
    );
    assert_eq!(kinds("ключ=sk-ant-api03-abcdefghijkl"), ["anthropic-key"]);
}

#[test]
fn pieces_of_known_secrets_are_hidden_when_asked() {
    let r = Redactor::new();
    r.learn("ghp_Zx8Cv7Bn6Mq5Wa4Es3Rd2Tf1Gy0Hu9Ij8Ok", "github-token");
    r.learn("hunter2hunter2", "password");
    let sliced = "first ghp_Zx8Cv7Bn6M then q5Wa4Es3Rd2Tf1Gy0 and a hunter2h";
    let fragments = Options {
        fragments: true,
        ..Options::default()
    };
    let out = r.redact_with(sliced, fragments);
    assert_eq!(
        out.text,
        "first [REDACTED:known-secret-fragment] then [REDACTED:known-secret-fragment] and a [REDACTED:known-secret-fragment]"
    );
    // Without the option, or for windows of letters alone, nothing is hidden.
    assert_eq!(r.redact_str(sliced), sliced);
    r.learn("password-only-words", "password");
    assert_eq!(
        r.redact_with("the password field", fragments).text,
        "the password field"
    );
}

#[test]
fn every_secret_name_holds_a_word_the_line_filter_looks_for() {
    // Assignments are searched only on lines holding one of these words.
    let words = keys::SECRET_WORDS
        .iter()
        .chain(keys::LAST_WORDS)
        .chain(&["key", "keys"]);
    for w in words {
        assert!(
            rules::KEY_WORDS.iter().any(|k| w.contains(k)),
            "{w} holds none of the filter's words"
        );
    }
}

#[test]
fn the_literal_prefilter_finds_what_every_pattern_finds() {
    // Each shape in several cases and settings, near misses, and code.
    let samples = [
        "key = \"sk-ant-api03-AbCdEfGh12345678\"",
        "OPENAI=sk-proj-abcdefghijklmnopqrstuvwx SK-PROJ-ABCDEFGHIJKLMNOPQRSTUVWX",
        "token ghp_0123456789abcdefghijABCDEFGH GHO_0123456789abcdefghijABCDEFGH",
        "github_pat_11ABCDEFG0123456789_abcdefghijkl",
        "glpat-abcdefghij0123456789",
        "xoxb-123456789012-abcdef xoxp-123456789012-abcdef",
        "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "aws AKIAIOSFODNN7EXAMPLE here, ASIAIOSFODNN7EXAMPLE there",
        "AIzaSyA-0123456789abcdefghijklmnopqrstu",
        "sk_live_0123456789abcdefABCD rk_test_0123456789abcdefABCD",
        "npm_abcdefghijklmnopqrstuvwxyz0123456789",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "postgres://admin:s3cr3t-pw@db.internal:5432/app HTTPS://u:pw123456@x.example",
        "Authorization: Bearer abcdefghijklmnop1234\nAUTHORIZATION:\tToken abcdefghijklmnop1234",
        "authorization: basic dXNlcjpwYXNzd29yZDEyMzQ=",
        "+    let url = \"redis://:hunter2hunter2@cache:6379\"; // é ü\n",
        "fn main() { let sk = 1; let gh = 2; println!(\"{sk}{gh}\"); }",
        // Assignments: the key-word filter must agree with searching every
        // line that holds a key word.
        "DB_PASSWORD = \"hunter2hunter2\"\n  \"api_key\": \"abcd1234efgh\",",
        "config.auth.token := abcdefgh12345678; export GITHUB_TOKEN='abcdefgh1234'",
        "env: DB_PASSWORD=abcdef123456 password =>  \"xyzzy1234567\"",
        "secret_key\t: abcdefgh12345678\n    password: hunter2hunter2\nSECRET = b\"abcdefgh1234\"",
        "PASSWORD\"  : \"abcdefgh99\" and the author would: fix it, token.len() = 12345678",
        "oauth_token=abcdefgh12345678 x-auth-key: 0123456789abcdef Bearer_Salt = 'q1w2e3r4t5y6'",
    ];
    let all = samples.join("\n");
    for text in samples.iter().copied().chain([all.as_str()]) {
        let sorted = |mut h: Vec<Hit>| {
            h.sort_by_key(|h| (h.start, h.end, h.kind));
            h
        };
        let found = sorted(rules::find(text));
        assert_eq!(found, sorted(rules::find_unfiltered(text)), "{text}");
    }
    assert!(!rules::find(&all).is_empty());
    let assigned = rules::find(&all)
        .iter()
        .filter(|h| ["password", "token", "secret", "api-key"].contains(&h.kind))
        .count();
    assert!(assigned >= 12, "{assigned} assignments found");
}

mod gate_property {
    use super::*;
    use proptest::prelude::*;

    /// Pieces of assignments and near misses: key words in any case, name
    /// characters, quotes, separators, blanks, values, non-ASCII letters.
    const PIECES: &[&str] = &[
        "password",
        "PASSWORD",
        "Pass",
        "pwd",
        "secret",
        "SECRET_",
        "token",
        "Token",
        "api_key",
        "key",
        "KEY",
        "auth",
        "Auth",
        "bearer",
        "salt",
        "credential",
        "cookie",
        "db_",
        "my.",
        "-x",
        "_",
        ".",
        "\"",
        "'",
        "`",
        " ",
        "\t",
        "  ",
        ":",
        "=",
        ":=",
        "=>",
        " : ",
        " = ",
        "hunter2hunter2",
        "abcd1234efgh5678",
        "q1w2e3r4t5y6",
        "x",
        "12345678",
        "(",
        ")",
        ",",
        ";",
        "{",
        "}",
        "[",
        "]",
        "\n",
        "é",
        "ſ",
        "K",
        "\u{00A0}",
        "b\"",
        "r'",
        "env:",
        "#",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn the_key_word_filter_finds_what_searching_every_line_finds(
            picks in proptest::collection::vec(0..PIECES.len(), 1..24)
        ) {
            let text: String = picks.iter().map(|&i| PIECES[i]).collect();
            let sorted = |mut h: Vec<Hit>| {
                h.sort_by_key(|h| (h.start, h.end, h.kind));
                h
            };
            prop_assert_eq!(sorted(rules::find(&text)), sorted(rules::find_unfiltered(&text)), "{:?}", text);
        }
    }
}
