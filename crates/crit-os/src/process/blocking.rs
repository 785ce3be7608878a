//! The blocking runner: stdout kept up to a cap (the head: a parser wants the
//! start), stderr likewise, both pipes always drained so a full pipe never
//! blocks the child, and past the deadline the process group is killed.
//!
//! No thread per child: [`finish_all`] waits on every pipe (and, on Linux,
//! every child's exit through a pidfd) of several children at once with one
//! `poll`, on the caller's thread. Threads cost each git crit runs two
//! start-ups, on the path of every review.

use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};

use super::group::GroupGuard;

/// After the group is killed, how long to wait for the pipes to close.
const DRAIN_GRACE: Duration = Duration::from_secs(2);
/// Bytes read from a pipe at a time.
const CHUNK: usize = 64 * 1024;
/// The first wait for the exit of a child with no pidfd; it doubles up to
/// [`BACKOFF_MAX`].
const BACKOFF_MIN: Duration = Duration::from_micros(50);
const BACKOFF_MAX: Duration = Duration::from_millis(10);
/// How long dropping an unfinished run waits for its killed leader to be
/// reaped.
const REAP_GRACE: Duration = Duration::from_millis(500);

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

/// Runs `cmd` (stdin empty, stdout and stderr piped, its own process group)
/// to completion or to the deadline. Errors only when it cannot be started.
pub fn run(cmd: &mut Command, limits: Limits) -> std::io::Result<Output> {
    run_with_input(cmd, None, limits)
}

/// [`run`] with `input` written to the child's stdin (then closed) as the
/// child takes it, so a child that does not read it never blocks us.
pub fn run_with_input(
    cmd: &mut Command,
    input: Option<Vec<u8>>,
    limits: Limits,
) -> std::io::Result<Output> {
    Ok(start(cmd, input, limits)?.finish())
}

/// A child [`start`] started. Its pipes are read when it is finished
/// ([`Running::finish`], or [`finish_all`] for several side by side): until
/// then a child with more to say than a pipe holds waits. Dropped
/// unfinished, its process group is killed.
#[must_use = "a run is waited for with `finish`"]
pub struct Running {
    child: Child,
    stdin: Option<Feed>,
    stdout: Drain,
    stderr: Drain,
    /// Readable once the child has exited (Linux); elsewhere its exit is
    /// asked for after a sleep.
    exited: Option<OwnedFd>,
    status: Option<ExitStatus>,
    guard: GroupGuard,
    deadline: Instant,
    timed_out: bool,
    /// Killed, and the grace for closing its pipes passed too.
    abandoned: bool,
    backoff: Duration,
}

/// One output pipe: its head kept, the rest read and dropped; `pipe` is
/// `None` once it is closed.
struct Drain {
    pipe: Option<File>,
    kept: Vec<u8>,
    cap: usize,
    overflowed: bool,
}

/// The input still to write to the child's stdin, which is non-blocking.
struct Feed {
    pipe: ChildStdin,
    bytes: Vec<u8>,
    at: usize,
}

/// Starts [`run_with_input`]'s run and returns at once; [`finish_all`] then
/// waits for several such children side by side.
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
    // Listed for `kill_all`; disarmed once the leader is reaped.
    let guard = GroupGuard::new(Some(child.id()));
    let stdin = match (child.stdin.take(), input) {
        (Some(pipe), Some(bytes)) if !bytes.is_empty() && nonblocking(&pipe) => {
            Some(Feed { pipe, bytes, at: 0 })
        }
        // Dropped here: the child reads an empty stdin.
        _ => None,
    };
    let drain = |pipe: Option<OwnedFd>, cap| Drain {
        pipe: pipe.map(File::from),
        kept: Vec::new(),
        cap,
        overflowed: false,
    };
    Ok(Running {
        stdout: drain(child.stdout.take().map(OwnedFd::from), limits.stdout),
        stderr: drain(child.stderr.take().map(OwnedFd::from), limits.stderr),
        exited: exit_fd(&child),
        child,
        stdin,
        status: None,
        guard,
        deadline,
        timed_out: false,
        abandoned: false,
        backoff: BACKOFF_MIN,
    })
}

impl Running {
    /// Waits for the child to exit and its pipes to close, or for the
    /// deadline, when its process group is killed.
    pub fn finish(self) -> Output {
        let mut outs = finish_all(vec![self]);
        outs.pop().unwrap_or_else(|| Output {
            stdout: Vec::new(),
            stderr: Vec::new(),
            status: None,
            overflowed: false,
            timed_out: false,
        })
    }

    fn pipes_open(&self) -> bool {
        self.stdout.pipe.is_some() || self.stderr.pipe.is_some()
    }

    /// Its pipes are closed and it is reaped, or it was given up on.
    fn done(&self) -> bool {
        self.abandoned || (!self.pipes_open() && self.status.is_some())
    }

