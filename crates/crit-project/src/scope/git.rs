//! The hardened git runner behind [`super::compute`]: no shell, a cleared
//! environment, the repository named explicitly (`--git-dir`/`--work-tree`
//! from [`crit_agent::git_layout`], so `core.worktree` or a `.git` file
//! pointing elsewhere cannot move it), `-c` overrides that beat every config
//! file, literal pathspecs, stdin empty, stdout and stderr capped, and a
//! timeout that kills git's whole process group.
//!
//! The hardening itself ([`crit_agent::git_hardening`]) is shared with the
//! Bash tool's git; this runner is synchronous because `compute` is. It runs
//! crit's own fixed commands, not the model's, and keeps the user's global
//! config (git-lfs), so it is not in the tools' kernel sandbox.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use crit_agent::git_hardening::{CONFIG_QUERY, GIT_ENV, HARDENING, RepoConfig};
use crit_agent::git_layout::{self, GitLayoutError};

use super::ScopeError;

/// On top of crit-agent's shared hardening: a stable output shape for the
/// parser (unquoted paths, no colour, `a/` `b/` prefixes, full-tree paths,
/// git's own file order whatever the repository's config says).
#[rustfmt::skip]
const OUTPUT_SHAPE: &[&str] = &[
    "-c", "core.quotePath=false",
    "-c", "color.ui=false",
    "-c", "diff.noprefix=false",
    "-c", "diff.mnemonicPrefix=false",
    "-c", "diff.relative=false",
    "-c", "diff.srcPrefix=a/",
    "-c", "diff.dstPrefix=b/",
    "-c", "diff.suppressBlankEmpty=false",
];

/// Bytes of stderr kept: enough for git's message.
const STDERR_CAP: usize = 16 * 1024;
/// After the group is killed, how long to wait for the pipes to close.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// What one git run produced.
#[derive(Debug)]
pub(super) struct GitOutput {
    pub stdout: Vec<u8>,
    pub stderr: String,
    pub status: Option<ExitStatus>,
    /// stdout went past the cap; `stdout` holds the first `cap` bytes.
    pub overflowed: bool,
}

impl GitOutput {
    pub fn success(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
}

/// A git runner rooted at one directory.
#[derive(Debug, Clone)]
pub(super) struct Git {
    cwd: PathBuf,
    timeout: Duration,
    /// `--git-dir`/`--work-tree`, or why git must not run here.
    repo: Result<Vec<String>, String>,
    /// Extra `-c` overrides found at start (the repository's filter drivers).
    extra: Vec<String>,
    env: Vec<(OsString, OsString)>,
    /// `git` found once on the child's PATH. Spawning by absolute path lets
    /// std use posix_spawn; a bare name with a changed PATH makes it fork,
    /// which costs more the larger the calling process (a library user's).
    program: PathBuf,
}

impl Git {
    pub fn new(cwd: &Path, timeout: Duration) -> Self {
        let env = child_env(cwd, std::env::var_os("PATH"));
        let repo = match git_layout::discover(cwd) {
            Ok(layout) => Ok(layout.args().into()),
            // git says so itself, in the words the scope recognizes; it is
            // still told where to look, so it cannot find anything else.
            Err(GitLayoutError::NotARepository { .. }) => Ok(vec![
                format!("--git-dir={}", cwd.join(".git").display()),
                format!("--work-tree={}", cwd.display()),
            ]),
            Err(e) => Err(e.to_string()),
        };
        Git {
            cwd: cwd.to_path_buf(),
            timeout,
            repo,
            extra: Vec::new(),
            program: find_git(&env),
            env,
        }
    }

    /// `-c` overrides that disable the clean/smudge filter drivers the
    /// repository defines (`git diff` runs them on work-tree files); drivers
    /// from the user's global config (git-lfs) stay. Give them to
    /// [`Git::with_overrides`].
    pub fn filter_overrides(&self) -> Result<Vec<String>, ScopeError> {
        let out = self.run(CONFIG_QUERY, 256 * 1024)?;
        Ok(RepoConfig::parse(&out.text()).overrides())
    }

