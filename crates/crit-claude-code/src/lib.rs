//! crit in Claude Code: the hooks (`UserPromptSubmit` runs prompt review on
//! `!!!`, `Stop` and `SubagentStop` gate the agent on a code review,
//! `PreToolUse` holds `ExitPlanMode` until the plan is approved), the status
//! line, and `crit install claude-code`. The binary reads stdin and writes
//! what a hook answers; every decision and text is here, and every setting
//! comes from `crit_project`, as `crit review code` gets it.

// A library never writes to the terminal: what it has to say goes to its caller.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![warn(unreachable_pub)]

pub mod agent;
pub mod event;
pub mod install;
pub mod json_doc;
pub mod plan_gate;
pub mod prompt_hook;
pub mod prompt_submit;
pub mod state;
pub mod status;
pub mod statusline;
pub mod stop;

use std::path::{Path, PathBuf};

use crit_llm::Env;
use crit_project::Explicit;
use serde_json::Value;

/// What a hook runs with, decided by the binary once: the flags as explicit
/// choices, `--cwd`, and the environment read at the edge.
#[derive(Debug, Clone)]
pub struct HookEnv {
    pub explicit: Explicit,
    /// `--cwd`: the project directory, over anything the event says.
    pub cwd: Option<PathBuf>,
    pub env: Env,
    /// `-q`: nothing on stderr.
    pub quiet: bool,
    /// Save the session and the audit line (`--no-log` turns it off).
    pub log: bool,
    /// The agent the hook answers.
    pub agent: agent::Agent,
}

/// What a hook answers: at most one JSON object on stdout for Claude Code,
/// and lines for stderr. Claude Code does not show stderr when a hook exits
/// 0, so anything the user must read also goes in `systemMessage`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookOutput {
    pub stdout: Option<Value>,
    pub stderr: Vec<String>,
}

impl HookOutput {
    fn json(value: Value) -> HookOutput {
        HookOutput {
            stdout: Some(value),
            stderr: Vec::new(),
        }
    }

    fn note(line: impl Into<String>) -> HookOutput {
        HookOutput {
            stdout: None,
            stderr: vec![line.into()],
        }
    }
}

/// The project directory a hook works in: `--cwd`, else the event's `cwd`,
/// else the agent's project variable, else the current directory.
fn hook_dir(event_cwd: Option<&str>, hook: &HookEnv) -> PathBuf {
    hook.cwd
        .as_deref()
        .map(Path::to_path_buf)
        .or_else(|| event_cwd.map(PathBuf::from).filter(|p| p.is_dir()))
        .or_else(|| {
            hook.env
                .get(hook.agent.project_dir_var()?)
                .map(PathBuf::from)
                .filter(|p| p.is_dir())
        })
        .unwrap_or_else(|| PathBuf::from("."))
}
