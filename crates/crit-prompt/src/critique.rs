//! What a prompt reviewer answers: the prompt-review plugin's critique, field for
//! field, with its JSON Schema (one per reviewer, so the role, the edit operations
//! and the severities it may use are enforced by structured output) and the check
//! that turns an answer into a [`Critique`] or says why it is malformed.
//!
//! Critiques are read leniently, as the plugin's own fixtures are written:
//! fields it does not define (`score`) are ignored, and a `ReplaceVague` op's
//! `original` is the exact text it replaces.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub use crit_project::config::prompt_review::{OpKind, Severity};

/// The part of the prompt an op is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    Constraints,
    Context,
    Output,
    Structure,
    Examples,
}

impl Target {
    pub const ALL: [Target; 5] = [
        Target::Constraints,
        Target::Context,
        Target::Output,
        Target::Structure,
        Target::Examples,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Target::Constraints => "constraints",
            Target::Context => "context",
            Target::Output => "output",
            Target::Structure => "structure",
            Target::Examples => "examples",
        }
    }
}

/// One proposed edit.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Op {
    pub op: OpKind,
    pub target: Target,
    /// The text to add, the replacement, or the constraint to remove.
    pub value: String,
    /// `ReplaceVague`: the prompt's exact words it replaces (the plugin's
    /// fixtures carry it); without it, the finding's evidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original: Option<String>,
}

/// One problem a reviewer found in the prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// The reviewer's own id (`SEC-001`); unique within its critique only.
    pub id: String,
    pub severity: Severity,
    pub confidence: f64,
    pub issue: String,
    /// What in the prompt caused it (for `ReplaceVague`, the text to replace).
    pub evidence: String,
    pub suggested_ops: Vec<Op>,
}

/// One reviewer's whole answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Critique {
    pub reviewer_role: String,
    pub severity_max: Severity,
    pub confidence: f64,
    pub findings: Vec<Finding>,
    pub no_issues: bool,
}

impl Critique {
    /// A critique with nothing to say.
    pub fn no_issues(reviewer: &str) -> Critique {
        Critique {
            reviewer_role: reviewer.to_string(),
            severity_max: Severity::Nit,
            confidence: 1.0,
            findings: Vec::new(),
            no_issues: true,
        }
    }

    /// The most severe finding's severity (the declared `severity_max` is not trusted).
    pub fn worst(&self) -> Option<Severity> {
        self.findings.iter().map(|f| f.severity).min()
    }
}

/// What one reviewer may say: its name, the ops and severities it may use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rules {
    pub reviewer: String,
    pub ops: Vec<OpKind>,
    pub severities: Vec<Severity>,
}

/// Findings per critique, and characters per text field: enough for any real
/// review, and a bound on what a runaway answer can put into a prompt.
pub const MAX_FINDINGS: usize = 20;
pub const MAX_OPS: usize = 5;
pub const MAX_VALUE_CHARS: usize = 2_000;

/// The JSON Schema of `rules.reviewer`'s critique. No `$schema` key: the Claude
/// Code CLI refuses draft 2020-12's, and every backend understands the rest.
/// Other fields are allowed (and ignored): a critique with the plugin's
/// `score` is a critique, not a reason to ask the reviewer again.
pub fn schema(rules: &Rules) -> Value {
    let words = |v: &[Severity]| v.iter().map(|s| s.as_str()).collect::<Vec<_>>();
    let text = |max: usize| json!({"type": "string", "maxLength": max});
    json!({
        "type": "object",
        "required": ["reviewer_role", "severity_max", "confidence", "findings", "no_issues"],
        "properties": {
            "reviewer_role": {"type": "string", "enum": [rules.reviewer]},
            "severity_max": {"type": "string", "enum": words(&Severity::ALL)},
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "findings": {
                "type": "array",
                "maxItems": MAX_FINDINGS,
                "items": {
                    "type": "object",
                    "required": ["id", "severity", "confidence", "issue", "evidence", "suggested_ops"],
                    "properties": {
                        "id": text(40),
                        "severity": {"type": "string", "enum": words(&rules.severities)},
                        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                        "issue": text(MAX_VALUE_CHARS),
                        "evidence": text(MAX_VALUE_CHARS),
                        "suggested_ops": {
                            "type": "array",
                            "maxItems": MAX_OPS,
                            "items": {
                                "type": "object",
                                "required": ["op", "target", "value"],
                                "properties": {
                                    "op": {"type": "string", "enum": rules.ops.iter().map(|o| o.as_str()).collect::<Vec<_>>()},
                                    "target": {"type": "string", "enum": Target::ALL.iter().map(|t| t.as_str()).collect::<Vec<_>>()},
                                    "value": {"type": "string", "minLength": 1, "maxLength": MAX_VALUE_CHARS},
                                    "original": text(MAX_VALUE_CHARS)
                                }
                            }
                        }
                    }
                }
            },
            "no_issues": {"type": "boolean"}
        }
    })
}

