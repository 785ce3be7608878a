//! crit-project's tests: real temporary git repositories and project trees.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod scope_support;

mod agent_defs;
mod context;
mod scope;
mod scope_counts;
mod scope_defaults;
mod scope_shard;
mod scope_union;
mod suppress;
