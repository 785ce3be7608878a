//! Running a checked command: no shell, cwd the project root, stdin empty, a
//! minimal environment, its own process group, capped output, a timeout, and
//! the kernel sandbox of the [`BashSession`]. git gets its repository named
//! explicitly and, where the repository is larger than the project, the
//! checks of [`git_enclosed`].

use std::time::Duration;

use crate::context::ToolContext;
use crate::git_hardening::HARDENING;
use crate::process::{Captured, Ended, Spawn, spawn_capture_in};
use crate::sandbox::Sandbox;
use crate::tool::ToolOutput;

use super::git_enclosed;
use super::policy::{BashPolicyError, CheckedCommand};
use super::session::{BashSession, GitSetup, SetupError, child_env};

/// Time the revision check before a git command may take.
const VERIFY_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs the command and renders what the model sees.
pub(super) async fn run(cmd: &CheckedCommand, cx: &ToolContext, timeout: Duration) -> ToolOutput {
    let session = cx.bash.get_or_init(|| BashSession::start(cx)).await;
    let sandbox = match &session.sandbox {
        Ok(s) => s,
        Err(e) => {
            return ToolOutput::error(format!(
                "{e}; Bash does not run without the kernel sandbox on this system"
            ));
        }
    };
    let mut args = cmd.args.clone();
    if let Some(call) = &cmd.git {
        let setup = match &session.git {
            Ok(s) => s,
            Err(e) if e.is_refusal() => return ToolOutput::error(e.to_string()),
            Err(e) => return ToolOutput::error(format!("refused: {e}; git will not run here")),
        };
        if call.sub == "blame"
            && let Some(why) = &setup.blame_refused
        {
            return ToolOutput::error(why.clone());
        }
        let at = HARDENING.len().min(args.len());
        args.splice(at..at, setup.global_args.iter().cloned());
        if setup.layout.encloses_project() {
            let plan = match git_enclosed::plan(call, &setup.layout.prefix, &cx.roots) {
                Ok(p) => p,
                Err(e) => return ToolOutput::error(e.to_string()),
            };
            if let Err(e) = verify_commits(&plan.verify, setup, sandbox, cx).await {
                return ToolOutput::error(e.to_string());
            }
            args.extend(plan.append);
        }
    }
    let out_cap = cx.limits.max_output_bytes * 3 / 4;
    let err_cap = cx.limits.max_output_bytes - out_cap;
    let spawn = Spawn {
        program: &cmd.program,
        args: &args,
        cwd: cx.root(),
        env: child_env(&cx.roots, &cx.env),
        clear_env: true,
        stdin: None,
        timeout,
        caps: (out_cap, err_cap),
        cancel: &cx.cancel,
    };
    match spawn_capture_in(spawn, sandbox).await {
        Ok(c) => render(&cmd.program, &c, timeout),
        Err(e) => ToolOutput::error(format!("cannot run `{}`: {e}", cmd.program)),
    }
}

/// Why a revision the model named was not let through.
#[derive(Debug, thiserror::Error)]
enum VerifyError {
    #[error(transparent)]
    Setup(SetupError),
    #[error(transparent)]
    Policy(BashPolicyError),
}

/// Asks git, in one run, whether each expression resolves to a commit.
async fn verify_commits(
    verify: &[(String, String)],
    setup: &GitSetup,
    sandbox: &Sandbox,
    cx: &ToolContext,
) -> Result<(), VerifyError> {
    if verify.is_empty() {
        return Ok(());
    }
    let mut argv: Vec<String> = HARDENING.iter().map(|s| s.to_string()).collect();
    argv.extend(setup.global_args.iter().cloned());
    argv.extend(["cat-file".into(), "--batch-check=%(objecttype)".into()]);
    let stdin: String = verify.iter().map(|(_, e)| format!("{e}\n")).collect();
    let out = spawn_capture_in(
        Spawn {
            program: "git",
            args: &argv,
            cwd: cx.root(),
            env: child_env(&cx.roots, &cx.env),
            clear_env: true,
            stdin: Some(stdin.into_bytes()),
            timeout: VERIFY_TIMEOUT,
            caps: (64 * 1024, 4 * 1024),
            cancel: &cx.cancel,
        },
        sandbox,
    )
    .await
    .map_err(|e| VerifyError::Setup(SetupError::GitSpawn(e.to_string())))?;
    let text = out.stdout.render();
    let mut lines = text.lines();
    for (operand, _) in verify {
        if lines.next() != Some("commit") {
            let e: BashPolicyError = git_enclosed::not_a_commit(operand, &setup.layout.prefix);
            return Err(VerifyError::Policy(e));
        }
    }
    Ok(())
}

fn render(program: &str, c: &Captured, timeout: Duration) -> ToolOutput {
    let mut text = c.stdout.render();
    if !c.stderr.is_empty() {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("[stderr]\n");
        text.push_str(&c.stderr.render());
    }
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    match &c.ended {
        Ended::Exited(status) => {
            match (status.code(), status.success()) {
                (Some(code), _) => text.push_str(&format!("[exit code {code}]")),
                (None, _) => text.push_str(&format!("[`{program}` was killed by a signal]")),
            }
            ToolOutput {
                content: text,
                is_error: !status.success(),
            }
        }
        Ended::TimedOut => {
            text.push_str(&format!(
                "[timed out after {} s: `{program}` and its child processes were killed; \
                 narrow the command or pass a larger `timeout`]",
                timeout.as_secs_f64()
            ));
            ToolOutput::error(text)
        }
        Ended::Cancelled => {
            text.push_str("[cancelled: the command was killed]");
            ToolOutput::error(text)
        }
    }
}
