//! crit-checks's integration tests: one test binary, a module per area.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod expert_review;
mod never_panic;
mod symlinks;
