//! The reviewer tools. Each is a unit struct; all state lives in `ToolContext`.

pub(crate) mod bash;
mod glob;
mod grep;
mod read;
mod todo;
mod walk;

pub use bash::BashTool;
pub use bash::git::{ALLOWED_SUBCOMMANDS as GIT_SUBCOMMANDS, GitCall, HARDENING as GIT_HARDENING};
pub use bash::policy::ALLOWED_PROGRAMS;
pub use bash::policy::{BashPolicyError, CheckedCommand, check_command};
pub use glob::GlobTool;
pub use grep::GrepTool;
pub use read::ReadTool;
pub use todo::TodoWriteTool;

use crate::context::ToolContext;
use crate::tool::ToolOutput;

/// Runs blocking file work off the async threads; a cancelled run or a panicking
/// worker becomes an error output rather than ending the agent.
async fn blocking<F>(cx: &ToolContext, work: F) -> ToolOutput
where
    F: FnOnce() -> ToolOutput + Send + 'static,
{
    let task = tokio::task::spawn_blocking(work);
    tokio::select! {
        joined = task => joined.unwrap_or_else(|e| ToolOutput::error(format!("tool failed internally: {e}"))),
        () = cx.cancel.cancelled() => ToolOutput::error("cancelled"),
    }
}
