//! Prompt review: specialist reviewers critique a prompt before an agent runs
//! it, a deterministic editor merges their edit operations into a refined
//! prompt, and the user approves the difference (the prompt-review plugin for
//! Claude Code, in crit).
//!
//! ```text
//! context (stack, conventions, files) → reviewers in parallel → editor → approval
//! ```
//!
//! [`run::review`] is the whole pipeline for one prompt, with a deadline; it
//! never fails (prompt review fails open, loudly) and returns a
//! [`PromptReview`]: the refined prompt, the diff, every critique and what the
//! editor did with it. Its options come from a project's settings, one way
//! for every caller ([`PromptSettings::of`], [`PromptOptions::from_settings`]).
//! A caller (the CLI, a Claude Code hook) renders it with
//! [`render`], asks the user, records the decision with
//! [`PromptReview::decide`] and appends the [`audit`] line.
//!
//! It runs on crit-review's engine (the panel runner, crit's answer contracts,
//! redaction, the audit directory) through that crate's public API; crit-review
//! knows nothing of prompt review.

// A library never writes to the terminal: what it has to say goes to its caller.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![warn(unreachable_pub)]

pub mod audit;
pub mod backend;
pub mod cache;
pub mod context;
pub mod critique;
pub mod editor;
pub mod gate;
mod guardrails;
mod markdown;
pub mod model_editor;
pub mod render;
pub mod result;
pub mod reviewers;
pub mod run;
pub mod settings;
pub mod stack;
pub mod triggers;

pub use result::{Decision, FailedBecause, Outcome, PromptReview, Status};
pub use run::{PromptOptions, PromptRequest, review};
pub use settings::PromptSettings;
