//! Running a child process asynchronously with captured, capped output and a
//! timeout: the one runner behind restricted Bash, command hooks and the
//! external reviewer command. [`spawn_capture_with`] lets the caller start the
//! child itself (crit-agent's kernel sandbox spawns it from a restricted
//! thread); [`spawn_capture`] starts it directly.
//!
//! Timeout and cancellation kill the whole process group with `kill(-pgid,
//! SIGKILL)` (rustix's safe wrapper): the child is spawned with `process_group(0)`,
//! so its pid is the group id, and grandchildren are reached too (tokio's
//! `kill_on_drop` alone only kills the direct child). The group is killed before
//! the child is reaped, or while members still hold its pipes, so the id cannot
//! have been reused by then.

use std::ffi::OsString;
use std::future::Future;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;
use tokio::time::{Instant, sleep_until, timeout_at};
use tokio_util::sync::CancellationToken;

use super::group::GroupGuard;
use super::head_tail::HeadTail;

/// After the group is killed, how long to wait for the pipes to close.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// What to run and how.
#[derive(Debug)]
pub struct Spawn<'a> {
    pub program: &'a str,
    pub args: &'a [String],
    pub cwd: &'a Path,
    /// With `clear_env`, the child's whole environment; else added to ours.
    pub env: Vec<(OsString, OsString)>,
    pub clear_env: bool,
    /// Written to the child's stdin, which is then closed; `None` = empty stdin.
    pub stdin: Option<Vec<u8>>,
    pub timeout: Duration,
    /// Bytes of stdout and stderr kept (head and tail).
    pub caps: (usize, usize),
    pub cancel: &'a CancellationToken,
}

#[derive(Debug)]
pub struct Captured {
    pub stdout: HeadTail,
    pub stderr: HeadTail,
    pub ended: Ended,
}

#[derive(Debug)]
pub enum Ended {
    Exited(ExitStatus),
    TimedOut,
    Cancelled,
}

/// Runs the child, spawned directly.
pub async fn spawn_capture(s: Spawn<'_>) -> std::io::Result<Captured> {
    spawn_capture_with(s, |mut command| async move { command.spawn() }).await
}

