//! The tokio runtime reviews run on, and the rule that keeps its threads out
//! of an interpreter that is exiting.
//!
//! A runtime thread enters Python only through [`with_python`] (to hand an
//! awaited review its result, to run a hook), and only until the
//! interpreter starts to exit. Python calls [`at_exit`] (registered with
//! `atexit`) before it finalizes: from then on no runtime thread enters
//! Python; it waits for those inside to leave, cancels the reviews still
//! running (their processes are killed), lets them wind down and shuts the
//! runtime down, joining its threads. Without this, a thread that had just
//! delivered a result could still be inside Python, waiting for the GIL
//! after the interpreter had been handed it back, when finalization began:
//! the interpreter then aborts ("PyGILState_Release: thread state … must be
//! current when releasing") or crashes, after the caller's work was done.

use std::future::Future;
use std::sync::{Condvar, LazyLock, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use pyo3::prelude::*;
use tokio::runtime::{Handle, Runtime};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::errors;

/// How long the reviews still running at exit get to wind down (kill their
/// processes, close their session logs).
const WIND_DOWN: Duration = Duration::from_secs(10);
/// How long the exit waits for a thread inside Python (a hook) to leave it.
const LEAVE: Duration = Duration::from_secs(10);
/// How long the runtime's last threads get to end once its tasks are gone.
const JOIN: Duration = Duration::from_secs(2);

struct State {
    /// Built on first use; taken (and shut down) at exit.
    runtime: Option<Runtime>,
    /// The interpreter is exiting: no runtime thread may enter Python.
    closed: bool,
    /// Runtime threads inside Python now.
    inside: usize,
}

static STATE: Mutex<State> = Mutex::new(State {
    runtime: None,
    closed: false,
    inside: 0,
});
/// Signalled when the last thread inside Python leaves it.
static LEFT: Condvar = Condvar::new();
/// Every review's token is a child of this one, and every task is tracked:
/// the exit cancels them all and waits for them.
static TASKS: LazyLock<(CancellationToken, TaskTracker)> =
    LazyLock::new(|| (CancellationToken::new(), TaskTracker::new()));

fn state() -> MutexGuard<'static, State> {
    // Nothing runs under the lock that can panic: a poisoned lock still
    // holds a consistent state.
    STATE.lock().unwrap_or_else(PoisonError::into_inner)
}

fn handle() -> PyResult<Handle> {
    let mut s = state();
    if s.closed {
        return Err(errors::CritError::new_err(
            "the Python interpreter is exiting: no review can start",
        ));
    }
    if let Some(rt) = &s.runtime {
        return Ok(rt.handle().clone());
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("crit")
        .build()
        .map_err(errors::internal)?;
    let handle = rt.handle().clone();
    s.runtime = Some(rt);
    Ok(handle)
}

/// Starts a review, cancelled by its token (or at exit).
pub(crate) fn spawn<F, Fut>(start: F) -> PyResult<(CancellationToken, JoinHandle<Fut::Output>)>
where
    F: FnOnce(CancellationToken) -> Fut,
    Fut: Future + Send + 'static,
    Fut::Output: Send + 'static,
{
    let handle = handle()?;
    let token = TASKS.0.child_token();
    let task = handle.spawn(TASKS.1.track_future(start(token.clone())));
    Ok((token, task))
}

/// Runs `work` on the runtime, waited for at exit like a review.
pub(crate) fn spawn_tracked<Fut>(work: Fut) -> PyResult<()>
where
    Fut: Future<Output = ()> + Send + 'static,
{
    handle()?.spawn(TASKS.1.track_future(work));
    Ok(())
}

/// A runtime thread's way into Python: `f` with the GIL, unless the
/// interpreter is exiting (`None`; `f` is dropped without the GIL, which
/// Python objects it holds allow).
pub(crate) fn with_python<R>(f: impl FnOnce(Python<'_>) -> R) -> Option<R> {
    {
        let mut s = state();
        if s.closed {
            return None;
        }
        s.inside += 1;
    }
    // Leaves even when `f` panics.
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            let mut s = state();
            s.inside -= 1;
            if s.inside == 0 {
                LEFT.notify_all();
            }
        }
    }
    let _leave = Leave;
    Some(Python::attach(f))
}

/// Registered with `atexit`: runs before the interpreter finalizes, while
/// it is whole. Idempotent.
#[pyfunction]
pub(crate) fn at_exit(py: Python<'_>) {
    // Without the GIL: the threads inside Python need it to leave, and the
    // tasks winding down may drop Python objects.
    py.detach(shut_down);
}

fn shut_down() {
    let runtime = {
        let mut s = state();
        s.closed = true;
        let (mut s, _) = LEFT
            .wait_timeout_while(s, LEAVE, |s| s.inside > 0)
            .unwrap_or_else(PoisonError::into_inner);
        if s.inside > 0 {
            tracing::warn!(
                "{} of crit's threads still run Python code at exit",
                s.inside
            );
        }
        s.runtime.take()
    };
    let Some(runtime) = runtime else {
        return;
    };
    let (cancel, tracker) = &*TASKS;
    cancel.cancel();
    tracker.close();
    runtime.block_on(async {
        let _ = tokio::time::timeout(WIND_DOWN, tracker.wait()).await;
    });
    runtime.shutdown_timeout(JOIN);
}
