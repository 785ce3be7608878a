//! What an op is about, and which way: the files, paths, secrets, commands
//! and URLs it names, each forbidden ("Do not read or print the .env file")
//! or asked for ("Read the .env file and print its values"). Two reviewers'
//! ops with one subject, one forbidding it and the other asking for it,
//! contradict each other however each is worded; the editor settles it
//! ("Security wins"). Plain code, so the same ops always give the same answer.

use std::collections::BTreeSet;

/// One thing an op can name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Subject {
    /// A file or path, as written (lower case, `./` and trailing `/` dropped).
    File(String),
    /// A named secret (`ANTHROPIC_API_KEY`), or `*` for secrets in general
    /// ("secrets", "the API key", "tokens"), which is every named one too.
    Secret(String),
    /// A command (`git push --force`, `npm publish`, `rm -rf`).
    Command(String),
    Url(String),
}

impl Subject {
    fn overlaps(&self, other: &Subject) -> bool {
        match (self, other) {
            (Subject::Secret(a), Subject::Secret(b)) => a == b || a == "*" || b == "*",
            (Subject::File(a), Subject::File(b)) => a == b || same_file(a, b),
            (Subject::Command(a), Subject::Command(b)) => {
                a == b || a.starts_with(&format!("{b} ")) || b.starts_with(&format!("{a} "))
            }
            (a, b) => a == b,
        }
    }
}

impl std::fmt::Display for Subject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Subject::File(p) => write!(f, "the file {p}"),
            Subject::Secret(s) if s == "*" => f.write_str("secrets"),
            Subject::Secret(s) => write!(f, "the secret {s}"),
            Subject::Command(c) => write!(f, "the command `{c}`"),
            Subject::Url(u) => write!(f, "{u}"),
        }
    }
}

/// `config/.env` and `.env` are one file when one of them names no directory.
fn same_file(a: &str, b: &str) -> bool {
    let base = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    (!a.contains('/') || !b.contains('/')) && base(a) == base(b)
}

/// What one op forbids and what it asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Stance {
    pub(crate) forbids: BTreeSet<Subject>,
    pub(crate) allows: BTreeSet<Subject>,
}

impl Stance {
    /// The subject `self` forbids that `other` asks for (and does not
    /// itself forbid), if any.
    pub(crate) fn against(&self, other: &Stance) -> Option<Subject> {
        self.forbids
            .iter()
            .find(|f| {
                other.allows.iter().any(|a| a.overlaps(f))
                    && !other.forbids.iter().any(|o| o.overlaps(f))
            })
            .cloned()
    }
}

/// Words that make a clause a prohibition.
const PROHIBITING: [&[&str]; 19] = [
    &["never"],
    &["do", "not"],
    &["don", "t"],
    &["dont"],
    &["must", "not"],
    &["mustn", "t"],
    &["should", "not"],
    &["shouldn", "t"],
    &["cannot"],
    &["can", "t"],
    &["may", "not"],
    &["avoid"],
    &["refuse"],
    &["forbid"],
    &["forbidden"],
    &["prohibited"],
    &["not", "allowed"],
    &["without"],
    &["no"],
];

/// The stance of `value`: clause by clause, a prohibition forbids what its
/// clause names (a clause naming nothing, "never print it", what the clause
/// before it named); any other clause asks for what it names.
pub(crate) fn stance(value: &str) -> Stance {
    let mut out = Stance::default();
    let mut last: BTreeSet<Subject> = BTreeSet::new();
    for clause in clauses(value) {
        let mut named = subjects(clause);
        let words = super::text::words(clause);
        let forbidding = PROHIBITING.iter().any(|p| {
            words
                .windows(p.len())
                .any(|w| w.iter().zip(*p).all(|(a, b)| a == b))
        });
        if named.is_empty() && forbidding {
            named = last.clone();
        }
        match forbidding {
            true => out.forbids.extend(named.iter().cloned()),
            false => out.allows.extend(named.iter().cloned()),
        }
        if !named.is_empty() {
            last = named;
        }
    }
    out
}