    pub fn with_overrides(mut self, extra: Vec<String>) -> Self {
        self.extra = extra;
        self
    }

    /// Runs `git <HARDENING> <filter overrides> args`, keeping up to `cap`
    /// bytes of stdout. Errors only when git cannot be started or is killed.
    pub fn run(&self, args: &[&str], cap: usize) -> Result<GitOutput, ScopeError> {
        let repo = self.repo.as_ref().map_err(|message| ScopeError::Git {
            command: format!("git {}", args.join(" ")),
            message: message.clone(),
        })?;
        let mut cmd = Command::new(&self.program);
        cmd.args(HARDENING)
            .args(repo)
            .args(OUTPUT_SHAPE)
            .args(&self.extra)
            .args(args)
            .current_dir(&self.cwd)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let child = cmd.spawn().map_err(|e| ScopeError::GitUnavailable {
            reason: e.to_string(),
        })?;
        let (out, timed_out) = capture(child, cap, self.timeout);
        tracing::debug!(args = ?args, ok = out.success(), timed_out, "git");
        if timed_out {
            return Err(ScopeError::GitTimeout {
                command: format!("git {}", args.join(" ")),
                secs: self.timeout.as_secs_f64(),
            });
        }
        Ok(out)
    }

    /// Like [`Git::run`], but a non-zero exit is a [`ScopeError::Git`].
    pub fn ok(&self, args: &[&str], cap: usize) -> Result<GitOutput, ScopeError> {
        let out = self.run(args, cap)?;
        if out.success() {
            Ok(out)
        } else {
            Err(ScopeError::Git {
                command: format!("git {}", args.join(" ")),
                message: out.stderr.trim().to_string(),
            })
        }
    }
}

enum Done {
    Stdout(Vec<u8>, bool),
    Stderr(Vec<u8>),
    Exit(Option<ExitStatus>),
}

/// Drains both pipes and waits, each on its own thread, so a full pipe never
/// blocks git; past the deadline the process group is killed. Returns what was
/// read and whether it timed out.
fn capture(mut child: Child, cap: usize, timeout: Duration) -> (GitOutput, bool) {
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    if let Some(r) = child.stdout.take() {
        let tx = tx.clone();
        thread::spawn(move || {
            let (bytes, over) = read_capped(r, cap);
            let _ = tx.send(Done::Stdout(bytes, over));
        });
    }
    if let Some(r) = child.stderr.take() {
        let tx = tx.clone();
        thread::spawn(move || {
            let _ = tx.send(Done::Stderr(read_capped(r, STDERR_CAP).0));
        });
    }
    thread::spawn(move || {
        let _ = tx.send(Done::Exit(child.wait().ok()));
    });
    let mut out = GitOutput {
        stdout: Vec::new(),
        stderr: String::new(),
        status: None,
        overflowed: false,
    };
    let deadline = Instant::now() + timeout;
    let mut timed_out = false;
    for _ in 0..3 {
        let wait = if timed_out {
            DRAIN_GRACE
        } else {
            deadline.saturating_duration_since(Instant::now())
        };
        let done = match rx.recv_timeout(wait) {
            Ok(d) => d,
            Err(mpsc::RecvTimeoutError::Timeout) if !timed_out => {
                // The leader may be reaped already while a grandchild holds a
                // pipe; the group id stays taken while any member lives.
                kill_group(pid);
                timed_out = true;
                match rx.recv_timeout(DRAIN_GRACE) {
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
            Done::Stderr(b) => out.stderr = String::from_utf8_lossy(&b).into_owned(),
            Done::Exit(s) => out.status = s,
        }
    }
    (out, timed_out)
}

/// Reads everything, keeping the first `cap` bytes; `true` when more came.
fn read_capped(mut r: impl Read, cap: usize) -> (Vec<u8>, bool) {
    let mut kept = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    let mut over = false;
    loop {
        match r.read(&mut chunk) {
            Ok(0) | Err(_) => return (kept, over),
            Ok(n) => {
                let room = cap.saturating_sub(kept.len());
                kept.extend_from_slice(&chunk[..n.min(room)]);
                over |= n > room;
            }
        }
    }
}

#[cfg(unix)]
fn kill_group(pid: u32) {
    let pid = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw);
    if let Some(pid) = pid
        && let Err(e) = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL)
    {
        tracing::debug!(error = %e, "killing git's process group");
    }
}

#[cfg(not(unix))]
fn kill_group(_pid: u32) {}

/// The first executable `git` on the child's (already sanitised) PATH; the
/// bare name when there is none, so the spawn error says git is missing.
fn find_git(env: &[(OsString, OsString)]) -> PathBuf {
    let path = env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.clone());
    path.iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join("git"))
        .find(|p| is_executable(p))
        .unwrap_or_else(|| PathBuf::from("git"))
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(p: &Path) -> bool {
    p.is_file()
}

