//! The environment as data: read once at the edge (a front end calls
//! [`Env::from_process`]) and handed down, so that what crit does is testable
//! without touching the real process environment.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Environment variables. Values may be secrets: `Debug` shows names only.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Env {
    vars: BTreeMap<String, String>,
}

impl Env {
    pub fn new() -> Self {
        Env::default()
    }

    /// A snapshot of this process's environment (the CLI calls this once).
    pub fn from_process() -> Self {
        Env {
            vars: std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
        }
    }

    pub fn from_pairs<K: Into<String>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        Env {
            vars: pairs
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        }
    }

    pub fn with(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.set(key, value);
        self
    }

    pub fn set(&mut self, key: impl Into<String>, value: impl Into<String>) {
        self.vars.insert(key.into(), value.into());
    }

    pub fn remove(&mut self, key: &str) {
        self.vars.remove(key);
    }

    /// The value, if set; an empty value counts as set.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.vars.get(key).map(String::as_str)
    }

    /// The value, if set and not blank.
    pub fn non_empty(&self, key: &str) -> Option<&str> {
        self.get(key).filter(|v| !v.trim().is_empty())
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.vars.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The first executable file called `name` on `PATH`.
    pub fn which(&self, name: &str) -> Option<PathBuf> {
        let path = self.get("PATH")?;
        std::env::split_paths(path)
            .map(|dir| dir.join(name))
            .find(|p| is_executable(p))
    }
}

impl std::fmt::Debug for Env {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Env")
            .field("names", &self.vars.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// A regular file with an execute bit (following symlinks, as `PATH` lookup does).
pub fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_shows_names_not_values() {
        let e = Env::from_pairs([("ANTHROPIC_API_KEY", "sk-ant-hush")]);
        let d = format!("{e:?}");
        assert!(d.contains("ANTHROPIC_API_KEY"));
        assert!(!d.contains("hush"));
    }

    #[test]
    fn which_finds_executables_only() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("claude");
        std::fs::write(&exe, "#!/bin/sh\n").unwrap();
        let plain = dir.path().join("notexec");
        std::fs::write(&plain, "").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let env = Env::new().with("PATH", format!("/nonexistent:{}", dir.path().display()));
        assert_eq!(env.which("claude"), Some(exe));
        assert_eq!(env.which("notexec"), None);
        assert_eq!(Env::new().which("claude"), None);
    }
}
