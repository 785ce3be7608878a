//! What every command that runs reviewers shares: diagnostics on stderr at
//! the level `-v`/`-q` ask for, an async runtime, Ctrl-C that cancels the
//! review cleanly (a second one exits at once), and the result written out
//! with the exit code it means.

use std::future::Future;

use anyhow::anyhow;
use crit_core::{ReviewResult, Verdict};
use tokio_util::sync::CancellationToken;

use crate::cli::CommonArgs;
use crate::exit::{CliError, Code};
use crate::output::{self, OutputPlan};

/// Sends `tracing` events to stderr: warnings by default, info with `-v`,
/// debug (full prompts and answers) with `-vv`, errors only with `-q`.
/// `CRIT_LOG` (an env-filter directive) overrides.
pub fn init_logging(common: &CommonArgs) {
    let level = match (common.quiet, common.verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        (false, _) => "debug",
    };
    let filter = std::env::var("CRIT_LOG").unwrap_or_else(|_| {
        format!("warn,crit={level},crit_review={level},crit_agent={level},crit_llm={level},crit_checks={level}")
    });
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_writer(std::io::stderr)
        .with_target(false)
        .without_time()
        .try_init();
}

/// Runs `work` on a runtime, with a cancellation token Ctrl-C trips.
pub fn block_on<F, T>(work: impl FnOnce(CancellationToken) -> F) -> Result<T, CliError>
where
    F: Future<Output = T>,
{
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::could_not_run(anyhow!("starting the async runtime: {e}")))?;
    let cancel = CancellationToken::new();
    let on_signal = cancel.clone();
    runtime.spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("crit: interrupted; stopping the reviewers (Ctrl-C again to quit now)");
            on_signal.cancel();
            if tokio::signal::ctrl_c().await.is_ok() {
                std::process::exit(130);
            }
        }
    });
    let out = runtime.block_on(work(cancel));
    // Reviewer tasks are finished; do not wait on the signal listener.
    runtime.shutdown_background();
    Ok(out)
}

/// Writes `result` out and returns the exit code: 3 when the review could not
/// run at all, else the gate's answer when one was asked for, else 0.
pub fn finish(common: &CommonArgs, mut result: ReviewResult) -> Result<Code, CliError> {
    let plan = OutputPlan::from_common(common)?;
    let gated = output::apply_gate(common, &mut result);
    plan.emit(&result)?;
    if result.fatal_error || result.verdict == Verdict::Error {
        return Ok(Code::CouldNotRun);
    }
    Ok(gated)
}
