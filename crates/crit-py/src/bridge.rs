//! Running a review from Python: as its own task on the shared tokio runtime,
//! without the GIL. Awaited (`await crit.review(…)`), cancelling the awaiting
//! task (`asyncio.CancelledError`) cancels the review, which stops its
//! reviewers and kills their processes (tools, hooks, reviewer programs,
//! `claude`). Blocking (`review_sync`), Ctrl-C (`KeyboardInterrupt`) does the
//! same: the review is cancelled and waited for before the exception is raised.

use std::future::Future;
use std::time::Duration;

use pyo3::prelude::*;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::errors;

/// How often a blocking call looks for Ctrl-C and other signals.
const SIGNAL_POLL: Duration = Duration::from_millis(50);
/// How long a blocking call waits for a cancelled review to wind down.
const WIND_DOWN: Duration = Duration::from_secs(10);

/// What every review returns across the boundary: the `ReviewResult` as JSON,
/// which the Python layer turns into typed objects.
pub type Answer = PyResult<String>;

fn spawn<F, Fut>(start: F) -> (CancellationToken, JoinHandle<Answer>)
where
    F: FnOnce(CancellationToken) -> Fut,
    Fut: Future<Output = Answer> + Send + 'static,
{
    let token = CancellationToken::new();
    let runtime = pyo3_async_runtimes::tokio::get_runtime();
    let task = runtime.spawn(start(token.clone()));
    (token, task)
}

fn joined(r: Result<Answer, tokio::task::JoinError>) -> Answer {
    r.unwrap_or_else(|e| Err(errors::internal(e)))
}

/// An asyncio awaitable for the review `start` builds around its token.
pub fn awaitable<'py, F, Fut>(py: Python<'py>, start: F) -> PyResult<Bound<'py, PyAny>>
where
    F: FnOnce(CancellationToken) -> Fut,
    Fut: Future<Output = Answer> + Send + 'static,
{
    let (token, task) = spawn(start);
    // Dropped without finishing when the Python side cancels (or never
    // awaits): the review task then winds down on its own, not aborted
    // mid-write.
    let guard = token.drop_guard();
    pyo3_async_runtimes::tokio::future_into_py(py, async move {
        let out = task.await;
        guard.disarm();
        joined(out)
    })
}

/// Runs the review to its end with the GIL released, watching for signals.
pub fn blocking<F, Fut>(py: Python<'_>, start: F) -> Answer
where
    F: FnOnce(CancellationToken) -> Fut,
    Fut: Future<Output = Answer> + Send + 'static,
{
    let runtime = pyo3_async_runtimes::tokio::get_runtime();
    let (token, mut task) = spawn(start);
    loop {
        let done = py.detach(|| {
            runtime.block_on(async { tokio::time::timeout(SIGNAL_POLL, &mut task).await.ok() })
        });
        if let Some(r) = done {
            return joined(r);
        }
        if let Err(interrupt) = py.check_signals() {
            token.cancel();
            py.detach(|| {
                runtime.block_on(async {
                    let _ = tokio::time::timeout(WIND_DOWN, &mut task).await;
                })
            });
            return Err(interrupt);
        }
    }
}
