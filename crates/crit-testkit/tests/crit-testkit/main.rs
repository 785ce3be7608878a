//! crit-testkit's integration tests: one test binary, a module per former test file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod fake_claude;
mod forges;
mod sdk_anthropic;
mod sdk_openai;
mod server_wire;
mod server_wire_agents;
mod test_deps;
