//! The detectors: credentials of known shapes, and values assigned to
//! secret-named keys. Precision matters as much as recall here: a false hit
//! hides code from the reviewer, so generic assignments need a value that
//! looks like a secret (long enough, not a placeholder, not a plain word).

use std::sync::{LazyLock, OnceLock};

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use regex::Regex;

use super::Hit;
use super::keys::is_secret_key;

/// (kind, pattern). A pattern's first capture group, when it has one, is the
/// secret; otherwise the whole match is. Every pattern stays within one line
/// and within what its credential can hold, so no match swallows code around
/// it. (Private keys, which span lines, are found by [`super::pem`].)
/// Word boundaries are ASCII (`(?-u:\b)`): tokens are ASCII, and a Unicode
/// boundary would keep the fast DFA off any text with non-ASCII in it.
/// Repetitions of the wide classes have no upper bound: `{8,256}` of a
/// Unicode class compiles to an automaton that cost every run ~20 ms, and a
/// longer secret is better hidden whole.
const SHAPES: &[(&str, &str)] = &[
    ("anthropic-key", r"(?-u:\b)sk-ant-[A-Za-z0-9_\-]{8,}"),
    (
        "openai-key",
        r"(?-u:\b)sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
    ),
    // A GitHub token glued to a word (`Bearer%20ghp_…`, `x=abcghp_…`) has
    // no boundary before it: there, only the token's exact length (36
    // characters after `gh?_`, 22 and 59 around the fine-grained one's `_`)
    // tells it from a word that happens to end in `ghs_`.
    (
        "github-token",
        r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})|gh[pousr]_[A-Za-z0-9]{36}(?-u:\b)|github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}(?-u:\b)",
    ),
    ("gitlab-token", r"(?-u:\b)glpat-[A-Za-z0-9_\-]{20,}"),
    ("slack-token", r"(?-u:\b)xox[abposr]-[A-Za-z0-9\-]{10,}"),
    (
        "slack-webhook",
        r"https://hooks\.slack\.com/services/[A-Za-z0-9/]{20,}",
    ),
    (
        "aws-access-key",
        r"(?-u:\b)(?:AKIA|ASIA)[0-9A-Z]{16}(?-u:\b)",
    ),
    ("google-api-key", r"(?-u:\b)AIza[0-9A-Za-z_\-]{35}"),
    (
        "stripe-key",
        r"(?-u:\b)(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}",
    ),
    ("npm-token", r"(?-u:\b)npm_[A-Za-z0-9]{36}(?-u:\b)"),
    (
        "jwt",
        r"(?-u:\b)eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
    ),
    // A URL's user and password hold no quote, space, bracket or `;`: in a
    // URL those are percent-encoded, and in code they end the string.
    (
        "url-password",
        r"(?-u:\b)[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[A-Za-z0-9\-._~%!$&*+=]+:([A-Za-z0-9\-._~%!$&*+=:]{3,})@",
    ),
    (
        "authorization-header",
        r"(?i)(?-u:\b)authorization:[ \t]*(?:bearer|basic|token)[ \t]+([A-Za-z0-9_\-.=+/]{12,})",
    ),
];

/// `NAME = value`, `NAME: value`, `"name": "value"`: a key, a separator, and a
/// quoted (Python's `b"…"` and `r"…"` too) or bare value. The key is judged by [`is_secret_key`], the value by
/// [`looks_secret`].
const ASSIGNMENT: &str = r#"(?m)(?P<key>[A-Za-z_][A-Za-z0-9_.\-]{1,63})["']?[ \t]*(?::|=|:=|=>)[ \t]*(?:[bBrRuU]{0,2}"(?P<dq>[^"\\\n]{6,})"|[bBrRuU]{0,2}'(?P<sq>[^'\\\n]{6,})'|(?P<bare>[^\s"'`,;()\[\]{}<>\\]{8,}))"#;

/// Literals one of which every match of the [`SHAPES`] pattern of the same
/// index holds (ASCII case aside): a shape's pattern is compiled and run
/// only on a text that holds one of them, which keeps most texts (code with
/// no credential in it) off the patterns, and the patterns' compilation off
/// most runs. Checked against the patterns in the tests.
const LITERALS: [&[&str]; SHAPES.len()] = [
    &["sk-ant-"],
    &["sk-"],
    &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    &["glpat-"],
    &["xox"],
    &["https://hooks.slack.com/services/"],
    &["AKIA", "ASIA"],
    &["AIza"],
    &["_live_", "_test_"],
    &["npm_"],
    &["eyJ"],
    &["://"],
    &["authorization:"],
];