    /// Kills the group at the deadline; gives up a grace later.
    fn keep_time(&mut self, now: Instant) {
        if self.done() || now < self.deadline {
            return;
        }
        if !self.timed_out {
            // The leader may be reaped already while a grandchild holds a
            // pipe; the group id stays taken while any member lives.
            self.guard.kill();
            self.timed_out = true;
            self.deadline = now + DRAIN_GRACE;
            return;
        }
        self.give_up();
    }

    /// Kills the group and lets the pipes go, keeping what came so far.
    fn give_up(&mut self) {
        if self.done() {
            return;
        }
        self.guard.kill();
        self.timed_out = true;
        self.abandoned = true;
        self.stdin = None;
        self.stdout.pipe = None;
        self.stderr.pipe = None;
        self.reap();
    }

    /// Asks, without blocking, whether the child has exited. A child that
    /// cannot be waited for is given up on (its status unknown).
    fn reap(&mut self) {
        if self.status.is_some() {
            return;
        }
        match self.child.try_wait() {
            Ok(Some(status)) => self.status = Some(status),
            Ok(None) => return,
            Err(e) => {
                tracing::debug!(error = %e, "waiting for a child");
                self.abandoned = true;
            }
        }
        self.exited = None;
    }

    /// When to look again without an event: the deadline, or sooner for a
    /// child whose exit no pidfd signals.
    fn wake_at(&mut self, now: Instant) -> Instant {
        if self.pipes_open() || self.exited.is_some() {
            return self.deadline;
        }
        let at = now + self.backoff;
        self.backoff = (self.backoff * 2).min(BACKOFF_MAX);
        at.min(self.deadline)
    }

    /// The descriptors to wait on, with why.
    fn interests<'a>(&'a self, i: usize, fds: &mut Vec<(usize, Which, BorrowedFd<'a>)>) {
        if let Some(f) = &self.stdin {
            fds.push((i, Which::Stdin, f.pipe.as_fd()));
        }
        if let Some(p) = &self.stdout.pipe {
            fds.push((i, Which::Stdout, p.as_fd()));
        }
        if let Some(p) = &self.stderr.pipe {
            fds.push((i, Which::Stderr, p.as_fd()));
        }
        // The exit matters once the pipes are closed, as `done` says.
        if !self.pipes_open()
            && let Some(fd) = &self.exited
        {
            fds.push((i, Which::Exit, fd.as_fd()));
        }
    }

    /// One descriptor is ready: reads, writes or reaps once.
    fn ready(&mut self, which: Which, buf: &mut [u8]) {
        match which {
            Which::Stdin => self.feed(),
            Which::Stdout => self.stdout.read(buf),
            Which::Stderr => self.stderr.read(buf),
            Which::Exit => self.reap(),
        }
    }

