//! Suppressions: findings a team dismissed, kept dismissed across runs
//! (`.crit/suppressions.yaml`), whichever reviewer reports them again.
//!
//! ```yaml
//! suppressions:
//!   - fingerprint: 9f2c41d07a3be815   # a finding's id; stable across line shifts
//!     reason: "False positive: the lock is held by the caller"
//!     author: alice
//!     expires: 2027-03-01             # optional; applies through that UTC day
//!   - title: "Missing docstring*"     # `*` wildcards, case-insensitive, whole title
//!     path: "src/legacy/**"           # optional glob narrowing a title pattern
//!     reason: "Legacy code, tracked in #123"
//!     author: bob
//! ```
//!
//! A title pattern written `/…/` is a regular expression, searched (not
//! anchored) and case-sensitive unless it says `(?i)`. Titles are matched with
//! and without a leading `[P1]`-style tag. The first matching entry wins.
//!
//! Every entry relaxes the gate, so each is honoured only as the project's
//! rules allow ([`Suppressions::load_with`]): trusted with `crit trust`, or,
//! in CI, as the base revision has it.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crit_core::{Finding, timestamp};
use globset::{GlobBuilder, GlobMatcher};
use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_saphyr::Spanned;

use crate::error::FileError;
use crate::trust::{Gated, ProjectRules, TrustError};

/// The file, relative to the project root.
pub const SUPPRESSIONS_FILE: &str = ".crit/suppressions.yaml";

/// The rules of one suppressions file.
#[derive(Debug, Clone, Default)]
pub struct Suppressions {
    rules: Vec<Rule>,
}

/// What [`Suppressions::apply`] did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Applied {
    pub kept: Vec<Finding>,
    pub suppressed: Vec<SuppressedFinding>,
    /// One line per expired entry, e.g.
    /// `.crit/suppressions.yaml:7: expired 2026-01-01 (alice: Legacy code)`.
    pub expired: Vec<String>,
}

/// A dismissed finding, kept (in the session) with why and by whom.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuppressedFinding {
    pub finding: Finding,
    pub reason: String,
    pub author: String,
    /// The entry that matched, as `file:line`.
    pub rule: String,
}

#[derive(Debug, thiserror::Error)]
pub enum SuppressError {
    #[error("{file}:{line}:{column}: {message}")]
    Invalid {
        file: String,
        line: u64,
        column: u64,
        message: String,
    },
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Rules(#[from] TrustError),
}

#[derive(Debug, Clone)]
struct Rule {
    matcher: Matcher,
    path: Option<GlobMatcher>,
    reason: String,
    author: String,
    /// `YYYY-MM-DD`, validated, so it compares correctly as a string.
    expires: Option<String>,
    /// `file:line`.
    at: String,
    /// The entry's matching fields as written, for the project's trust.
    written: String,
}

#[derive(Debug, Clone)]
enum Matcher {
    Fingerprint(String),
    Title(Regex),
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    suppressions: Option<Vec<Spanned<RawRule>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    fingerprint: Option<Spanned<String>>,
    title: Option<Spanned<String>>,
    path: Option<Spanned<String>>,
    reason: Option<Spanned<String>>,
    author: Option<Spanned<String>>,
    expires: Option<Spanned<String>>,
}

impl Suppressions {
    /// `<project>/.crit/suppressions.yaml` in the working tree, every entry
    /// honoured: for a caller that vouches for the file. A review of a change
    /// uses [`Suppressions::load_with`]. A missing file means no suppressions.
    pub fn load(project_root: &Path) -> Result<Suppressions, SuppressError> {
        let path = project_root.join(SUPPRESSIONS_FILE);
        match crit_core::files::read_to_string(&path) {
            Ok(text) => Suppressions::parse(&text, Path::new(SUPPRESSIONS_FILE)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Suppressions::default()),
            Err(source) => Err(SuppressError::Io { path, source }),
        }
    }

    /// The project's suppressions from wherever `rules` read the project,
    /// each entry kept only if `rules` allow it. A file that does not parse
    /// is an error whatever its trust: reviewing without it would bring
    /// dismissed findings back, and a broken file never passes a gate.
    pub fn load_with(rules: &ProjectRules) -> Result<Suppressions, SuppressError> {
        let Some(file) = rules.read(SUPPRESSIONS_FILE)? else {
            return Ok(Suppressions::default());
        };
        let mut all = Suppressions::parse(&file.text, Path::new(&file.label))?;
        all.rules.retain(|r| {
            let line = r.at.rsplit_once(':').and_then(|(_, l)| l.parse().ok());
            rules.allow(Gated::new(
                SUPPRESSIONS_FILE,
                line.unwrap_or(0),
                "suppression",
                r.written.clone(),
            ))
        });
        Ok(all)
    }

