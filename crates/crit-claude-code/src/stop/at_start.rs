//! The user's settings as an agent's session began, so the review gate is
//! not moved by settings the session itself wrote. The agent runs as the
//! user: it can write the user's crit config (`~/.config/crit`), run
//! `crit trust` or edit the trust store. So the gate notes, at the session's
//! first prompt (else its first stop), where the user's config is and a
//! digest of all of it, and which of the project's settings the user
//! trusted; at each stop it honours only what was trusted then too, and
//! holds, saying why, when the user's config changed since.

use std::collections::BTreeSet;
use std::path::Path;

use crit_os::seal::Sha256;
use serde::{Deserialize, Serialize};

/// At most this many entries of the user's config directory are read; a
/// directory with more is digested as "too large", which any change to its
/// first entries still changes.
const MAX_ENTRIES: usize = 2000;
/// At most this much of each file is read into the digest (its size too).
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// The user's settings the gate takes, as noted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettingsAtStart {
    /// The user's crit config directory (`$XDG_CONFIG_HOME/crit`, else
    /// `~/.config/crit`), as the hook's environment named it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_dir: Option<String>,
    /// SHA-256 over every entry beneath it: names, link targets, contents.
    pub config_digest: String,
    /// The trust store's directory, as the hook's environment named it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_dir: Option<String>,
    /// The ids of the project's settings the user trusted (none when there
    /// was no store to read).
    #[serde(default)]
    pub trusted: BTreeSet<String>,
}

impl SettingsAtStart {
    /// The user's settings for the project at `root`, as they are now.
    pub fn now(root: &Path, env: &crit_os::Env) -> SettingsAtStart {
        let config_dir = crit_os::dirs::config_dir(env);
        SettingsAtStart {
            config_digest: config_dir
                .as_deref()
                .map_or_else(|| "no config directory".into(), digest),
            config_dir: config_dir.map(|d| d.display().to_string()),
            state_dir: crit_os::dirs::state_dir(env).map(|d| d.display().to_string()),
            trusted: crit_project::trust::ProjectRules::trusted_ids(root, env).unwrap_or_default(),
        }
    }

    /// Why the gate cannot take the user's settings as they are `now`: the
    /// config moved or changed since the session began. A changed trust
    /// store is no reason: only what was trusted at the start is honoured.
    pub fn changed(&self, now: &SettingsAtStart) -> Option<String> {
        let shown = |d: &Option<String>| d.clone().unwrap_or_else(|| "none".into());
        if self.config_dir != now.config_dir {
            return Some(format!(
                "the user's crit config directory moved during this session (from {} to {})",
                shown(&self.config_dir),
                shown(&now.config_dir)
            ));
        }
        if self.state_dir != now.state_dir {
            return Some(format!(
                "crit's state directory, which holds the trust store, moved during this session (from {} to {})",
                shown(&self.state_dir),
                shown(&now.state_dir)
            ));
        }
        if self.config_digest != now.config_digest {
            return Some(format!(
                "the user's crit config ({}) changed during this session",
                shown(&now.config_dir)
            ));
        }
        None
    }
}

/// A digest of everything beneath `dir`, following no link (a link's
/// target is digested as its text, and what it points to as its content).
fn digest(dir: &Path) -> String {
    let mut h = Sha256::new();
    let mut stack = vec![dir.to_path_buf()];
    let mut seen = 0usize;
    while let Some(d) = stack.pop() {
        let mut entries: Vec<_> = match std::fs::read_dir(&d) {
            Ok(e) => e.filter_map(Result::ok).map(|e| e.path()).collect(),
            Err(e) => {
                let name = d.strip_prefix(dir).unwrap_or(&d).as_os_str();
                let why = format!("{:?}", e.kind());
                feed(
                    &mut h,
                    &[b"unreadable", name.as_encoded_bytes(), why.as_bytes()],
                );
                continue;
            }
        };
        entries.sort();
        for path in entries {
            seen += 1;
            if seen > MAX_ENTRIES {
                feed(&mut h, &[b"too large"]);
                return hex(h);
            }
            let name = path.strip_prefix(dir).unwrap_or(&path);
            let name = name.as_os_str().as_encoded_bytes();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                feed(&mut h, &[b"gone", name]);
                continue;
            };
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap_or_default();
                feed(
                    &mut h,
                    &[b"link", name, target.as_os_str().as_encoded_bytes()],
                );
                feed(&mut h, &[b"points to", &content(&path)]);
            } else if meta.is_dir() {
                feed(&mut h, &[b"dir", name]);
                stack.push(path);
            } else {
                feed(&mut h, &[b"file", name, &content(&path)]);
            }
        }
    }
    hex(h)
}

/// What a file holds (through a link), capped; its size and kind of
/// failure when it cannot be read.
fn content(path: &Path) -> Vec<u8> {
    let limits = crit_core::files::InputLimits {
        max_bytes: MAX_FILE_BYTES,
    };
    match crit_core::files::read_capped(path, limits) {
        Ok(bytes) => bytes,
        Err(e) => {
            let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
            format!("unreadable ({e}) {size}").into_bytes()
        }
    }
}

fn feed(h: &mut Sha256, parts: &[&[u8]]) {
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
}

fn hex(h: Sha256) -> String {
    h.finish().iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_change_beneath_the_config_directory_changes_the_digest() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("templates")).unwrap();
        std::fs::write(d.join("config.yaml"), "model: a\n").unwrap();
        let first = digest(d);
        assert_eq!(first, digest(d));
        let mut seen = vec![first];
        std::fs::write(d.join("config.yaml"), "model: b\n").unwrap();
        seen.push(digest(d));
        std::fs::write(d.join("templates/code.yaml"), "x").unwrap();
        seen.push(digest(d));
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::write(elsewhere.path().join("c.yaml"), "fail_on: never\n").unwrap();
        std::os::unix::fs::symlink(
            elsewhere.path().join("c.yaml"),
            d.join("prompt-review.yaml"),
        )
        .unwrap();
        seen.push(digest(d));
        // What a link points to is read too.
        std::fs::write(elsewhere.path().join("c.yaml"), "fail_on: p0\n").unwrap();
        seen.push(digest(d));
        let unique: BTreeSet<_> = seen.iter().collect();
        assert_eq!(unique.len(), seen.len(), "{seen:?}");
        assert_eq!(digest(&d.join("absent")), digest(&d.join("also absent")));
    }
}
