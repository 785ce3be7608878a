//! Where crit's files live: the user's config directory, and the project root.

use std::path::{Path, PathBuf};

/// `$XDG_CONFIG_HOME/crit`, else `~/.config/crit`, by crit-os's one rule
/// (a relative `XDG_*` or `HOME` is ignored, as the specification says).
/// `env` is injected so tests stay hermetic.
pub fn user_config_dir(env: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    crit_os::dirs::config_dir_from(&env)
}

/// `$XDG_STATE_HOME/crit`, else `~/.local/state/crit`: what crit keeps for
/// the user across runs (the trust store, the audit log).
pub fn user_state_dir(env: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    crit_os::dirs::state_dir_from(&env)
}

/// `$XDG_CACHE_HOME/crit`, else `~/.cache/crit`: what crit can recompute
/// (reviews of prompts and hunks it has seen before).
pub fn user_cache_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    crit_os::dirs::cache_dir_from(env)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relative_xdg_directory_is_ignored_as_the_specification_says() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(key, _)| *key == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        let relative = env(&[
            ("XDG_STATE_HOME", "state"),
            ("XDG_CONFIG_HOME", "./c"),
            ("HOME", "/h"),
        ]);
        assert_eq!(
            user_state_dir(relative),
            Some(PathBuf::from("/h/.local/state/crit"))
        );
        assert_eq!(
            user_config_dir(relative),
            Some(PathBuf::from("/h/.config/crit"))
        );
        let absolute = env(&[
            ("XDG_STATE_HOME", "/s"),
            ("XDG_CACHE_HOME", "/c"),
            ("HOME", "/h"),
        ]);
        assert_eq!(user_state_dir(absolute), Some(PathBuf::from("/s/crit")));
        assert_eq!(user_cache_dir(&absolute), Some(PathBuf::from("/c/crit")));
        assert_eq!(user_state_dir(env(&[("HOME", "rel")])), None);
    }
}
