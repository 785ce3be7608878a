//! The checked-in schemas under `schemas/` are generated from the Rust types.
//! Regenerate with `CRIT_UPDATE_SCHEMAS=1 cargo test -p crit-core --test crit-core schema_drift`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

fn check(file: &str, generated: serde_json::Value) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../schemas")
        .join(file);
    let mut text = serde_json::to_string_pretty(&generated).unwrap();
    text.push('\n');
    if std::env::var_os("CRIT_UPDATE_SCHEMAS").is_some() {
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == text,
        "{} differs from the schema generated from the Rust types; if the change is intended, run \
         CRIT_UPDATE_SCHEMAS=1 cargo test -p crit-core --test crit-core schema_drift and commit the result",
        path.display()
    );
}

#[test]
fn review_result_schema_is_current() {
    check(
        "review-result.schema.json",
        crit_core::schema::review_result(),
    );
}

#[test]
fn findings_contract_schema_is_current() {
    check(
        "findings.schema.json",
        crit_core::schema::findings_contract(),
    );
}
