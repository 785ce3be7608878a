//! Keeping secrets out of session logs: values under secret-looking keys, and
//! anything shaped like a known credential wherever it appears.

use serde_json::Value;

/// What a removed secret is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Key names (lower-case, without `_`/`-`) whose values are secrets. A key is
/// secret when a run of its words spells one of these: `GITHUB_TOKEN`, `apiKey`,
/// `x-api-key`, `client_secret` are; `max_tokens` and `tokenizer` are not.
const SECRET_WORDS: [&str; 11] = [
    "apikey",
    "xapikey",
    "token",
    "secret",
    "password",
    "passwd",
    "authorization",
    "bearer",
    "cookie",
    "credentials",
    "privatekey",
];

/// Replace, in place, the values of secret-looking keys (at any depth, inside
/// objects and arrays) with `"[redacted]"`; the value part of strings such as
/// `GITHUB_TOKEN=…` or `--api-key=…` (env lists, argument vectors); and every
/// credential-shaped token in any other string (see [`redact_text`]).
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
                && is_secret_key(name)
            {
                *s = format!("{name}={REDACTED}");
            } else if let Some(clean) = redact_known_formats(s) {
                *s = clean;
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Only the credential-shaped tokens of every string, at any depth; keys are
/// left alone (for documents whose keys are crit's own, such as a result).
pub fn redact_credentials(value: &mut Value) {
    match value {
        Value::String(s) => {
            if let Some(clean) = redact_known_formats(s) {
                *s = clean;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact_credentials),
        Value::Object(map) => map.values_mut().for_each(redact_credentials),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// `text` with every token shaped like a known credential replaced by
/// `[redacted]`: Anthropic `sk-ant-…`, OpenAI-style `sk-…` (20 characters or
/// more), GitHub `ghp_…`, Slack `xoxb-`/`xoxp-…`, AWS `AKIA…` access key ids.
pub fn redact_text(text: &str) -> String {
    redact_known_formats(text).unwrap_or_else(|| text.to_string())
}

/// Whether a JSON key names a secret.
pub fn is_secret_key(key: &str) -> bool {
    let words = key_words(key);
    (0..words.len()).any(|start| {
        let mut joined = String::new();
        words[start..].iter().any(|w| {
            joined.push_str(w);
            SECRET_WORDS.contains(&joined.as_str())
        })
    })
}

/// Lower-case words of a key, split at `_`, `-`, `.`, spaces and camelCase humps.
fn key_words(key: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in key.chars() {
        if !c.is_alphanumeric() {
            words.extend((!current.is_empty()).then(|| std::mem::take(&mut current)));
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower {
            words.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    words.extend((!current.is_empty()).then_some(current));
    words
}

/// `None` when nothing in `text` looks like a credential (the common case, so no
/// copy is made).
fn redact_known_formats(text: &str) -> Option<String> {
    let mut out: Option<String> = None;
    let mut copied_to = 0;
    let mut start = None;
    // A sentinel space ends a token running to the end of the text.
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        let token_char = c.is_ascii_alphanumeric() || c == '_' || c == '-';
        match (token_char, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                start = None;
                if looks_like_credential(&text[s..i]) {
                    let o = out.get_or_insert_with(String::new);
                    o.push_str(&text[copied_to..s]);
                    o.push_str(REDACTED);
                    copied_to = i;
                }
            }
            _ => {}
        }
    }
    out.map(|mut o| {
        o.push_str(&text[copied_to..]);
        o
    })
}

fn looks_like_credential(token: &str) -> bool {
    let rest_len = |prefix: &str| token.strip_prefix(prefix).map(str::len);
    if let Some(n) = rest_len("sk-ant-") {
        return n >= 8;
    }
    if token.starts_with("sk-") {
        return token.len() >= 20;
    }
    if let Some(n) = rest_len("ghp_").or_else(|| rest_len("github_pat_")) {
        return n >= 20;
    }
    if let Some(n) = rest_len("xoxb-").or_else(|| rest_len("xoxp-")) {
        return n >= 10;
    }
    if let Some(rest) = token.strip_prefix("AKIA") {
        return rest.len() == 16
            && rest
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
    }
    false
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
                "mcp_servers": {"gh": {"env": {"GITHUB_TOKEN": "[redacted]", "PATH": "/bin"}}},
                "headers": [{"Authorization": "[redacted]"}],
                "note": "use [redacted] please",
                "list": ["[redacted]", "[redacted]", "sk-short"],
                "unset_token": null,
                "args": ["--api-key=[redacted]", "GITHUB_TOKEN=[redacted]", "MODE=fast", "a=b=c", "set token=x here"],
            })
        );
    }

    #[test]
    fn text_redaction_keeps_everything_else() {
        assert_eq!(redact_text("é sk-abcdefghijklmnopqrstu."), "é [redacted].");
        assert_eq!(
            redact_text("xoxb-123456789012 and xoxp-1"),
            "[redacted] and xoxp-1"
        );
        assert_eq!(redact_text("AKIAlowercase0000000"), "AKIAlowercase0000000");
        assert_eq!(redact_text(""), "");
    }
}
