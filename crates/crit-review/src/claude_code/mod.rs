//! Living inside Claude Code: the hooks' decisions and texts, the per-session
//! state they share with `crit statusline`, and the settings merge behind
//! `crit install claude-code`.
//!
//! - [`event`]: what a hook reads on stdin; the `!!!` trigger;
//! - [`prompt_hook`]: what the `UserPromptSubmit` hook tells Claude;
//! - [`stop_gate`]: the review gate before the agent stops (never loops);
//! - [`state`] and [`status`]: per-session files, the status line;
//! - [`install`] over [`json_doc`]: merging hooks into `settings.json`
//!   without touching anything else, and taking them out again.

pub mod event;
pub mod install;
pub mod json_doc;
pub mod prompt_hook;
pub mod state;
pub mod status;
pub mod stop_gate;
