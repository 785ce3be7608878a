//! crit-review's tests: review kinds run against crit-testkit's fake model
//! servers on real temporary repositories.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod scope_support;
mod support_code;

mod cache_decision;
mod cli_schema;
mod code_reviewer;
mod converse_prompts;
mod flagged;
mod gate_property;
mod learnings;
mod orchestrate;
mod panel;
mod scope_filter;
mod session;
mod templates;
mod trust;
