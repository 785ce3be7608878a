//! Claude Code: the `UserPromptSubmit` and `Stop` hooks, `crit install` /
//! `crit uninstall`, `crit statusline`. The decisions and texts are in
//! `crit_review::claude_code`; here is the wiring to stdin, stdout and files.

pub mod install;
pub mod prompt_submit;
pub mod statusline;
pub mod stop;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crit_core::files::InputLimits;

/// Hook events and status-line input are kilobytes; a megabyte is generous.
const STDIN_LIMIT: InputLimits = InputLimits {
    max_bytes: 1024 * 1024,
};

/// All of stdin, up to the limit.
fn read_stdin() -> Result<Vec<u8>, String> {
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

/// Writes one JSON answer for Claude Code on stdout.
fn answer(value: &serde_json::Value) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{value}");
    let _ = out.flush();
}

/// The project directory a hook works in: `--cwd`, else the event's `cwd`,
/// else Claude Code's `CLAUDE_PROJECT_DIR`, else the current directory.
fn hook_dir(event_cwd: Option<&str>, flag: Option<&Path>) -> PathBuf {
    flag.map(Path::to_path_buf)
        .or_else(|| event_cwd.map(PathBuf::from).filter(|p| p.is_dir()))
        .or_else(|| {
            std::env::var_os("CLAUDE_PROJECT_DIR")
                .map(PathBuf::from)
                .filter(|p| p.is_dir())
        })
        .unwrap_or_else(|| PathBuf::from("."))
}
