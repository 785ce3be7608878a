//! What every command that runs reviewers shares: diagnostics on stderr at
//! the level `-v`/`-q` ask for, an async runtime, and the one place where
//! SIGINT, SIGTERM and SIGHUP become the review's cancellation: the review
//! stops (tools and reviewer processes kill their process groups), whatever
//! it has is returned as INCOMPLETE and saved in the session, and the exit
//! code is the signal's (a second signal kills every child's process group
//! and exits at once).

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use anyhow::anyhow;
use crit_core::{FailOn, ReviewResult, Verdict};
use tokio_util::sync::CancellationToken;

use crate::cli::CommonArgs;
use crate::exit::{CliError, Code};
use crate::output::{self, OutputPlan};
use crate::post::Poster;

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
    let filter = common.env.get("CRIT_LOG").map(str::to_string).unwrap_or_else(|| {
        format!("warn,crit={level},crit_project={level},crit_review={level},crit_agent={level},crit_llm={level},crit_checks={level},crit_post={level}")
    });
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_ansi(output::stderr_color(common))
        .with_writer(|| RedactedStderr)
        .with_target(false)
        .without_time()
        .try_init();
}

/// stderr for logs, with every secret crit knows of redacted: `-vv` logs
/// whole prompts and answers, which can quote a key or a token. The
/// formatter hands over each event in one write.
struct RedactedStderr;

impl std::io::Write for RedactedStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        let clean = crit_core::redact::Redactor::process().redact_str(&text);
        std::io::stderr()
            .lock()
            .write_all(printable_log(&clean).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

/// A log event as printed: it quotes prompts and answers, so everything but
/// the formatter's own colours (SGR sequences) is terminal-printable text,
/// and no line of it can start a workflow command in a CI log.
fn printable_log(event: &str) -> String {
    use crit_core::{Dest, Printable};
    let mut out = String::with_capacity(event.len());
    let mut rest = event;
    while let Some(at) = rest.find('\x1b') {
        let tail = &rest[at + 1..];
        let sgr = tail.strip_prefix('[').and_then(|t| {
            let params = t
                .bytes()
                .take_while(|b| b.is_ascii_digit() || *b == b';')
                .count();
            (t.as_bytes().get(params) == Some(&b'm')).then_some(params + 3)
        });
        match sgr {
            Some(len) => {
                out.push_str(Printable::new(&rest[..at], Dest::Terminal).as_str());
                out.push_str(&rest[at..at + len]);
                rest = &rest[at + len..];
            }
            None => {
                // Not a colour: shown as text with what follows.
                let next = tail.find('\x1b').map_or(rest.len(), |n| at + 1 + n);
                out.push_str(Printable::new(&rest[..next], Dest::Terminal).as_str());
                rest = &rest[next..];
            }
        }
    }
    out.push_str(Printable::new(rest, Dest::Terminal).as_str());
    out
}

/// The signals that stop a review.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    Hangup = 1,
    Interrupt = 2,
    Terminate = 15,
}

impl Signal {
    fn from_number(n: u8) -> Option<Signal> {
        [Signal::Hangup, Signal::Interrupt, Signal::Terminate]
            .into_iter()
            .find(|s| *s as u8 == n)
    }

    pub fn name(self) -> &'static str {
        match self {
            Signal::Hangup => "SIGHUP",
            Signal::Interrupt => "SIGINT",
            Signal::Terminate => "SIGTERM",
        }
    }

    /// 128 + the signal's number, as shells report a process a signal ended.
    pub fn code(self) -> Code {
        match self {
            Signal::Hangup => Code::HungUp,
            Signal::Interrupt => Code::Interrupted,
            Signal::Terminate => Code::Terminated,
        }
    }
}

/// How a review is stopped: the token the signals trip, and which one did.
#[derive(Debug, Clone, Default)]
pub struct Stop {
    pub cancel: CancellationToken,
    received: Arc<AtomicU8>,
    /// Its signal thread is running (a second one would take one signal
    /// for two).
    listening: Arc<AtomicBool>,
}

impl Stop {
    pub fn new() -> Self {
        Self::default()
    }

    /// The first signal received, if any.
    pub fn signal(&self) -> Option<Signal> {
        Signal::from_number(self.received.load(Ordering::SeqCst))
    }

    /// Records `signal`; false when one came before. The review is
    /// cancelled separately, by [`Stop::cancel_review`], so that what the
    /// user is told is printed before the review can finish and crit exit.
    fn record(&self, signal: Signal) -> bool {
        self.received
            .compare_exchange(0, signal as u8, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    }

    fn cancel_review(&self) {
        self.cancel.cancel();
    }
}

/// Runs `work` on a runtime; SIGINT, SIGTERM and SIGHUP trip `stop`.
pub fn block_on<F, T>(stop: &Stop, work: impl FnOnce(CancellationToken) -> F) -> Result<T, CliError>
where
    F: Future<Output = T>,
{
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::could_not_run(anyhow!("starting the async runtime: {e}")))?;
    stop.listen()?;
    let out = runtime.block_on(work(stop.cancel.clone()));
    // Reviewer tasks are finished; do not wait on anything left behind.
    runtime.shutdown_background();
    Ok(out)
}

