//! The kernel half of tool confinement. The argument policy decides what a tool
//! may be asked to do; the sandbox makes the kernel refuse the rest, so a policy
//! hole (a git option that reads a file, a config-driven program) still cannot
//! read outside the project, write anywhere, or open a network connection.
//!
//! How: one dedicated thread per [`Sandbox`] restricts itself with Landlock and
//! then spawns every sandboxed process. Landlock domains belong to a thread and
//! are inherited by every process it starts, so the children (and theirs) run
//! under the rules while the rest of crit does not. The workspace forbids
//! `unsafe`, which rules out `pre_exec`; a thread needs no re-exec of a `crit`
//! binary either, so it also works where crit is a library inside another
//! program. The thread enters the caller's tokio runtime for each spawn, so the
//! children are ordinary `tokio::process` children.
//!
//! The rules ([`SandboxRules`]): read (files and listings) in the project roots
//! and the repository's git directories; read and execute in the system
//! directories (`/usr`, `/bin`, `/sbin`, `/lib*`) and the resolved tool
//! binaries; read of the loader's files and the time zone in `/etc`; read and
//! write of `/dev/null`. Everything else is denied: no writes, no other reads
//! (`$HOME`, `/etc/passwd`, `/tmp`), no TCP bind or connect (Landlock ABI 4+),
//! no signals to or abstract sockets of processes outside (ABI 6+), no connect
//! to pathname UNIX sockets (ABI 9+). Where the kernel lacks Landlock the
//! thread is not restricted, the status says so ([`SandboxStatus::Unavailable`],
//! shown by `crit doctor`), and the argument policy is the only layer.

#[cfg(target_os = "linux")]
mod landlock;

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, mpsc};

use tokio::process::{Child, Command};

/// Read and execute: what every program needs to load.
const SYSTEM_EXEC: &[&str] = &[
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/nix/store",
    "/gnu/store",
];
/// Read only: the dynamic loader's configuration and the local time zone.
const SYSTEM_READ: &[&str] = &[
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/ld.so.preload",
    "/etc/localtime",
];
/// Read and write: devices that hold no data.
const DEVICES: &[&str] = &["/dev/null"];

/// What sandboxed processes may touch; everything else is denied.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxRules {
    /// Read files and list directories beneath these (no execute).
    pub read: Vec<PathBuf>,
    /// Read and execute beneath these.
    pub exec: Vec<PathBuf>,
    /// Read and write these (character devices).
    pub devices: Vec<PathBuf>,
}

impl SandboxRules {
    /// The system directories and files every tool needs (those that exist).
    pub fn system() -> Self {
        let existing = |list: &[&str]| -> Vec<PathBuf> {
            list.iter()
                .map(PathBuf::from)
                .filter(|p| p.exists())
                .collect()
        };
        Self {
            read: existing(SYSTEM_READ),
            exec: existing(SYSTEM_EXEC),
            devices: existing(DEVICES),
        }
    }

    /// Adds a directory or file to read.
    pub fn read(mut self, path: impl Into<PathBuf>) -> Self {
        self.read.push(path.into());
        self
    }

    /// Adds a directory or file to read and execute.
    pub fn exec(mut self, path: impl Into<PathBuf>) -> Self {
        self.exec.push(path.into());
        self
    }

    /// Whether `path` (canonical) may be executed under these rules.
    pub fn may_execute(&self, path: &Path) -> bool {
        self.exec.iter().any(|p| path.starts_with(p))
    }
}

/// Whether the kernel enforces the rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SandboxStatus {
    /// Landlock enforces the rules, with the features of this ABI version.
    Active { abi: u32 },
    /// The kernel cannot enforce them; tools are confined by the argument
    /// policy alone.
    Unavailable { reason: String },
}

impl SandboxStatus {
    pub fn is_active(&self) -> bool {
        matches!(self, SandboxStatus::Active { .. })
    }
}

impl std::fmt::Display for SandboxStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SandboxStatus::Active { abi } => {
                write!(
                    f,
                    "active (Landlock ABI {abi}): tools read only the project, its git \
                     directory and system directories, and write nothing"
                )?;
                if *abi >= 4 {
                    f.write_str("; no TCP")?;
                }
                if *abi >= 6 {
                    f.write_str("; no signals or abstract sockets beyond their own")?;
                }
                if *abi >= 9 {
                    f.write_str("; no UNIX socket connections")?;
                }
                Ok(())
            }
            SandboxStatus::Unavailable { reason } => write!(
                f,
                "not active ({reason}): tools are confined by argument checks only"
            ),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("cannot start the sandbox thread: {0}")]
    Thread(io::Error),
    #[error("cannot set up the kernel sandbox: {0}")]
    Landlock(String),
}

type Job = Box<dyn FnOnce() + Send>;

/// A handle to a restricted spawner thread; cheap to clone. The thread ends
/// when the last handle is dropped.
#[derive(Debug, Clone)]
pub struct Sandbox {
    jobs: mpsc::Sender<Job>,
    status: Arc<SandboxStatus>,
}

impl Sandbox {
    /// Starts the spawner thread and restricts it with `rules`. Blocks while
    /// the kernel builds the rule set (about a millisecond).
    pub fn start(rules: SandboxRules) -> Result<Sandbox, SandboxError> {
        let (jobs, queue) = mpsc::channel::<Job>();
        let (ready_tx, ready) = mpsc::sync_channel(1);
        std::thread::Builder::new()
            .name("crit-sandbox".into())
            .stack_size(256 * 1024)
            .spawn(move || {
                let status = restrict_current_thread(&rules);
                let restricted = status.is_ok();
                let _ = ready_tx.send(status);
                if restricted {
                    for job in queue {
                        job();
                    }
                }
            })
            .map_err(SandboxError::Thread)?;
        let status = ready
            .recv()
            .map_err(|_| SandboxError::Landlock("the sandbox thread stopped".into()))??;
        Ok(Sandbox {
            jobs,
            status: Arc::new(status),
        })
    }

    pub fn status(&self) -> &SandboxStatus {
        &self.status
    }

    /// Spawns `command` from the restricted thread. Must be called inside a
    /// tokio runtime (the child is registered with it).
    pub async fn spawn(&self, mut command: Command) -> io::Result<Child> {
        let runtime = tokio::runtime::Handle::try_current().map_err(io::Error::other)?;
        let (tx, rx) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            let _entered = runtime.enter();
            let _ = tx.send(command.spawn());
        });
        let stopped = || io::Error::other("the sandbox thread has stopped");
        self.jobs.send(job).map_err(|_| stopped())?;
        rx.await.map_err(|_| stopped())?
    }
}

/// What the kernel offers: restricts a throwaway thread with no rules and
/// reports the outcome (for `crit doctor`).
pub fn probe() -> SandboxStatus {
    match Sandbox::start(SandboxRules::default()) {
        Ok(s) => s.status().clone(),
        Err(e) => SandboxStatus::Unavailable {
            reason: e.to_string(),
        },
    }
}

#[cfg(target_os = "linux")]
fn restrict_current_thread(rules: &SandboxRules) -> Result<SandboxStatus, SandboxError> {
    landlock::restrict_current_thread(rules)
}

#[cfg(not(target_os = "linux"))]
fn restrict_current_thread(_rules: &SandboxRules) -> Result<SandboxStatus, SandboxError> {
    Ok(SandboxStatus::Unavailable {
        reason: "the kernel sandbox (Landlock) exists on Linux only".into(),
    })
}
