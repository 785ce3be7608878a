//! Prompt review: specialist reviewers critique a prompt before an agent runs
//! it, a deterministic editor merges their edit operations into a refined
//! prompt, and the user approves the difference.

pub mod config;
mod config_check;
pub mod context;
pub mod critique;
pub mod editor;
pub mod hash;
pub mod reviewers;
pub mod stack;
pub mod triggers;
