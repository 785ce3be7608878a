//! One problem a reviewer found.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Severity;
use crate::fingerprint;

/// Where a finding points.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Location {
    /// A file of the project, optionally with a 1-based, inclusive line range.
    File {
        /// Path relative to the project root, with `/` separators.
        path: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        line_start: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        line_end: Option<u32>,
    },
    /// A section of a document (a design, a plan, a prompt).
    Document {
        path: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        heading: Option<String>,
        /// The 1-based line of the finding in the document, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        line: Option<u32>,
    },
}

impl Location {
    /// A file location with a line range; an `end` before `start` is clamped to `start`.
    pub fn lines(path: impl Into<String>, start: u32, end: u32) -> Self {
        Location::File {
            path: path.into(),
            line_start: Some(start),
            line_end: Some(end.max(start)),
        }
    }

    /// A whole-file location.
    pub fn file(path: impl Into<String>) -> Self {
        Location::File {
            path: path.into(),
            line_start: None,
            line_end: None,
        }
    }

    pub fn path(&self) -> &str {
        match self {
            Location::File { path, .. } | Location::Document { path, .. } => path,
        }
    }

    /// First line, if the location has one.
    pub fn start_line(&self) -> Option<u32> {
        match self {
            Location::File { line_start, .. } => *line_start,
            Location::Document { line, .. } => *line,
        }
    }

    /// Last line (the first line when no end is known).
    pub fn end_line(&self) -> Option<u32> {
        match self {
            Location::File {
                line_start,
                line_end,
                ..
            } => line_end.or(*line_start),
            Location::Document { line, .. } => *line,
        }
    }

    /// `path:12-14`, `path:12`, `path`, or `path#heading`.
    pub fn display(&self) -> String {
        match self {
            Location::Document {
                path,
                heading: Some(h),
                line: None,
            } => format!("{path} § {h}"),
            _ => match (self.start_line(), self.end_line()) {
                (Some(s), Some(e)) if e > s => format!("{}:{s}-{e}", self.path()),
                (Some(s), _) => format!("{}:{s}", self.path()),
                _ => self.path().to_string(),
            },
        }
    }
}

/// One problem: what, why, where, how bad, who said so.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Finding {
    /// Stable fingerprint: the same problem keeps its id across runs even when
    /// lines shift (see [`crate::fingerprint`]).
    pub id: String,
    pub title: String,
    #[serde(default)]
    pub body: String,
    pub severity: Severity,
    /// The reviewer's confidence, 0.0–1.0, when it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    /// The reviewer that reported it.
    #[serde(default)]
    pub reviewer: String,
    /// The rule or check behind it, for deterministic checks and SARIF rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_id: Option<String>,
    /// Replacement text for the located lines, when the reviewer proposed one
    /// and crit found it fit to offer (see [`crate::suggestion`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
    /// The lines the suggestion replaces, as crit read them from the file
    /// when it checked the suggestion: shown as the diff's removed lines,
    /// and compared with the file before the suggestion is applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion_replaces: Option<String>,
    /// Why crit did not offer the reviewer's suggestion (which was removed):
    /// its lines are not in the file, it changes nothing, it loses the
    /// indentation, it is too large, or the file could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion_refused: Option<String>,
    /// `Some(false)` when the finding points outside the change under review.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_change: Option<bool>,
    /// The code (or text) at the location, quoted by the reviewer; crit checks
    /// it against the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
    /// The project convention the finding applies, quoted by the reviewer;
    /// crit checks it against the conventions the reviewer was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub convention: Option<String>,
    /// The id of the team's learning the reviewer said covers it; crit checks
    /// the learning's scope before it dismisses the finding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learning: Option<String>,
    /// Taken from an earlier review of the same hunk (the text it points at
    /// has not changed since), not found again in this run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
    /// Other reviewers that reported the same problem (a consensus panel).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agreed_by: Vec<String>,
    /// What a second look at a blocking finding concluded, when one ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification: Option<Verification>,
}

/// The outcome of a second look at a finding (the verification pass).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Verification {
    pub outcome: VerificationOutcome,
    /// The verifier's reason, for people.
    pub reason: String,
    /// The severity the reviewer gave, when the verifier changed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported_severity: Option<Severity>,
    /// Who verified it (the verifier's name and model).
    #[serde(default)]
    pub by: String,
}

/// What a check of the finding concluded. A finding refuted on proof moves
/// to `dismissed`; these stay and count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VerificationOutcome {
    /// The verifier confirmed it.
    Confirmed,
    /// The verifier lowered its severity (`reported_severity` holds the
    /// reviewer's).
    Downgraded,
    /// The verifier disagreed without quoting code that disproves it: kept,
    /// still counted by the gate.
    Disputed,
    /// Its quoted evidence could not be checked (the file is not a readable
    /// text file inside the project): kept as reported.
    Unchecked,
}

