//! Running a review from Python: as its own task on crit's runtime, without
//! the GIL. Awaited (`await crit.review(…)`), cancelling the awaiting task
//! (`asyncio.CancelledError`) cancels the review, which stops its reviewers
//! and kills their processes (tools, hooks, reviewer programs, `claude`).
//! Blocking (`review_sync`), Ctrl-C (`KeyboardInterrupt`) does the same: the
//! review is cancelled and waited for before the exception is raised.
//!
//! The result reaches an awaiting caller through its event loop
//! (`call_soon_threadsafe`), handed over by a runtime thread in
//! [`runtime::with_python`], which stays out of an exiting interpreter.

use std::future::Future;
use std::sync::mpsc;
use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::PyString;
use tokio_util::sync::CancellationToken;

use crate::errors;
use crate::runtime;

/// How often a blocking call looks for Ctrl-C and other signals.
const SIGNAL_POLL: Duration = Duration::from_millis(50);
/// How long a blocking call waits for a cancelled review to wind down.
const WIND_DOWN: Duration = Duration::from_secs(10);

/// What every review returns across the boundary: the `ReviewResult` as JSON,
/// which the Python layer turns into typed objects.
pub(crate) type Answer = PyResult<String>;

fn joined(r: Result<Answer, tokio::task::JoinError>) -> Answer {
    r.unwrap_or_else(|e| match e.is_cancelled() {
        true => Err(stopped()),
        false => Err(errors::internal(e)),
    })
}

/// The caller's event loop and its context (`contextvars`), where an awaited
/// review's result is delivered and its hooks run.
#[derive(Debug)]
pub(crate) struct CallerLoop {
    pub event_loop: Py<PyAny>,
    pub context: Py<PyAny>,
}

impl CallerLoop {
    /// The running loop of the calling coroutine.
    pub(crate) fn current(py: Python<'_>) -> PyResult<Self> {
        Ok(CallerLoop {
            event_loop: py
                .import("asyncio")?
                .call_method0("get_running_loop")?
                .unbind(),
            context: py
                .import("contextvars")?
                .call_method0("copy_context")?
                .unbind(),
        })
    }

    /// Calls `callback(*args)` on the loop, from any thread; an error when
    /// the loop is closed.
    pub(crate) fn call_soon(
        &self,
        py: Python<'_>,
        callback: Bound<'_, PyAny>,
        args: Vec<Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let mut all = vec![callback];
        all.extend(args);
        let kwargs = pyo3::types::PyDict::new(py);
        kwargs.set_item("context", self.context.bind(py))?;
        self.event_loop.bind(py).call_method(
            "call_soon_threadsafe",
            pyo3::types::PyTuple::new(py, all)?,
            Some(&kwargs),
        )?;
        Ok(())
    }
}

/// Sets an asyncio future's result or exception, on its loop, unless it is
/// already done (cancelled meanwhile).
#[pyclass(module = "crit._crit", frozen)]
struct Complete;

#[pymethods]
impl Complete {
    fn __call__(
        &self,
        future: &Bound<'_, PyAny>,
        ok: bool,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        if future.call_method0("done")?.is_truthy()? {
            return Ok(());
        }
        match ok {
            true => future.call_method1("set_result", (value,))?,
            false => future.call_method1("set_exception", (value,))?,
        };
        Ok(())
    }
}

/// An asyncio future's done callback: a cancelled future cancels its review.
#[pyclass(module = "crit._crit", frozen)]
struct CancelOnDone {
    token: CancellationToken,
}

#[pymethods]
impl CancelOnDone {
    fn __call__(&self, future: &Bound<'_, PyAny>) -> PyResult<()> {
        if future.call_method0("cancelled")?.is_truthy()? {
            self.token.cancel();
        }
        Ok(())
    }
}

/// An asyncio awaitable for the review `start` builds around its token.
pub(crate) fn awaitable<'py, F, Fut>(py: Python<'py>, start: F) -> PyResult<Bound<'py, PyAny>>
where
    F: FnOnce(CancellationToken) -> Fut,
    Fut: Future<Output = Answer> + Send + 'static,
{
    let caller = CallerLoop::current(py)?;
    let future = caller.event_loop.bind(py).call_method0("create_future")?;
    let (token, task) = runtime::spawn(start)?;
    future.call_method1("add_done_callback", (CancelOnDone { token },))?;
    let target = future.clone().unbind();
    runtime::spawn_tracked(async move {
        let answer = joined(task.await);
        // Taking the GIL may wait on the caller's Python code: not on one of
        // the threads that run reviews.
        let _ = tokio::task::spawn_blocking(move || {
            runtime::with_python(move |py| deliver(py, &caller, target, answer))
        })
        .await;
    })?;
    Ok(future)
}

fn deliver(py: Python<'_>, caller: &CallerLoop, future: Py<PyAny>, answer: Answer) {
    let (ok, value) = match answer {
        Ok(json) => (true, PyString::new(py, &json).into_any()),
        Err(e) => (false, e.into_value(py).into_bound(py).into_any()),
    };
    let complete = match Bound::new(py, Complete) {
        Ok(c) => c.into_any(),
        Err(_) => return,
    };
    let ok = pyo3::types::PyBool::new(py, ok).to_owned().into_any();
    // A closed loop: nobody awaits the review any more.
    let _ = caller.call_soon(py, complete, vec![future.into_bound(py), ok, value]);
}

/// Runs the review to its end with the GIL released, watching for signals.
pub(crate) fn blocking<F, Fut>(py: Python<'_>, start: F) -> Answer
where
    F: FnOnce(CancellationToken) -> Fut,
    Fut: Future<Output = Answer> + Send + 'static,
{
    // The answer comes back over a channel, so this thread waits without
    // entering the runtime (which the exit may shut down meanwhile).
    let (tx, rx) = mpsc::sync_channel(1);
    let rx = std::sync::Mutex::new(rx);
    let (token, task) = runtime::spawn(start)?;
    runtime::spawn_tracked(async move {
        let _ = tx.send(joined(task.await));
    })?;
    let wait = |limit| {
        py.detach(|| {
            rx.lock()
                .map_err(|_| mpsc::RecvTimeoutError::Disconnected)
                .and_then(|rx| rx.recv_timeout(limit))
        })
    };
    loop {
        match wait(SIGNAL_POLL) {
            Ok(answer) => return answer,
            Err(mpsc::RecvTimeoutError::Disconnected) => return Err(stopped()),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        if let Err(interrupt) = py.check_signals() {
            token.cancel();
            let _ = wait(WIND_DOWN);
            return Err(interrupt);
        }
    }
}

pub(crate) fn stopped() -> PyErr {
    errors::CritError::new_err("the review was stopped: the Python interpreter is exiting")
}
