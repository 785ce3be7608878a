//! crit's own files, which no review looks at unless the user names them: what
//! crit writes into a project as it reviews (`.crit/.gitignore`, the sessions
//! under `.crit/sessions/`), and what `crit install` wrote, while each is as
//! crit wrote it: a file the user has since edited is theirs again. The
//! install ledger (`.claude/crit-install.json`) is in the checkout, where
//! the agent under review can write it, so it proves nothing on its own: an
//! installed file is crit's only with exactly the text crit ships, and
//! `settings.json` only while everything it holds beyond the change's base
//! is crit's own hooks, rules and status line, as install writes them. A
//! session's files are git-ignored logs: crit's only while not in git, and
//! only with the shape crit writes (see [`super::session_files`]).
//!
//! Else the first review's `.crit/.gitignore` is in every later
//! `--uncommitted` review, and the review gate's first run after an install
//! reviews nothing but crit's own `.claude` files, at a model's price.

use std::path::{Path, PathBuf};

use crit_os::seal::sha256_hex as hex;

use super::files::{Selector, normalize};
use super::installed;
use super::{Change, FileStatus, session_files, shard};

/// Where `crit install` records what it added, in the `.claude` directory it
/// installed into.
pub const INSTALL_LEDGER: &str = "crit-install.json";

/// `.crit/.gitignore` as crit writes it: sessions are local logs; what else
/// is in `.crit/` is meant to be committed.
pub const CRIT_GITIGNORE: &str = "# Written by crit: review logs stay local.\n\
# config.yaml, templates/ and suppressions.yaml are meant to be committed.\n\
sessions/\n";

/// The files a review writes in its session directory,
/// `.crit/sessions/<UTC time>-<id>/`: the session, the result, the
/// transcript (Reldo's name for it too).
pub const SESSION_FILES: [&str; 4] = [
    "session.json",
    "result.json",
    "transcript.jsonl",
    "transcript.log",
];

/// The largest ledger or installed file read to tell whether it is crit's.
const CAP: u64 = 4 * 1024 * 1024;

/// crit's own files in one project.
#[derive(Debug, Clone, Default)]
pub struct OwnFiles {
    root: PathBuf,
    /// Paths from the project root, `/`-separated.
    paths: Vec<String>,
}

impl OwnFiles {
    /// crit's own files in the project at `root`. Reads only the files
    /// crit writes; a missing or unreadable one is simply not crit's.
    pub fn of(root: &Path) -> OwnFiles {
        OwnFiles::against(root, None, &crit_os::Env::new())
    }

    /// [`OwnFiles::of`] for a change from `base` (a commit): `settings.json`
    /// is crit's when all it adds to the base's is crit's; with no base, when
    /// it holds nothing else. `env` is what git sees to read the base.
    pub fn against(root: &Path, base: Option<&str>, env: &crit_os::Env) -> OwnFiles {
        let mut paths = installed(root, base, env);
        if read(&root.join(".crit/.gitignore")).is_some_and(|b| b == CRIT_GITIGNORE.as_bytes()) {
            paths.push(".crit/.gitignore".into());
        }
        OwnFiles {
            root: root.to_path_buf(),
            paths,
        }
    }

    /// Whether `path` (from the project root), as the change holds it
    /// (`status`), is one of crit's own files: one found as crit wrote it,
    /// or a session's file that is not in git and holds what a review writes
    /// there (a script under a session file's name, or a session committed,
    /// is reviewed).
    pub fn contains(&self, path: &str, status: FileStatus) -> bool {
        let path = normalize(path);
        self.paths.iter().any(|own| *own == path)
            || (status == FileStatus::Untracked && session_files::is_crits(&self.root, path))
    }
}

