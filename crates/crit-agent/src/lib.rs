//! crit's in-process agent. This part holds the reviewer tools the agent loop hands
//! to a model: `Read`, `Glob`, `Grep` and a restricted `Bash`. They are read-only and
//! confined to the project root plus `--add-dir` roots (DESIGN §5): every file path
//! goes through [`confine`], Bash runs no shell and only allow-listed read-only
//! programs. A tool never fails the run: bad input, refusals and I/O problems come
//! back as a [`ToolOutput`] with `is_error` set, worded for the model.

pub mod confine;
pub mod context;
mod input;
pub mod registry;
pub mod tool;
pub mod tools;
mod truncate;

pub use confine::{ConfineError, Roots};
pub use context::{Limits, ToolContext};
pub use registry::{RegistryError, ToolRegistry};
pub use tool::{Tool, ToolFuture, ToolOutput};
pub use tools::{BashTool, GlobTool, GrepTool, ReadTool};
