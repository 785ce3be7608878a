//! Fixtures for prompt review tests: critiques in the prompt-review plugin's
//! schema, the needle that routes a request to one reviewer, and the answers
//! of a panel to the plugin's example prompt, "optimize the settings page".

use serde_json::{Value, json};

/// Each reviewer's label (as its system prompt says it) and role.
pub const REVIEWERS: [(&str, &str); 6] = [
    ("Domain SME", "domain_sme"),
    ("Security", "security"),
    ("Clarity", "clarity"),
    ("Testing", "testing"),
    ("Frontend/UX", "frontend_ux"),
    ("Documentation", "documentation"),
];

/// The example prompt.
pub const VAGUE: &str = "optimize the settings page";

/// What a request to the reviewer labelled `label` contains (its system prompt).
pub fn who(label: &str) -> String {
    format!("You are the {label} reviewer")
}

/// A critique by `role`; no findings means `no_issues`.
pub fn critique(role: &str, findings: Value) -> Value {
    let none = findings.as_array().is_none_or(Vec::is_empty);
    json!({"reviewer_role": role, "severity_max": if none {"nit"} else {"major"}, "confidence": 0.9,
           "findings": findings, "no_issues": none})
}

/// One finding with one op (target `constraints`).
pub fn finding(id: &str, severity: &str, evidence: &str, op: &str, value: &str) -> Value {
    json!({"id": id, "severity": severity, "confidence": 0.8, "issue": format!("{id}: the prompt is vague"),
           "evidence": evidence, "suggested_ops": [{"op": op, "target": "constraints", "value": value}]})
}

/// The four always-on reviewers' answers to [`VAGUE`], by label: one change each.
pub fn vague_panel() -> Vec<(&'static str, Value)> {
    vec![
        (
            "Domain SME",
            critique(
                "domain_sme",
                json!([finding(
                    "SME-001",
                    "major",
                    "settings page",
                    "AddConstraint",
                    "Follow the existing functional style in src/: pure functions, named exports, no classes"
                )]),
            ),
        ),
        (
            "Security",
            critique(
                "security",
                json!([finding(
                    "SEC-001",
                    "major",
                    "",
                    "AddGuardrail",
                    "Never commit .env or expose ANTHROPIC_API_KEY in generated code"
                )]),
            ),
        ),
        (
            "Clarity",
            critique(
                "clarity",
                json!([finding(
                    "CLR-001",
                    "minor",
                    "optimize the settings",
                    "ReplaceVague",
                    "Reduce settings.ts render time by extracting the browser config section into a separate component"
                )]),
            ),
        ),
        (
            "Testing",
            critique(
                "testing",
                json!([finding(
                    "TST-001",
                    "minor",
                    "",
                    "AddAcceptanceCriteria",
                    "Run npm run test after changes. All existing tests must pass."
                )]),
            ),
        ),
    ]
}

/// What the editor makes of [`vague_panel`] on [`VAGUE`].
pub const VAGUE_REFINED: &str = "Reduce settings.ts render time by extracting the browser config section into a separate component page\n\n\
## Constraints\n\
- Follow the existing functional style in src/: pure functions, named exports, no classes\n\n\
## Guardrails\n\
- Never commit .env or expose ANTHROPIC_API_KEY in generated code\n\n\
## Acceptance criteria\n\
- Run npm run test after changes. All existing tests must pass.";

/// Every reviewer of [`REVIEWERS`] answers "no issues".
pub fn no_issues_panel() -> Vec<(&'static str, Value)> {
    REVIEWERS
        .iter()
        .map(|(label, role)| (*label, critique(role, json!([]))))
        .collect()
}

/// What the request checking a refined prompt against the Security
/// reviewer's guardrails holds (its system prompt).
pub const GUARDRAIL_CHECK: &str =
    "check prompts for AI coding agents against their security guardrails";

/// The guardrail check's answer when no edit breaks a guardrail.
pub fn no_contradictions() -> Value {
    json!({"contradictions": []})
}