/// `.claude/crit-install.json`, the files install writes while each holds
/// exactly crit's text, and `settings.json` while it is as install last wrote
/// it (the ledger's `settings_sha256`) and what it adds to its version at
/// `base` is only crit's; the same of every other agent's directory
/// (`.codex/hooks.json`, `.gemini/settings.json`, `.cursor/hooks.json` and
/// their ledgers), and the files of crit's with no ledger
/// ([`super::own_agents`]).
fn installed(root: &Path, base: Option<&str>, env: &crit_os::Env) -> Vec<String> {
    let dir = root.join(".claude");
    let mut own = Vec::new();
    for (agent_dir, _) in configs() {
        if read(&root.join(agent_dir).join(INSTALL_LEDGER))
            .is_some_and(|b| installed::Ledger::exactly(&b).is_some())
        {
            own.push(format!("{agent_dir}/{INSTALL_LEDGER}"));
        }
    }
    for (path, text) in installed::FILES {
        if read(&dir.join(path)).is_some_and(|bytes| bytes == text.as_bytes()) {
            own.push(format!(".claude/{path}"));
        }
    }
    // OpenCode's plugin: crit's only with exactly a text install writes
    // that runs the gate. Without it (a text install writes for
    // `--only prompt-review`) it is the change of an agent that switched
    // its gate off, and is reviewed.
    if read(&root.join(installed::OPENCODE_PLUGIN)).is_some_and(|bytes| {
        [true, false]
            .map(|prompt| installed::opencode_plugin(installed::PROGRAM, prompt, true))
            .iter()
            .any(|t| bytes == t.as_bytes())
    }) {
        own.push(installed::OPENCODE_PLUGIN.into());
    }
    for (agent_dir, config) in configs() {
        let only = |v: &serde_json::Value| match installed::AGENT_HOOKS
            .iter()
            .find(|a| a.dir == agent_dir)
        {
            Some(a) => a.without_crits(v),
            None => installed::without_crits(v),
        };
        if settings_are_crits(root, base, agent_dir, config, &only, env) {
            own.push(format!("{agent_dir}/{config}"));
        }
    }
    own.extend(super::own_agents::crits(root, base, env));
    own
}

/// Each agent's directory and the settings file install merges into there.
fn configs() -> impl Iterator<Item = (&'static str, &'static str)> {
    std::iter::once((".claude", "settings.json"))
        .chain(installed::AGENT_HOOKS.iter().map(|a| (a.dir, a.file)))
}

/// Whether `agent_dir/config` is as install last wrote it and holds, beside
/// its version at `base`, nothing but crit's (`only` takes crit's out). A
/// file that dropped crit's hooks the base had (an agent switching its own
/// gate off) is reviewed too: everything but crit's is the same, and crit's
/// are fewer, as does one without crit's gate (its stop and prompt hooks,
/// [`installed::has_gate`]) or without the hooks install's record in the
/// state directory lists: never the checkout's ledger's list, which the
/// agent rewrites along with the file.
fn settings_are_crits(
    root: &Path,
    base: Option<&str>,
    agent_dir: &str,
    config: &str,
    only: &dyn Fn(&serde_json::Value) -> serde_json::Value,
    env: &crit_os::Env,
) -> bool {
    let dir = root.join(agent_dir);
    let ledger = read(&dir.join(INSTALL_LEDGER)).and_then(|b| installed::Ledger::exactly(&b));
    let Some(sha) = ledger.and_then(|l| l.settings_sha256) else {
        return false;
    };
    let Some(now) = read(&dir.join(config)).filter(|b| hex(b) == sha) else {
        return false;
    };
    let Ok(now) = serde_json::from_slice::<serde_json::Value>(&now) else {
        return false;
    };
    let rel = format!("{agent_dir}/{config}");
    // Could not check: the file is reviewed.
    let Some(before) = super::own_agents::at_base(root, base, &rel, env) else {
        return false;
    };
    let ours = crits(&now, only);
    only(&now) != tidy(&now)
        && installed::has_gate(&now, agent_dir)
        && recorded_hooks(&dir.join(config), env)
            .iter()
            .all(|h| runs(&now, &h.event, &h.command))
        && only(&now) == only(&before)
        && kept(&crits(&before, only), &ours)
}

