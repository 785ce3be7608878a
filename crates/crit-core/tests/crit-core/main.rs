//! crit-core's integration tests: one test binary, a module per former test file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod findings_json;
mod markdown_contract;
mod merge;
mod parsers_never_panic;
mod render_ci_formats;
mod render_golden;
mod render_hostile;
mod render_schemas;
mod schema_drift;
mod secret_corpus;
