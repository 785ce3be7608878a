//! Where crit's files live: the user's config directory, and the project root.

use std::path::{Path, PathBuf};

/// `$XDG_CONFIG_HOME/crit`, else `~/.config/crit` (XDG on macOS too, as CLI users
/// expect). `env` is injected so tests stay hermetic.
pub(crate) fn user_config_dir(env: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    env("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            env("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".config"))
        })
        .map(|c| c.join("crit"))
}

/// `$XDG_STATE_HOME/crit`, else `~/.local/state/crit`: what crit keeps for
/// the user across runs (the trust store, the audit log).
pub(crate) fn user_state_dir(env: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    env("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            env("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".local").join("state"))
        })
        .map(|s| s.join("crit"))
}

/// The project a directory belongs to: the nearest ancestor holding `.git`
/// (a directory, or a file in a worktree), else the directory itself.
/// Sessions, project templates and tool confinement all hang off it.
pub fn project_root(dir: &Path) -> PathBuf {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    dir.ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(&dir)
        .to_path_buf()
}

/// Environment lookups passed down instead of read from the process, so tests
/// and library users decide where crit's files go (`XDG_*`, `HOME`).
pub type EnvLookup = std::sync::Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;