/// The hooks install wrote into `file`, from its record in the user's state
/// directory (`installs/`, crit-claude-code's `install::record`), which the
/// checkout cannot write: none without a record. The ledger beside the file
/// is the checkout's word, and an agent that drops crit's hook rewrites it.
fn recorded_hooks(file: &Path, env: &crit_os::Env) -> Vec<installed::AddedHook> {
    let name = |f: &Path| {
        let resolved = match (f.parent().map(Path::canonicalize), f.file_name()) {
            (Some(Ok(dir)), Some(name)) => dir.join(name),
            _ => f.to_path_buf(),
        };
        format!("{}.json", &hex(resolved.to_string_lossy().as_bytes())[..32])
    };
    let Some(state) = crit_os::dirs::state_dir(env) else {
        return Vec::new();
    };
    let record = read(&state.join("installs").join(name(file)))
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok());
    let Some(record) = record else {
        return Vec::new();
    };
    let about = record.get("file").and_then(|f| f.as_str());
    if about.is_none_or(|f| name(Path::new(f)) != name(file)) {
        return Vec::new();
    }
    record
        .pointer("/ledger/hooks")
        .and_then(|h| serde_json::from_value(h.clone()).ok())
        .unwrap_or_default()
}

/// `settings` without empty hook lists, and without `hooks` when that
/// leaves it empty: what taking crit's out leaves of a file with none.
fn tidy(settings: &serde_json::Value) -> serde_json::Value {
    let mut v = settings.clone();
    if let Some(hooks) = v.get_mut("hooks").and_then(|h| h.as_object_mut()) {
        hooks.retain(|_, l| l.as_array().is_none_or(|l| !l.is_empty()));
    }
    if let Some(o) = v.as_object_mut()
        && o.get("hooks")
            .and_then(|h| h.as_object())
            .is_some_and(|h| h.is_empty())
    {
        o.remove("hooks");
    }
    v
}

/// Whether `settings` has a hook under `event` running `command` (in a
/// group's `hooks`, or an entry of its own).
fn runs(settings: &serde_json::Value, event: &str, command: &str) -> bool {
    let is = |h: &serde_json::Value| h.get("command").and_then(|c| c.as_str()) == Some(command);
    settings
        .get("hooks")
        .and_then(|h| h.get(event))
        .and_then(|l| l.as_array())
        .is_some_and(|l| {
            l.iter().any(|e| {
                is(e)
                    || e.get("hooks")
                        .and_then(|h| h.as_array())
                        .is_some_and(|hs| hs.iter().any(is))
            })
        })
}

/// crit's hook entries in `settings` (what `only` takes out), each with its
/// event, sorted.
pub(super) fn crits(
    settings: &serde_json::Value,
    only: &dyn Fn(&serde_json::Value) -> serde_json::Value,
) -> Vec<String> {
    let entries = |v: &serde_json::Value| -> Vec<String> {
        let Some(hooks) = v.get("hooks").and_then(serde_json::Value::as_object) else {
            return Vec::new();
        };
        hooks
            .iter()
            .filter_map(|(event, list)| Some((event, list.as_array()?)))
            .flat_map(|(event, list)| list.iter().map(move |e| format!("{event} {e}")))
            .collect()
    };
    let mut rest = entries(&only(settings));
    let mut ours = Vec::new();
    for e in entries(settings) {
        match rest.iter().position(|r| *r == e) {
            Some(i) => {
                rest.remove(i);
            }
            None => ours.push(e),
        }
    }
    ours.sort();
    ours
}

/// Whether every one of `had` is in `has` (as many times).
pub(super) fn kept(had: &[String], has: &[String]) -> bool {
    let mut has = has.to_vec();
    had.iter().all(|e| match has.iter().position(|h| h == e) {
        Some(i) => {
            has.remove(i);
            true
        }
        None => false,
    })
}

