//! crit-bench's tests, over its public API.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod martian_fixture;
mod report_schema;
