//! `crit statusline`: Claude Code runs it whenever the conversation changes
//! and shows the first line it prints. It reads the status-line JSON on
//! stdin for the session id and one small state file: no settings, no
//! network, no runtime.

use std::io::Write;
use std::time::SystemTime;

use crit_review::claude_code::event::HookInput;
use crit_review::claude_code::state::SessionState;
use crit_review::claude_code::status;

use super::read_stdin;
use crate::exit::{CliError, Code};

pub fn run() -> Result<Code, CliError> {
    let input = read_stdin().unwrap_or_default();
    let session = serde_json::from_slice::<HookInput>(&input)
        .ok()
        .and_then(|i| i.session_id)
        .or_else(|| std::env::var("CLAUDE_CODE_SESSION_ID").ok())
        .filter(|s| !s.is_empty());
    let Some(id) = session else {
        return Ok(Code::Ok);
    };
    let lookup = |k: &str| std::env::var(k).ok();
    let Some(state) = SessionState::of(&lookup, &id) else {
        return Ok(Code::Ok);
    };
    let now = crit_core::timestamp::unix_secs(SystemTime::now());
    if let Some(line) = status::line(state.status().as_ref(), now) {
        let _ = writeln!(std::io::stdout().lock(), "{line}");
    }
    Ok(Code::Ok)
}