/// Runs the child, spawned by `spawn` from the prepared command (its own
/// process group, piped output, environment and directory already set).
pub async fn spawn_capture_with<F, Fut>(s: Spawn<'_>, spawn: F) -> std::io::Result<Captured>
where
    F: FnOnce(Command) -> Fut,
    Fut: Future<Output = std::io::Result<Child>>,
{
    let mut command = Command::new(s.program);
    command.args(s.args).current_dir(s.cwd);
    if s.clear_env {
        command.env_clear();
    }
    command
        .envs(s.env)
        .stdin(if s.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = spawn(command).await?;
    // Dropped before the end (a reviewer's timeout drops the whole call), the
    // group dies with it: `kill_on_drop` would reach the direct child only.
    let mut guard = GroupGuard::new(child.id());
    if let (Some(bytes), Some(mut w)) = (s.stdin, child.stdin.take()) {
        // A child that never reads its stdin must not block us: write aside, and
        // ignore a closed pipe.
        tokio::spawn(async move {
            let _ = w.write_all(&bytes).await;
            let _ = w.shutdown().await;
        });
    }
    let stdout = Arc::new(Mutex::new(HeadTail::new(s.caps.0)));
    let stderr = Arc::new(Mutex::new(HeadTail::new(s.caps.1)));
    let mut drains: Vec<JoinHandle<()>> = Vec::new();
    if let Some(r) = child.stdout.take() {
        drains.push(tokio::spawn(drain(r, Arc::clone(&stdout))));
    }
    if let Some(r) = child.stderr.take() {
        drains.push(tokio::spawn(drain(r, Arc::clone(&stderr))));
    }
    let deadline = Instant::now() + s.timeout;
    let mut ended = tokio::select! {
        st = child.wait() => st.map_or(Ended::Cancelled, Ended::Exited),
        () = sleep_until(deadline) => Ended::TimedOut,
        () = s.cancel.cancelled() => Ended::Cancelled,
    };
    if !matches!(ended, Ended::Exited(_)) {
        guard.kill();
        // Reap the leader now rather than leaving a zombie to tokio.
        let _ = child.wait().await;
    }
    // A grandchild may still hold the pipes after the leader exited: the deadline
    // still applies, then the group is killed.
    let limit = if matches!(ended, Ended::Exited(_)) {
        deadline
    } else {
        Instant::now() + DRAIN_GRACE
    };
    if !wait_drains(&mut drains, limit).await {
        guard.kill();
        if matches!(ended, Ended::Exited(_)) {
            ended = Ended::TimedOut;
        }
        if !wait_drains(&mut drains, Instant::now() + DRAIN_GRACE).await {
            drains.iter().for_each(JoinHandle::abort);
        }
    }
    guard.disarm();
    Ok(Captured {
        stdout: take(&stdout),
        stderr: take(&stderr),
        ended,
    })
}

/// Waits for the pipe readers until `limit`; `false` if some are still running.
/// A reader leaves the list the moment it finishes, so a second wait never
/// polls a finished handle again (tokio panics on that).
async fn wait_drains(drains: &mut Vec<JoinHandle<()>>, limit: Instant) -> bool {
    timeout_at(limit, async {
        while let Some(d) = drains.last_mut() {
            let _ = d.await;
            drains.pop();
        }
    })
    .await
    .is_ok()
}

fn take(buf: &Arc<Mutex<HeadTail>>) -> HeadTail {
    let mut guard = buf.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    std::mem::replace(&mut *guard, HeadTail::new(0))
}

async fn drain(mut r: impl AsyncRead + Unpin, buf: Arc<Mutex<HeadTail>>) {
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        match r.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(&chunk[..n]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The timeout kills grandchildren too: `sh` starts a background `sleep` and
    /// waits; after the kill no process with the marker argument is left.
    #[tokio::test]
    async fn timeout_kills_the_whole_process_group() {
        let dir = tempfile::TempDir::new().unwrap();
        let marker = format!("{}.{}", 4000 + std::process::id() % 1000, 17);
        let script = format!("sleep {marker} & sleep {marker}; wait");
        let c = spawn_capture(Spawn {
            program: "sh",
            args: &["-c".into(), script],
            cwd: dir.path(),
            env: Vec::new(),
            clear_env: false,
            stdin: None,
            timeout: Duration::from_millis(300),
            caps: (100, 100),
            cancel: &CancellationToken::new(),
        })
        .await
        .unwrap();
        assert!(matches!(c.ended, Ended::TimedOut), "{:?}", c.ended);
        assert_no_process_with_arg(&marker).await;
    }

    /// The leader exits at once; a grandchild keeps stderr (not stdout) open past
    /// the deadline. One pipe reader finishes, the other is cut off: waiting
    /// again after the kill must not poll the finished reader a second time
    /// (tokio panics with "JoinHandle polled after completion").
    #[tokio::test]
    async fn a_grandchild_holding_one_pipe_is_killed_without_a_panic() {
        let dir = tempfile::TempDir::new().unwrap();
        let marker = format!("{}.{}", 4000 + std::process::id() % 1000, 23);
        let script = format!("(exec >/dev/null; sleep {marker}) & echo started");
        let c = spawn_capture(Spawn {
            program: "sh",
            args: &["-c".into(), script],
            cwd: dir.path(),
            env: Vec::new(),
            clear_env: false,
            stdin: None,
            timeout: Duration::from_millis(300),
            caps: (100, 100),
            cancel: &CancellationToken::new(),
        })
        .await
        .unwrap();
        assert!(matches!(c.ended, Ended::TimedOut), "{:?}", c.ended);
        assert_eq!(c.stdout.render(), "started\n");
        assert_no_process_with_arg(&marker).await;
    }

    /// A call dropped mid-run (a caller's own timeout around it) takes the
    /// whole group with it, grandchildren included.
    #[tokio::test]
    async fn dropping_the_call_kills_the_whole_process_group() {
        let dir = tempfile::TempDir::new().unwrap();
        let marker = format!("{}.{}", 4000 + std::process::id() % 1000, 29);
        let script = format!("sleep {marker} & sleep {marker}; wait");
        let cancel = CancellationToken::new();
        let args = ["-c".to_string(), script];
        let call = spawn_capture(Spawn {
            program: "sh",
            args: &args,
            cwd: dir.path(),
            env: Vec::new(),
            clear_env: false,
            stdin: None,
            timeout: Duration::from_secs(600),
            caps: (100, 100),
            cancel: &cancel,
        });
        let dropped = tokio::time::timeout(Duration::from_millis(300), call).await;
        assert!(dropped.is_err(), "the call outlived its caller's timeout");
        assert_no_process_with_arg(&marker).await;
    }

    #[tokio::test]
    async fn stdin_is_written_and_closed() {
        let dir = tempfile::TempDir::new().unwrap();
        let c = spawn_capture(Spawn {
            program: "sh",
            args: &["-c".into(), "cat; echo done >&2".into()],
            cwd: dir.path(),
            env: vec![("CRIT_X".into(), "1".into())],
            clear_env: false,
            stdin: Some(b"{\"a\":1}".to_vec()),
            timeout: Duration::from_secs(10),
            caps: (100, 100),
            cancel: &CancellationToken::new(),
        })
        .await
        .unwrap();
        assert!(matches!(c.ended, Ended::Exited(s) if s.success()));
        assert_eq!(c.stdout.render(), "{\"a\":1}");
        assert_eq!(c.stderr.render(), "done\n");
    }

    /// Waits until no live process has `arg` on its command line (SIGKILL is
    /// delivered at once, but the kernel may take a moment to reap).
    async fn assert_no_process_with_arg(arg: &str) {
        let mut left = Vec::new();
        for _ in 0..50 {
            left = processes_with_arg(arg);
            if left.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(left.is_empty(), "still running: {left:?}");
    }

    /// Live (non-zombie) processes whose command line contains `arg`.
    fn processes_with_arg(arg: &str) -> Vec<String> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
                continue;
            };
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            let zombie = stat
                .rsplit(')')
                .next()
                .is_some_and(|s| s.trim_start().starts_with('Z'));
            if cmdline.contains(arg) && !zombie {
                found.push(cmdline);
            }
        }
        found
    }
}