/// The child's whole environment: PATH without relative entries or entries
/// inside the project (a repository must not plant its own `git`), HOME and
/// XDG_CONFIG_HOME (the user's own git config applies), [`GIT_ENV`], and the C
/// locale for stable messages.
fn child_env(root: &Path, path: Option<OsString>) -> Vec<(OsString, OsString)> {
    let path = path.unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let safe: Vec<_> = std::env::split_paths(&path)
        .filter(|p| p.is_absolute() && !p.starts_with(&root))
        .collect();
    let mut env = vec![(
        OsString::from("PATH"),
        std::env::join_paths(safe).unwrap_or_default(),
    )];
    for key in ["HOME", "XDG_CONFIG_HOME"] {
        if let Some(v) = std::env::var_os(key) {
            env.push((key.into(), v));
        }
    }
    env.extend(GIT_ENV.iter().map(|(k, v)| ((*k).into(), (*v).into())));
    env.push(("LC_ALL".into(), "C".into()));
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_drops_relative_and_in_project_entries() {
        let dir = tempfile::TempDir::new().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let path = std::env::join_paths([
            PathBuf::from("/usr/bin"),
            ".".into(),
            root.join("bin"),
            "bin".into(),
        ])
        .unwrap();
        let env = child_env(&root, Some(path));
        assert_eq!(env[0], ("PATH".into(), "/usr/bin".into()));
        assert!(env.iter().any(|(k, v)| k == "LC_ALL" && v == "C"));
        // The environment is built from scratch (and the child's is cleared):
        // nothing that redirects git (GIT_DIR, GIT_WORK_TREE, GIT_EXTERNAL_DIFF...).
        for (k, _) in &env {
            let k = k.to_string_lossy();
            assert!(
                ["PATH", "HOME", "XDG_CONFIG_HOME", "LC_ALL", "PAGER"].contains(&k.as_ref())
                    || GIT_ENV.iter().any(|(g, _)| *g == k),
                "{k}"
            );
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_timeout_kills_the_whole_process_group() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "sleep 30 & echo $!; wait"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let started = Instant::now();
        let (out, timed_out) = capture(cmd.spawn().unwrap(), 1024, Duration::from_millis(300));
        assert!(timed_out);
        assert!(started.elapsed() < Duration::from_secs(10));
        let grandchild = out.text().trim().to_string();
        assert!(!grandchild.is_empty(), "{out:?}");
        let proc = PathBuf::from(format!("/proc/{grandchild}"));
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
    fn read_capped_keeps_the_head_and_reports_overflow() {
        let (kept, over) = read_capped(&b"abcdef"[..], 4);
        assert_eq!((kept.as_slice(), over), (&b"abcd"[..], true));
        let (kept, over) = read_capped(&b"ab"[..], 4);
        assert_eq!((kept.as_slice(), over), (&b"ab"[..], false));
    }
}
