//! Where crit's files live: the user's config directory, and the project root.

use std::path::{Path, PathBuf};

/// `$XDG_CONFIG_HOME/crit`, else `~/.config/crit` (XDG on macOS too, as CLI users
/// expect). `env` is injected so tests stay hermetic.
pub fn user_config_dir(env: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
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
pub fn user_state_dir(env: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
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

/// `$XDG_CACHE_HOME/crit`, else `~/.cache/crit`: what crit can recompute
/// (reviews of prompts and hunks it has seen before).
pub fn user_cache_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    env("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            env("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })
        .map(|d| d.join("crit"))
}

/// The project a directory belongs to: the nearest ancestor holding `.git`
/// (a directory, or a file in a worktree), else the directory itself.
/// Sessions, project templates and tool confinement all hang off it.
///
/// The climb stops below the user's home directory: a home kept in git (a
/// dotfiles repository) is not the project of every directory under it, and
/// taking it as the root would open `~/.ssh` to the reviewer's tools. A
/// directory whose nearest repository is the home (or above it) is its own
/// root; the home itself is a project only when crit runs in it.
///
/// `home` is the user's home as the front end read it (`HOME`).
pub fn project_root_in(dir: &Path, home: Option<&Path>) -> PathBuf {
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let dir = canon(dir);
    let home = home.filter(|h| !h.as_os_str().is_empty()).map(canon);
    // The home and every directory above it are off limits, unless crit runs there.
    let off_limits = |d: &Path| {
        d != dir && (home.as_deref().is_some_and(|h| h.starts_with(d)) || d.parent().is_none())
    };
    dir.ancestors()
        .take_while(|d| !off_limits(d))
        .find(|d| d.join(".git").exists())
        .unwrap_or(&dir)
        .to_path_buf()
}

/// Environment lookups passed down instead of read from the process, so tests
/// and library users decide where crit's files go (`XDG_*`, `HOME`).
pub type EnvLookup = std::sync::Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;