impl Stop {
    /// From now on SIGINT, SIGTERM and SIGHUP trip this `Stop` instead of
    /// ending crit: a thread of its own waits for them, so commands that do
    /// not run on a runtime (`crit plan`) get the same handling. The handlers
    /// are in place when this returns; no signal is ever left to its default
    /// action, which would end crit without saving anything.
    pub fn listen(&self) -> Result<(), CliError> {
        if self.listening.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        let failed =
            |e: std::io::Error| CliError::could_not_run(anyhow!("installing signal handlers: {e}"));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()
            .map_err(failed)?;
        let streams = runtime.block_on(async { install() }).map_err(failed)?;
        let stop = self.clone();
        std::thread::Builder::new()
            .name("crit-signals".into())
            .spawn(move || runtime.block_on(wait(stop, streams)))
            .map_err(failed)?;
        Ok(())
    }
}

#[cfg(unix)]
type Streams = [(Signal, tokio::signal::unix::Signal); 3];

#[cfg(unix)]
fn install() -> std::io::Result<Streams> {
    use tokio::signal::unix::{SignalKind, signal};
    Ok([
        (Signal::Interrupt, signal(SignalKind::interrupt())?),
        (Signal::Terminate, signal(SignalKind::terminate())?),
        (Signal::Hangup, signal(SignalKind::hangup())?),
    ])
}

#[cfg(unix)]
async fn wait(stop: Stop, streams: Streams) {
    let [(s1, mut a), (s2, mut b), (s3, mut c)] = streams;
    loop {
        let got = tokio::select! {
            Some(()) = a.recv() => s1,
            Some(()) = b.recv() => s2,
            Some(()) = c.recv() => s3,
            else => return,
        };
        on_signal(&stop, got);
    }
}

#[cfg(not(unix))]
type Streams = ();

#[cfg(not(unix))]
fn install() -> std::io::Result<Streams> {
    Ok(())
}

#[cfg(not(unix))]
async fn wait(stop: Stop, _: Streams) {
    while tokio::signal::ctrl_c().await.is_ok() {
        on_signal(&stop, Signal::Interrupt);
    }
}

fn on_signal(stop: &Stop, signal: Signal) {
    if stop.record(signal) {
        // Told first: once cancelled, the review may finish and crit exit
        // before this thread would get to print.
        eprintln!(
            "crit: {}: stopping the reviewers and saving what they have (again to quit now)",
            signal.name()
        );
        stop.cancel_review();
    } else {
        // Quit now, but take every child process group along.
        crit_llm::process_group::kill_all();
        std::process::exit(signal.code() as i32);
    }
}

/// Writes `result` out and returns the exit code: the signal's when one
/// stopped the review, 3 when the review could not run at all, else, when a
/// gate was asked for (`gate`, from the settings), 1 unless the result
/// `passed`, else 0. `passed` was decided once, by the library, at the
/// settings' level: nothing here decides it again.
pub fn finish(
    common: &CommonArgs,
    result: ReviewResult,
    stop: &Stop,
    gate: Option<FailOn>,
) -> Result<Code, CliError> {
    finish_and_post(common, result, stop, None, gate)
}

/// [`finish`], then the written result is posted with `poster` (unless a
/// signal stopped the review: the user asked crit to stop). A failed post
/// is exit 3, whatever the gate said.
pub fn finish_and_post(
    common: &CommonArgs,
    result: ReviewResult,
    stop: &Stop,
    poster: Option<&Poster>,
    gate: Option<FailOn>,
) -> Result<Code, CliError> {
    let plan = OutputPlan::from_common(common)?;
    plan.emit(&result)?;
    warn(common, &result);
    let code = exit_code(&result, stop, gate_code(gate, &result))?;
    if let Some(poster) = poster.filter(|_| stop.signal().is_none()) {
        poster.post(&result, common.quiet, stop)?;
    }
    Ok(code)
}

/// The gate's exit code: with a gate asked for, 1 unless the result passed;
/// without one, 0.
pub fn gate_code(gate: Option<FailOn>, result: &ReviewResult) -> Code {
    match gate {
        Some(_) if !result.passed => Code::GateFailed,
        _ => Code::Ok,
    }
}

/// The result's warnings on stderr, once each (unless `-q`).
pub fn warn(common: &CommonArgs, result: &ReviewResult) {
    if common.quiet {
        return;
    }
    for w in &result.warnings {
        eprintln!("crit: warning: {}", output::printable(w));
    }
}

/// The exit code of a written result: the signal's, 3 when it could not
/// run, else the gate's (`gated`).
pub fn exit_code(result: &ReviewResult, stop: &Stop, gated: Code) -> Result<Code, CliError> {
    if let Some(signal) = stop.signal() {
        return Ok(signal.code());
    }
    if result.fatal_error || result.verdict == Verdict::Error {
        return Ok(Code::CouldNotRun);
    }
    Ok(gated)
}

#[cfg(test)]
mod tests {
    use super::printable_log;

    #[test]
    fn a_log_event_keeps_its_colours_and_nothing_else() {
        let event = "\x1b[2mDEBUG\x1b[0m answer: ok\x1b]0;t\x07\n::error::x \x1b[2J\u{202E}\n";
        assert_eq!(
            printable_log(event),
            "\x1b[2mDEBUG\x1b[0m answer: ok<U+001B>]0;t<U+0007>\n<U+003A>:error::x <U+001B>[2J<U+202E>\n"
        );
        assert_eq!(printable_log("plain\n"), "plain\n");
    }
}
