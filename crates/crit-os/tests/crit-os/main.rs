//! crit-os's integration tests: one test binary, a module per area.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod git;
mod git_early;
mod process;
mod write;
mod write_race;
