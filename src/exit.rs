//! Exit codes and the error type that carries one. One rule decides between
//! 2 and 3: 2 when the user must change the command or a file, 3 when the
//! review was attempted and could not run.

use std::process::ExitCode;

/// What `crit` tells its caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// The review ran and passed, or no gate was asked for.
    Ok = 0,
    /// The gate failed.
    GateFailed = 1,
    /// The user must change the command or a file: usage, configuration, a
    /// missing input file, no backend configured, a missing model name.
    Usage = 2,
    /// The review was attempted and could not run: network, authentication,
    /// a crash, every reviewer failed.
    CouldNotRun = 3,
    /// SIGHUP stopped the review (128 + 1, the shell's convention).
    HungUp = 129,
    /// SIGINT (Ctrl-C) stopped the review.
    Interrupted = 130,
    /// SIGTERM stopped the review.
    Terminated = 143,
}

impl From<Code> for ExitCode {
    fn from(c: Code) -> ExitCode {
        ExitCode::from(c as u8)
    }
}

/// An error that ends the command, with the exit code it means.
#[derive(Debug)]
pub struct CliError {
    code: Code,
    error: anyhow::Error,
}

impl CliError {
    pub fn usage(error: impl Into<anyhow::Error>) -> Self {
        CliError {
            code: Code::Usage,
            error: error.into(),
        }
    }

    pub fn could_not_run(error: impl Into<anyhow::Error>) -> Self {
        CliError {
            code: Code::CouldNotRun,
            error: error.into(),
        }
    }

    /// An error with another exit code (a signal's).
    pub fn with_code(code: Code, error: impl Into<anyhow::Error>) -> Self {
        CliError {
            code,
            error: error.into(),
        }
    }

    pub fn code(&self) -> Code {
        self.code
    }

    /// One line (or a few): the error and its causes.
    pub fn message(&self) -> String {
        let mut msg = self.error.to_string();
        for cause in self.error.chain().skip(1) {
            // Most library errors already print their source.
            let cause = cause.to_string();
            if !msg.contains(&cause) {
                msg.push_str(": ");
                msg.push_str(&cause);
            }
        }
        msg
    }
}
