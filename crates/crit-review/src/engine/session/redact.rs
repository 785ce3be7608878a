//! Keeping secrets out of session logs: values under secret-looking keys, and
//! anything shaped like a known credential wherever it appears.

use crit_core::redact::Redactor;
pub use crit_core::redact::is_secret_key;
use serde_json::Value;

/// What a value under a secret-named key is replaced with.
pub const REDACTED: &str = "[REDACTED:secret]";

/// Replace, in place, the values of secret-looking keys (at any depth, inside
/// objects and arrays) with `"[REDACTED:secret]"`; the value part of strings
/// such as `GITHUB_TOKEN=…` or `--api-key=…` (env lists, argument vectors);
/// and every secret crit's redactor finds in any other string.
pub fn redact(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if is_secret_key(key) && !v.is_null() {
                    *v = Value::String(REDACTED.to_string());
                } else {
                    redact(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact),
        Value::String(s) => {
            // Only a whole `NAME=value` word: a prompt mentioning `token=` keeps its text.
            if let Some((name, _)) = s.split_once('=')
                && !s.contains(char::is_whitespace)
                && is_secret_key(name.trim_start_matches('-'))
            {
                *s = format!("{name}={REDACTED}");
            } else {
                redact_credentials(value);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Only the secrets crit's redactor finds in every string, at any depth; keys
/// are left alone (for documents whose keys are crit's own, such as a result).
pub fn redact_credentials(value: &mut Value) {
    Redactor::process().redact_json(value);
}

/// `text` with every secret crit's redactor finds replaced by `[REDACTED:<kind>]`.
pub fn redact_text(text: &str) -> String {
    Redactor::process().redact_str(text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secret_keys() {
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
            "Cookie",
            "credentials",
            "bearer",
            "apikey",
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
        ] {
            assert!(!is_secret_key(k), "{k}");
        }
    }

    #[test]
    fn nested_values_and_known_formats() {
        let mut v = json!({
            "model": "sonnet",
            "max_tokens": 4096,
            "mcp_servers": {"gh": {"env": {"GITHUB_TOKEN": "abc", "PATH": "/bin"}}},
            "headers": [{"Authorization": "Bearer x"}],
            "note": "use sk-ant-api03-AAAAAAAAAAAA please",
            "list": ["ghp_0123456789abcdefghijABCD", "AKIAABCDEFGHIJKLMNOP", "sk-short"],
            "unset_token": null,
            "args": ["--api-key=abc", "GITHUB_TOKEN=def", "MODE=fast", "a=b=c", "set token=x here"],
        });
        redact(&mut v);
        assert_eq!(
            v,
            json!({
                "model": "sonnet",
                "max_tokens": 4096,
                "mcp_servers": {"gh": {"env": {"GITHUB_TOKEN": "[REDACTED:secret]", "PATH": "/bin"}}},
                "headers": [{"Authorization": "[REDACTED:secret]"}],
                "note": "use [REDACTED:anthropic-key] please",
                "list": ["[REDACTED:github-token]", "[REDACTED:aws-access-key]", "sk-short"],
                "unset_token": null,
                "args": ["--api-key=[REDACTED:secret]", "GITHUB_TOKEN=[REDACTED:secret]", "MODE=fast", "a=b=c", "set token=x here"],
            })
        );
    }

    #[test]
    fn text_redaction_keeps_everything_else() {
        assert_eq!(
            redact_text("é sk-abcdefghijklmnopqrstu."),
            "é [REDACTED:openai-key]."
        );
        assert_eq!(
            redact_text("xoxb-123456789012 and xoxp-1"),
            "[REDACTED:slack-token] and xoxp-1"
        );
        assert_eq!(redact_text("AKIAlowercase0000000"), "AKIAlowercase0000000");
        assert_eq!(redact_text(""), "");
    }
}
