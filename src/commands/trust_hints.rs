//! Run configs loaded only with `crit run --config FILE` whose settings were
//! ignored as not trusted: remembered per project in the user's state
//! directory (`config-hints.json`, beside the trust store), so a plain
//! `crit trust` can name the file and the command that trusts it. A hint
//! only: it trusts nothing, and a lost or unreadable file loses only hints.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crit_project::trust::ProjectRules;

fn file(env: &crit_os::Env) -> Option<PathBuf> {
    crit_os::dirs::state_dir(env).map(|d| d.join("config-hints.json"))
}

fn read(path: &Path) -> BTreeMap<String, BTreeSet<String>> {
    crit_core::files::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

fn key(root: &Path) -> String {
    root.canonicalize()
        .unwrap_or_else(|_| root.to_path_buf())
        .display()
        .to_string()
}

/// After `crit run --config FILE`: remember FILE when `rules` refused any of
/// its settings. Best effort.
pub fn note_refused(rules: &ProjectRules, env: &crit_os::Env) {
    let refused: BTreeSet<String> = rules
        .asked()
        .into_iter()
        .filter(|a| !a.allowed)
        .map(|a| a.setting.file)
        .filter(|f| !crit_project::config::reldo::STANDARD_PATHS.contains(&f.as_str()))
        .filter(|f| f.ends_with(".json") || f.ends_with(".yaml") || f.ends_with(".yml"))
        .collect();
    let Some(path) = file(env).filter(|_| !refused.is_empty()) else {
        return;
    };
    let mut all = read(&path);
    let entry = all.entry(key(rules.root())).or_default();
    if refused.is_subset(entry) {
        return;
    }
    entry.extend(refused);
    let (Some(dir), Some(name), Ok(text)) = (
        path.parent(),
        path.file_name(),
        serde_json::to_string_pretty(&all),
    ) else {
        return;
    };
    // Owner-only, in the user's state directory, no symlink followed.
    if let Ok(root) = crit_os::write::Root::open_or_create(dir, 0o700) {
        let _ = root.write_atomic_with(
            name,
            format!("{text}\n").as_bytes(),
            crit_os::write::WriteOptions::private(),
        );
    }
}

/// The configs of the project at `root` that `crit run --config` loaded and
/// whose settings were not trusted, those that still exist.
pub fn pending(root: &Path, env: &crit_os::Env) -> Vec<String> {
    let Some(path) = file(env) else {
        return Vec::new();
    };
    read(&path)
        .remove(&key(root))
        .unwrap_or_default()
        .into_iter()
        .filter(|f| root.join(f).is_file())
        .collect()
}
