//! SARIF 2.1.0: valid against both the OASIS schema and its Errata 01, so GitHub
//! code scanning and other consumers accept it.
//!
//! One rule per rule id (a deterministic check) or per reviewer (an LLM reviewer);
//! levels from severity; stable ids in `partialFingerprints`. A review that did
//! not finish says so in `invocations` rather than looking like a clean run.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{Level, RenderOptions, level, message, plain, plain_line};
use crate::{Finding, ReviewResult};

const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// The key under which our fingerprint goes. Versioned so a change of algorithm
/// is not mistaken for a different finding set by consumers.
pub(super) const FINGERPRINT_KEY: &str = "critFindingId/v1";

pub(super) fn render(result: &ReviewResult, options: &RenderOptions) -> String {
    let findings = result.sorted_findings();
    let rules = rules(&findings);
    let index: BTreeMap<&str, usize> = rules
        .iter()
        .enumerate()
        .map(|(i, r)| (r.id.as_str(), i))
        .collect();
    let results: Vec<Value> = findings
        .iter()
        .map(|f| {
            let id = rule_id(f);
            sarif_result(f, &id, index.get(id.as_str()).copied().unwrap_or(0))
        })
        .collect();
    let rules_json: Vec<Value> = rules.iter().map(Rule::to_json).collect();
    let mut invocation =
        json!({"executionSuccessful": !result.fatal_error && result.parse_error.is_none()});
    if let Some(err) = &result.parse_error {
        invocation["toolExecutionNotifications"] = json!([{
            "level": "error",
            "message": {"text": plain(&format!("{} ({}): {err}", result.verdict, result.review))},
        }]);
    }
    let doc = json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": options.tool_name,
                "version": options.tool_version,
                "semanticVersion": options.tool_version,
                "informationUri": options.tool_uri,
                "rules": rules_json,
            }},
            "invocations": [invocation],
            "results": results,
            "properties": {
                "review": plain_line(&result.review),
                "verdict": result.verdict.as_str(),
                "passed": result.passed,
            },
        }],
    });
    super::pretty(&doc)
}

struct Rule {
    id: String,
    description: String,
    level: Level,
}

impl Rule {
    fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "name": pascal(&self.id),
            "shortDescription": {"text": self.description},
            "defaultConfiguration": {"level": level_name(self.level)},
        })
    }
}

fn rules(findings: &[&Finding]) -> Vec<Rule> {
    let mut by_id: BTreeMap<String, Rule> = BTreeMap::new();
    for f in findings {
        let id = rule_id(f);
        let l = level(f.severity);
        let entry = by_id.entry(id.clone()).or_insert_with(|| Rule {
            description: match &f.rule_id {
                Some(_) => plain_line(&f.title),
                None => plain_line(&format!("Findings of the {} reviewer", reviewer_name(f))),
            },
            id,
            level: l,
        });
        // The rule's default level is its most severe finding's level.
        if severity_rank(l) < severity_rank(entry.level) {
            entry.level = l;
        }
    }
    by_id.into_values().collect()
}

fn rule_id(f: &Finding) -> String {
    plain_line(
        &f.rule_id
            .clone()
            .unwrap_or_else(|| format!("crit/{}", reviewer_name(f))),
    )
}

fn reviewer_name(f: &Finding) -> &str {
    if f.reviewer.is_empty() {
        "reviewer"
    } else {
        &f.reviewer
    }
}

fn sarif_result(f: &Finding, rule_id: &str, rule_index: usize) -> Value {
    let mut r = json!({
        "ruleId": rule_id,
        "ruleIndex": rule_index,
        "level": level_name(level(f.severity)),
        "message": {"text": plain(&message(f))},
        "partialFingerprints": {FINGERPRINT_KEY: f.id},
        "properties": {"severity": f.severity.code(), "reviewer": plain_line(&f.reviewer)},
    });
    if let Some(c) = f.confidence {
        r["properties"]["confidence"] = json!(c);
    }
    if let Some(loc) = &f.location {
        let mut physical = json!({"artifactLocation": {"uri": uri_reference(loc.path()), "uriBaseId": "%SRCROOT%"}});
        if let Some(start) = loc.start_line() {
            physical["region"] = json!({"startLine": start.max(1), "endLine": loc.end_line().unwrap_or(start).max(start.max(1))});
        }
        r["locations"] = json!([{"physicalLocation": physical}]);
        if let Some(fix) = fix(f, loc.path()) {
            r["fixes"] = json!([fix]);
        }
        if let crate::Location::Document {
            heading: Some(h), ..
        } = loc
        {
            r["locations"][0]["logicalLocations"] =
                json!([{"name": plain_line(h), "kind": "member"}]);
        }
    }
    r
}

/// The suggestion as a SARIF fix: the whole lines are replaced (a region of
/// lines without columns ends before the last line's newline, and the text
/// has none).
fn fix(f: &Finding, path: &str) -> Option<Value> {
    let text = crate::suggestion::replacement(f)?;
    let (start, end) = crate::suggestion::range(f)?;
    Some(json!({
        "description": {"text": format!("Suggested by the {} reviewer", reviewer_name(f))},
        "artifactChanges": [{
            "artifactLocation": {"uri": uri_reference(path), "uriBaseId": "%SRCROOT%"},
            "replacements": [{
                "deletedRegion": {"startLine": start, "endLine": end},
                "insertedContent": {"text": text},
            }],
        }],
    }))
}

fn level_name(l: Level) -> &'static str {
    match l {
        Level::Error => "error",
        Level::Warning => "warning",
        Level::Note => "note",
    }
}

fn severity_rank(l: Level) -> u8 {
    match l {
        Level::Error => 0,
        Level::Warning => 1,
        Level::Note => 2,
    }
}

/// `crit/code-review` → `CritCodeReview`: SARIF's `name` is an identifier.
fn pascal(id: &str) -> String {
    id.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// Percent-encode what may not appear in a relative URI reference.
fn uri_reference(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.trim_start_matches("./").bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_encoding() {
        assert_eq!(uri_reference("src/a b/ü.rs"), "src/a%20b/%C3%BC.rs");
        assert_eq!(uri_reference("./x.rs"), "x.rs");
    }

    #[test]
    fn pascal_names() {
        assert_eq!(pascal("crit/code-review"), "CritCodeReview");
    }
}
