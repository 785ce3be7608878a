//! Running a child process with captured, capped output and a timeout: the
//! runner of crit-os ([`crit_os::process`]), plus [`spawn_capture_in`], which
//! starts the child from a [`Sandbox`] spawner so it runs under the kernel
//! sandbox.

pub use crit_os::process::{Captured, Ended, HeadTail, Spawn, spawn_capture};

use crate::sandbox::Sandbox;

/// Runs the child under `sandbox`: it is spawned by the sandbox's restricted
/// thread, so the kernel applies the sandbox's rules to it and its children.
pub async fn spawn_capture_in(s: Spawn<'_>, sandbox: &Sandbox) -> std::io::Result<Captured> {
    crit_os::process::spawn_capture_with(s, |command| sandbox.spawn(command)).await
}