    fn feed(&mut self) {
        let Some(f) = &mut self.stdin else { return };
        match f.pipe.write(&f.bytes[f.at..]) {
            Ok(n) => {
                f.at += n;
                if f.at >= f.bytes.len() {
                    // Closed: the child sees the end of its input.
                    self.stdin = None;
                }
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => {}
            // A child that exits without reading is its own business.
            Err(_) => self.stdin = None,
        }
    }

    fn output(mut self) -> Output {
        if !self.abandoned {
            self.reap();
        }
        self.guard.disarm();
        Output {
            stdout: std::mem::take(&mut self.stdout.kept),
            stderr: std::mem::take(&mut self.stderr.kept),
            status: self.status,
            overflowed: self.stdout.overflowed,
            timed_out: self.timed_out,
        }
    }
}

impl Drop for Running {
    /// Unfinished: its group is killed (the guard) and the leader reaped,
    /// so no zombie is left behind. SIGKILL cannot be caught, so the leader
    /// is gone within moments; one stuck in the kernel is waited for
    /// [`REAP_GRACE`] at most.
    fn drop(&mut self) {
        if self.status.is_none() {
            self.guard.kill();
            let until = Instant::now() + REAP_GRACE;
            let mut pause = BACKOFF_MIN;
            while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < until {
                std::thread::sleep(pause);
                pause = (pause * 2).min(BACKOFF_MAX);
            }
        }
    }
}

impl Drain {
    /// One read: keeps what fits under the cap, notes the rest, closes at
    /// the end.
    fn read(&mut self, buf: &mut [u8]) {
        let Some(pipe) = &mut self.pipe else { return };
        match pipe.read(buf) {
            Ok(0) => self.pipe = None,
            Ok(n) => {
                let room = self.cap.saturating_sub(self.kept.len());
                self.kept.extend_from_slice(&buf[..n.min(room)]);
                self.overflowed |= n > room;
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => {}
            Err(_) => self.pipe = None,
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Which {
    Stdin,
    Stdout,
    Stderr,
    Exit,
}

/// Waits for every run at once (see [`Running::finish`]): their pipes are
/// all read as output comes, so none waits on another. Outputs in order.
pub fn finish_all(mut runs: Vec<Running>) -> Vec<Output> {
    let mut buf = vec![0u8; CHUNK];
    loop {
        let now = Instant::now();
        for r in &mut runs {
            r.keep_time(now);
        }
        if runs.iter().all(Running::done) {
            break;
        }
        let wake = runs
            .iter_mut()
            .filter(|r| !r.done())
            .map(|r| r.wake_at(now))
            .min()
            .unwrap_or(now);
        let mut ready = Vec::new();
        let polled = {
            let mut interests = Vec::new();
            for (i, r) in runs.iter().enumerate().filter(|(_, r)| !r.done()) {
                r.interests(i, &mut interests);
            }
            let mut fds: Vec<PollFd<'_>> = interests
                .iter()
                .map(|(_, which, fd)| {
                    let flags = match which {
                        Which::Stdin => PollFlags::OUT,
                        _ => PollFlags::IN,
                    };
                    PollFd::from_borrowed_fd(*fd, flags)
                })
                .collect();
            let wait = wake.saturating_duration_since(Instant::now());
            let polled = poll(&mut fds, Timespec::try_from(wait).ok().as_ref());
            for (fd, (i, which, _)) in fds.iter().zip(&interests) {
                if !fd.revents().is_empty() {
                    ready.push((*i, *which));
                }
            }
            polled
        };
        match polled {
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(e) => {
                // Not expected with valid descriptors: give up on every
                // run rather than spin.
                tracing::error!(error = %e, "waiting on child processes");
                for r in &mut runs {
                    r.give_up();
                }
                break;
            }
        }
        for (i, which) in ready {
            runs[i].ready(which, &mut buf);
        }
        // A child with no pidfd whose pipes just closed: ask at once.
        for r in runs
            .iter_mut()
            .filter(|r| !r.pipes_open() && r.exited.is_none())
        {
            r.reap();
        }
    }
    runs.into_iter().map(Running::output).collect()
}

/// Makes the child's stdin non-blocking, so a write takes what the pipe
/// has room for; `false` (the input is dropped) if it cannot be.
fn nonblocking(pipe: &ChildStdin) -> bool {
    use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};
    fcntl_getfl(pipe)
        .and_then(|f| fcntl_setfl(pipe, f | OFlags::NONBLOCK))
        .is_ok()
}

/// A descriptor that becomes readable when `child` exits (a pidfd, Linux
/// 5.3 and later); `None` elsewhere, where its exit is polled for.
fn exit_fd(child: &Child) -> Option<OwnedFd> {
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{Pid, PidfdFlags, pidfd_open};
        // The child is ours and unreaped: its pid cannot name another process.
        let pid = i32::try_from(child.id()).ok().and_then(Pid::from_raw)?;
        pidfd_open(pid, PidfdFlags::empty()).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = child;
        None
    }
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
                std::thread::sleep(Duration::from_millis(20));
            }
            !alive
        });
        assert!(gone, "the background sleep {grandchild} survived");
    }

    fn limits(stdout: usize, timeout_ms: u64) -> Limits {
        Limits {
            stdout,
            stderr: 1024,
            timeout: Duration::from_millis(timeout_ms),
        }
    }

    #[test]
    fn children_side_by_side_are_all_drained_and_kept_in_order() {
        // Each says more on both pipes than a pipe holds: read one at a
        // time, or one pipe at a time, they would wait for ever.
        let runs: Vec<Running> = (0..3)
            .map(|i| {
                let mut cmd = Command::new("sh");
                cmd.args([
                    "-c",
                    &format!(
                        "head -c 1048576 /dev/zero >&2; echo {i}; head -c 1048576 /dev/zero; exit {i}"
                    ),
                ]);
                start(&mut cmd, None, limits(2, 30_000)).unwrap()
            })
            .collect();
        let outs = finish_all(runs);
        for (i, out) in outs.iter().enumerate() {
            assert_eq!(out.stdout, format!("{i}\n").as_bytes());
            assert!(out.overflowed, "{i}");
            assert_eq!(out.stderr.len(), 1024);
            assert_eq!(out.status.and_then(|s| s.code()), Some(i as i32));
            assert!(!out.timed_out);
        }
    }

    #[test]
    fn input_larger_than_a_pipe_is_fed_as_the_child_reads_it() {
        let input: Vec<u8> = (0..1_500_000u32).map(|i| (i % 251) as u8).collect();
        let out = run_with_input(
            &mut Command::new("cat"),
            Some(input.clone()),
            limits(2 << 20, 30_000),
        )
        .unwrap();
        assert!(out.success(), "{out:?}");
        assert_eq!(out.stdout, input);
        // A child that never reads its input still ends, and so does the run.
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo done"]);
        let out = run_with_input(&mut cmd, Some(input), limits(1024, 30_000)).unwrap();
        assert!(out.success(), "{out:?}");
        assert_eq!(out.stdout, b"done\n");
    }

    #[test]
    fn a_child_that_closes_its_pipes_and_stays_is_killed_at_the_deadline() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo early; exec >&- 2>&-; sleep 30"]);
        let out = run(&mut cmd, limits(1024, 300)).unwrap();
        assert!(out.timed_out && !out.success(), "{out:?}");
        assert_eq!(out.stdout, b"early\n");
        // Killed, so reaped within the grace: its status is known.
        assert!(out.status.is_some(), "{out:?}");
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
