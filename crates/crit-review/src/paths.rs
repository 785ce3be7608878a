//! Where crit's user-level files live.

use std::path::PathBuf;

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