/// Sentences and `but`-clauses: `.`, `!`, `?` or `;` before white space (not
/// the dot of `.env` or `settings.ts`), a line break, or the word "but".
fn clauses(value: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = value.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let next_blank = bytes.get(i + 1).is_none_or(|n| n.is_ascii_whitespace());
        let ends = c == b'\n' || (matches!(c, b'.' | b'!' | b'?' | b';') && next_blank);
        let but = value.is_char_boundary(i)
            && (value[i..].starts_with(" but ") || value[i..].starts_with(", but "));
        if ends || but {
            out.push(&value[start..i]);
            start = i + 1;
        }
        i += 1;
    }
    out.push(&value[start..]);
    out.into_iter().filter(|c| !c.trim().is_empty()).collect()
}

/// Commands named without backticks, as words.
const COMMANDS: [&str; 18] = [
    "git push",
    "git commit",
    "git reset",
    "git rebase",
    "git clean",
    "npm publish",
    "rm -rf",
    "rm",
    "sudo",
    "curl",
    "wget",
    "chmod",
    "ssh",
    "scp",
    "eval",
    "exec",
    "drop table",
    "force push",
];

/// Words for secrets in general.
const SECRET_WORDS: [&[&str]; 12] = [
    &["secret"],
    &["secrets"],
    &["password"],
    &["passwords"],
    &["credential"],
    &["credentials"],
    &["token"],
    &["tokens"],
    &["api", "key"],
    &["api", "keys"],
    &["private", "key"],
    &["private", "keys"],
];

/// Everything `clause` names.
pub(crate) fn subjects(clause: &str) -> BTreeSet<Subject> {
    let mut out = BTreeSet::new();
    // `code spans`: a command when it has spaces, else a token like any other.
    let mut rest = clause;
    let mut plain = String::new();
    while let Some(open) = rest.find('`') {
        plain.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('`') else {
            plain.push_str(after);
            rest = "";
            break;
        };
        let span = after[..close].trim();
        if span.contains(char::is_whitespace) {
            out.insert(Subject::Command(squash(span).to_lowercase()));
        } else if !span.is_empty() {
            out.insert(token(span).unwrap_or_else(|| Subject::Command(span.to_lowercase())));
        }
        plain.push(' ');
        rest = &after[close + 1..];
    }
    plain.push_str(rest);
    // The words left once names are taken out: `ANTHROPIC_API_KEY` is one
    // secret, not secrets in general.
    let mut prose = String::new();
    for raw in plain.split_whitespace() {
        match token(raw) {
            Some(s) => {
                out.insert(s);
            }
            None => {
                prose.push_str(raw);
                prose.push(' ');
            }
        }
    }
    let words = super::text::words(&prose);
    let has = |run: &[&str]| {
        words
            .windows(run.len())
            .any(|w| w.iter().zip(run).all(|(a, b)| a == b))
    };
    for c in COMMANDS {
        let run: Vec<&str> = c.split(' ').map(|w| w.trim_start_matches('-')).collect();
        if has(&run)
            && !out
                .iter()
                .any(|s| matches!(s, Subject::Command(x) if x.starts_with(c)))
        {
            out.insert(Subject::Command(c.to_string()));
        }
    }
    if SECRET_WORDS.iter().any(|w| has(w)) {
        out.insert(Subject::Secret("*".into()));
    }
    if has(&["env", "file"]) || has(&["dotenv"]) {
        out.insert(Subject::File(".env".into()));
    }
    out
}

