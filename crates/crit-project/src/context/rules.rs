//! `.claude/rules/**/*.md`: a rule applies to the files matching its `paths:`
//! frontmatter (Claude Code), or `globs:` (Cursor); without either it always
//! applies.

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::Spanned;

use super::UnderReview;
use super::frontmatter::{self, Frontmatter};

/// A parsed rule file.
#[derive(Debug, Clone)]
pub(super) struct Rule {
    /// The body, frontmatter stripped.
    pub text: String,
    /// The globs as written (normalized); empty when the rule always applies.
    pub globs: Vec<String>,
    /// The globs, checked; matched with every other rule's in one set by
    /// [`Matcher`].
    compiled: Vec<Glob>,
}

#[derive(Debug, Default, Deserialize)]
struct RawRule {
    paths: Option<Spanned<Value>>,
    globs: Option<Spanned<Value>>,
    /// Cursor: `alwaysApply: true` applies the rule whatever its globs.
    #[serde(rename = "alwaysApply")]
    always_apply: Option<bool>,
}

/// A rule file that cannot be used: where, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}:{line}:{column}: {message}")]
pub(super) struct RuleError {
    pub(super) path: String,
    pub(super) line: u64,
    pub(super) column: u64,
    pub(super) message: String,
}

impl Rule {
    /// Parse a rule file.
    pub(super) fn parse(path: &str, text: &str) -> Result<Rule, RuleError> {
        let at = |line: u64, column: u64, msg: &str| RuleError {
            path: path.to_string(),
            line,
            column,
            message: msg.to_string(),
        };
        let fm = frontmatter::split(text).map_err(|e| at(e.line, e.column, &e.message))?;
        let Some(fm) = fm else {
            return Ok(Rule::always(text));
        };
        let raw: RawRule = fm.parse().map_err(|e| {
            at(
                e.line,
                e.column,
                &format!("invalid frontmatter: {}", e.message),
            )
        })?;
        if raw.always_apply == Some(true) {
            return Ok(Rule::always(fm.body));
        }
        let mut globs = Vec::new();
        let mut compiled = Vec::new();
        for field in [&raw.paths, &raw.globs].into_iter().flatten() {
            for glob in patterns(&fm, field).map_err(|(l, c, m)| at(l, c, &m))? {
                let checked = GlobBuilder::new(&glob)
                    .literal_separator(true)
                    .build()
                    .map_err(|e| {
                        let (l, c) = fm.at(&field.referenced);
                        at(l, c, &format!("invalid glob `{glob}`: {}", e.kind()))
                    })?;
                compiled.push(checked);
                globs.push(glob);
            }
        }
        Ok(Rule {
            text: fm.body.to_string(),
            globs,
            compiled,
        })
    }

    fn always(text: &str) -> Rule {
        Rule {
            text: text.to_string(),
            globs: Vec::new(),
            compiled: Vec::new(),
        }
    }

    /// Whether the rule applies to the work under review (paths normalized by
    /// [`normalize_path`]).
    #[cfg(test)]
    fn applies(&self, under_review: UnderReview<'_>) -> bool {
        Matcher::new(&[self]).applying(under_review)[0]
    }

    /// How narrowly the rule is scoped: the longest literal prefix of its globs
    /// (`src/api/handlers/**` is narrower than `**/*.rs`).
    pub(super) fn specificity(&self) -> usize {
        self.globs
            .iter()
            .map(|g| g.find(['*', '?', '[', '{']).unwrap_or(g.len()))
            .max()
            .unwrap_or(0)
    }
}

/// Every rule's globs matched in one set: a set costs a compilation, and a
/// project has many rules. Built once from the rules, before the files
/// under review are known.
#[derive(Debug, Clone)]
pub(super) struct Matcher {
    /// The rules with no globs, which always apply.
    always: Vec<bool>,
    /// `None` when the set cannot be built (too large): every rule applies,
    /// more context, never less.
    set: Option<GlobSet>,
    /// The rule each glob of the set belongs to.
    owner: Vec<usize>,
}

impl Matcher {
    pub(super) fn new(rules: &[&Rule]) -> Matcher {
        let mut set = GlobSetBuilder::new();
        let mut owner = Vec::new();
        for (i, rule) in rules.iter().enumerate() {
            for glob in &rule.compiled {
                set.add(glob.clone());
                owner.push(i);
            }
        }
        Matcher {
            always: rules.iter().map(|r| r.globs.is_empty()).collect(),
            set: set.build().ok(),
            owner,
        }
    }

