//! One check, as written in `checks.yaml` or derived from an anti-pattern table.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::CheckError;

/// How a check's pattern is matched against the plan (expert-review's match rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchRule {
    /// Exact, case-sensitive substring.
    #[default]
    Literal,
    /// A regular expression in Python's syntax (lookaround and backreferences
    /// included; see [`crate::pattern`]).
    Regex,
    /// A literal that does not count when negated on its line, before or near it.
    Prescriptive,
    /// A literal that does not count when its sentence holds a negation word.
    NegationAware,
}

/// What FIXING does to the plan (expert-review's FIXING state).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum FixAction {
    /// Replace the matched text with `with`.
    Replace { with: String },
    /// Delete the sentence holding the match.
    RemoveSentence,
    /// Delete the paragraph (or complete bullet point) holding the match.
    RemoveParagraph,
}

/// Where a check came from, in expert-review's order of precedence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    /// a. `{dir}/checks.yaml`
    SessionChecks,
    /// b. `~/.claude/checks/global-checks.yaml`
    GlobalChecks,
    /// c. `{project_root}/checks/*.yaml`
    ProjectChecks,
    /// d. `{dir}/rules/*.md`
    RulesFile,
    /// e. `{dir}/project-claude.md`
    SessionClaudeMd,
    /// f. `{project_root}/CLAUDE.md` (only when e is absent)
    ProjectClaudeMd,
    /// g. `~/.claude/CLAUDE.md`
    GlobalClaudeMd,
    /// `checks:` in context.yaml, the lowest priority.
    Context,
}

/// One check, ready to match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    pub id: String,
    pub pattern: String,
    pub match_rule: MatchRule,
    pub fix: Option<FixAction>,
    pub reason: String,
    pub reject_if_persists: bool,
    pub source: SourceKind,
    /// The file it was read from.
    pub origin: PathBuf,
}

impl Check {
    /// A table-derived check: literal, no fix (expert-review: always null from table parsing).
    pub fn from_table(
        id: String,
        pattern: String,
        reason: String,
        source: SourceKind,
        origin: &Path,
    ) -> Self {
        Check {
            id,
            pattern,
            match_rule: MatchRule::Literal,
            fix: None,
            reason,
            reject_if_persists: false,
            source,
            origin: origin.to_path_buf(),
        }
    }
}

/// A check as written in YAML, before validation and defaults.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCheck {
    id: String,
    pattern: String,
    #[serde(default)]
    match_rule: Option<MatchRule>,
    #[serde(default)]
    fix: Option<FixAction>,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    reject_if_persists: Option<bool>,
}

/// The shape of `checks.yaml` and friends.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct ChecksFile {
    #[serde(default)]
    pub checks: Vec<RawCheck>,
}

impl RawCheck {
    /// Apply expert-review's field defaults and reject checks that cannot work.
    pub(crate) fn into_check(self, source: SourceKind, origin: &Path) -> Result<Check, CheckError> {
        let invalid = |message: &str| CheckError::InvalidCheck {
            path: origin.to_path_buf(),
            id: self.id.clone(),
            message: message.to_string(),
        };
        if self.id.trim().is_empty() {
            return Err(invalid("`id` is empty"));
        }
        if self.pattern.is_empty() {
            return Err(invalid("`pattern` is empty (it would match everywhere)"));
        }
        let match_rule = self.match_rule.unwrap_or_default();
        if match_rule == MatchRule::Regex {
            match crate::pattern::Pattern::compile(&self.pattern) {
                Ok(p) if p.matches_empty() => {
                    return Err(invalid("the regex matches the empty string"));
                }
                Ok(_) => {}
                Err(e) => return Err(invalid(&format!("invalid regex: {e}"))),
            }
        }
        Ok(Check {
            id: self.id.clone(),
            pattern: self.pattern.clone(),
            match_rule,
            fix: self.fix.clone(),
            reason: self.reason.clone().unwrap_or_default(),
            reject_if_persists: self.reject_if_persists.unwrap_or(false),
            source,
            origin: origin.to_path_buf(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml;

    fn load(text: &str) -> Result<Vec<Check>, CheckError> {
        let path = Path::new("checks.yaml");
        let file: ChecksFile = yaml::parse(path, text)?;
        file.checks
            .into_iter()
            .map(|c| c.into_check(SourceKind::SessionChecks, path))
            .collect()
    }

    #[test]
    fn seed_defaults() {
        let checks = load("checks:\n  - id: no_fix_check\n    pattern: \"ambiguous thing\"\n    reason: \"Requires human judgment\"\n").unwrap();
        let c = &checks[0];
        assert_eq!(c.match_rule, MatchRule::Literal);
        assert_eq!(c.fix, None);
        assert!(!c.reject_if_persists);
        assert_eq!(c.reason, "Requires human judgment");
        let c = &load("checks:\n  - id: a\n    pattern: b\n    fix: null\n").unwrap()[0];
        assert_eq!(c.reason, "");
        assert_eq!(c.fix, None);
    }

    #[test]
    fn seed_explicit_example() {
        let text = "checks:\n  - id: no_any_type\n    pattern: \": any\"\n    match_rule: regex\n    fix:\n      action: replace\n      with: \": unknown\"\n    reason: \"Use proper TypeScript types instead of any\"\n    reject_if_persists: false\n\n  - id: no_console_log\n    pattern: \"console.log\"\n    match_rule: literal\n    fix:\n      action: remove_sentence\n    reason: \"Use proper logging in production code\"\n";
        let checks = load(text).unwrap();
        assert_eq!(
            checks[0].fix,
            Some(FixAction::Replace {
                with: ": unknown".into()
            })
        );
        assert_eq!(checks[0].match_rule, MatchRule::Regex);
        assert_eq!(checks[1].fix, Some(FixAction::RemoveSentence));
        let p = &load("checks:\n  - id: p\n    pattern: x\n    fix: {action: remove_paragraph}\n")
            .unwrap()[0];
        assert_eq!(p.fix, Some(FixAction::RemoveParagraph));
    }

    #[test]
    fn malformed_checks_name_line_and_column() {
        for (text, want) in [
            ("checks:\n  - pattern: x\n", "checks.yaml:2:"),
            (
                "checks:\n  - id: a\n    pattern: x\n    match_rule: fuzzy\n",
                "checks.yaml:4:",
            ),
            (
                "checks:\n  - id: a\n    pattern: x\n    fix:\n      action: replace\n",
                "checks.yaml:4:",
            ),
            ("checks:\n  - id: a\n    patern: x\n", "checks.yaml:3:"),
            ("checks: [\n", "checks.yaml:"),
        ] {
            let err = load(text).unwrap_err();
            assert!(err.is_config_error(), "{err}");
            assert!(err.to_string().starts_with(want), "{text:?} -> {err}");
        }
    }

    #[test]
    fn unusable_checks_are_rejected() {
        let err =
            load("checks:\n  - id: r\n    pattern: \"(a\"\n    match_rule: regex\n").unwrap_err();
        assert!(
            err.to_string().contains("check `r`: invalid regex"),
            "{err}"
        );
        let err = load("checks:\n  - id: e\n    pattern: \"\"\n").unwrap_err();
        assert!(err.to_string().contains("`pattern` is empty"), "{err}");
        let err =
            load("checks:\n  - id: s\n    pattern: \"x*\"\n    match_rule: regex\n").unwrap_err();
        assert!(err.to_string().contains("empty string"), "{err}");
    }
}
