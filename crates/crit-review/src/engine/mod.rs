//! What every review kind runs on: the prompts crit adds to a reviewer's
//! (the preamble, the answer contracts, rendering), the panel that runs
//! reviewers concurrently and reads their answers, the session log and audit
//! line, the redaction of what reviewers are sent, and the per-hunk cache.

pub(crate) mod hunk_cache;
pub mod panel;
pub(crate) mod prompts;
pub(crate) mod redaction;
pub mod session;