    /// Whether each rule applies to the work under review (paths
    /// normalized by [`normalize_path`]).
    pub(super) fn applying(&self, under_review: UnderReview<'_>) -> Vec<bool> {
        let (UnderReview::Files(files), Some(set)) = (under_review, &self.set) else {
            return vec![true; self.always.len()];
        };
        let mut applies = self.always.clone();
        let mut matched = Vec::new();
        for f in files {
            set.matches_into(f.as_str(), &mut matched);
            for &g in &matched {
                applies[self.owner[g]] = true;
            }
        }
        applies
    }
}

/// The globs of a `paths:`/`globs:` value: a list of strings, or one string of
/// comma-separated globs. `null` or empty means no scoping.
fn patterns(
    fm: &Frontmatter<'_>,
    field: &Spanned<Value>,
) -> Result<Vec<String>, (u64, u64, String)> {
    let (line, column) = fm.at(&field.referenced);
    let strings: Vec<String> = match &field.value {
        Value::Null => Vec::new(),
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items
            .iter()
            .map(|item| match item {
                Value::String(s) => Ok(s.clone()),
                other => Err((
                    line,
                    column,
                    format!("expected a glob string in the list, found `{other}`"),
                )),
            })
            .collect::<Result<_, _>>()?,
        other => {
            return Err((
                line,
                column,
                format!(
                    "expected a list of globs or a comma-separated string, e.g. `paths: [\"src/api/**\"]`; found `{other}`"
                ),
            ));
        }
    };
    Ok(strings
        .iter()
        .flat_map(|s| frontmatter::split_commas(s))
        .map(|(_, g)| normalize_glob(g))
        .filter(|g| !g.is_empty())
        .collect())
}

/// Globs are relative to the project root: `./src/**` and `/src/**` mean
/// `src/**`, and a directory `src/api/` means everything under it.
fn normalize_glob(glob: &str) -> String {
    let g = glob.trim().trim_start_matches("./").trim_start_matches('/');
    if g.ends_with('/') {
        format!("{g}**")
    } else {
        g.to_string()
    }
}

/// A path under review as the globs expect it: root-relative, `/`-separated.
pub(super) fn normalize_path(path: &str) -> String {
    let p = path.replace('\\', "/");
    p.trim_start_matches("./")
        .trim_start_matches('/')
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_string()).collect()
    }

    #[test]
    fn scoping_forms() {
        let list = Rule::parse("r.md", "---\npaths:\n  - \"src/api/**\"\n---\nbody").unwrap();
        let comma = Rule::parse("r.md", "---\npaths: src/**/*.{ts,tsx}, lib/*.js\n---\nb").unwrap();
        let cursor = Rule::parse("r.md", "---\nglobs: *.ts\nalwaysApply: false\n---\nb").unwrap();
        assert_eq!(list.globs, ["src/api/**"]);
        assert_eq!(list.text, "body");
        assert_eq!(comma.globs, ["src/**/*.{ts,tsx}", "lib/*.js"]);
        assert_eq!(cursor.globs, ["*.ts"]);
        let f = files(&["src/api/users.rs", "lib/x.js"]);
        assert!(list.applies(UnderReview::Files(&f)));
        assert!(comma.applies(UnderReview::Files(&f)));
        assert!(
            !cursor.applies(UnderReview::Files(&f)),
            "literal separator: *.ts is top-level only"
        );
        assert!(cursor.applies(UnderReview::Everything));
        assert_eq!(list.specificity(), 8);
    }

    #[test]
    fn no_input_panics() {
        const PIECES: [&str; 12] = [
            "---\n", "paths: ", "globs:", " *.rs", ",", "{a,", "\n  - ", "é", "\u{3000}", "'", "[",
            "\r\n",
        ];
        for a in PIECES {
            for b in PIECES {
                for c in PIECES {
                    for text in [
                        format!("---\n{a}{b}{c}\n---\nbody"),
                        format!("---\npaths:{a}{b}{c}\n---\n"),
                    ] {
                        if let Ok(rule) = Rule::parse("r.md", &text) {
                            let _ = rule.applies(UnderReview::Files(&files(&["src/a.rs"])));
                            let _ = rule.specificity();
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn bad_frontmatter_names_the_line() {
        let e = Rule::parse("r.md", "---\ntitle: x\npaths: 3\n---\nb").unwrap_err();
        assert_eq!((e.path.as_str(), e.line, e.column), ("r.md", 3, 8));
        let e = e.to_string();
        assert!(e.starts_with("r.md:3:8: expected a list of globs"), "{e}");
        let e = Rule::parse("r.md", "---\npaths: [\"src/[\"]\n---\nb")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("r.md:2:") && e.contains("invalid glob `src/[`"),
            "{e}"
        );
        let e = Rule::parse("r.md", "---\npaths: [a\n---\nb")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("r.md:") && e.contains("invalid frontmatter"),
            "{e}"
        );
    }
}
