//! crit for Python hosts: the native module `crit._crit`, which the Python
//! package `crit` wraps with typed results, Reldo's facade and mala's
//! `CodeReviewer` protocol. No review logic lives here: each entry point sets
//! up what the `crit` command would and calls crit-review.
//!
//! Reviews cross the boundary as JSON (the published `ReviewResult` schema),
//! run on one shared tokio runtime without the GIL, and stop, killing their
//! processes, when the awaiting task is cancelled. The runtime is shut down
//! (its reviews cancelled, its threads joined) when the interpreter exits.

// A library never writes to the terminal: what it has to say goes to its caller.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![warn(unreachable_pub)]

mod bridge;
mod code;
mod errors;
mod hooks;
mod post;
mod project;
mod prompt;
mod reviews;
mod run;
mod runtime;

use pyo3::prelude::*;

#[pymodule]
fn _crit(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Python is a front end: the environment at import is what the writers'
    // redactor learns secret values from.
    crit_core::redact::Redactor::init_process(
        std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))),
    );
    errors::register(m)?;
    m.add_class::<run::NativeCrit>()?;
    m.add_class::<code::NativeCodeReviewer>()?;
    m.add_function(wrap_pyfunction!(reviews::review_template, m)?)?;
    m.add_function(wrap_pyfunction!(reviews::review_template_sync, m)?)?;
    m.add_function(wrap_pyfunction!(reviews::templates, m)?)?;
    m.add_function(wrap_pyfunction!(reviews::squadron_dict, m)?)?;
    m.add_function(wrap_pyfunction!(reviews::yaml_to_json, m)?)?;
    m.add_function(wrap_pyfunction!(reviews::review_plan, m)?)?;
    m.add_function(wrap_pyfunction!(reviews::review_plan_sync, m)?)?;
    m.add_function(wrap_pyfunction!(prompt::review_prompt, m)?)?;
    m.add_function(wrap_pyfunction!(prompt::review_prompt_sync, m)?)?;
    m.add_function(wrap_pyfunction!(post::post, m)?)?;
    m.add_function(wrap_pyfunction!(post::post_sync, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // Before the interpreter finalizes, while it is whole: after that, a
    // runtime thread inside Python aborts it.
    let at_exit = wrap_pyfunction!(runtime::at_exit, m)?;
    m.py()
        .import("atexit")?
        .call_method1("register", (at_exit,))?;
    Ok(())
}
