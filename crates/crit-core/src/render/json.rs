//! The stable JSON document (schema: `schemas/review-result.schema.json`).

use crate::ReviewResult;

pub(super) fn render(result: &ReviewResult) -> String {
    super::pretty(&serde_json::to_value(result).unwrap_or_default())
}
