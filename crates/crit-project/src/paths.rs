//! Where crit's files live: the user's config directory, and the project root.

use std::path::{Path, PathBuf};

/// `$XDG_CACHE_HOME/crit`, else `~/.cache/crit`, for the prompt review's
/// cache, whose front ends still pass a lookup; everything else calls
/// [`crit_os::dirs`] with the front end's [`crit_os::Env`].
pub fn user_cache_dir(env: &crit_os::Env) -> Option<PathBuf> {
    crit_os::dirs::cache_dir(env)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_dir_follows_the_one_xdg_rule() {
        // A relative XDG_CACHE_HOME is ignored, as the XDG spec says.
        let env = crit_os::Env::from_pairs([("XDG_CACHE_HOME", "cache"), ("HOME", "/h")]);
        assert_eq!(user_cache_dir(&env), Some(PathBuf::from("/h/.cache/crit")));
        let env = crit_os::Env::from_pairs([("XDG_CACHE_HOME", "/c"), ("PATH", "/bin")]);
        assert_eq!(user_cache_dir(&env), Some(PathBuf::from("/c/crit")));
    }
}
