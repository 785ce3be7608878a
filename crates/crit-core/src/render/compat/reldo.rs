//! Reldo's `reldo review --json`: the fields of its `ReviewResult`
//! (`text`, `structured_output`, `input_tokens`, `output_tokens`,
//! `total_tokens`, `total_cost_usd`, `duration_ms`), and `{"error": …}` when
//! the review could not run.
//!
//! Token counts are every input token (cached or not) and every output token,
//! of the orchestrator and its sub-agents together. `total_cost_usd` is
//! `null` when a model has no known price (Reldo reports the SDK's figure;
//! crit does not make one up).

use serde_json::{Value, json};

use crate::ReviewResult;

pub fn value(result: &ReviewResult) -> Value {
    if result.fatal_error {
        let error = result
            .parse_error
            .clone()
            .unwrap_or_else(|| "the review could not run".to_string());
        return json!({ "error": error });
    }
    let input = result.usage.total_input();
    let output = result.usage.output_tokens;
    json!({
        "text": result.raw_output,
        "structured_output": result.structured_output,
        "input_tokens": input,
        "output_tokens": output,
        "total_tokens": input + output,
        "total_cost_usd": result.cost_usd,
        "duration_ms": result.duration_ms,
    })
}
