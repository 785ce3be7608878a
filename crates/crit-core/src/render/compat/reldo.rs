//! Reldo's `reldo review --json`: the fields of its `ReviewResult`
//! (`text`, `structured_output`, `input_tokens`, `output_tokens`,
//! `total_tokens`, `total_cost_usd`, `duration_ms`), and `{"error": …}` when
//! the review could not run.
//!
//! Token counts are every input token (cached or not) and every output token,
//! of the orchestrator and its sub-agents together. `total_cost_usd` is
//! `null` when a model has no known price (Reldo reports the SDK's figure;
//! crit does not make one up).

use serde::Serialize;
use serde_json::Value;

use crate::ReviewResult;

/// Reldo's result, its fields in Reldo's order.
#[derive(Serialize)]
#[serde(untagged)]
pub enum Shape<'a> {
    Result {
        text: &'a str,
        structured_output: Option<&'a Value>,
        input_tokens: u64,
        output_tokens: u64,
        total_tokens: u64,
        total_cost_usd: Option<f64>,
        duration_ms: u64,
    },
    Error {
        error: String,
    },
}

pub fn shape(result: &ReviewResult) -> Shape<'_> {
    // ERROR: the backend failed (a 401, a crash) and nothing answered. Reldo's
    // SDK raises there, and its CLI prints the error, not an empty result.
    if result.fatal_error || result.verdict == crate::Verdict::Error {
        let error = result
            .parse_error
            .clone()
            .or_else(|| result.reviewers.iter().find_map(|r| r.error.clone()))
            .unwrap_or_else(|| "the review could not run".to_string());
        return Shape::Error { error };
    }
    if let Some(error) = timed_out(result) {
        return Shape::Error { error };
    }
    let input = result.usage.total_input();
    let output = result.usage.output_tokens;
    Shape::Result {
        text: &result.raw_output,
        structured_output: result.structured_output.as_ref(),
        input_tokens: input,
        output_tokens: output,
        total_tokens: input + output,
        total_cost_usd: result.cost_usd,
        duration_ms: result.duration_ms,
    }
}

/// Reldo's review raises on its timeout, and its CLI prints the error: a
/// run that timed out is an error here too, never an empty-looking result.
pub fn timed_out(result: &ReviewResult) -> Option<String> {
    if result.parse_error.as_deref() != Some("timeout") {
        return None;
    }
    let detail = result
        .reviewers
        .iter()
        .filter_map(|r| r.error.as_deref())
        .find(|e| e.starts_with("timed out"));
    Some(match detail {
        Some(d) => format!("the review {d}; raise timeout_seconds or --timeout"),
        None => "the review timed out; raise timeout_seconds or --timeout".to_string(),
    })
}

pub fn value(result: &ReviewResult) -> Value {
    serde_json::to_value(shape(result)).unwrap_or(Value::Null)
}
