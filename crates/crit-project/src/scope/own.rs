//! crit's own files, which no review looks at unless the user names them: what
//! crit writes into a project as it reviews (`.crit/.gitignore`, the sessions
//! under `.crit/sessions/`), and what `crit install` wrote (the files its
//! ledger, `.claude/crit-install.json`, lists, and the ledger itself) while
//! each is as crit wrote it: a file the user has since edited is theirs again.
//!
//! Else the first review's `.crit/.gitignore` is in every later
//! `--uncommitted` review, and the review gate's first run after an install
//! reviews nothing but crit's own `.claude` files, at a model's price.

use std::path::Path;

use crit_os::seal::sha256_hex as hex;

use super::files::{Selector, normalize};
use super::{Change, shard};

/// Where `crit install` records what it added, in the `.claude` directory it
/// installed into.
pub const INSTALL_LEDGER: &str = "crit-install.json";

/// What crit writes as it reviews, from the project root: a file, or a
/// directory (ending in `/`) and everything in it.
const WRITTEN: [&str; 2] = [".crit/.gitignore", ".crit/sessions/"];

/// The largest ledger or installed file read to tell whether it is crit's.
const CAP: u64 = 4 * 1024 * 1024;

/// crit's own files in one project.
#[derive(Debug, Clone, Default)]
pub struct OwnFiles {
    /// Paths from the project root, `/`-separated; a directory ends in `/`.
    paths: Vec<String>,
}

impl OwnFiles {
    /// crit's own files in the project at `root`. Reads only the install
    /// ledger and the files it lists; a missing or unreadable one is simply
    /// not crit's.
    pub fn of(root: &Path) -> OwnFiles {
        let mut paths: Vec<String> = WRITTEN.iter().map(|p| p.to_string()).collect();
        paths.extend(installed(root));
        OwnFiles { paths }
    }

    /// Whether `path` (from the project root) is one of crit's own files.
    pub fn contains(&self, path: &str) -> bool {
        let path = normalize(path);
        self.paths.iter().any(|own| match own.strip_suffix('/') {
            Some(dir) => path.starts_with(own.as_str()) || path == dir,
            None => path == own,
        })
    }
}

/// `.claude/crit-install.json` and, of the files it lists, those still as crit
/// wrote them: each of `files` (paths from `.claude`) whose SHA-256 is the
/// recorded one, and `settings.json` while its SHA-256 is `settings_sha256`.
fn installed(root: &Path) -> Vec<String> {
    let dir = root.join(".claude");
    let Some(text) = read(&dir.join(INSTALL_LEDGER)) else {
        return Vec::new();
    };
    let Ok(ledger) = serde_json::from_slice::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    let mut recorded: Vec<(String, String)> = ledger
        .get("files")
        .and_then(|f| f.as_array())
        .into_iter()
        .flatten()
        .filter_map(|f| {
            let path = f.get("path")?.as_str()?;
            let sha = f.get("sha256")?.as_str()?;
            Some((path.to_string(), sha.to_string()))
        })
        .collect();
    if let Some(sha) = ledger.get("settings_sha256").and_then(|s| s.as_str()) {
        recorded.push(("settings.json".to_string(), sha.to_string()));
    }
    let mut own = vec![format!(".claude/{INSTALL_LEDGER}")];
    for (path, sha) in recorded {
        // Only plain relative paths inside `.claude`: the ledger is a file
        // in the checkout, so anyone could have written it.
        let plain = !path.is_empty()
            && !path.starts_with('/')
            && path
                .split('/')
                .all(|c| !c.is_empty() && c != "." && c != "..");
        if plain && read(&dir.join(&path)).is_some_and(|bytes| hex(&bytes) == sha) {
            own.push(format!(".claude/{path}"));
        }
    }
    own
}

/// A regular file's bytes, up to [`CAP`]; `None` for anything else.
fn read(path: &Path) -> Option<Vec<u8>> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > CAP {
        return None;
    }
    std::fs::read(path).ok()
}

