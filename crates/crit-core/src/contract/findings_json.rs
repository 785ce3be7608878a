//! The findings JSON contract (mala's reviewer), and its close cousins.
//!
//! Canonical form:
//! `{"verdict": "PASS"|"FAIL"|"NEEDS_WORK", "summary"?: "...", "findings": [{"file_path",
//! "line_start", "line_end", "priority": 0-3, "title": "[P1] ...", "body"}]}`.
//!
//! crit's own reviewers add, and are asked for: `"verdict": "INCOMPLETE"` (the
//! reviewer could not review all of the work), and per finding `evidence` (the
//! lines quoted from the file) and `convention` (the project rule quoted).
//! Both are optional here, so the original contract's answers still parse.
//! A finding's optional `suggestion` (the replacement text for its lines) is
//! read verbatim; it is checked against the file before it is offered.
//!
//! Also accepted, because models and tools really emit them:
//! - Cerberus/`review-gate`: `consensus_verdict` and `aggregated_findings`;
//! - Codex: `overall_correctness`, `overall_explanation`, `confidence_score`, and
//!   `code_location: {absolute_file_path, line_range: {start, end}}`, where
//!   `priority` is optional (taken from a `[Pn]` title tag, else P2);
//! - `"priority": "P1"` or `"1"`; numbers written as strings; a missing `line_end`
//!   is *not* accepted (the contract requires it), nor is `line_end < line_start`
//!   (mala reports it: the contract requires `line_end ≥ line_start`); line `0`
//!   means the whole file.
//!
//! Errors are exactly mala's reviewer's: `missing field: NAME`, `invalid verdict: VALUE`,
//! `invalid json: ...`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{ContractError, ParseContext, ParsedAnswer, extract};
use crate::{Finding, Location, Severity, Verdict, scale};

/// The canonical document a reviewer returns. Used to generate the published
/// schema (`schemas/findings.schema.json`) and the structured-output schema sent
/// to models; the parser itself reads leniently from `serde_json::Value`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "crit findings",
    description = "A reviewer's answer: a verdict and its findings."
)]
pub struct FindingsDocument {
    /// PASS when nothing needs fixing; FAIL when any P0 or P1 finding exists;
    /// NEEDS_WORK when only P2 or P3 findings exist; INCOMPLETE when the
    /// reviewer could not review all of the work (a tool failed, the budget
    /// ran out), which never passes. crit derives the final verdict from the
    /// findings.
    pub verdict: WireVerdict,
    /// One or two sentences on the overall state of the change (optional).
    // Optional because mala's reviewer answers without one.
    #[serde(default)]
    pub summary: String,
    /// Empty for PASS.
    pub findings: Vec<WireFinding>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum WireVerdict {
    Pass,
    Fail,
    NeedsWork,
    Incomplete,
}

/// One finding of the contract.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WireFinding {
    /// Path relative to the repository root.
    pub file_path: String,
    /// First line, 1-indexed.
    #[schemars(range(min = 1))]
    pub line_start: u32,
    /// Last line, at least line_start.
    #[schemars(range(min = 1))]
    pub line_end: u32,
    /// 0 = P0 blocker, 1 = P1 major, 2 = P2 should fix, 3 = P3 nit.
    #[schemars(range(min = 0, max = 3))]
    pub priority: u8,
    /// One line, at most 80 characters: what is wrong.
    pub title: String,
    /// Why it is a problem and how to fix it.
    pub body: String,
    /// The lines at the location, copied verbatim from the file (at most a
    /// few lines); crit checks them against the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
    /// For a breach of a project convention: the rule, quoted verbatim from
    /// the conventions given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub convention: Option<String>,
    /// Only when one of the team's learnings given to you covers this
    /// finding: the learning's id. crit checks its scope and dismisses the
    /// finding with the learning as the reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learning: Option<String>,
    /// Only for a local, certain fix: the exact lines that replace
    /// line_start..line_end, indentation kept (at most 20 lines, and at most
    /// three times the lines replaced). crit checks it against the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
}

/// Parse an answer in the findings JSON contract.
pub fn parse(text: &str, cx: &ParseContext<'_>) -> Result<ParsedAnswer, ContractError> {
    let object = locate_object(text)?;
    parse_object(&object, cx)
}

/// The contract object in `text`: the first candidate that is a JSON object with a
/// verdict or findings key; else the first object at all; else the JSON error.
fn locate_object(text: &str) -> Result<Map<String, Value>, ContractError> {
    let mut fallback: Option<Map<String, Value>> = None;
    for candidate in extract::candidates(text) {
        if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(candidate) {
            if CONTRACT_KEYS.iter().any(|k| map.contains_key(*k)) {
                return Ok(map);
            }
            fallback.get_or_insert(map);
        }
    }
    if let Some(map) = fallback {
        return Ok(map);
    }
    let Some(tail) = extract::from_first_brace(text) else {
        return Err(ContractError::InvalidJson(if text.trim().is_empty() {
            "empty output".to_string()
        } else {
            "no JSON object in output".to_string()
        }));
    };
    match serde_json::from_str::<Value>(tail) {
        Err(e) => Err(ContractError::InvalidJson(e.to_string())),
        // The tail parsed but is not an object, or was not found as a candidate.
        Ok(_) => Err(ContractError::InvalidJson(
            "expected a JSON object".to_string(),
        )),
    }
}

const CONTRACT_KEYS: [&str; 5] = [
    "verdict",
    "consensus_verdict",
    "overall_correctness",
    "findings",
    "aggregated_findings",
];