struct Rules {
    /// Every literal of [`LITERALS`], ASCII case-insensitive; pattern `i`
    /// of it belongs to `shape_of[i]`.
    literals: AhoCorasick,
    shape_of: Vec<usize>,
    /// Each shape's pattern, compiled when a text first needs it.
    shapes: Vec<OnceLock<Option<Regex>>>,
    assignment: OnceLock<Option<Regex>>,
    /// Words one of which every secret name holds (see [`is_secret_key`]):
    /// only lines with one are searched for assignments, which keeps the
    /// costly search off most lines of code.
    key_words: AhoCorasick,
}

static RULES: LazyLock<Option<Rules>> = LazyLock::new(|| {
    let pairs: Vec<(usize, &str)> = LITERALS
        .iter()
        .enumerate()
        .flat_map(|(i, lits)| lits.iter().map(move |l| (i, *l)))
        .collect();
    Some(Rules {
        literals: AhoCorasick::builder()
            // A DFA of so few words costs more to build than it saves a run.
            .kind(Some(AhoCorasickKind::ContiguousNFA))
            .ascii_case_insensitive(true)
            .build(pairs.iter().map(|(_, l)| l))
            .ok()?,
        shape_of: pairs.iter().map(|(i, _)| *i).collect(),
        shapes: SHAPES.iter().map(|_| OnceLock::new()).collect(),
        assignment: OnceLock::new(),
        key_words: AhoCorasick::builder()
            .kind(Some(AhoCorasickKind::ContiguousNFA))
            .ascii_case_insensitive(true)
            .build(KEY_WORDS)
            .ok()?,
    })
});

/// The compiled pattern in `cell`; `None` (found nothing) were a constant
/// pattern ever invalid, which the tests rule out.
fn compiled<'r>(cell: &'r OnceLock<Option<Regex>>, pattern: &str) -> Option<&'r Regex> {
    let re = cell.get_or_init(|| Regex::new(pattern).ok()).as_ref();
    debug_assert!(re.is_some(), "a redaction pattern does not compile");
    re
}

/// Every hit in `text`, unordered, possibly overlapping.
pub(super) fn find(text: &str) -> Vec<Hit> {
    find_with(text, true)
}

/// [`find`], every shape's pattern run whatever the literals say: what the
/// prefilter must agree with.
#[cfg(test)]
pub(super) fn find_unfiltered(text: &str) -> Vec<Hit> {
    find_with(text, false)
}

fn find_with(text: &str, prefilter: bool) -> Vec<Hit> {
    // The patterns are constants covered by tests; were one ever invalid,
    // nothing could be matched, so fail loudly in debug and find nothing.
    let Some(rules) = RULES.as_ref() else {
        debug_assert!(false, "a redaction pattern does not compile");
        return Vec::new();
    };
    let mut wanted = [!prefilter; SHAPES.len()];
    for m in rules.literals.find_overlapping_iter(text) {
        wanted[rules.shape_of[m.pattern().as_usize()]] = true;
    }
    let mut hits = Vec::new();
    for (i, (kind, pattern)) in SHAPES.iter().enumerate() {
        let Some(re) = wanted[i]
            .then(|| compiled(&rules.shapes[i], pattern))
            .flatten()
        else {
            continue;
        };
        for caps in re.captures_iter(text) {
            if let Some(m) = caps.get(1).or_else(|| caps.get(0)) {
                hits.push(Hit::new(m.start(), m.end(), kind));
            }
        }
    }
    let mut line_end = 0;
    for m in rules.key_words.find_iter(text) {
        if m.start() < line_end || (prefilter && !ends_a_key(&text[m.end()..])) {
            continue;
        }
        let Some(assignment) = compiled(&rules.assignment, ASSIGNMENT) else {
            break;
        };
        let start = text[..m.start()].rfind('\n').map_or(0, |i| i + 1);
        line_end = text[m.end()..]
            .find('\n')
            .map_or(text.len(), |i| m.end() + i);
        let before = hits.len();
        find_assignments(assignment, &text[start..line_end], &mut hits);
        for h in &mut hits[before..] {
            h.start += start;
            h.end += start;
        }
    }
    hits
}