    /// Parse and validate a suppressions file; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Suppressions, SuppressError> {
        let file = path.display().to_string();
        if text.trim().is_empty() {
            return Ok(Suppressions::default());
        }
        let raw: RawFile = serde_saphyr::from_str(text).map_err(|e| yaml_error(&file, &e))?;
        let rules = raw
            .suppressions
            .unwrap_or_default()
            .into_iter()
            .map(|entry| rule(&file, entry))
            .collect::<Result<_, _>>()?;
        Ok(Suppressions { rules })
    }

    /// Each entry's matching fields as written, in file order.
    pub fn entries(&self) -> Vec<&str> {
        self.rules.iter().map(|r| r.written.as_str()).collect()
    }

    pub fn len(&self) -> usize {
        self.rules.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Split `findings` into kept and suppressed, by the first entry that
    /// matches and has not expired on `now`'s UTC date.
    pub fn apply(&self, findings: Vec<Finding>, now: SystemTime) -> Applied {
        let secs = timestamp::unix_secs(now);
        let today = timestamp::date(secs);
        let (active, expired): (Vec<&Rule>, Vec<&Rule>) = self
            .rules
            .iter()
            .partition(|r| r.expires.as_ref().is_none_or(|d| today <= *d));
        let mut applied = Applied {
            expired: expired
                .iter()
                .map(|r| {
                    let date = r.expires.as_deref().unwrap_or("");
                    format!("{}: expired {date} ({}: {})", r.at, r.author, r.reason)
                })
                .collect(),
            ..Applied::default()
        };
        for finding in findings {
            match active.iter().find(|r| r.matches(&finding)) {
                Some(r) => applied.suppressed.push(SuppressedFinding {
                    finding,
                    reason: r.reason.clone(),
                    author: r.author.clone(),
                    rule: r.at.clone(),
                }),
                None => applied.kept.push(finding),
            }
        }
        applied
    }
}

impl Rule {
    fn matches(&self, finding: &Finding) -> bool {
        let hit = match &self.matcher {
            Matcher::Fingerprint(fp) => {
                if finding.id.is_empty() {
                    let path = finding.path();
                    *fp == crit_core::fingerprint::of(
                        &finding.title,
                        path,
                        finding.rule_id.as_deref(),
                    )
                } else {
                    finding.id.eq_ignore_ascii_case(fp)
                }
            }
            Matcher::Title(re) => {
                re.is_match(&finding.title) || re.is_match(finding.display_title())
            }
        };
        hit && self.path.as_ref().is_none_or(|glob| {
            finding.path().is_some_and(|p| {
                let p = p.replace('\\', "/");
                glob.is_match(p.trim_start_matches("./"))
            })
        })
    }
}

/// One YAML entry to a validated rule; every error points at the entry or field.
fn rule(file: &str, entry: Spanned<RawRule>) -> Result<Rule, SuppressError> {
    let err = |loc: &serde_saphyr::Location, message: String| invalid(file, loc, message);
    let at = &entry.referenced;
    let raw = entry.value;
    let required = |field: Option<Spanned<String>>, name: &str, hint: &str| match field {
        Some(s) if !s.value.trim().is_empty() => Ok(s.value.trim().to_string()),
        Some(s) => Err(err(&s.referenced, format!("`{name}` is empty: {hint}"))),
        None => Err(err(at, format!("missing `{name}`: {hint}"))),
    };
    let reason = required(
        raw.reason,
        "reason",
        "say why the finding is dismissed, for whoever reads this next",
    )?;
    let author = required(raw.author, "author", "who dismissed the finding")?;
    let written = [
        ("fingerprint", &raw.fingerprint),
        ("title", &raw.title),
        ("path", &raw.path),
        ("expires", &raw.expires),
    ]
    .iter()
    .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k} {:?}", v.value.trim())))
    .collect::<Vec<_>>()
    .join(", ");
    let matcher = match (&raw.fingerprint, &raw.title, &raw.path) {
        (Some(_), Some(t), _) => {
            return Err(err(
                &t.referenced,
                "give `fingerprint` or `title`, not both".into(),
            ));
        }
        (None, None, _) => return Err(err(at, MISSING_MATCHER.into())),
        (Some(_), None, Some(p)) => return Err(err(&p.referenced, PATH_WITH_FINGERPRINT.into())),
        (Some(fp), None, None) => Matcher::Fingerprint(located(file, fp, fingerprint)?),
        (None, Some(t), _) => Matcher::Title(located(file, t, title_pattern)?),
    };
    Ok(Rule {
        matcher,
        path: raw
            .path
            .as_ref()
            .map(|p| located(file, p, path_glob))
            .transpose()?,
        reason,
        author,
        expires: raw
            .expires
            .as_ref()
            .map(|d| located(file, d, date))
            .transpose()?,
        at: format!("{file}:{}", at.line().max(1)),
        written,
    })
}

