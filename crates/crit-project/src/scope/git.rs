//! The scope's git: crit-os's hardened runner ([`crit_os::git::Git`]) with
//! its failures in the scope's words. Attributes never come from the change
//! under review (`GIT_ATTR_SOURCE` is the empty tree, `core.attributesFile` off
//! or a trusted file), every diff runs `--no-ext-diff --no-textconv`, and
//! [`Git::diff`] shows every file as text: what git would call binary
//! (`-diff`, `binary`, a NUL byte) is crit's to judge from the bytes.

use std::path::Path;
use std::time::Duration;

use crit_os::Env;
use crit_os::git::{self as os, GitError, GitOptions};

use super::ScopeError;

pub(super) use crit_os::git::GitOutput;

/// A git runner rooted at one directory; a repository git cannot be pointed
/// at (a `.git` file leading elsewhere, no git at all) fails each command
/// with why.
#[derive(Debug, Clone)]
pub(super) struct Git {
    inner: Result<os::Git, Broken>,
}

/// Why git cannot run here, kept to fail each command with.
#[derive(Debug, Clone)]
enum Broken {
    Unavailable(String),
    Other(String),
}

impl Git {
    /// The runner for the repository containing `cwd`; the repository's
    /// filter drivers and attribute files are neutralised once here.
    pub(super) fn new(cwd: &Path, timeout: Duration, env: &Env) -> Self {
        let opts = GitOptions {
            timeout,
            ..GitOptions::default()
        };
        let inner = os::Git::open(cwd, &child_env(env), opts).map_err(Broken::from);
        Git { inner }
    }

    /// The runner for the repository containing `cwd`, being opened: the
    /// `early` reads of commits and the `rev-parse` that locates it and
    /// resolves `revs` started, waited for in [`Opening::finish`] (see
    /// [`os::Git::open_reading`]).
    pub(super) fn start_reading(
        cwd: &Path,
        timeout: Duration,
        revs: &[&str],
        early: &[os::EarlyRead<'_>],
        env: &Env,
    ) -> Opening {
        let opts = GitOptions {
            timeout,
            ..GitOptions::default()
        };
        Opening {
            started: os::Git::start_reading(cwd, &child_env(env), opts, revs, early),
            early: early.len(),
        }
    }

    /// The empty tree's id in this repository's object format.
    pub(super) fn empty_tree(&self) -> Result<String, ScopeError> {
        let git = self.git(&["hash-object"])?;
        Ok(git.empty_tree().map_err(scope_error)?.to_string())
    }

    /// Whether a repository contains the directory, as crit's own discovery
    /// found it (never read from git's messages, which are translated).
    pub(super) fn in_repository(&self) -> bool {
        matches!(&self.inner, Ok(g) if g.layout().is_some())
    }

    /// Runs `git <hardening> args`, keeping up to `cap` bytes of stdout.
    /// Errors only when git cannot be started or is killed.
    pub(super) fn run(&self, args: &[&str], cap: usize) -> Result<GitOutput, ScopeError> {
        self.git(args)?.run(args, cap).map_err(scope_error)
    }

    /// Like [`Git::run`], but a non-zero exit is a [`ScopeError::Git`].
    pub(super) fn ok(&self, args: &[&str], cap: usize) -> Result<GitOutput, ScopeError> {
        self.git(args)?.ok(args, cap).map_err(scope_error)
    }

    /// `git diff --no-ext-diff --no-textconv --text args`: every file shown
    /// as text, whatever an attribute or a NUL byte would make git say.
    pub(super) fn diff(&self, args: &[&str], cap: usize) -> Result<GitOutput, ScopeError> {
        self.git(args)?.diff(args, true, cap).map_err(scope_error)
    }

    fn git(&self, args: &[&str]) -> Result<&os::Git, ScopeError> {
        self.inner.as_ref().map_err(|b| b.error(args))
    }
}

/// A repository being opened, its runs started ([`Git::start_reading`]);
/// dropped unfinished, they are killed.
pub(super) struct Opening {
    started: Result<os::Opening, GitError>,
    /// How many reads started early.
    early: usize,
}

impl Opening {
    /// The runner, the answer of the `rev-parse` when it could run, and
    /// each early read's answer (`None`: run it again).
    pub(super) fn finish(self) -> (Git, Result<GitOutput, ScopeError>, Vec<Option<GitOutput>>) {
        match self.started.and_then(os::Opening::finish) {
            Ok((git, out, read)) => (Git { inner: Ok(git) }, Ok(out), read),
            Err(e) => {
                let broken = Broken::from(e);
                let err = broken.error(&["rev-parse", "--show-toplevel"]);
                let none = (0..self.early).map(|_| None).collect();
                (Git { inner: Err(broken) }, Err(err), none)
            }
        }
    }
}

impl From<GitError> for Broken {
    fn from(e: GitError) -> Self {
        match e {
            GitError::Unavailable { reason } => Broken::Unavailable(reason),
            other => Broken::Other(other.to_string()),
        }
    }
}

impl Broken {
    /// Why the command `args` cannot run.
    fn error(&self, args: &[&str]) -> ScopeError {
        match self {
            Broken::Unavailable(reason) => ScopeError::GitUnavailable {
                reason: reason.clone(),
            },
            Broken::Other(message) => ScopeError::Git {
                command: format!("git {}", args.join(" ")),
                message: message.clone(),
            },
        }
    }
}

fn scope_error(e: GitError) -> ScopeError {
    match e {
        GitError::Unavailable { reason } => ScopeError::GitUnavailable { reason },
        GitError::Timeout { command, secs } => ScopeError::GitTimeout { command, secs },
        GitError::Failed { command, message } => ScopeError::Git { command, message },
        GitError::Layout(e) => ScopeError::Git {
            command: "git".into(),
            message: e.to_string(),
        },
    }
}

/// What the child may see of the environment the front end read: PATH
/// (crit-os drops entries inside the project), and HOME and XDG_CONFIG_HOME
/// so the user's own git config (git-lfs) applies. Nothing else reaches git.
fn child_env(env: &Env) -> Env {
    let mut child = Env::new();
    for key in ["PATH", "HOME", "XDG_CONFIG_HOME"] {
        if let Some(v) = env.get(key) {
            child.set(key, v);
        }
    }
    child
}
