//! What every tool call gets besides its input: where it may look, how much it may
//! read and print, how long Bash may run, a token to stop early, the Bash
//! tool's sandbox once it has one, and the redactor its results pass through.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::OnceCell;

use tokio_util::sync::CancellationToken;

use crate::confine::{ConfineError, Roots};
use crate::redaction::ToolRedactor;
use crate::tools::bash::session::BashSession;

/// Caps on what a tool reads and returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Largest slice of a file `Read` returns, in bytes.
    pub max_read_bytes: usize,
    /// Largest tool output returned to the model, in bytes (Glob, Grep, Bash).
    pub max_output_bytes: usize,
    /// Bash timeout when the call gives none.
    pub bash_timeout: Duration,
    /// Upper bound on a timeout the model asks for.
    pub bash_max_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_read_bytes: 256 * 1024,
            max_output_bytes: 30_000,
            bash_timeout: Duration::from_secs(120),
            bash_max_timeout: Duration::from_secs(600),
        }
    }
}

/// Shared by all calls of one agent; cheap to clone.
#[derive(Debug, Clone)]
pub struct ToolContext {
    pub roots: Roots,
    pub limits: Limits,
    pub cancel: CancellationToken,
    /// The Bash tool's sandbox and repository, set up at its first call.
    pub(crate) bash: Arc<OnceCell<BashSession>>,
    /// Removes secrets from every tool result before the model sees it.
    pub redaction: ToolRedactor,
    /// The environment the front end read at its edge: the Bash tool's
    /// programs start from its `PATH` and `LANG` (nothing else of it).
    pub env: Arc<crit_os::env::Env>,
    /// The project's own commands Bash may run besides the read-only ones
    /// (each as its words: the program, then the arguments it starts with),
    /// from the user's trusted settings only.
    pub project_commands: Arc<Vec<Vec<String>>>,
}

impl ToolContext {
    /// A context for `root` plus `extra_roots` (`--add-dir`), default limits and a
    /// fresh cancellation token. Fails if a root does not exist.
    pub fn new(root: impl AsRef<Path>, extra_roots: &[PathBuf]) -> Result<Self, ConfineError> {
        Ok(Self {
            roots: Roots::new(root, extra_roots)?,
            limits: Limits::default(),
            cancel: CancellationToken::new(),
            bash: Arc::new(OnceCell::new()),
            redaction: ToolRedactor::default(),
            env: Arc::default(),
            project_commands: Arc::default(),
        })
    }

    /// The project's commands Bash may run (see [`ToolContext::project_commands`]).
    pub fn with_project_commands(mut self, commands: Arc<Vec<Vec<String>>>) -> Self {
        self.project_commands = commands;
        self
    }

    /// The environment the Bash tool's programs start from.
    pub fn with_env(mut self, env: Arc<crit_os::env::Env>) -> Self {
        self.env = env;
        self
    }

    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    pub fn with_cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// The project root (canonical).
    pub fn root(&self) -> &Path {
        self.roots.root()
    }
}
