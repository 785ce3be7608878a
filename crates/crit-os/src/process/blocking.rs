//! The blocking runner: both pipes drained on threads of their own so a full
//! pipe never blocks the child, stdout kept up to a cap (the head: a parser
//! wants the start), and past the deadline the process group is killed.

use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use super::group::GroupGuard;

/// After the group is killed, how long to wait for the pipes to close.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// Caps and deadline of one [`run`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of stdout kept; more is read and dropped ([`Output::overflowed`]).
    pub stdout: usize,
    /// Bytes of stderr kept.
    pub stderr: usize,
    pub timeout: Duration,
}

/// What one run produced.
#[derive(Debug)]
pub struct Output {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// `None` when the child could not be waited for (killed and not reaped in time).
    pub status: Option<ExitStatus>,
    /// stdout went past the cap; `stdout` holds the first `cap` bytes.
    pub overflowed: bool,
    /// The deadline passed and the group was killed.
    pub timed_out: bool,
}

impl Output {
    pub fn success(&self) -> bool {
        !self.timed_out && self.status.is_some_and(|s| s.success())
    }
}

enum Done {
    Stdout(Vec<u8>, bool),
    Stderr(Vec<u8>),
    Exit(Option<ExitStatus>),
}

/// Runs `cmd` (stdin empty, stdout and stderr piped, its own process group)
/// to completion or to the deadline. Errors only when it cannot be started.
pub fn run(cmd: &mut Command, limits: Limits) -> std::io::Result<Output> {
    run_with_input(cmd, None, limits)
}

/// [`run`] with `input` written to the child's stdin (then closed), from a
/// thread of its own so a child that does not read it never blocks us.
pub fn run_with_input(
    cmd: &mut Command,
    input: Option<Vec<u8>>,
    limits: Limits,
) -> std::io::Result<Output> {
    Ok(start(cmd, input, limits)?.finish())
}

/// A child [`start`] started: its pipes are being drained; [`Running::finish`]
/// waits for it. Dropped unfinished, its process group is killed.
#[must_use = "a run is waited for with `finish`"]
pub struct Running {
    rx: mpsc::Receiver<Done>,
    guard: GroupGuard,
    deadline: Instant,
}

/// Starts [`run_with_input`]'s run and returns at once: several children
/// started one after the other run side by side.
pub fn start(
    cmd: &mut Command,
    input: Option<Vec<u8>>,
    limits: Limits,
) -> std::io::Result<Running> {
    let stdin = match input {
        Some(_) => Stdio::piped(),
        None => Stdio::null(),
    };
    cmd.stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    std::os::unix::process::CommandExt::process_group(cmd, 0);
    let mut child = cmd.spawn()?;
    let deadline = Instant::now() + limits.timeout;
    if let (Some(mut w), Some(bytes)) = (child.stdin.take(), input) {
        thread::spawn(move || {
            use std::io::Write;
            // A child that exits without reading is its own business.
            let _ = w.write_all(&bytes);
        });
    }
    // Listed for `kill_all`; disarmed at the end, as the leader is reaped by then.
    let guard = GroupGuard::new(Some(child.id()));
    let (tx, rx) = mpsc::channel();
    if let Some(r) = child.stdout.take() {
        let tx = tx.clone();
        let cap = limits.stdout;
        thread::spawn(move || {
            let (bytes, over) = read_head(r, cap);
            let _ = tx.send(Done::Stdout(bytes, over));
        });
    }
    // stderr, then the exit: `finish` waits for both anyway, and a thread
    // fewer is a start-up less for every git crit runs.
    let stderr = child.stderr.take();
    let cap = limits.stderr;
    thread::spawn(move || {
        if let Some(r) = stderr {
            let _ = tx.send(Done::Stderr(read_head(r, cap).0));
        }
        let _ = tx.send(Done::Exit(child.wait().ok()));
    });
    Ok(Running {
        rx,
        guard,
        deadline,
    })
}

impl Running {
    /// Waits for the child to exit and its pipes to close, or for the
    /// deadline, when its process group is killed.
    pub fn finish(mut self) -> Output {
        let mut out = Output {
            stdout: Vec::new(),
            stderr: Vec::new(),
            status: None,
            overflowed: false,
            timed_out: false,
        };
        for _ in 0..3 {
            let wait = if out.timed_out {
                DRAIN_GRACE
            } else {
                self.deadline.saturating_duration_since(Instant::now())
            };
            let done = match self.rx.recv_timeout(wait) {
                Ok(d) => d,
                Err(mpsc::RecvTimeoutError::Timeout) if !out.timed_out => {
                    // The leader may be reaped already while a grandchild holds a
                    // pipe; the group id stays taken while any member lives.
                    self.guard.kill();
                    out.timed_out = true;
                    match self.rx.recv_timeout(DRAIN_GRACE) {
                        Ok(d) => d,
                        Err(_) => break,
                    }
                }
                Err(_) => break,
            };
            match done {
                Done::Stdout(b, over) => {
                    out.stdout = b;
                    out.overflowed = over;
                }
                Done::Stderr(b) => out.stderr = b,
                Done::Exit(s) => out.status = s,
            }
        }
        self.guard.disarm();
        out
    }
}

/// Reads everything, keeping the first `cap` bytes; `true` when more came.
/// The head grows with what comes (most outputs are small); the rest is read
/// and dropped, so the writer never blocks on a full pipe.
fn read_head(mut r: impl Read, cap: usize) -> (Vec<u8>, bool) {
    let mut kept = Vec::new();
    let _ = r.by_ref().take(cap as u64).read_to_end(&mut kept);
    let over = std::io::copy(&mut r, &mut std::io::sink()).is_ok_and(|n| n > 0);
    (kept, over)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeout_kills_the_whole_process_group() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "sleep 30 & echo $!; wait"]);
        let limits = Limits {
            stdout: 1024,
            stderr: 1024,
            timeout: Duration::from_millis(300),
        };
        let out = run(&mut cmd, limits).unwrap();
        assert!(out.timed_out);
        assert!(!out.success());
        let grandchild = String::from_utf8_lossy(&out.stdout).trim().to_string();
        assert!(!grandchild.is_empty(), "{out:?}");
        let proc = std::path::PathBuf::from(format!("/proc/{grandchild}"));
        let gone = (0..100).any(|_| {
            let alive =
                std::fs::read_to_string(proc.join("stat")).is_ok_and(|s| !s.contains(") Z "));
            if alive {
                thread::sleep(Duration::from_millis(20));
            }
            !alive
        });
        assert!(gone, "the background sleep {grandchild} survived");
    }

    #[test]
    fn read_head_keeps_the_head_and_reports_overflow() {
        let (kept, over) = read_head(&b"abcdef"[..], 4);
        assert_eq!((kept.as_slice(), over), (&b"abcd"[..], true));
        let (kept, over) = read_head(&b"ab"[..], 4);
        assert_eq!((kept.as_slice(), over), (&b"ab"[..], false));
    }

    #[test]
    fn output_is_capped_and_the_status_kept() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "printf 0123456789; printf oops >&2; exit 3"]);
        let limits = Limits {
            stdout: 4,
            stderr: 2,
            timeout: Duration::from_secs(30),
        };
        let out = run(&mut cmd, limits).unwrap();
        assert_eq!(out.stdout, b"0123");
        assert!(out.overflowed);
        assert_eq!(out.stderr, b"oo");
        assert_eq!(out.status.and_then(|s| s.code()), Some(3));
        assert!(!out.timed_out && !out.success());
        assert!(run(&mut Command::new("/nonexistent/prog"), limits).is_err());
    }
}
