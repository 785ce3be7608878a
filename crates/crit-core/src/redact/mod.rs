//! Keeping secrets out of what crit sends and writes.
//!
//! A [`Redactor`] finds secrets in text — credentials of known shapes (API keys,
//! tokens, private keys, JWTs, passwords in URLs), values assigned to
//! secret-named keys (`DB_PASSWORD=…`, `"api_key": "…"`), and the exact values
//! of secrets crit itself holds (the API key it was started with) — and
//! replaces each with `[REDACTED:<kind>]`. The same redactor is applied before
//! a model sees anything (the diff, documents, conventions, tool results) and
//! to every log, transcript, cassette and output crit writes, so a secret in a
//! reviewed file is never sent and never stored.
//!
//! Each hit is reported with its byte range and line, so callers can turn it
//! into an `info` finding at its location.

mod keys;
mod rules;

use std::borrow::Cow;

pub use keys::is_secret_key;

/// One secret found and replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redaction {
    /// What it looked like: `github-token`, `private-key`, `password`, …
    pub kind: &'static str,
    /// Byte range of the secret in the original text.
    pub start: usize,
    pub end: usize,
    /// 1-based line of `start` in the original text.
    pub line: u32,
}

/// Text with its secrets replaced, and what was replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redacted<'a> {
    pub text: Cow<'a, str>,
    pub found: Vec<Redaction>,
}

/// What a secret is replaced with: `[REDACTED:github-token]`.
pub fn marker(kind: &str) -> String {
    format!("[REDACTED:{kind}]")
}

/// The detectors, plus exact secret values the caller knows about.
#[derive(Clone, Default)]
pub struct Redactor {
    /// (value, kind) — longest first, so a value containing another wins.
    known: Vec<(String, &'static str)>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the values themselves.
        f.debug_struct("Redactor")
            .field("known", &self.known.len())
            .finish()
    }
}

/// Shorter values are not treated as secrets: they would match ordinary words.
const MIN_KNOWN_LEN: usize = 8;

impl Redactor {
    /// The built-in detectors only.
    pub fn new() -> Self {
        Redactor::default()
    }

    /// Also replace this exact value wherever it appears (a credential crit holds).
    pub fn with_secret(mut self, value: &str, kind: &'static str) -> Self {
        let value = value.trim();
        if value.len() >= MIN_KNOWN_LEN && !self.known.iter().any(|(v, _)| v == value) {
            self.known.push((value.to_string(), kind));
            self.known.sort_by_key(|(v, _)| std::cmp::Reverse(v.len()));
        }
        self
    }

    /// The redactor for this process: built-in detectors plus this process's
    /// secret-named environment variables, read once. For writers that have no
    /// configuration passed to them (session files, cassettes, outputs).
    pub fn process() -> &'static Redactor {
        static PROCESS: std::sync::LazyLock<Redactor> =
            std::sync::LazyLock::new(|| Redactor::from_env(std::env::vars()));
        &PROCESS
    }

    /// The built-in detectors plus the values of the environment's secret-named
    /// variables (`ANTHROPIC_API_KEY`, `GITHUB_TOKEN`, `DB_PASSWORD`, …).
    pub fn from_env<I, K, V>(vars: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        vars.into_iter().fold(Redactor::new(), |r, (k, v)| {
            if is_secret_key(k.as_ref()) {
                r.with_secret(v.as_ref(), "environment-secret")
            } else {
                r
            }
        })
    }

    /// `text` with every secret replaced, and where each was.
    pub fn redact<'a>(&self, text: &'a str) -> Redacted<'a> {
        let mut hits = rules::find(text);
        for (value, kind) in &self.known {
            let mut from = 0;
            while let Some(at) = text[from..].find(value.as_str()) {
                let start = from + at;
                hits.push((start, start + value.len(), *kind));
                from = start + value.len();
            }
        }
        if hits.is_empty() {
            return Redacted {
                text: Cow::Borrowed(text),
                found: Vec::new(),
            };
        }
        let hits = merge(hits);
        let mut out = String::with_capacity(text.len());
        let mut found = Vec::with_capacity(hits.len());
        let mut copied = 0;
        let mut line = 1u32;
        let mut counted = 0;
        for (start, end, kind) in hits {
            line += count_newlines(&text[counted..start]);
            counted = start;
            out.push_str(&text[copied..start]);
            out.push_str(&marker(kind));
            copied = end;
            found.push(Redaction {
                kind,
                start,
                end,
                line,
            });
        }
        out.push_str(&text[copied..]);
        Redacted {
            text: Cow::Owned(out),
            found,
        }
    }

    /// Just the redacted text.
    pub fn redact_str<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.redact(text).text
    }

    /// Every string in a JSON value, redacted in place; returns how many
    /// secrets were replaced. Keys are left alone (they are crit's own).
    pub fn redact_json(&self, value: &mut serde_json::Value) -> usize {
        use serde_json::Value;
        match value {
            Value::String(s) => {
                let r = self.redact(s);
                let n = r.found.len();
                if let Cow::Owned(clean) = r.text {
                    *s = clean;
                }
                n
            }
            Value::Array(items) => items.iter_mut().map(|v| self.redact_json(v)).sum(),
            Value::Object(map) => map.values_mut().map(|v| self.redact_json(v)).sum(),
            Value::Null | Value::Bool(_) | Value::Number(_) => 0,
        }
    }
}

fn count_newlines(s: &str) -> u32 {
    u32::try_from(s.bytes().filter(|b| *b == b'\n').count()).unwrap_or(u32::MAX)
}

/// Sorted, non-overlapping hits; where two overlap, the one starting first
/// (then the longer) wins and the other is absorbed into it.
fn merge(mut hits: Vec<(usize, usize, &'static str)>) -> Vec<(usize, usize, &'static str)> {
    hits.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let mut out: Vec<(usize, usize, &'static str)> = Vec::with_capacity(hits.len());
    for h in hits {
        match out.last_mut() {
            Some(last) if h.0 < last.1 => last.1 = last.1.max(h.1),
            _ => out.push(h),
        }
    }
    out
}

#[cfg(test)]
mod tests;
