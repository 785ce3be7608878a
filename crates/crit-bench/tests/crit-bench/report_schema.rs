//! The benchmark's published report shape.

use std::path::PathBuf;

/// `schemas/bench-report.schema.json` is generated from the report's types.
/// Regenerate with `CRIT_UPDATE_SCHEMAS=1 cargo test -p crit-bench bench_report_schema`.
#[test]
fn bench_report_schema_is_current() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../schemas/bench-report.schema.json");
    let mut text = serde_json::to_string_pretty(&crit_bench::schema()).unwrap();
    text.push('\n');
    if std::env::var_os("CRIT_UPDATE_SCHEMAS").is_some() {
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == text,
        "{} differs from the schema generated from the Rust types; if the change is intended, run \
         CRIT_UPDATE_SCHEMAS=1 cargo test -p crit-bench bench_report_schema and commit the result",
        path.display()
    );
}
