//! crit's end-to-end tests: the binary, run on temporary directories against
//! crit-testkit's fake servers. One test binary for the crate, so the world
//! is linked once, not once per file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

mod action;
mod bench;
mod bounds;
mod ci_base;
mod ci_formats;
mod claude_code_hooks_real;
mod claude_code_real;
mod code_review;
mod colors;
mod completions;
mod config;
mod confine_git;
mod confine_home;
mod doctor;
mod dropin_expert_review;
mod dropin_mala;
mod dropin_reldo;
mod dropin_templates;
mod fail_closed;
mod help;
mod hostile_files;
mod install_claude;
mod output_schema;
mod plan_cli;
mod plan_first_run;
mod plan_gate;
mod plan_hook;
mod plan_panel;
mod plan_pty;
mod pre_commit;
mod prompt_claude_real;
mod prompt_cli;
mod prompt_hook;
mod prompt_pty;
mod readme;
mod report;
mod review;
mod review_claude_code;
mod review_consensus;
mod review_cost;
mod review_quality;
mod review_run;
mod run_cli;
mod secrets;
mod shards;
mod signals;
mod stats;
mod stop_gate;
mod test_deps;
mod trust_ci;
mod trust_local;
