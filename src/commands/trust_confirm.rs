//! Trusting a project's settings is the user's decision, never a coding
//! agent's: the settings it allows run programs and relax the review gate
//! the agent stands behind. So `crit trust` asks at a terminal, takes
//! `--yes` only from a script with no agent session about, and refuses
//! inside an agent's session altogether. An agent can still fake a
//! terminal or hide its variables; the review gate does not rely on this:
//! it takes only what was trusted when the agent's session began.

use std::io::{BufRead, IsTerminal, Write};
use std::time::{Duration, SystemTime};

use anyhow::anyhow;
use crit_llm::Env;

use crate::exit::CliError;

/// Variables a coding agent sets for the commands it runs: Claude Code's
/// Bash tool, Codex's sandbox, Gemini CLI's shell tool.
const AGENT_VARS: [(&str, &str); 5] = [
    ("CLAUDECODE", "Claude Code"),
    ("CLAUDE_CODE_ENTRYPOINT", "Claude Code"),
    ("CODEX_SANDBOX", "Codex"),
    ("CODEX_SANDBOX_NETWORK_DISABLED", "Codex"),
    ("GEMINI_CLI", "Gemini CLI"),
];

/// How recently crit's hooks must have noted a session for it to count as
/// running.
const LIVE: Duration = Duration::from_secs(12 * 3600);

/// Asks the user to confirm trusting what was just listed; an error (exit
/// 2) says why it was not, and what to do.
pub fn confirm(env: &Env, yes: bool) -> Result<(), CliError> {
    if let Some((var, agent)) = AGENT_VARS
        .iter()
        .find(|(v, _)| env.get(v).is_some_and(|x| !x.is_empty()))
    {
        return Err(CliError::usage(anyhow!(
            "nothing trusted: this runs inside {agent}'s session ({var} is set), and trusting a project's settings is your decision, not the agent's; run `crit trust` in your own terminal"
        )));
    }
    let terminal = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let live = hooked_session_running(env);
    if yes && !live {
        return Ok(());
    }
    if !terminal {
        let why = match (yes, live) {
            (true, _) => {
                "a coding agent's session with crit's hooks is running on this machine, so --yes is not taken without a terminal"
            }
            _ => "crit trust asks you to confirm at a terminal, and there is none",
        };
        return Err(CliError::usage(anyhow!(
            "nothing trusted: {why}; run `crit trust` in your own terminal{}",
            if live {
                ""
            } else {
                " (a script of yours can pass --yes)"
            }
        )));
    }
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "Trust these settings? [y/N] ");
    let _ = err.flush();
    drop(err);
    let mut answer = String::new();
    let said_yes = std::io::stdin().lock().read_line(&mut answer).is_ok()
        && matches!(answer.trim().to_lowercase().as_str(), "y" | "yes");
    if said_yes {
        Ok(())
    } else {
        Err(CliError::usage(anyhow!(
            "nothing trusted: the question was not answered yes"
        )))
    }
}

/// Whether crit's agent hooks noted a session lately (a prompt, a stop or
/// the status line, under the user's state directory).
fn hooked_session_running(env: &Env) -> bool {
    let Some(dir) = crit_claude_code::state::sessions_dir(env) else {
        return false;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    let now = SystemTime::now();
    entries.filter_map(Result::ok).any(|e| {
        e.metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age < LIVE)
    })
}