impl Finding {
    /// A finding with its fingerprint computed from title, path and rule id.
    pub fn new(title: impl Into<String>, severity: Severity, reviewer: impl Into<String>) -> Self {
        let mut f = Finding {
            id: String::new(),
            title: title.into(),
            body: String::new(),
            severity,
            confidence: None,
            location: None,
            reviewer: reviewer.into(),
            rule_id: None,
            suggestion: None,
            suggestion_replaces: None,
            suggestion_refused: None,
            in_change: None,
            evidence: None,
            convention: None,
            learning: None,
            cached: false,
            agreed_by: Vec::new(),
            verification: None,
        };
        f.refresh_id();
        f
    }

    pub fn with_body(mut self, body: impl Into<String>) -> Self {
        self.body = body.into();
        self
    }

    pub fn with_location(mut self, location: Location) -> Self {
        self.location = Some(location);
        self.refresh_id();
        self
    }

    pub fn with_rule(mut self, rule_id: impl Into<String>) -> Self {
        self.rule_id = Some(rule_id.into());
        self.refresh_id();
        self
    }

    pub fn with_confidence(mut self, confidence: f64) -> Self {
        self.confidence = Some(confidence.clamp(0.0, 1.0));
        self
    }

    pub fn with_suggestion(mut self, suggestion: impl Into<String>) -> Self {
        self.suggestion = Some(suggestion.into());
        self
    }

    /// Whether the suggestion may be offered against `new_file`, the text of
    /// the finding's file after the change (see [`crate::suggestion::check`]):
    /// the lines it would replace, or why not.
    pub fn check_suggestion(
        &self,
        new_file: &str,
    ) -> Result<String, crate::suggestion::SuggestionError> {
        crate::suggestion::check(self, new_file)
    }

    /// Recompute `id` after the title, location or rule changed.
    pub fn refresh_id(&mut self) {
        self.id = fingerprint::of(
            &self.title,
            self.location.as_ref().map(Location::path),
            self.rule_id.as_deref(),
        );
    }

    pub fn path(&self) -> Option<&str> {
        self.location.as_ref().map(Location::path)
    }

    /// The title for display next to a severity column: a leading `[P0]`–`[P3]`
    /// tag (which the findings contract asks models to write) is dropped, since the
    /// severity is shown anyway. The stored `title` keeps it.
    pub fn display_title(&self) -> &str {
        let t = self.title.trim_start();
        let tagged = t.len() >= 4
            && t.as_bytes()[0] == b'['
            && matches!(t.as_bytes()[1], b'P' | b'p')
            && t.as_bytes()[2].is_ascii_digit()
            && t.as_bytes()[3] == b']';
        if tagged { t[4..].trim_start() } else { t }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_display() {
        assert_eq!(Location::lines("a.rs", 3, 3).display(), "a.rs:3");
        assert_eq!(Location::lines("a.rs", 3, 9).display(), "a.rs:3-9");
        assert_eq!(Location::lines("a.rs", 9, 3).display(), "a.rs:9");
        assert_eq!(Location::file("a.rs").display(), "a.rs");
        let doc = Location::Document {
            path: "plan.md".into(),
            heading: Some("Rollout".into()),
            line: None,
        };
        assert_eq!(doc.display(), "plan.md § Rollout");
    }

    #[test]
    fn display_title_drops_the_priority_tag() {
        assert_eq!(
            Finding::new("[P1] Leak", Severity::P1, "r").display_title(),
            "Leak"
        );
        assert_eq!(
            Finding::new("[P]x", Severity::P1, "r").display_title(),
            "[P]x"
        );
        assert_eq!(
            Finding::new("[FAIL] x", Severity::P1, "r").display_title(),
            "[FAIL] x"
        );
        assert_eq!(Finding::new("[P1]", Severity::P1, "r").display_title(), "");
        assert_eq!(Finding::new("é", Severity::P1, "r").display_title(), "é");
    }

    #[test]
    fn id_ignores_line_numbers() {
        let a = Finding::new("Unchecked unwrap", Severity::P1, "r")
            .with_location(Location::lines("src/a.rs", 10, 12));
        let b = Finding::new("Unchecked unwrap", Severity::P2, "r")
            .with_location(Location::lines("src/a.rs", 40, 41));
        assert_eq!(a.id, b.id);
        let c = a.clone().with_location(Location::lines("src/b.rs", 10, 12));
        assert_ne!(a.id, c.id);
    }
}
