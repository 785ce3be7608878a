//! `crit install claude-code [--project | --user] [--dry-run]` and
//! `crit uninstall claude-code`: crit's hooks and status line merged into
//! Claude Code's `settings.json`, the `/prompt-review` and `/crit-review`
//! commands written next to it, and a ledger of exactly what was added (see
//! `crit_review::claude_code::install`). The command files are the ones the
//! repository's Claude Code plugin (`claude-plugin/`) ships.

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use crit_review::claude_code::install::{
    self as merge, AddedFile, InstallError, LEDGER_FILE, Ledger,
};
use crit_review::claude_code::json_doc::{self, Json};

use crate::cli::{CommonArgs, InstallArgs, SettingsScope, UninstallArgs};
use crate::exit::{CliError, Code};

/// The slash commands, as the plugin ships them.
pub const COMMANDS: [(&str, &str); 2] = [
    (
        "prompt-review.md",
        include_str!("../../../claude-plugin/commands/prompt-review.md"),
    ),
    (
        "crit-review.md",
        include_str!("../../../claude-plugin/commands/crit-review.md"),
    ),
];

/// How the hooks call crit.
const CRIT: &str = "crit";

/// The `.claude` directory the scope names.
fn claude_dir(common: &CommonArgs, scope: &SettingsScope) -> Result<PathBuf, CliError> {
    if scope.user {
        return std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(".claude"))
            .ok_or_else(|| CliError::usage(anyhow!("--user needs HOME to be set")));
    }
    let cwd = common.cwd.clone().unwrap_or_else(|| PathBuf::from("."));
    Ok(crit_project::paths::project_root(&cwd).join(".claude"))
}

/// `path` as people should read it: relative to the current directory when
/// under it (the path need not exist yet).
fn shown(path: &Path) -> String {
    let here = std::env::current_dir()
        .ok()
        .and_then(|d| d.canonicalize().ok());
    // The nearest ancestor that exists, resolved, with the rest put back.
    let mut rest = Vec::new();
    let mut base = path;
    let canon = loop {
        if let Ok(c) = base.canonicalize() {
            break Some(rest.iter().rev().fold(c, |p: PathBuf, n| p.join(n)));
        }
        match (base.parent(), base.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                base = parent;
            }
            _ => break None,
        }
    };
    match (here, canon) {
        (Some(h), Some(p)) => p
            .strip_prefix(&h)
            .map(|r| r.display().to_string())
            .unwrap_or_else(|_| p.display().to_string()),
        _ => path.display().to_string(),
    }
}

fn read_text(path: &Path) -> Result<Option<String>, CliError> {
    match crit_core::files::read_capped(path, Default::default()) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| CliError::usage(anyhow!("{}: not UTF-8 text", path.display()))),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(CliError::usage(anyhow!("{e}"))),
    }
}

fn write(path: &Path, text: &str) -> Result<(), CliError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| CliError::could_not_run(anyhow!("creating {}: {e}", parent.display())))?;
    }
    crit_core::files::write_atomic(path, text.as_bytes())
        .map_err(|e| CliError::could_not_run(anyhow!("writing {}: {e}", path.display())))
}

fn sha256(text: &str) -> String {
    crit_review::prompt::hash::hex(text.as_bytes())
}

fn install_error(e: InstallError) -> CliError {
    CliError::usage(anyhow!("{e}"))
}

fn read_ledger(path: &Path) -> Result<Option<Ledger>, CliError> {
    let Some(text) = read_text(path)? else {
        return Ok(None);
    };
    serde_json::from_str(&text).map(Some).map_err(|e| {
        CliError::usage(anyhow!(
            "{}:{}:{}: not a crit install ledger ({e}); it records what crit install added, so crit uninstall can take exactly that out",
            path.display(),
            e.line(),
            e.column()
        ))
    })
}

