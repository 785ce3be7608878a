//! crit-agent's integration tests: one test binary, a module per former test file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod kit;

mod agent_loop;
mod bash_enclosed;
mod bash_exec;
mod bash_policy;
mod confine;
mod git_layout;
mod glob;
mod grep;
mod hooks;
mod mcp;
mod prompts;
mod read;
mod registry;
mod sandbox;
mod secret_slices;
mod subagents;
