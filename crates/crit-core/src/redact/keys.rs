//! Which names (of variables, keys, headers) hold secrets.
//!
//! A name is judged by its words (`DB_PASSWORD`, `apiKey`, `x-api-key` are
//! split at `_`, `-`, `.`, spaces and camelCase humps), never by a fragment of
//! one (`tokenizer`, `bypass`, `OLDPWD` hold no secret word). What a name
//! holds is said by its last word: `PASSWORD_HASHER` holds a hasher and
//! `COOKIE_DOMAIN` a domain, so a well-known non-secret last word wins over a
//! secret word before it.

/// Words, or runs of words joined, that make a name secret wherever they
/// stand in it: `GITHUB_TOKEN`, `client_secret`, `SECRET_KEY_BASE`.
pub(super) const SECRET_WORDS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "credential",
    "credentials",
    "apikey",
    "xapikey",
    "apitoken",
    "apisecret",
    "accesskey",
    "accesstoken",
    "authtoken",
    "refreshtoken",
    "secretkey",
    "privatekey",
    "clientsecret",
];

/// Words that hold a secret only as the name's last word: `DB_PASS`,
/// `MYSQL_PWD`, a `Cookie` or `Authorization` header, npm's `_auth`; but
/// `PASS_THROUGH`, `COOKIE_NAME` and `AUTH_BACKEND` do not.
pub(super) const LAST_WORDS: &[&str] = &[
    "pass",
    "pwd",
    "cookie",
    "authorization",
    "bearer",
    "auth",
    "salt",
];

/// `KEY` (or `KEYS`) names a secret only right after one of these: `APP_KEY`,
/// `SIGNING_KEY`, `client-key-data`; not `PRIMARY_KEY`, `PUBLIC_KEY`,
/// `CACHE_KEY` (unless the name is about encryption, where every key is one).
const KEY_QUALIFIERS: &[&str] = &[
    "api",
    "access",
    "secret",
    "private",
    "signing",
    "sign",
    "encryption",
    "encrypt",
    "crypt",
    "master",
    "app",
    "auth",
    "hmac",
    "jwt",
    "license",
    "licence",
    "account",
    "storage",
    "subscription",
    "session",
    "shared",
    "client",
    "consumer",
    "server",
    "service",
    "webhook",
    "deterministic",
    "role",
];

/// Words that make every key in the name a secret one.
const ENCRYPTION_WORDS: &[&str] = &["encryption", "encrypt", "crypto", "cipher"];

/// Last words that say the value is not the secret but something about it:
/// where it lives, how it is made, how long it lasts, what it is called.
const NOT_SECRET_LAST_WORDS: &[&str] = &[
    "dir",
    "dirs",
    "directory",
    "directories",
    "path",
    "paths",
    "file",
    "files",
    "filename",
    "filepath",
    "domain",
    "hasher",
    "hashers",
    "algorithm",
    "algorithms",
    "alg",
    "length",
    "len",
    "timeout",
    "url",
    "urls",
    "uri",
    "endpoint",
    "host",
    "hostname",
    "port",
    "name",
    "names",
    "type",
    "types",
    "expiry",
    "expires",
    "expiration",
    "ttl",
    "lifetime",
    "age",
    "validators",
    "validator",
    "backend",
    "backends",
    "class",
    "strategy",
    "provider",
    "header",
    "prefix",
    "format",
    "version",
    "count",
    "size",
    "limit",
    "enabled",
    "disabled",
    "enable",
    "required",
    "policy",
    "mode",
    "level",
    "scope",
    "scopes",
    "method",
    "methods",
    "secure",
    "httponly",
    "samesite",
    "location",
    "ref",
    "arn",
    "field",
    "label",
    "hint",
    "placeholder",
    "template",
    "view",
    "form",
    "regex",
    "pattern",
    "param",
    "parameter",
    "env",
    "var",
    "variable",
    "rotation",
    "sock",
    "socket",
    "in",
    "seconds",
    "secs",
    "ms",
    "millis",
    "minutes",
    "mins",
    "hours",
    "days",
];

/// Whole names that are well known not to hold a secret: the shell's working
/// directories, and variables whose value is a path to a credentials file.
const NOT_SECRET_NAMES: &[&str] = &["pwd", "oldpwd", "googleapplicationcredentials"];

/// First words that make a name refer to a secret kept elsewhere (Helm's
/// `existingSecret`: the name of a Kubernetes Secret).
const NOT_SECRET_FIRST_WORDS: &[&str] = &["existing"];

/// Whether a key names a secret.
pub fn is_secret_key(key: &str) -> bool {
    let words = key_words(key);
    let Some(last) = words.last() else {
        return false;
    };
    if NOT_SECRET_NAMES.contains(&words.concat().as_str())
        || NOT_SECRET_LAST_WORDS.contains(&last.as_str())
        || NOT_SECRET_FIRST_WORDS.contains(&words[0].as_str())
    {
        return false;
    }
    let any_run_is_secret = (0..words.len()).any(|start| {
        let mut joined = String::new();
        words[start..].iter().any(|w| {
            joined.push_str(w);
            SECRET_WORDS.contains(&joined.as_str())
        })
    });
    let about_encryption = words.iter().any(|w| ENCRYPTION_WORDS.contains(&w.as_str()));
    let qualified_key = words.windows(2).any(|pair| {
        matches!(pair[1].as_str(), "key" | "keys")
            && (about_encryption || KEY_QUALIFIERS.contains(&pair[0].as_str()))
    });
    any_run_is_secret || qualified_key || LAST_WORDS.contains(&last.as_str())
}

/// Lower-case words of a key, split at `_`, `-`, `.`, spaces and camelCase
/// humps (`APIKey` is `api`, `key`).
fn key_words(key: &str) -> Vec<String> {
    let chars: Vec<char> = key.chars().collect();
    let mut words = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            words.extend((!current.is_empty()).then(|| std::mem::take(&mut current)));
            continue;
        }
        let prev = i.checked_sub(1).and_then(|p| chars.get(p));
        let next = chars.get(i + 1);
        let hump = c.is_uppercase()
            && prev.is_some_and(|p| {
                p.is_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_uppercase() && next.is_some_and(|n| n.is_lowercase()))
            });
        if hump && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        current.extend(c.to_lowercase());
    }
    words.extend((!current.is_empty()).then_some(current));
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_of_keys() {
        assert_eq!(key_words("APIKey"), ["api", "key"]);
        assert_eq!(key_words("x-api-key"), ["x", "api", "key"]);
        assert_eq!(key_words("clientSecret"), ["client", "secret"]);
        assert_eq!(key_words("DB_PASSWORD"), ["db", "password"]);
        assert_eq!(key_words("HTTPServer"), ["http", "server"]);
        assert_eq!(
            key_words("spring.datasource.password"),
            ["spring", "datasource", "password"]
        );
    }
}
