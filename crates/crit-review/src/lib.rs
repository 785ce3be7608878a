//! crit's reviews: an engine every kind runs on (the prompts crit adds, the
//! panel that runs reviewers concurrently and reads their answers, session
//! logs and the audit line, redaction of what reviewers are sent, the per-hunk
//! cache) and the review kinds over it, each in its own module: `template`
//! (review templates, and code review as the `code` template over a change),
//! `code` (mala's code reviewers for pipelines), `describe` (a pull request's
//! description written from its change), `plan` (the plan's persona panel),
//! `orchestrate` (`crit run`). Which project, whose rules and which settings
//! are `crit_project`'s; prompt review is `crit_prompt`'s; what the audit logs
//! say (`crit stats`) and the benchmark (`crit bench`) are `crit_bench`'s,
//! over this API.
//!
//! The public API is what this file exports: the kinds' modules, the panel's
//! progress events, sessions and the audit log, `review` to run a template
//! or code review, `render_prompt` (a prompt with crit's partials) and
//! `contract_instructions` (what a reviewer answers in), and `starter`
//! (`crit init`).

// A library never writes to the terminal: what it has to say goes to its caller.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![warn(unreachable_pub)]

mod engine;
mod kinds;
pub mod starter;

pub use engine::prompts::{
    OutputSpec, PREAMBLE, PromptError, contract_instructions, render_prompt,
};
pub use engine::{learnings, panel, session};
pub use kinds::{code, converse, describe, orchestrate, plan, template};

/// Running a template review — code review is the `code` template over a
/// change — from start to finish.
pub mod review {
    pub use crate::engine::hunk_cache::HunkCache;
    /// Which hunks of a finished review the hunk cache keeps.
    pub use crate::engine::hunk_cache::decide::{
        PartHunk, ReviewFinding, ReviewedPart, hunks_to_store,
    };
    pub use crate::kinds::template::checks::disputed::DisputeDismissal;
    pub use crate::kinds::template::{
        CostPlan, Finish, HoldToLimit, PartLimits, ReviewError, ReviewOptions, ReviewRequest,
        Spending, UnknownVerifyMode, VerifyMode, VerifySettings, run_template, run_template_or,
        run_template_with_follow_up, sends_unpriced,
    };
}
