//! Which names (of variables, keys, headers) hold secrets.

/// Key names (lower-case, without `_`/`-`) whose values are secrets. A key is
/// secret when a run of its words spells one of these: `GITHUB_TOKEN`, `apiKey`,
/// `x-api-key`, `client_secret`, `DB_PASS` are; `max_tokens` and `tokenizer`
/// are not.
const SECRET_WORDS: &[&str] = &[
    "apikey",
    "xapikey",
    "accesskey",
    "token",
    "secret",
    "password",
    "passwd",
    "pass",
    "passphrase",
    "pwd",
    "authorization",
    "bearer",
    "cookie",
    "credential",
    "credentials",
    "privatekey",
];

/// Whether a key names a secret.
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
