//! The stable JSON document (schema: `schemas/review-result.schema.json`).
//! Fields keep the struct's order, so `schema_version`, `verdict` and `passed`
//! come first for a person reading it. Text stays as written: JSON escapes
//! control characters, and [`crate::printable::json_document`] the rest.

use crate::ReviewResult;

pub(super) fn render(result: &ReviewResult) -> String {
    // Findings most severe first, as every other format lists them.
    let mut sorted = result.clone();
    sorted.findings = result.sorted_findings().into_iter().cloned().collect();
    let mut s =
        crate::printable::json_document(serde_json::to_string_pretty(&sorted).unwrap_or_default());
    s.push('\n');
    s
}