/// A regular file's bytes, up to [`CAP`]; `None` for anything else.
pub(super) fn read(path: &Path) -> Option<Vec<u8>> {
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
pub(super) fn leave_out(root: &Path, change: &mut Change, globs: &[String], env: &crit_os::Env) {
    let own = OwnFiles::against(root, change.base.as_deref(), env);
    let keep: Vec<bool> = change
        .files
        .iter()
        .map(|f| {
            let path = change.path_from_root(&f.path);
            !own.contains(path, f.status) || named(globs, path)
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
    fn own_files_are_the_written_ones_and_what_install_writes_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let claude = dir.path().join(".claude");
        std::fs::create_dir_all(claude.join("commands")).unwrap();
        let (crit_review, text) = installed::FILES[1];
        std::fs::write(claude.join(crit_review), text).unwrap();
        std::fs::write(claude.join("commands/mine.md"), "edited").unwrap();
        let crits = serde_json::json!({
            "hooks": {
                "UserPromptSubmit": [installed::hook_group(installed::PROGRAM, &installed::HOOKS[0])],
                "Stop": [installed::hook_group(installed::PROGRAM, &installed::HOOKS[1])],
            },
            "permissions": {"allow": installed::allow_rules(installed::PROGRAM)},
        })
        .to_string();
        std::fs::write(claude.join("settings.json"), &crits).unwrap();
        // The ledger vouches for a file that is not crit's text: it counts
        // for nothing.
        let file = |path: &str, sha: String| installed::AddedFile {
            path: path.into(),
            sha256: sha,
        };
        let ledger = |files, settings: &str| {
            serde_json::to_string(&installed::Ledger {
                files,
                settings_sha256: Some(hex(settings.as_bytes())),
                ..Default::default()
            })
            .unwrap()
        };
        let forged = vec![
            file("commands/mine.md", hex(b"edited")),
            file("../outside.md", hex(b"")),
        ];
        std::fs::write(claude.join(INSTALL_LEDGER), ledger(forged, &crits)).unwrap();
        std::fs::write(dir.path().join("outside.md"), "").unwrap();
        std::fs::create_dir_all(dir.path().join(".crit")).unwrap();
        std::fs::write(dir.path().join(".crit/.gitignore"), CRIT_GITIGNORE).unwrap();
        let own = OwnFiles::of(dir.path());
        let own = |path: &str| own.contains(path, FileStatus::Untracked);
        for path in [
            ".crit/.gitignore",
            "./.crit/.gitignore",
            ".claude/crit-install.json",
            ".claude/commands/crit-review.md",
            ".claude/settings.json",
        ] {
            assert!(own(path), "{path}");
        }
        for path in [
            ".crit/config.yaml",
            ".crit/templates/x.md",
            ".claude/commands/mine.md",
            "outside.md",
            ".crit/sessionsx",
            ".crit/sessions/x",
            ".crit/sessions/x/evil.py",
            ".crit/sessions/x/y/result.json",
            ".crit/sessions//result.json",
            // Not there: nothing to tell it is crit's.
            ".crit/sessions/20260101T000000Z-ab12/result.json",
        ] {
            assert!(!own(path), "{path}");
        }
        let is_own = |path: &str| OwnFiles::of(dir.path()).contains(path, FileStatus::Untracked);
        std::fs::write(dir.path().join(".crit/.gitignore"), "*.tmp\n").unwrap();
        assert!(!is_own(".crit/.gitignore"));
        // A ledger is crit's only as install writes one.
        std::fs::write(claude.join(INSTALL_LEDGER), "#!/bin/sh\nid\n").unwrap();
        assert!(!is_own(".claude/crit-install.json"));
        assert!(!is_own(".claude/settings.json"));
        // Settings that hold anything of the user's (or the agent's), even
        // with the ledger's hash brought up to date, are reviewed.
        for other in [
            r#"{"model": "x"}"#.to_string(),
            crits.replace("360", "1"),
            crits.replace("Skill(crit-review)", "Bash(*)"),
            // crit's gate switched off: only the prompt hook is left.
            serde_json::json!({
                "hooks": {"UserPromptSubmit": [installed::hook_group(installed::PROGRAM, &installed::HOOKS[0])]},
                "permissions": {"allow": installed::allow_rules(installed::PROGRAM)},
            })
            .to_string(),
        ] {
            std::fs::write(claude.join("settings.json"), &other).unwrap();
            std::fs::write(claude.join(INSTALL_LEDGER), ledger(Vec::new(), &other)).unwrap();
            assert!(is_own(".claude/crit-install.json"));
            assert!(!is_own(".claude/settings.json"), "{other}");
        }
    }
}
