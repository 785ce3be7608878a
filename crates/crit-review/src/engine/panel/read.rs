//! A finished answer read with the reviewer's output contract: verdict,
//! summary and findings, or a `parse_error` with verdict UNKNOWN.

use crit_agent::StructuredOutput;
use crit_core::contract::{self, Contract, ContractError, ParseContext};
use crit_core::{ReviewerStatus, Verdict};
use serde_json::Value;

use super::ReviewerRun;
use crate::engine::prompts::OutputSpec;

/// Parses a finished answer into `run`: verdict, summary, findings; or a
/// `parse_error` with verdict UNKNOWN.
pub(super) fn read_answer(
    run: &mut ReviewerRun,
    output: &OutputSpec,
    text: &str,
    structured: Option<Value>,
    cx: &ParseContext<'_>,
) {
    // crit's findings contract: the verdict is crit's to derive from the findings.
    let findings_contract = matches!(output, OutputSpec::Contract(Contract::FindingsJson));
    let parsed = match output {
        OutputSpec::Contract(Contract::FindingsJson) => {
            let source = structured.map_or_else(|| text.to_string(), |v| v.to_string());
            contract::parse_any(Contract::FindingsJson, &source, cx)
        }
        OutputSpec::Contract(c) => contract::parse_any(*c, text, cx),
        OutputSpec::Schema(schema) => {
            let value = structured.or_else(|| {
                contract::extract::candidates(text)
                    .into_iter()
                    .find_map(|c| serde_json::from_str::<Value>(c).ok())
            });
            // The schema decides, however the answer came: as text, through
            // crit's tool, or through Claude Code's (which checks a rewrite of
            // the schema in its own dialect, looser where draft-07 has no
            // equivalent).
            let mismatch = value.as_ref().and_then(|v| {
                StructuredOutput::new(schema.clone())
                    .map_err(|e| e.to_string())
                    .and_then(|s| s.validate(v).map_err(|e| e.to_string()))
                    .err()
            });
            match (value, mismatch) {
                (Some(_), Some(why)) => Err(ContractError::SchemaMismatch(why)),
                (Some(v), None) => {
                    let verdict = schema_verdict(&v, cx);
                    run.structured = Some(v);
                    verdict
                }
                (None, _) => Err(ContractError::InvalidJson(
                    "the answer holds no JSON object".into(),
                )),
            }
        }
    };
    if let Ok(p) = &parsed {
        run.notes.extend(p.notes.iter().cloned());
    }
    match parsed {
        Ok(p) if p.verdict == Verdict::Unknown => {
            run.outcome.status = ReviewerStatus::ParseError;
            run.parse_error = Some(no_verdict(output, text));
            run.findings = p.findings;
            run.summary = p.summary;
        }
        Ok(p) => {
            run.outcome.verdict = p.verdict;
            run.findings = p.findings;
            run.derived = findings_contract;
            if p.verdict == Verdict::Incomplete {
                // The reviewer said it could not review all of the work.
                run.outcome.status = ReviewerStatus::Incomplete;
                run.outcome.error = Some(format!(
                    "the reviewer could not review all of the work: {}",
                    p.summary.trim()
                ));
            }
            run.summary = p.summary;
        }
        Err(e) => {
            run.outcome.status = ReviewerStatus::ParseError;
            run.outcome.verdict = Verdict::Unknown;
            run.parse_error = Some(e.to_string());
            run.outcome.error = Some(e.to_string());
        }
    }
}

/// The verdict of an answer in a caller's schema: a `passed` boolean decides
/// when there is one; else crit's own findings contract, when the answer has
/// its shape; else none (UNKNOWN — never a pass).
fn schema_verdict(
    v: &Value,
    cx: &ParseContext<'_>,
) -> Result<contract::ParsedAnswer, ContractError> {
    let summary = v
        .get("summary")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    if v.get("verdict").is_some() {
        return contract::parse(Contract::FindingsJson, &v.to_string(), cx);
    }
    match v.get("passed").and_then(Value::as_bool) {
        Some(passed) => Ok(contract::ParsedAnswer {
            verdict: if passed { Verdict::Pass } else { Verdict::Fail },
            summary,
            findings: Vec::new(),
            notes: Vec::new(),
        }),
        None => Err(ContractError::NoVerdict(
            "the answer has neither a `passed` boolean nor a `verdict`".into(),
        )),
    }
}

/// The `parse_error` of an answer that names no verdict, in its contract's words.
fn no_verdict(output: &OutputSpec, text: &str) -> String {
    match output {
        OutputSpec::Contract(c) => contract::no_verdict_error(*c, text),
        OutputSpec::Schema(_) => contract::markdown::NO_VERDICT.to_string(),
    }
}
