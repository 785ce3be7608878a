//! crit-llm's integration tests: one test binary, a module per former test file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod anthropic;
mod claude_code;
mod claude_code_real;
mod openai;
mod replay;
mod select;
mod test_deps;
mod transport;
