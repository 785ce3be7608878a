//! The review kinds, each in its own tree over the engine: template reviews
//! (and code review, the `code` template over a change), mala's code
//! reviewers for pipelines, prompt review, the plan's persona panel, and an
//! orchestrator delegating to sub-agents (`crit run`).

pub mod code;
pub mod orchestrate;
pub mod plan;
pub mod prompt;
pub mod template;
