//! Keeping secrets out of what crit sends and writes.
//!
//! A [`Redactor`] finds secrets in text — credentials of known shapes (API keys,
//! tokens, private keys, JWTs, passwords in URLs), values assigned to
//! secret-named keys (`DB_PASSWORD=…`, `"api_key": "…"`), and the exact values
//! of secrets it knows (the API key crit was started with, and every secret
//! found earlier in the same review) — and replaces each with
//! `[REDACTED:<kind>]`. The same redactor is applied before a model sees
//! anything (the diff, documents, conventions, tool results) and to every log,
//! transcript, cassette and output crit writes, so a secret in a reviewed file
//! is never sent and never stored, even when a model repeats it.
//!
//! Redaction hides secrets and nothing else: every detector stays within its
//! line (a private key within its own lines) and never crosses a file
//! boundary the caller names. Each hit is reported with its byte range, line
//! and detector, and says whether it covers more than a credential could
//! (code around it, several lines, more than any key is long), so a caller
//! can count what it hid from a reviewer.

mod keys;
mod known;
mod pem;
mod rules;

use std::borrow::Cow;
use std::sync::{Arc, RwLock};

pub use keys::is_secret_key;
pub use pem::MAX_KEY_BYTES;

use known::Known;

/// A one-line credential longer than this is not one: the longest tokens and
/// JWTs crit knows of stay well under it.
pub const MAX_SECRET_BYTES: usize = 8 * 1024;

/// One secret found and replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redaction {
    /// The detector that found it, which says what it looked like:
    /// `github-token`, `private-key`, `password`, `environment-secret`, …
    pub kind: &'static str,
    /// Byte range of the secret in the original text.
    pub start: usize,
    pub end: usize,
    /// 1-based line of `start` in the original text.
    pub line: u32,
    /// The span may hold more than a credential: several lines that are not
    /// one key, code punctuation, more bytes than any key, or a private key
    /// without its END line. What it hid may be code a reviewer needed to see.
    pub more_than_credential: bool,
}

/// Text with its secrets replaced, and what was replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redacted<'a> {
    pub text: Cow<'a, str>,
    pub found: Vec<Redaction>,
}

/// How [`Redactor::redact_with`] works on a text.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options<'b> {
    /// Byte offsets where a new file starts in the text (the `diff --git`
    /// line of each file of a patch, say): no redaction crosses one.
    pub file_starts: &'b [usize],
    /// Keep the text's lines: a secret that spans lines leaves its marker on
    /// each of them, so line numbers after it stay true.
    pub keep_lines: bool,
    /// Learn each secret found, so it is hidden wherever it appears later.
    pub learn: bool,
    /// Also hide pieces of the secrets this redactor knows (eight bytes or
    /// more that mix letters and digits): for text that may hold a secret
    /// cut into slices, such as a command's output.
    pub fragments: bool,
}

/// What a secret is replaced with: `[REDACTED:github-token]`.
pub fn marker(kind: &str) -> String {
    format!("[REDACTED:{kind}]")
}

/// One detector hit, before overlapping hits are merged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Hit {
    start: usize,
    end: usize,
    kind: &'static str,
    /// A private key that is not whole (no END line, or past
    /// [`MAX_KEY_BYTES`]): it may hide more than a key.
    suspect: bool,
}

impl Hit {
    fn new(start: usize, end: usize, kind: &'static str) -> Hit {
        Hit {
            start,
            end,
            kind,
            suspect: false,
        }
    }
}

/// [`Redactor::process`], set once.
static PROCESS: std::sync::OnceLock<Redactor> = std::sync::OnceLock::new();

/// The detectors, plus the exact secret values this redactor knows.
///
/// Clones share what they know: a value one clone learns (on any thread) is
/// hidden by all of them from then on. [`Redactor::detached`] makes a copy
/// that learns on its own.
#[derive(Clone, Default)]
pub struct Redactor {
    known: Arc<RwLock<Known>>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the values themselves.
        f.debug_struct("Redactor")
            .field("known", &self.known_count())
            .finish()
    }
}

impl Redactor {
    /// The built-in detectors only.
    pub fn new() -> Self {
        Redactor::default()
    }

    /// Also replace this exact value wherever it appears (a credential crit holds).
    pub fn with_secret(self, value: &str, kind: &'static str) -> Self {
        self.learn(value, kind);
        self
    }

    /// Replace this exact value wherever it appears from now on, in this
    /// redactor and every clone of it. False when the value is too short to
    /// tell from a word, or already known.
    pub fn learn(&self, value: &str, kind: &'static str) -> bool {
        self.known
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .add(value, kind)
    }

    /// How many exact values this redactor knows.
    pub fn known_count(&self) -> usize {
        self.known.read().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// A copy that knows what this one knows and learns on its own.
    pub fn detached(&self) -> Redactor {
        let copy = self.known.read().unwrap_or_else(|p| p.into_inner()).copy();
        Redactor {
            known: Arc::new(RwLock::new(copy)),
        }
    }

    /// The redactor for this process, for writers that have no configuration
    /// passed to them (session files, cassettes, outputs): the one the front
    /// end set with [`Redactor::init_process`] from the environment it read,
    /// else the built-in detectors alone.
    pub fn process() -> &'static Redactor {
        PROCESS.get_or_init(|| Redactor::from_env(std::iter::empty::<(&str, &str)>()))
    }

