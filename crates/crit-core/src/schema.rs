//! JSON Schemas generated from the Rust types. The checked-in copies under
//! `schemas/` are published; a test fails when they drift from these.

use schemars::generate::SchemaSettings;

use crate::ReviewResult;
use crate::contract::findings_json::FindingsDocument;

/// The schema of the `ReviewResult` JSON document (`--format json`).
pub fn review_result() -> serde_json::Value {
    let schema = SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<ReviewResult>();
    serde_json::to_value(schema).unwrap_or_default()
}

/// The schema of the findings JSON contract reviewers answer in (generated
/// once per process: a review asks for it several times).
pub fn findings_contract() -> serde_json::Value {
    static CONTRACT: std::sync::LazyLock<serde_json::Value> = std::sync::LazyLock::new(|| {
        let schema = SchemaSettings::draft2020_12()
            .into_generator()
            .into_root_schema_for::<FindingsDocument>();
        serde_json::to_value(schema).unwrap_or_default()
    });
    CONTRACT.clone()
}
