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
fn known_values_from_the_environment() {
    let r = Redactor::from_env([
        ("ANTHROPIC_API_KEY", "plain-looking-key-value"),
        ("HOME", "/home/someone-long"),
        ("MY_SERVICE_PASSWORD", "short"),
    ]);
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
