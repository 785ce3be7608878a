//! The stable JSON document (schema: `schemas/review-result.schema.json`).
//! Fields keep the struct's order, so `schema_version`, `verdict` and `passed`
//! come first for a person reading it.

use crate::ReviewResult;

pub(super) fn render(result: &ReviewResult) -> String {
    let mut s = serde_json::to_string_pretty(result).unwrap_or_default();
    s.push('\n');
    s
}
