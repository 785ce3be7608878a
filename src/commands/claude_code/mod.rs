//! Claude Code: the hooks, `crit install` / `crit uninstall`, `crit
//! statusline`. Every decision is `crit_claude_code`'s; here are stdin,
//! stdout, signals and exit codes.

pub mod install;

use std::io::{Read, Write};

use crit_claude_code::{HookEnv, HookOutput};
use crit_core::files::InputLimits;

use crate::cli::CommonArgs;
use crate::exit::CliError;

/// Hook events and status-line input are kilobytes; a megabyte is generous.
const STDIN_LIMIT: InputLimits = InputLimits {
    max_bytes: 1024 * 1024,
};

/// All of stdin, up to the limit.
pub fn read_stdin() -> Result<Vec<u8>, String> {
    let mut buf = Vec::new();
    let taken = std::io::stdin()
        .lock()
        .take(STDIN_LIMIT.max_bytes + 1)
        .read_to_end(&mut buf);
    match taken {
        Err(e) => Err(format!("reading stdin: {e}")),
        Ok(_) if buf.len() as u64 > STDIN_LIMIT.max_bytes => Err(format!(
            "stdin holds more than {}",
            crit_core::files::human_bytes(STDIN_LIMIT.max_bytes)
        )),
        Ok(_) => Ok(buf),
    }
}

/// What `agent`'s hook runs with: the flags and the environment, read once.
pub fn agent_hook_env(
    common: &CommonArgs,
    agent: crit_claude_code::agent::Agent,
) -> Result<HookEnv, CliError> {
    Ok(HookEnv {
        agent,
        explicit: crate::backend::explicit(common)?,
        cwd: common.cwd.clone(),
        env: common.env.clone(),
        quiet: common.quiet,
        log: !common.no_log,
    })
}

/// Writes the hook's answer: its JSON on stdout, its lines on stderr.
pub fn emit(out: &HookOutput) {
    if let Some(v) = &out.stdout {
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "{v}");
        let _ = stdout.flush();
    }
    for line in &out.stderr {
        eprintln!("{}", crate::output::printable(line));
    }
}