fn parse_object(
    obj: &Map<String, Value>,
    cx: &ParseContext<'_>,
) -> Result<ParsedAnswer, ContractError> {
    let codex = obj.contains_key("overall_correctness");
    let verdict = parse_verdict(obj)?;
    let findings_value = obj
        .get("findings")
        .or_else(|| obj.get("aggregated_findings"))
        .ok_or_else(|| ContractError::MissingField("findings".into()))?;
    let Value::Array(items) = findings_value else {
        return Err(invalid("findings", "expected an array"));
    };
    let findings = items
        .iter()
        .map(|item| parse_finding(item, codex, cx))
        .collect::<Result<Vec<_>, _>>()?;
    let summary = ["summary", "overall_explanation"]
        .iter()
        .find_map(|k| obj.get(*k).and_then(Value::as_str))
        .unwrap_or("")
        .trim()
        .to_string();
    Ok(ParsedAnswer {
        verdict,
        summary,
        findings,
        notes: Vec::new(),
    })
}

fn parse_verdict(obj: &Map<String, Value>) -> Result<Verdict, ContractError> {
    if let Some(v) = obj.get("verdict").or_else(|| obj.get("consensus_verdict")) {
        return match v {
            // The reviewer could not finish: never a pass.
            Value::String(s) if s == "INCOMPLETE" => Ok(Verdict::Incomplete),
            Value::String(s) => scale::findings_json_verdict(s)
                .ok_or_else(|| ContractError::InvalidVerdict(s.clone())),
            other => Err(ContractError::InvalidVerdict(other.to_string())),
        };
    }
    if let Some(v) = obj.get("overall_correctness") {
        return match v {
            Value::String(s) => {
                scale::codex_verdict(s).ok_or_else(|| ContractError::InvalidVerdict(s.clone()))
            }
            other => Err(ContractError::InvalidVerdict(other.to_string())),
        };
    }
    Err(ContractError::MissingField("verdict".into()))
}

fn parse_finding(
    item: &Value,
    codex: bool,
    cx: &ParseContext<'_>,
) -> Result<Finding, ContractError> {
    let Value::Object(f) = item else {
        return Err(invalid("findings", "each finding must be an object"));
    };
    let location = f.get("code_location").and_then(Value::as_object);
    let path = f
        .get("file_path")
        .or_else(|| f.get("file"))
        .or_else(|| {
            location.and_then(|l| l.get("absolute_file_path").or_else(|| l.get("file_path")))
        })
        .ok_or_else(|| ContractError::MissingField("file_path".into()))?;
    let path = match path {
        Value::String(s) if !s.trim().is_empty() => cx.relative_path(s),
        _ => return Err(invalid("file_path", "expected a non-empty string")),
    };
    let range = location
        .and_then(|l| l.get("line_range"))
        .and_then(Value::as_object);
    let start = f
        .get("line_start")
        .or_else(|| range.and_then(|r| r.get("start")))
        .ok_or_else(|| ContractError::MissingField("line_start".into()))?;
    let end = f
        .get("line_end")
        .or_else(|| range.and_then(|r| r.get("end")))
        .ok_or_else(|| ContractError::MissingField("line_end".into()))?;
    let start = line_number(start, "line_start")?;
    let end = line_number(end, "line_end")?;
    // Line 0 (the whole file) has no range to invert.
    if start > 0 && end < start {
        return Err(invalid(
            "line_end",
            &format!("expected at least line_start ({start}), got {end}"),
        ));
    }
    let title = required_string(f, "title")?;
    let body = required_string(f, "body")?;
    let severity = match f.get("priority") {
        Some(p) => scale::priority_severity(p).ok_or_else(|| {
            invalid(
                "priority",
                &format!("expected 0-3 or \"P0\"-\"P3\", got {p}"),
            )
        })?,
        None => match title_priority(&title) {
            Some(s) => s,
            None if codex => Severity::P2,
            None => return Err(ContractError::MissingField("priority".into())),
        },
    };
    let reviewer = f
        .get("reviewer")
        .and_then(Value::as_str)
        .unwrap_or(cx.reviewer);
    let loc = match start {
        0 => Location::file(path),
        s => Location::lines(path, s, end),
    };
    let mut finding = Finding::new(title.trim(), severity, reviewer)
        .with_body(body.trim())
        .with_location(loc);
    finding.evidence = optional_text(f, "evidence");
    finding.convention = optional_text(f, "convention");
    finding.learning = optional_text(f, "learning");
    // Verbatim: its indentation is part of the replacement lines.
    finding.suggestion = f
        .get("suggestion")
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .map(str::to_string);
    if let Some(c) = f
        .get("confidence_score")
        .or_else(|| f.get("confidence"))
        .and_then(Value::as_f64)
    {
        finding = finding.with_confidence(c);
    }
    Ok(finding)
}

/// A non-empty string field, or `None` (absent, empty or not a string: the
/// field is crit's own addition, so older answers without it still parse).
fn optional_text(f: &Map<String, Value>, field: &str) -> Option<String> {
    f.get(field)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn required_string(f: &Map<String, Value>, field: &str) -> Result<String, ContractError> {
    match f.get(field) {
        None => Err(ContractError::MissingField(field.into())),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(invalid(
            field,
            &format!("expected a string, got {}", kind(other)),
        )),
    }
}

/// A line number: a non-negative integer, or an integer written as a string.
fn line_number(v: &Value, field: &str) -> Result<u32, ContractError> {
    let n = match v {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                .map(|f| f as u64)
        }),
        Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => None,
    };
    n.and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| invalid(field, &format!("expected a line number, got {v}")))
}

fn title_priority(title: &str) -> Option<Severity> {
    let t = title.trim_start();
    let tag = t.strip_prefix('[')?.split(']').next()?;
    scale::priority_severity(&Value::String(tag.to_string()))
}

fn invalid(field: &str, reason: &str) -> ContractError {
    ContractError::InvalidField {
        field: field.into(),
        reason: reason.into(),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
