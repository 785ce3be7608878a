//! `crit statusline`: Claude Code runs it whenever the conversation changes
//! and shows the first line it prints. It reads the status-line JSON on
//! stdin for the session id and one small state file: no settings, no
//! network, no runtime.

use std::time::SystemTime;

use crit_llm::Env;

use crate::event::HookInput;
use crate::state::SessionState;
use crate::status;

/// The line to show for the status-line JSON `input`, if any.
pub fn line(input: &[u8], env: &Env) -> Option<String> {
    let id = HookInput::parse(input)
        .ok()
        .and_then(|i| i.session_id)
        .or_else(|| env.get("CLAUDE_CODE_SESSION_ID").map(str::to_string))
        .filter(|s| !s.is_empty())?;
    let state = SessionState::of(env, &id)?;
    let now = crit_core::timestamp::unix_secs(SystemTime::now());
    status::line(state.status().as_ref(), now)
}
