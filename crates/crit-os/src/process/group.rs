//! The process groups of the children crit starts (the Claude Code CLI, tool
//! commands, hooks, reviewer programs): each child leads a group of its own,
//! and a [`GroupGuard`] kills the whole group (grandchildren included) when it
//! is dropped before the child was dealt with.
//!
//! Every live guard is also listed process-wide, for one moment only: when the
//! user insists on quitting at once (a second Ctrl-C), [`kill_all`] takes every
//! group down before crit exits, so nothing it started outlives it. This is the
//! one piece of global state here, and it mirrors the kernel's own table.

use std::sync::Mutex;

use rustix::process::{Pid, Signal, kill_process_group};

static LIVE: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Kills its group on drop, unless disarmed after the child was reaped and its
/// group is gone. While the child is unreaped its pid (the group id) cannot be
/// reused, so the kill never hits a stranger.
#[derive(Debug)]
pub struct GroupGuard(Option<Pid>);

impl GroupGuard {
    /// Guards the group led by `pid` (a child spawned with `process_group(0)`).
    pub fn new(pid: Option<u32>) -> Self {
        let pid = pid
            .and_then(|p| i32::try_from(p).ok())
            .and_then(Pid::from_raw);
        if let Some(p) = pid {
            live().push(p.as_raw_nonzero().get());
        }
        GroupGuard(pid)
    }

    /// Kills the group now (ESRCH, already gone, is fine).
    pub fn kill(&self) {
        if let Some(pid) = self.0
            && let Err(e) = kill_process_group(pid, Signal::KILL)
        {
            tracing::debug!(error = %e, "killing a child's process group");
        }
    }

    /// The child is reaped and its group dealt with: never signal it again.
    pub fn disarm(&mut self) {
        if let Some(pid) = self.0.take() {
            let raw = pid.as_raw_nonzero().get();
            live().retain(|p| *p != raw);
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
        self.disarm();
    }
}

/// Kills every group a live guard holds: the last thing crit does when told to
/// quit at once.
pub fn kill_all() {
    for raw in live().drain(..) {
        if let Some(pid) = Pid::from_raw(raw) {
            let _ = kill_process_group(pid, Signal::KILL);
        }
    }
}

fn live() -> std::sync::MutexGuard<'static, Vec<i32>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}
