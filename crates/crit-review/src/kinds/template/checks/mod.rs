//! What happens to a template review's findings after the panel answered and
//! before the gate: screening for injected instructions, evidence checks,
//! a second look, finishing (suppressions, the diff filter, the cap), and
//! which suggestions may be offered.

pub(crate) mod disputed;
pub(crate) mod evidence;
pub(crate) mod finish;
mod lenient;
pub(crate) mod post;
mod quote;
pub(crate) mod recheck;
pub(crate) mod screening;
pub(crate) mod suggestions;
pub(crate) mod verify;
