//! What every review kind runs on: the prompts crit adds to a reviewer's
//! (the preamble, the answer contracts, rendering), the panel that runs
//! reviewers concurrently and reads their answers, the session log and audit
//! line, the redaction of what reviewers are sent, the per-hunk cache, and the pace
//! of a review's requests.

pub(crate) mod hunk_cache;
pub mod learnings;
pub(crate) mod pace;
pub mod panel;
pub(crate) mod prompts;
pub(crate) mod redaction;
pub mod session;