fn invalid(file: &str, loc: &serde_saphyr::Location, message: String) -> SuppressError {
    SuppressError::Invalid {
        file: file.to_string(),
        line: loc.line().max(1),
        column: loc.column().max(1),
        message,
    }
}

/// A field's value through a check whose error says what is wrong with it.
fn located<T>(
    file: &str,
    field: &Spanned<String>,
    check: impl FnOnce(&str) -> Result<T, FieldError>,
) -> Result<T, SuppressError> {
    check(field.value.trim()).map_err(|m| invalid(file, &field.referenced, m.to_string()))
}

/// What is wrong with one field of an entry, and what to write instead.
#[derive(Debug, thiserror::Error)]
enum FieldError {
    #[error(
        "`{0}` is not a finding fingerprint: expected 16 hex digits, the `id` crit prints for each finding"
    )]
    Fingerprint(String),
    #[error("invalid path glob `{value}`: {source}")]
    Glob {
        value: String,
        source: globset::Error,
    },
    #[error("`{0}` is not a date: write expires as YYYY-MM-DD, e.g. 2027-03-01")]
    Date(String),
    #[error("`title` is empty: give a pattern such as \"Missing docstring*\"")]
    EmptyTitle,
    #[error("invalid regex `{pattern}`: {why}")]
    Regex { pattern: String, why: String },
}

const MISSING_MATCHER: &str =
    "missing `fingerprint` (a finding's id) or `title` (a pattern such as \"Missing docstring*\")";
const PATH_WITH_FINGERPRINT: &str =
    "`path` narrows a `title` pattern; a fingerprint already includes the finding's path";

/// A finding id as crit prints it: 16 hex digits, compared in lower case.
fn fingerprint(value: &str) -> Result<String, FieldError> {
    let v = value.to_ascii_lowercase();
    if v.len() == 16 && v.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(v)
    } else {
        Err(FieldError::Fingerprint(value.into()))
    }
}

/// `src/legacy/**`: `*` stays within one directory, `**` crosses them.
fn path_glob(value: &str) -> Result<GlobMatcher, FieldError> {
    GlobBuilder::new(value)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|source| FieldError::Glob {
            value: value.into(),
            source,
        })
}

fn date(value: &str) -> Result<String, FieldError> {
    valid_date(value).ok_or_else(|| FieldError::Date(value.into()))
}

/// `/…/` is a regex as written; anything else is a whole-title, case-insensitive
/// pattern where `*` matches any text.
fn title_pattern(pattern: &str) -> Result<Regex, FieldError> {
    let p = pattern.trim();
    if p.is_empty() {
        return Err(FieldError::EmptyTitle);
    }
    let source = match p.strip_prefix('/').and_then(|r| r.strip_suffix('/')) {
        Some(re) if !re.is_empty() => re.to_string(),
        _ => {
            let parts: Vec<String> = p.split('*').map(regex::escape).collect();
            format!("(?is)^{}$", parts.join(".*"))
        }
    };
    Regex::new(&source).map_err(|e| {
        // The regex crate's message spans lines; its `error:` line says why.
        let text = e.to_string();
        let why = text
            .lines()
            .find_map(|l| l.strip_prefix("error: "))
            .or_else(|| text.lines().next())
            .unwrap_or("invalid")
            .to_string();
        FieldError::Regex {
            pattern: p.into(),
            why,
        }
    })
}

/// `YYYY-MM-DD` with a real month and day, or `None`.
fn valid_date(s: &str) -> Option<String> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = s.get(r)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    (1..=days).contains(&d).then(|| s.to_string())
}

/// A YAML error as a located one, through the conversion templates and config
/// use (its `Invalid` variant is the only one it builds).
fn yaml_error(file: &str, e: &serde_saphyr::Error) -> SuppressError {
    match FileError::from_yaml(file, e) {
        FileError::Invalid {
            file,
            line,
            column,
            message,
        } => SuppressError::Invalid {
            file,
            line,
            column,
            message,
        },
        other => SuppressError::Invalid {
            file: file.to_string(),
            line: 1,
            column: 1,
            message: other.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(valid_date("2028-02-29").as_deref(), Some("2028-02-29"));
        for bad in [
            "2027-02-29",
            "2027-13-01",
            "2027-00-10",
            "2027-1-01",
            "27-01-01x",
            "2027-01-+1",
        ] {
            assert_eq!(valid_date(bad), None, "{bad}");
        }
    }

    #[test]
    fn title_globs_escape_everything_but_stars() {
        let re = title_pattern("Use of [unsafe]? *").unwrap();
        assert!(re.is_match("use of [UNSAFE]? block"));
        assert!(!re.is_match("Use of u? block"));
        assert!(title_pattern("/(/").is_err());
        assert!(title_pattern("  ").is_err());
    }
}