/// Why an answer is not a reviewer's critique.
#[derive(Debug, thiserror::Error)]
pub enum Malformed {
    #[error(transparent)]
    Schema(#[from] crit_agent::structured::SchemaError),
    /// Not valid against the reviewer's schema (the reasons, one per line).
    #[error(transparent)]
    Mismatch(#[from] crit_agent::SchemaMismatch),
    #[error("not a critique: {0}")]
    NotACritique(#[source] serde_json::Error),
    #[error("says no_issues but lists {findings} finding(s)")]
    NoIssuesWithFindings { findings: usize },
}

/// Reads an answer as `rules.reviewer`'s critique: valid against its schema, its
/// own role, and not claiming `no_issues` while listing findings. Anything else
/// is malformed.
pub fn check(answer: &Value, rules: &Rules) -> Result<Critique, Malformed> {
    let validator = crit_agent::StructuredOutput::new(schema(rules))?;
    validator.validate(answer)?;
    let critique: Critique =
        serde_json::from_value(answer.clone()).map_err(Malformed::NotACritique)?;
    if critique.no_issues && !critique.findings.is_empty() {
        return Err(Malformed::NoIssuesWithFindings {
            findings: critique.findings.len(),
        });
    }
    Ok(critique)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> Rules {
        Rules {
            reviewer: "security".into(),
            ops: vec![OpKind::AddGuardrail, OpKind::AddConstraint],
            severities: vec![Severity::Blocker, Severity::Major],
        }
    }

    #[test]
    fn words_round_trip_and_map_onto_crit() {
        for s in Severity::ALL {
            assert_eq!(Severity::parse(s.as_str()), Some(s));
            assert_eq!(Severity::from_crit(s.to_crit()), s);
        }
        assert_eq!(Severity::Blocker.to_crit(), crit_core::Severity::P0);
        assert_eq!(Severity::Nit.to_crit(), crit_core::Severity::P3);
        for o in OpKind::ALL {
            assert_eq!(OpKind::parse(o.as_str()), Some(o));
        }
        assert!(Severity::Blocker < Severity::Nit);
    }

    #[test]
    fn schema_is_per_reviewer() {
        let s = schema(&rules());
        assert_eq!(
            s["properties"]["reviewer_role"]["enum"],
            json!(["security"])
        );
        let f = &s["properties"]["findings"]["items"]["properties"];
        assert_eq!(f["severity"]["enum"], json!(["blocker", "major"]));
        assert_eq!(
            f["suggested_ops"]["items"]["properties"]["op"]["enum"],
            json!(["AddGuardrail", "AddConstraint"])
        );
        assert!(s.get("$schema").is_none());
    }

    #[test]
    fn no_issues_with_findings_is_malformed() {
        let v = json!({"reviewer_role":"security","severity_max":"major","confidence":0.9,"no_issues":true,
            "findings":[{"id":"SEC-1","severity":"major","confidence":0.9,"issue":"i","evidence":"e","suggested_ops":[]}]});
        let e = check(&v, &rules()).unwrap_err();
        assert!(
            matches!(e, Malformed::NoIssuesWithFindings { findings: 1 }),
            "{e}"
        );
        assert!(e.to_string().contains("no_issues"));
    }
}