pub fn install(common: &CommonArgs, args: &InstallArgs) -> Result<Code, CliError> {
    let dir = claude_dir(common, &args.scope)?;
    let settings_path = dir.join("settings.json");
    let ledger_path = dir.join(LEDGER_FILE);
    let label = shown(&settings_path);
    let before = read_text(&settings_path)?;
    let mut ledger = read_ledger(&ledger_path)?.unwrap_or_else(|| Ledger {
        created_settings: before.is_none(),
        ..Ledger::default()
    });
    let old_text = before.clone().unwrap_or_default();
    let mut doc = merge::parse_settings(&label, &old_text).map_err(install_error)?;
    let specs = merge::hooks(CRIT, args.subagent_stop);
    let added = merge::merge(
        &label,
        &mut doc,
        &specs,
        Some(&merge::status_line(CRIT)),
        &mut ledger,
    )
    .map_err(install_error)?;
    let new_text = if added.is_empty() && before.is_some() {
        old_text.clone()
    } else {
        doc.to_text(&json_doc::indent_of(&old_text))
    };

    let mut files = Vec::new();
    let mut notes = Vec::new();
    if !dir.exists() && !ledger.created.iter().any(|c| c == "dir:.") {
        ledger.created.push("dir:.".into());
    }
    let commands_dir = dir.join("commands");
    if !commands_dir.exists() && !ledger.created.iter().any(|c| c == "dir:commands") {
        ledger.created.push("dir:commands".into());
    }
    for (name, text) in COMMANDS {
        let path = commands_dir.join(name);
        let rel = format!("commands/{name}");
        match read_text(&path)? {
            None => {
                files.push((path, text));
                ledger.files.retain(|f| f.path != rel);
                ledger.files.push(AddedFile {
                    path: rel,
                    sha256: sha256(text),
                });
            }
            Some(have) if have == text => {}
            Some(_) => notes.push(format!(
                "{} exists and is not crit's; left as it is",
                shown(&path)
            )),
        }
    }

    if args.scope.dry_run {
        let diff = merge::diff(&old_text, &new_text, &label);
        if diff.is_empty() {
            println!("{label}: no change (crit's hooks are already there)");
        } else {
            print!("{diff}");
        }
        for (path, _) in &files {
            println!("would write {}", shown(path));
        }
        for n in &notes {
            println!("{n}");
        }
        return Ok(Code::Ok);
    }
    if new_text != old_text || before.is_none() {
        write(&settings_path, &new_text)?;
    }
    ledger.settings_sha256 = Some(sha256(&new_text));
    for (path, text) in &files {
        write(path, text)?;
    }
    let ledger_text = serde_json::to_string_pretty(&ledger).unwrap_or_default() + "\n";
    write(&ledger_path, &ledger_text)?;
    if common.quiet {
        return Ok(Code::Ok);
    }
    if added.is_empty() {
        println!("{label}: crit's hooks are already there");
    } else {
        println!("{label}: added {}", added.join(", "));
    }
    for (path, _) in &files {
        println!("wrote {}", shown(path));
    }
    for n in &notes {
        println!("{n}");
    }
    if !on_path(CRIT) {
        eprintln!(
            "crit: `{CRIT}` is not on PATH, so Claude Code cannot run the hooks; put crit's directory on PATH"
        );
    }
    Ok(Code::Ok)
}

pub fn uninstall(common: &CommonArgs, args: &UninstallArgs) -> Result<Code, CliError> {
    let dir = claude_dir(common, &args.scope)?;
    let settings_path = dir.join("settings.json");
    let ledger_path = dir.join(LEDGER_FILE);
    let label = shown(&settings_path);
    let Some(ledger) = read_ledger(&ledger_path)? else {
        println!(
            "nothing to uninstall: {} does not exist (crit install claude-code writes it)",
            shown(&ledger_path)
        );
        return Ok(Code::Ok);
    };
    let before = read_text(&settings_path)?;
    let old_text = before.clone().unwrap_or_default();
    let mut doc = merge::parse_settings(&label, &old_text).map_err(install_error)?;
    let removed = merge::unmerge(&mut doc, &ledger);
    let delete_settings = before.is_some() && ledger.created_settings && doc == Json::object();
    let new_text = if removed.is_empty() {
        old_text.clone()
    } else {
        doc.to_text(&json_doc::indent_of(&old_text))
    };
    let mut gone = Vec::new();
    let mut notes = Vec::new();
    for f in &ledger.files {
        let path = dir.join(&f.path);
        match read_text(&path)? {
            Some(text) if sha256(&text) == f.sha256 => gone.push(path),
            Some(_) => notes.push(format!(
                "{} changed since crit wrote it; left as it is",
                shown(&path)
            )),
            None => {}
        }
    }
    if args.scope.dry_run {
        let after = if delete_settings {
            ""
        } else {
            new_text.as_str()
        };
        print!("{}", merge::diff(&old_text, after, &label));
        for p in &gone {
            println!("would remove {}", shown(p));
        }
        for n in &notes {
            println!("{n}");
        }
        return Ok(Code::Ok);
    }
    let gone_shown: Vec<String> = gone.iter().map(|p| shown(p)).collect();
    if delete_settings {
        remove(&settings_path)?;
    } else if new_text != old_text {
        write(&settings_path, &new_text)?;
    }
    for p in &gone {
        remove(p)?;
    }
    if ledger.created.iter().any(|c| c == "dir:commands") {
        // Only when empty: anything the user put there stays.
        let _ = std::fs::remove_dir(dir.join("commands"));
    }
    remove(&ledger_path)?;
    if ledger.created.iter().any(|c| c == "dir:.") {
        let _ = std::fs::remove_dir(&dir);
    }
    if !common.quiet {
        if removed.is_empty() {
            println!("{label}: nothing of crit's was left");
        } else if delete_settings {
            println!("{label}: removed (crit created it)");
        } else {
            println!("{label}: removed {}", removed.join(", "));
        }
        for p in &gone_shown {
            println!("removed {p}");
        }
        for n in &notes {
            println!("{n}");
        }
    }
    Ok(Code::Ok)
}

fn remove(path: &Path) -> Result<(), CliError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(CliError::could_not_run(
            anyhow!("removing {}: {e}", path.display()),
        )),
        _ => Ok(()),
    }
}

/// Whether `program` is found on PATH.
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
}