    /// Sets [`Redactor::process`]: the built-in detectors plus the values of
    /// the secret-named variables of `vars`, the environment the front end
    /// read at its edge. Only the first call (before any use) sets it; the
    /// answer says whether this one did.
    pub fn init_process<I, K, V>(vars: I) -> bool
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        PROCESS.set(Redactor::from_env(vars)).is_ok()
    }

    /// The built-in detectors plus the values of the environment's secret-named
    /// variables (`ANTHROPIC_API_KEY`, `GITHUB_TOKEN`, `DB_PASSWORD`, …).
    pub fn from_env<I, K, V>(vars: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let r = Redactor::new();
        for (k, v) in vars {
            if is_secret_key(k.as_ref()) {
                r.learn(v.as_ref(), "environment-secret");
            }
        }
        r
    }

    /// `text` with every secret replaced, and where each was.
    pub fn redact<'a>(&self, text: &'a str) -> Redacted<'a> {
        self.redact_with(text, Options::default())
    }

    /// [`Redactor::redact`], with file boundaries, lines kept, or learning.
    pub fn redact_with<'a>(&self, text: &'a str, options: Options<'_>) -> Redacted<'a> {
        let hits = self.hits(text, options.file_starts, options.fragments);
        if hits.is_empty() {
            return Redacted {
                text: Cow::Borrowed(text),
                found: Vec::new(),
            };
        }
        let found: Vec<Redaction> = located(text, &hits);
        if options.learn {
            for r in found.iter().filter(|r| !r.more_than_credential) {
                self.learn_span(&text[r.start..r.end], r.kind);
            }
        }
        Redacted {
            text: Cow::Owned(replace(text, &found, options.keep_lines)),
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

    /// A found secret, learned whole; a private key also line by line, so a
    /// few of its lines shown alone (a diff's hunk, a line range) are hidden.
    fn learn_span(&self, secret: &str, kind: &'static str) {
        let mut known = self.known.write().unwrap_or_else(|p| p.into_inner());
        known.add(secret, kind);
        if kind == "private-key" {
            let unescaped = secret.replace("\\r\\n", "\n").replace("\\n", "\n");
            for line in unescaped.lines() {
                let line = line.trim_start_matches(['+', '-', ' ']);
                let line = line.trim_matches(['"', '\'', ',', ' ', '\t', '\r']);
                if line.len() >= 16 && !line.starts_with("-----") {
                    known.add(line, kind);
                }
            }
        }
    }

    /// Sorted, non-overlapping hits, none across a file start.
    fn hits(&self, text: &str, file_starts: &[usize], fragments: bool) -> Vec<Hit> {
        let known = self.known.read().unwrap_or_else(|p| p.into_inner());
        let mut hits = Vec::new();
        let mut bounds: Vec<usize> = file_starts
            .iter()
            .copied()
            .filter(|&b| b > 0 && b < text.len() && text.is_char_boundary(b))
            .collect();
        bounds.sort_unstable();
        bounds.dedup();
        let mut from = 0;
        for to in bounds.into_iter().chain(std::iter::once(text.len())) {
            let part = &text[from..to];
            let mut part_hits = rules::find(part);
            pem::find(part, &mut part_hits);
            known.find(part, &mut part_hits);
            if fragments {
                known.find_fragments(part, &mut part_hits);
            }
            hits.extend(merge(part_hits).into_iter().map(|h| Hit {
                start: h.start + from,
                end: h.end + from,
                ..h
            }));
            from = to;
        }
        hits
    }
}

/// Each hit with its line and whether it holds more than a credential.
fn located(text: &str, hits: &[Hit]) -> Vec<Redaction> {
    let mut line = 1u32;
    let mut counted = 0;
    hits.iter()
        .map(|h| {
            line = line.saturating_add(count_newlines(&text[counted..h.start]));
            counted = h.start;
            Redaction {
                kind: h.kind,
                start: h.start,
                end: h.end,
                line,
                more_than_credential: beyond_credential(&text[h.start..h.end], h),
            }
        })
        .collect()
}

/// Whether a span holds more than a credential could (see [`Redaction`]).
fn beyond_credential(span: &str, hit: &Hit) -> bool {
    if hit.kind == "private-key" {
        return hit.suspect || span.len() > MAX_KEY_BYTES + 4096;
    }
    let punctuation = span
        .chars()
        .filter(|c| matches!(c, ';' | '(' | ')' | '{' | '}' | '<' | '>'))
        .count();
    span.contains('\n')
        || span.len() > MAX_SECRET_BYTES
        || punctuation >= 2
        || (punctuation == 1 && span.contains(char::is_whitespace))
}

/// `text` with each redaction replaced by its marker; with `keep_lines`, one
/// marker on each line the redaction spans.
fn replace(text: &str, found: &[Redaction], keep_lines: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for r in found {
        out.push_str(&text[copied..r.start]);
        let mark = marker(r.kind);
        if keep_lines {
            let breaks = text[r.start..r.end].matches('\n').count();
            out.push_str(&mark);
            for _ in 0..breaks {
                out.push('\n');
                out.push_str(&mark);
            }
        } else {
            out.push_str(&mark);
        }
        copied = r.end;
    }
    out.push_str(&text[copied..]);
    out
}

fn count_newlines(s: &str) -> u32 {
    u32::try_from(s.bytes().filter(|b| *b == b'\n').count()).unwrap_or(u32::MAX)
}

/// Sorted, non-overlapping hits; where two overlap, the one starting first
/// (then the longer) wins and the other is absorbed into it.
fn merge(mut hits: Vec<Hit>) -> Vec<Hit> {
    hits.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    let mut out: Vec<Hit> = Vec::with_capacity(hits.len());
    for h in hits {
        match out.last_mut() {
            Some(last) if h.start < last.end => {
                last.end = last.end.max(h.end);
                last.suspect |= h.suspect;
            }
            _ => out.push(h),
        }
    }
    out
}

#[cfg(test)]
mod tests;
