//! The user's directories for crit, by one rule (the XDG Base Directory
//! specification, on macOS too, as command-line tools do): `$XDG_CONFIG_HOME`,
//! `$XDG_STATE_HOME` or `$XDG_CACHE_HOME` when set to an absolute path (the
//! specification says a relative value is to be ignored), else
//! `$HOME/.config`, `$HOME/.local/state` or `$HOME/.cache`; each with `crit/`
//! appended. `None` when neither is usable (no absolute `HOME` either).
//!
//! These are the user's own directories, so reaching them through a symlink
//! is fine; open one as a [`crate::write::Root`] to write beneath it.

use std::path::PathBuf;

use crate::env::Env;

/// `$XDG_CONFIG_HOME/crit`, else `~/.config/crit`: what the user configures.
pub fn config_dir(env: &Env) -> Option<PathBuf> {
    crit_dir(env, "XDG_CONFIG_HOME", ".config")
}

/// `$XDG_STATE_HOME/crit`, else `~/.local/state/crit`: what crit keeps for
/// the user between runs (sessions, audit logs, the sealing key, trust).
pub fn state_dir(env: &Env) -> Option<PathBuf> {
    crit_dir(env, "XDG_STATE_HOME", ".local/state")
}

/// `$XDG_CACHE_HOME/crit`, else `~/.cache/crit`: what crit can recompute.
pub fn cache_dir(env: &Env) -> Option<PathBuf> {
    crit_dir(env, "XDG_CACHE_HOME", ".cache")
}

/// `$HOME`, when it is an absolute path.
pub fn home(env: &Env) -> Option<PathBuf> {
    absolute(env, "HOME")
}

/// Another program's base directory by the same rule, without `crit/`:
/// `$XDG_DATA_HOME` else `~/.local/share` ([`Base::Data`]), `$XDG_CONFIG_HOME`
/// else `~/.config` ([`Base::Config`]); where shells read completions.
pub fn base_dir(env: &Env, base: Base) -> Option<PathBuf> {
    let (xdg, under_home) = match base {
        Base::Data => ("XDG_DATA_HOME", ".local/share"),
        Base::Config => ("XDG_CONFIG_HOME", ".config"),
    };
    absolute(env, xdg).or_else(|| absolute(env, "HOME").map(|h| h.join(under_home)))
}

/// An XDG base directory [`base_dir`] knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    Data,
    Config,
}

fn crit_dir(env: &Env, xdg: &str, under_home: &str) -> Option<PathBuf> {
    absolute(env, xdg)
        .or_else(|| absolute(env, "HOME").map(|h| h.join(under_home)))
        .map(|base| base.join("crit"))
}

fn absolute(env: &Env, key: &str) -> Option<PathBuf> {
    env.get(key).map(PathBuf::from).filter(|p| p.is_absolute())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xdg_wins_only_when_absolute() {
        let env = Env::from_pairs([("XDG_STATE_HOME", "/s"), ("HOME", "/h")]);
        assert_eq!(state_dir(&env), Some(PathBuf::from("/s/crit")));
        for ignored in ["", "relative/state", "./s"] {
            let env = Env::from_pairs([("XDG_STATE_HOME", ignored), ("HOME", "/h")]);
            assert_eq!(
                state_dir(&env),
                Some(PathBuf::from("/h/.local/state/crit")),
                "{ignored:?}"
            );
        }
        let env = Env::from_pairs([("XDG_CONFIG_HOME", "c"), ("HOME", "/h")]);
        assert_eq!(config_dir(&env), Some(PathBuf::from("/h/.config/crit")));
        let env = Env::from_pairs([("XDG_CACHE_HOME", "/c"), ("HOME", "/h")]);
        assert_eq!(cache_dir(&env), Some(PathBuf::from("/c/crit")));
        assert_eq!(
            cache_dir(&Env::from_pairs([("HOME", "/h")])),
            Some(PathBuf::from("/h/.cache/crit"))
        );
    }

    #[test]
    fn nothing_usable_is_none() {
        assert_eq!(state_dir(&Env::new()), None);
        let env = Env::from_pairs([("XDG_STATE_HOME", "rel"), ("HOME", "also-rel")]);
        assert_eq!(state_dir(&env), None);
        assert_eq!(config_dir(&env), None);
        assert_eq!(cache_dir(&env), None);
        assert_eq!(home(&env), None);
    }

    #[test]
    fn other_programs_bases_follow_the_same_rule() {
        let env = Env::from_pairs([("XDG_DATA_HOME", "/d"), ("HOME", "/h")]);
        assert_eq!(base_dir(&env, Base::Data), Some(PathBuf::from("/d")));
        assert_eq!(
            base_dir(&env, Base::Config),
            Some(PathBuf::from("/h/.config"))
        );
        let env = Env::from_pairs([("XDG_DATA_HOME", "rel"), ("HOME", "/h")]);
        assert_eq!(
            base_dir(&env, Base::Data),
            Some(PathBuf::from("/h/.local/share"))
        );
        assert_eq!(base_dir(&Env::new(), Base::Config), None);
    }
}