/// Whether the key word just before `rest` can be part of an assigned key:
/// what follows it is the rest of a name, an optional quote, blanks and a
/// separator, as [`ASSIGNMENT`] reads them. Prose (`the author would`) and
/// code that only mentions a key (`token.len()`) are not searched.
fn ends_a_key(rest: &str) -> bool {
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || "_.-".contains(c));
    let rest = rest.strip_prefix(['"', '\'']).unwrap_or(rest);
    rest.trim_start_matches([' ', '\t']).starts_with([':', '='])
}

/// See [`Rules::key_words`].
pub(super) const KEY_WORDS: &[&str] = &[
    "pass",
    "pwd",
    "secret",
    "token",
    "credential",
    "key",
    "cookie",
    "auth",
    "bearer",
    "salt",
];

/// Assignments to secret-named keys. A match whose key is not secret is not
/// skipped whole: its value may hold an assignment of its own
/// (`env: DB_PASSWORD=…`), so the search goes on right after its key.
fn find_assignments(re: &Regex, text: &str, hits: &mut Vec<Hit>) {
    let mut at = 0;
    while at < text.len() {
        let Some(caps) = re.captures_at(text, at) else {
            break;
        };
        let (Some(key), Some(value)) = (
            caps.name("key"),
            caps.name("dq")
                .or_else(|| caps.name("sq"))
                .or_else(|| caps.name("bare")),
        ) else {
            break;
        };
        if is_secret_key(key.as_str()) && looks_secret(value.as_str()) {
            hits.push(Hit::new(value.start(), value.end(), kind_of(key.as_str())));
            at = value.end();
        } else {
            at = key.end();
        }
    }
}

/// The kind a secret-named key gives its value.
fn kind_of(key: &str) -> &'static str {
    let k = key.to_ascii_lowercase();
    if k.contains("pass") || k.contains("pwd") {
        "password"
    } else if k.contains("token") {
        "token"
    } else if k.contains("secret") {
        "secret"
    } else if k.contains("key") {
        "api-key"
    } else {
        "secret"
    }
}

/// Whether a value assigned to a secret-named key is a real secret rather than
/// code, a placeholder, a number or a type: not a reference to somewhere else
/// (`${X}`, `process.env.X`, `os.environ[…]`), and with the character mix of a
/// credential (a digit or a symbol, or a long mixed-case run).
fn looks_secret(value: &str) -> bool {
    let v = value.trim();
    if v.len() < 6 {
        return false;
    }
    let lower = v.to_ascii_lowercase();
    const PLACEHOLDERS: &[&str] = &[
        "${",
        "{{",
        "<",
        "%(",
        "$(",
        "process.env",
        "os.environ",
        "getenv",
        "env(",
        "env.",
        "secrets.",
        "vault:",
        "xxxx",
        "****",
        "changeme",
        "change_me",
        "change-me",
        "tobemodified",
        "replace_me",
        "replace-me",
        "openssl rand",
        "redacted",
        "example",
        "placeholder",
        "your_",
        "your-",
        "dummy",
        "undefined",
        "optional",
        "required",
    ];
    if PLACEHOLDERS.iter().any(|p| lower.contains(p)) || v.starts_with('$') {
        return false;
    }
    if v.chars()
        .all(|c| c.is_ascii_digit() || c == '.' || c == '-')
    {
        return false; // a number, a version, a date
    }
    let first = v.chars().next();
    if v.chars().all(|c| Some(c) == first) {
        return false; // a mask: `********`
    }
    let has_digit = v.chars().any(|c| c.is_ascii_digit());
    let has_symbol = v
        .chars()
        .any(|c| !c.is_ascii_alphanumeric() && !matches!(c, '_' | '.' | '-' | '/' | ':'));
    let mixed_case =
        v.chars().any(|c| c.is_ascii_lowercase()) && v.chars().any(|c| c.is_ascii_uppercase());
    // A dotted or slashed identifier is code or a path (`settings.API_KEY`).
    let path_like = v.contains('.') || v.contains('/') || v.contains("::");
    if path_like && !has_digit && !has_symbol {
        return false;
    }
    has_digit || has_symbol || (mixed_case && v.len() >= 16)
}
