//! A template's prompt builder run as a program (`prompt_builder: {command:
//! [...]}`), the port of the review templates' Python builder: it gets the
//! inputs as a JSON object on stdin (the builder function's `inputs` dict)
//! and prints the prompt. It runs in crit's working directory, as the
//! original's builder ran in its process, through crit-os's runner: its own
//! process group, stdout capped, killed at the deadline.

use std::process::Command;
use std::time::Duration;

use super::Inputs;

/// How long a builder may take; building a prompt is quick work.
const DEADLINE: Duration = Duration::from_secs(60);
/// The largest prompt kept; a larger one is refused, not cut.
const MAX_PROMPT: usize = 512 * 1024;

/// Why a prompt builder gave no prompt (the message names the command).
#[derive(Debug, thiserror::Error)]
pub(super) enum BuilderError {
    #[error("prompt_builder.command is empty")]
    Empty,
    #[error("{0}")]
    Inputs(#[from] serde_json::Error),
    #[error("prompt builder `{shown}` could not start: {source}")]
    Start {
        shown: String,
        source: std::io::Error,
    },
    #[error("prompt builder `{shown}` did not finish within {secs} s")]
    Timeout { shown: String, secs: u64 },
    #[error("prompt builder `{shown}` failed ({code}): {stderr}")]
    Failed {
        shown: String,
        code: String,
        stderr: String,
    },
    #[error("prompt builder `{shown}` printed more than {max} bytes", max = MAX_PROMPT)]
    TooLong { shown: String },
    #[error("prompt builder `{shown}` printed text that is not UTF-8")]
    NotUtf8 { shown: String },
    #[error("prompt builder `{shown}` printed no prompt")]
    NoPrompt { shown: String },
}

/// The prompt `argv` prints for `inputs`, or why there is none.
pub(super) fn run(argv: &[String], inputs: &Inputs) -> Result<String, BuilderError> {
    let Some((program, args)) = argv.split_first() else {
        return Err(BuilderError::Empty);
    };
    let shown = argv.join(" ");
    let json = serde_json::to_vec(&inputs.0)?;
    let limits = crit_os::process::Limits {
        stdout: MAX_PROMPT,
        stderr: 4096,
        timeout: DEADLINE,
    };
    let mut cmd = Command::new(program);
    cmd.args(args);
    let out = crit_os::process::run_with_input(&mut cmd, Some(json), limits).map_err(|source| {
        BuilderError::Start {
            shown: shown.clone(),
            source,
        }
    })?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stderr = stderr.trim();
    if out.timed_out {
        return Err(BuilderError::Timeout {
            shown,
            secs: DEADLINE.as_secs(),
        });
    }
    if !out.success() {
        let code = out
            .status
            .and_then(|s| s.code())
            .map_or_else(|| "a signal".to_string(), |c| format!("exit {c}"));
        return Err(BuilderError::Failed {
            shown,
            code,
            stderr: stderr.to_string(),
        });
    }
    if out.overflowed {
        return Err(BuilderError::TooLong { shown });
    }
    let prompt = String::from_utf8(out.stdout).map_err(|_| BuilderError::NotUtf8 {
        shown: shown.clone(),
    })?;
    if prompt.trim().is_empty() {
        return Err(BuilderError::NoPrompt { shown });
    }
    Ok(prompt)
}