/// Whether one of `globs` names `path` itself: it matches and spells out
/// where the file is (`.crit/**`, `.claude/commands/*.md`), not a pattern
/// that happens to reach it (`**`, `*.md`).
fn named(globs: &[String], path: &str) -> bool {
    globs.iter().any(|glob| {
        let g = normalize(glob).trim_end_matches('/');
        // The directories the pattern spells out before its first wildcard.
        let spelled = match g.find(['*', '?', '[', '{']) {
            None => g,
            Some(i) => g[..i].rsplit_once('/').map_or("", |(dir, _)| dir),
        };
        !spelled.is_empty()
            && (path == spelled || path.starts_with(&format!("{spelled}/")))
            && Selector::new(std::slice::from_ref(glob)).is_ok_and(|s| s.matches(path))
    })
}

/// Leaves crit's own files out of `change`, except those `globs` (the
/// user's `--files`) name. Not a note for the reviewer: the model has no use
/// for crit's files, so they are only logged.
pub(super) fn leave_out(root: &Path, change: &mut Change, globs: &[String]) {
    let own = OwnFiles::of(root);
    let keep: Vec<bool> = change
        .files
        .iter()
        .map(|f| {
            let path = change.path_from_root(&f.path);
            !own.contains(path) || named(globs, path)
        })
        .collect();
    if keep.iter().all(|k| *k) {
        return;
    }
    let left: Vec<String> = change
        .files
        .iter()
        .zip(&keep)
        .filter(|(_, k)| !**k)
        .map(|(f, _)| change.path_from_root(&f.path).to_string())
        .collect();
    shard::keep(change, &keep);
    tracing::info!(
        files = %left.join(", "),
        "crit's own files are not reviewed (name them with --files to review them)"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_glob_names_a_file_when_it_spells_out_its_directory() {
        let g = |s: &[&str]| s.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(named(&g(&[".crit/**"]), ".crit/.gitignore"));
        assert!(named(&g(&[".crit"]), ".crit/sessions/a/result.json"));
        assert!(named(&g(&["./.crit/.gitignore"]), ".crit/.gitignore"));
        assert!(named(
            &g(&[".claude/commands/*.md"]),
            ".claude/commands/crit-review.md"
        ));
        assert!(!named(&g(&["**"]), ".crit/.gitignore"));
        assert!(!named(&g(&["**/*.md"]), ".claude/commands/crit-review.md"));
        assert!(!named(&g(&["src/**"]), ".crit/.gitignore"));
        assert!(!named(&g(&[".crit/sessions/**"]), ".crit/.gitignore"));
    }

    #[test]
    fn own_files_are_the_written_ones_and_what_the_ledger_lists_as_crit_wrote_it() {
        let dir = tempfile::tempdir().unwrap();
        let claude = dir.path().join(".claude");
        std::fs::create_dir_all(claude.join("commands")).unwrap();
        std::fs::write(claude.join("commands/crit-review.md"), "crit's").unwrap();
        std::fs::write(claude.join("commands/mine.md"), "edited").unwrap();
        std::fs::write(claude.join("settings.json"), "{}").unwrap();
        let ledger = serde_json::json!({
            "files": [
                {"path": "commands/crit-review.md", "sha256": hex(b"crit's")},
                {"path": "commands/mine.md", "sha256": hex(b"as crit wrote it")},
                {"path": "../outside.md", "sha256": hex(b"")},
            ],
            "settings_sha256": hex(b"{}"),
        });
        std::fs::write(claude.join(INSTALL_LEDGER), ledger.to_string()).unwrap();
        std::fs::write(dir.path().join("outside.md"), "").unwrap();
        let own = OwnFiles::of(dir.path());
        for path in [
            ".crit/.gitignore",
            ".crit/sessions/20260101-x/result.json",
            "./.crit/sessions/x",
            ".claude/crit-install.json",
            ".claude/commands/crit-review.md",
            ".claude/settings.json",
        ] {
            assert!(own.contains(path), "{path}");
        }
        for path in [
            ".crit/config.yaml",
            ".crit/templates/x.md",
            ".claude/commands/mine.md",
            "outside.md",
            ".crit/sessionsx",
        ] {
            assert!(!own.contains(path), "{path}");
        }
        // An edited settings file is the user's again.
        std::fs::write(claude.join("settings.json"), "{\"model\": \"x\"}").unwrap();
        assert!(!OwnFiles::of(dir.path()).contains(".claude/settings.json"));
    }
}
