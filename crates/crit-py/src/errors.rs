//! crit's error kinds as Python exceptions. Everything that stops a review
//! from starting raises one of these; once reviewers run, what goes wrong is
//! in the result (`parse_error`, `fatal_error`) and never passes.
//!
//! ```text
//! CritError
//! ├── ConfigError       a config file, template, hook, project rules or input is wrong
//! ├── BackendError      the model backend cannot be used
//! │   └── NoBackendError   none is configured
//! ├── ScopeError        the change to review cannot be computed (git)
//! ├── ContextError      the project's conventions cannot be read
//! ├── SessionError      the session log cannot be written
//! ├── McpError          an MCP server did not start
//! ├── PlanError         a plan review could not run (lock, I/O)
//! └── PostError         posting to the pull or merge request failed
//! ```

use crit_llm::LlmError;
use crit_review::orchestrate::RunError;
use crit_review::review::ReviewError;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    crit,
    CritError,
    PyException,
    "Base class of every error crit raises."
);
create_exception!(
    crit,
    ConfigError,
    CritError,
    "A configuration file, template, hook, project rule or input is wrong; the message names the file and setting."
);
create_exception!(
    crit,
    BackendError,
    CritError,
    "The model backend cannot be used (bad provider, model or URL)."
);
create_exception!(
    crit,
    NoBackendError,
    BackendError,
    "No model backend is configured; the message lists every way to configure one."
);
create_exception!(
    crit,
    ScopeError,
    CritError,
    "The change to review cannot be computed (a bad range or commit, not a git repository)."
);
create_exception!(
    crit,
    ContextError,
    CritError,
    "The project's conventions (CLAUDE.md, AGENTS.md, .claude/rules) cannot be read."
);
create_exception!(
    crit,
    SessionError,
    CritError,
    "The session log under .crit/sessions cannot be written."
);
create_exception!(
    crit,
    McpError,
    CritError,
    "An MCP server of the configuration did not start."
);
create_exception!(
    crit,
    PlanError,
    CritError,
    "A plan review could not run (its state is locked by another run, or a file cannot be read or written)."
);

create_exception!(
    crit,
    PostError,
    CritError,
    "Posting to the pull or merge request failed (a token that may not write, the forge unreachable); the result itself is unaffected."
);

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("CritError", py.get_type::<CritError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("BackendError", py.get_type::<BackendError>())?;
    m.add("NoBackendError", py.get_type::<NoBackendError>())?;
    m.add("ScopeError", py.get_type::<ScopeError>())?;
    m.add("ContextError", py.get_type::<ContextError>())?;
    m.add("SessionError", py.get_type::<SessionError>())?;
    m.add("McpError", py.get_type::<McpError>())?;
    m.add("PlanError", py.get_type::<PlanError>())?;
    m.add("PostError", py.get_type::<PostError>())?;
    Ok(())
}

pub(crate) fn config(e: impl std::fmt::Display) -> PyErr {
    ConfigError::new_err(e.to_string())
}

pub(crate) fn backend(e: LlmError) -> PyErr {
    match e {
        LlmError::NoBackend => NoBackendError::new_err(e.to_string()),
        LlmError::Config { .. } => ConfigError::new_err(e.to_string()),
        other => BackendError::new_err(other.to_string()),
    }
}

pub(crate) fn run(e: RunError) -> PyErr {
    match e {
        RunError::Backend(b) => backend(b),
        RunError::Context(c) => ContextError::new_err(c.to_string()),
        RunError::Session(s) => SessionError::new_err(s.to_string()),
        other => config(other),
    }
}

pub(crate) fn review(e: ReviewError) -> PyErr {
    match e {
        ReviewError::Scope(s) => ScopeError::new_err(s.to_string()),
        ReviewError::Context(c) => ContextError::new_err(c.to_string()),
        ReviewError::Session(s) => SessionError::new_err(s.to_string()),
        other => config(other),
    }
}

pub(crate) fn post(e: crit_post::PostError) -> PyErr {
    PostError::new_err(e.to_string())
}

/// A task that panicked: a bug in crit, said as such.
pub(crate) fn internal(e: impl std::fmt::Display) -> PyErr {
    CritError::new_err(format!("internal error in crit (please report it): {e}"))
}
