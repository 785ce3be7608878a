//! One way to run a child process: in a process group of its own, with stdout
//! and stderr capped, a deadline, and the whole group (grandchildren included)
//! killed on timeout, cancellation or drop. [`run`] blocks (git for the review
//! scope; [`start`] and [`finish_all`] run several side by side on one
//! thread); [`spawn_capture`] and [`spawn_capture_with`] are the tokio flavour
//! (tools, hooks, reviewer commands). [`GroupGuard`] is the piece both use,
//! and what a caller that streams a child's output itself (the Claude Code
//! CLI) holds; [`kill_all`] takes every live group down when crit must quit.

mod blocking;
mod capture;
mod group;
mod head_tail;

pub use blocking::{Limits, Output, Running, finish_all, run, run_with_input, start};
pub use capture::{Captured, Ended, Spawn, spawn_capture, spawn_capture_with};
pub use group::{GroupGuard, kill_all};
pub use head_tail::HeadTail;