/// A URL, a named secret, or a file or path; `None` for a plain word.
fn token(raw: &str) -> Option<Subject> {
    let t = raw
        .trim_matches(|c: char| "\"'“”‘’()[]{}<>,;:!?*".contains(c))
        .trim_end_matches('.');
    if t.is_empty() {
        return None;
    }
    let lower = t.to_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        return Some(Subject::Url(lower.trim_end_matches('/').to_string()));
    }
    let secret_name = [
        "KEY",
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "CREDENTIAL",
        "AUTH",
    ];
    if t.contains('_')
        && t.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && t.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && secret_name.iter().any(|s| t.contains(s))
    {
        return Some(Subject::Secret(t.to_string()));
    }
    let path_chars = |s: &str| {
        s.chars()
            .all(|c| c.is_alphanumeric() || "._-/~*".contains(c))
    };
    if !path_chars(t) {
        return None;
    }
    let file = lower
        .trim_start_matches("./")
        .trim_end_matches('/')
        .to_string();
    if t.contains('/') && t.chars().any(char::is_alphanumeric) {
        return Some(Subject::File(file));
    }
    // `.env`, `.npmrc`: a dot file.
    if let Some(name) = t.strip_prefix('.')
        && name.chars().next().is_some_and(char::is_alphanumeric)
    {
        return Some(Subject::File(file));
    }
    // `settings.ts`: a name and an extension, neither a lone letter
    // (`e.g`) nor digits (`1.5`).
    let parts: Vec<&str> = t.split('.').collect();
    let named = parts.len() >= 2
        && parts.iter().all(|p| !p.is_empty())
        && parts.iter().any(|p| p.len() > 1)
        && parts.last().is_some_and(|e| {
            (1..=5).contains(&e.len()) && e.chars().all(|c| c.is_ascii_alphabetic())
        })
        && !parts[0].chars().all(|c| c.is_ascii_digit());
    named.then_some(Subject::File(file))
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(s: &BTreeSet<Subject>) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn subjects_of_every_kind() {
        let s = subjects(
            "Read .env, config/db.yml and settings.ts; export ANTHROPIC_API_KEY; run `git push --force` to https://example.com/repo/ e.g. now",
        );
        assert_eq!(
            names(&s),
            [
                "the file .env",
                "the file config/db.yml",
                "the file settings.ts",
                "the secret ANTHROPIC_API_KEY",
                "the command `git push --force`",
                "https://example.com/repo",
            ]
        );
        assert!(subjects("Use version 1.5 of the library.").is_empty());
        assert_eq!(names(&subjects("Never print secrets")), ["secrets"]);
        assert_eq!(
            names(&subjects("Load the env file first")),
            ["the file .env"]
        );
        assert_eq!(
            names(&subjects("then rm -rf the build")),
            ["the command `rm -rf`"]
        );
    }

    #[test]
    fn stances_clause_by_clause() {
        let s = stance("Do not read or print the .env file.");
        assert_eq!(names(&s.forbids), ["the file .env"]);
        assert!(s.allows.is_empty());
        let c = stance("Read the .env file and print its values so the user can check them.");
        assert_eq!(names(&c.allows), ["the file .env"]);
        assert_eq!(s.against(&c), Some(Subject::File(".env".into())));
        assert_eq!(c.against(&s), None);
        // "it" is the clause before's subject; an op that forbids a subject
        // as well as naming it asks nothing against a prohibition.
        let both = stance("Read .env but never print it.");
        assert_eq!(names(&both.forbids), ["the file .env"]);
        assert_eq!(s.against(&both), None);
        // Secrets in general cover a named one.
        let g = stance("Never log secrets.");
        let n = stance("Log ANTHROPIC_API_KEY at startup to debug auth.");
        assert!(g.against(&n).is_some());
        // Different files are different subjects.
        let e = stance("Document every variable in .env.example");
        assert_eq!(s.against(&e), None);
        // Commands, with their flags or without.
        let never = stance("Never run `git push` from the agent.");
        let push = stance("Finish with `git push --force` to main.");
        assert!(never.against(&push).is_some());
    }
}
