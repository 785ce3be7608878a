//! The review kinds, each in its own tree over the engine: template reviews
//! (and code review, the `code` template over a change), mala's code
//! reviewers for pipelines, a pull request's description written from its
//! change, the plan's persona panel, an orchestrator delegating to
//! sub-agents (`crit run`). Prompt review (`crit_prompt`) and the benchmark
//! (`crit_bench`) are their own crates, over this crate's API.

pub mod code;
pub mod converse;
pub mod describe;
pub mod orchestrate;
pub mod plan;
pub mod template;
