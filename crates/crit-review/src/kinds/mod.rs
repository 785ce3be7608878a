//! The review kinds, each in its own tree over the engine: template reviews
//! (and code review, the `code` template over a change), mala's code
//! reviewers for pipelines, a pull request's description written from its
//! change, prompt review, the plan's persona panel, an orchestrator
//! delegating to sub-agents (`crit run`). The benchmark (`crit bench`) is its
//! own crate, `crit_bench`, over this crate's API.

pub mod code;
pub mod converse;
pub mod describe;
pub mod orchestrate;
pub mod plan;
pub mod prompt;
pub mod template;
