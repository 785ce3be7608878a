//! Which project, whose rules, which settings: the project a review runs in
//! (its root and repository), whose rules judge the change (`trust`: the
//! working tree as the user trusted it, or in CI the base revision), the
//! config files crit reads (`config`: crit's own, mala.yaml, Reldo's, the
//! prompt-review plugin's), the backend they choose, the change under review
//! (`scope`), the project's conventions (`context`), suppressions, and
//! reviewers defined in `.claude/agents`. Every front end gets these here.

// A library never writes to the terminal: what it has to say goes to its caller.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![warn(unreachable_pub)]

pub mod agent_defs;
pub mod config;
pub mod context;
pub mod error;
pub mod learnings;
pub mod paths;
mod project;
pub mod project_command;
pub mod scope;
pub mod settings;
pub mod suppress;
pub mod trust;

pub use error::FileError;
pub use project::{Project, ProjectError};
pub use settings::{Explicit, Kind, PanelStart, Respond, Reviewer, Settings, TemplateDirs};
