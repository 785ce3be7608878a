//! `crit install claude-code [--project | --user] [--dry-run]` and
//! `crit uninstall claude-code`: crit's hooks, status line and permission
//! rules merged into Claude Code's `settings.json`, the `/prompt-review` and
//! `/crit-review` commands and the expert-review agent written next to it,
//! and a ledger of exactly what was added (see [`merge`]). The command and
//! agent files are the ones the repository's Claude Code plugin
//! (`claude-plugin/`) ships.

pub mod mcp;
pub mod merge;
pub mod opencode;
pub mod other;
pub mod permissions;
pub mod pieces;
mod record;

use std::path::{Path, PathBuf};

use crit_llm::Env;

pub use merge::InstallError;
use merge::{AddedFile, LEDGER_FILE, Ledger};
pub use pieces::{Piece, Pieces};
use record::{Before, Record, Records};

use crate::json_doc::{self, Json};

/// Where and how to install.
#[derive(Debug, Clone)]
pub struct InstallOptions {
    /// The `.claude` directory ([`claude_dir`]).
    pub dir: PathBuf,
    /// The project root `dir` is in (`--project`): every read and write stays
    /// beneath it and follows no symlink, so a checkout's `.claude` or
    /// `.claude/settings.json` pointing at the user's own settings is refused
    /// by name. `None` for the user's own `~/.claude` (`--user`), which may
    /// be a link the user made.
    pub confine_to: Option<PathBuf>,
    /// Print what would change, change nothing.
    pub dry_run: bool,
    /// Gate subagents' stops too.
    pub subagent_stop: bool,
    /// What to wire (`--only`, `--skip`); uninstall takes out whatever is there.
    pub pieces: Pieces,
    pub env: Env,
}

/// What install or uninstall did, for people: lines for stdout, and
/// warnings for stderr.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub stdout: Vec<String>,
    pub stderr: Vec<String>,
}

pub use crit_project::scope::installed::{AGENT, FILES};

/// The directories of [`FILES`], removed by uninstall when crit created them
/// and they are empty.
const FILE_DIRS: [&str; 2] = ["commands", "agents"];

/// How the hooks call crit.
pub(crate) const CRIT: &str = crit_project::scope::installed::PROGRAM;

/// The `.claude` directory and, for a project, its root: the user's
/// (`--user`), else the project's at `cwd`.
pub fn claude_dir(
    user: bool,
    cwd: Option<&Path>,
    env: &Env,
) -> Result<(PathBuf, Option<PathBuf>), InstallError> {
    let home = env.get("HOME").filter(|h| !h.is_empty());
    if user {
        return home
            .map(|h| (PathBuf::from(h).join(".claude"), None))
            .ok_or(InstallError::NoHome);
    }
    let cwd = cwd.map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let root = crit_project::paths::project_root_in(&cwd, home.map(Path::new));
    Ok((root.join(".claude"), Some(root)))
}

/// Reads, writes and removals of the install's files: confined beneath a
/// project root, or as the user's own paths.
pub(crate) struct Files {
    root: Option<(crit_os::write::Root, PathBuf)>,
}

impl Files {
    fn new(opts: &InstallOptions) -> Result<Files, InstallError> {
        Files::confined(opts.confine_to.as_ref())
    }

    pub(crate) fn confined(confine_to: Option<&PathBuf>) -> Result<Files, InstallError> {
        let root = match confine_to {
            Some(r) => Some((crit_os::write::Root::open(r)?, r.clone())),
            None => None,
        };
        Ok(Files { root })
    }

    /// `path` from the project root, when confined.
    fn rel<'a>(&self, path: &'a Path) -> Option<(&crit_os::write::Root, &'a Path)> {
        let (root, base) = self.root.as_ref()?;
        path.strip_prefix(base).ok().map(|rel| (root, rel))
    }

    pub(crate) fn read_text(&self, path: &Path) -> Result<Option<String>, InstallError> {
        let bytes = match self.rel(path) {
            Some((root, rel)) => match root.read(rel, Default::default()) {
                Ok(b) => b,
                Err(e) if e.is_not_found() => return Ok(None),
                Err(e) => return Err(e.into()),
            },
            None => match crit_core::files::read_capped(path, Default::default()) {
                Ok(b) => b,
                Err(e) if e.is_not_found() => return Ok(None),
                Err(e) => return Err(e.into()),
            },
        };
        String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| InstallError::NotText {
                path: path.to_path_buf(),
            })
    }

    pub(crate) fn write(&self, path: &Path, text: &str) -> Result<(), InstallError> {
        if let Some((root, rel)) = self.rel(path) {
            return Ok(root.write_atomic(rel, text.as_bytes())?);
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| InstallError::Io {
                what: "creating",
                path: parent.to_path_buf(),
                source,
            })?;
        }
        Ok(crit_os::write::write_atomic_user_path(
            path,
            text.as_bytes(),
        )?)
    }

    pub(crate) fn remove(&self, path: &Path) -> Result<(), InstallError> {
        if let Some((root, rel)) = self.rel(path) {
            root.remove(rel)?;
            return Ok(());
        }
        match std::fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(InstallError::Io {
                what: "removing",
                path: path.to_path_buf(),
                source: e,
            }),
            _ => Ok(()),
        }
    }

    /// Removes the empty directory `path` (never one with anything in it).
    pub(crate) fn remove_empty_dir(&self, path: &Path) {
        if self.rel(path).is_some() {
            // Beneath a project: only a real directory, never what a link names.
            if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
                let _ = std::fs::remove_dir(path);
            }
            return;
        }
        let _ = std::fs::remove_dir(path);
    }
}

/// `path` as people should read it: relative to the current directory when
/// under it (the path need not exist yet).
pub(crate) fn shown(path: &Path) -> String {
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

pub(crate) fn sha256(text: &str) -> String {
    crit_os::seal::sha256_hex(text.as_bytes())
}

pub(crate) fn read_ledger(place: &Files, path: &Path) -> Result<Option<Ledger>, InstallError> {
    let Some(text) = place.read_text(path)? else {
        return Ok(None);
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| InstallError::Ledger {
            file: path.display().to_string(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })
}

/// Merges crit's hooks, status line, permission rules, commands and agent
/// into the `.claude` directory `opts.dir`.
pub fn install(opts: &InstallOptions) -> Result<Report, InstallError> {
    let dir = opts.dir.clone();
    let place = Files::new(opts)?;
    let mut report = Report::default();
    let settings_path = dir.join("settings.json");
    let ledger_path = dir.join(LEDGER_FILE);
    let label = shown(&settings_path);
    let before = place.read_text(&settings_path)?;
    let records = Records::of(&opts.env);
    let record = records.as_ref().and_then(|r| r.load(&settings_path));
    let beside = read_ledger(&place, &ledger_path)?;
    let first = record.is_none() && beside.is_none();
    // The user's record vouches for what crit wrote; so does the user's own
    // ledger (`--user`). A checkout's is the checkout's word.
    let ledger_vouches = record.is_some() || opts.confine_to.is_none();
    // The user's own ledger (`--user`) says which files an earlier crit wrote.
    let users_files = beside
        .as_ref()
        .filter(|_| opts.confine_to.is_none())
        .map(|l| l.files.clone());
    let mut ledger = record::trusted_ledger(record.as_ref(), beside).unwrap_or_else(|| Ledger {
        created_settings: before.is_none(),
        ..Ledger::default()
    });
    if let Some(files) = users_files {
        ledger.files = files;
    }
    let old_text = before.clone().unwrap_or_default();
    let mut doc = merge::parse_settings(&label, &old_text)?;
    let specs = opts.pieces.hooks(CRIT, opts.subagent_stop);
    let status = merge::status_line(CRIT);
    let status = opts.pieces.has(Piece::Statusline).then_some(&status);
    let added = merge::merge(&label, &mut doc, &specs, status, &mut ledger)?;
    let rules = permissions::merge(&label, &mut doc, &opts.pieces.rules(CRIT), &mut ledger)?;
    let new_text = if added.is_empty() && rules.is_empty() && before.is_some() {
        old_text.clone()
    } else {
        doc.to_text(&json_doc::indent_of(&old_text))
    };

    let mut notes = Vec::new();
    if status.is_some() && doc.get("statusLine").is_some() && ledger.status_line.is_none() {
        notes.push(format!(
            "{label} has a status line of its own; crit left it. To show crit's gate in it, have your command run `{CRIT} statusline` with the same input on stdin and print its line beside yours"
        ));
    }
    if !rules.is_empty() && opts.confine_to.is_some() {
        notes.push(
            "Claude Code applies a project's permission rules once you have trusted its folder (claude asks the first time it runs there); until then `claude -p` there refuses crit's commands".to_string(),
        );
    }
    if !dir.exists() && !ledger.created.iter().any(|c| c == "dir:.") {
        ledger.created.push("dir:.".into());
    }
    let Planned { files, warnings } =
        plan_files(&place, &dir, &mut ledger, ledger_vouches, &opts.pieces)?;
    report.stderr.extend(warnings);

    if opts.dry_run {
        let diff = merge::diff(&old_text, &new_text, &label);
        if diff.is_empty() {
            report.stdout.push(format!(
                "{label}: no change (crit's hooks are already there)"
            ));
        } else {
            report.stdout.push(diff.trim_end().to_string());
        }
        for (path, _) in &files {
            report.stdout.push(format!("would write {}", shown(path)));
        }
        report.stdout.extend(notes);
        return Ok(report);
    }
    if new_text != old_text || before.is_none() {
        place.write(&settings_path, &new_text)?;
    }
    // What crit wrote, so a review leaves settings.json out while it is so.
    ledger.settings_sha256 = Some(sha256(&new_text));
    for (path, text) in &files {
        place.write(path, text)?;
    }
    let ledger_text = serde_json::to_string_pretty(&ledger).unwrap_or_default() + "\n";
    place.write(&ledger_path, &ledger_text)?;
    let kept = Record {
        file: settings_path.clone(),
        ledger,
        before: match (record, first) {
            (Some(r), _) => r.before,
            (None, true) => Some(before.map_or(Before::Absent, |text| Before::Text { text })),
            (None, false) => None,
        },
        written: sha256(&new_text),
    };
    if let Err(e) = records.as_ref().map(|r| r.save(&kept)).transpose() {
        report.stderr.push(format!(
            "crit: keeping the record of this install: {e}; crit uninstall claude-code will take out only crit's own entries"
        ));
    }
    if added.is_empty() && rules.is_empty() {
        report
            .stdout
            .push(format!("{label}: crit's hooks are already there"));
    }
    if !added.is_empty() {
        report
            .stdout
            .push(format!("{label}: added {}", added.join(", ")));
    }
    if !rules.is_empty() {
        report
            .stdout
            .push(format!("{label}: allowed {}", rules.join(", ")));
    }
    for (path, _) in &files {
        report.stdout.push(format!("wrote {}", shown(path)));
    }
    report.stdout.extend(notes);
    report.stdout.extend(wired(&opts.pieces));
    if !on_path(CRIT, &opts.env) {
        report.stderr.push(format!(
            "crit: `{CRIT}` is not on PATH, so Claude Code cannot run the hooks; put crit's directory on PATH"
        ));
    }
    Ok(report)
}

/// The files install is to write, and why it leaves others.
struct Planned {
    /// Each path with its text.
    files: Vec<(PathBuf, &'static str)>,
    warnings: Vec<String>,
}

/// Which of [`FILES`] to write (a missing one, or crit's own older
/// version, unchanged since crit wrote it), recorded in `ledger`; and a
/// warning for each that is someone else's, which stays as it is.
fn plan_files(
    place: &Files,
    dir: &Path,
    ledger: &mut Ledger,
    ledger_vouches: bool,
    pieces: &Pieces,
) -> Result<Planned, InstallError> {
    let wanted: Vec<(&'static str, &'static str)> = FILES
        .into_iter()
        .filter(|(rel, _)| pieces.writes(rel))
        .collect();
    for sub in FILE_DIRS {
        let created = format!("dir:{sub}");
        let used = wanted
            .iter()
            .any(|(rel, _)| rel.starts_with(&format!("{sub}/")));
        if used && !dir.join(sub).exists() && !ledger.created.contains(&created) {
            ledger.created.push(created);
        }
    }
    let mut files = Vec::new();
    let mut warnings = Vec::new();
    for (rel, text) in wanted {
        let path = dir.join(rel);
        let recorded = ledger
            .files
            .iter()
            .find(|f| f.path == rel)
            .filter(|_| ledger_vouches)
            .map(|f| f.sha256.clone());
        match place.read_text(&path)? {
            Some(have) if have == text => continue,
            // Neither crit's text now nor what crit wrote before.
            Some(have) if recorded.as_deref() != Some(sha256(&have).as_str()) => {
                warnings.push(not_crits(&path, rel));
                continue;
            }
            _ => {}
        }
        files.push((path, text));
        ledger.files.retain(|f| f.path != rel);
        ledger.files.push(AddedFile {
            path: rel.to_string(),
            sha256: sha256(text),
        });
    }
    Ok(Planned { files, warnings })
}

/// What install wired, one line a piece, and how to leave one out.
fn wired(pieces: &Pieces) -> Vec<String> {
    let mut lines: Vec<String> = pieces
        .iter()
        .map(|p| format!("wired {}: {}", p.name(), p.what()))
        .collect();
    let left: Vec<&str> = Piece::ALL
        .into_iter()
        .filter(|p| !pieces.has(*p))
        .map(Piece::name)
        .collect();
    if !left.is_empty() {
        lines.push(format!("not wired: {}", left.join(", ")));
    }
    lines.push(
        "To take a piece out, run `crit uninstall claude-code`, then `crit install claude-code --skip NAME` (or `--only NAME,…`)".into(),
    );
    lines
}

/// Why install left `path` (`rel` from `.claude`), and how to get crit's.
fn not_crits(path: &Path, rel: &str) -> String {
    let what = if rel == AGENT {
        " and `Task(subagent_type=\"expert-review\")` keeps running it, not `crit plan`"
    } else {
        ""
    };
    format!(
        "crit: {} is not crit's (crit did not write it, or it was changed since){what}; left as it is. To install crit's, move it aside and run `crit install claude-code` again",
        shown(path)
    )
}

/// Takes out exactly what [`install`] added to `opts.dir`, as its ledger
/// lists it and as long as it is still as crit wrote it.
pub fn uninstall(opts: &InstallOptions) -> Result<Report, InstallError> {
    let dir = opts.dir.clone();
    let place = Files::new(opts)?;
    let mut report = Report::default();
    let settings_path = dir.join("settings.json");
    let ledger_path = dir.join(LEDGER_FILE);
    let label = shown(&settings_path);
    let records = Records::of(&opts.env);
    let record = records.as_ref().and_then(|r| r.load(&settings_path));
    let beside = read_ledger(&place, &ledger_path)?;
    let Some(ledger) = record::trusted_ledger(record.as_ref(), beside) else {
        report.stdout.push(format!(
            "nothing to uninstall: {} does not exist (crit install claude-code writes it)",
            shown(&ledger_path)
        ));
        return Ok(report);
    };
    let before = place.read_text(&settings_path)?;
    let old_text = before.clone().unwrap_or_default();
    let mut doc = merge::parse_settings(&label, &old_text)?;
    let removed = merge::unmerge(
        &mut doc,
        &ledger,
        &pieces::all_hooks(CRIT),
        &merge::status_line(CRIT),
    );
    let rules = permissions::unmerge(&mut doc, &ledger, &permissions::allow_rules(CRIT));
    let mut delete_settings = before.is_some() && ledger.created_settings && doc == Json::object();
    let mut new_text = if removed.is_empty() && rules.is_empty() {
        old_text.clone()
    } else {
        doc.to_text(&json_doc::indent_of(&old_text))
    };
    // Unchanged since crit wrote it: the bytes it had before come back.
    match record::restore(record.as_ref(), before.as_deref()) {
        Some(Before::Absent) => delete_settings = before.is_some(),
        Some(Before::Text { text }) => {
            delete_settings = false;
            new_text = text.clone();
        }
        None => {}
    }
    let mut gone = Vec::new();
    // Only the files install writes, and each only while it holds exactly
    // the text this crit ships: the ledger is a file in the checkout, so
    // anyone could have listed a team's own file in it, with its hash.
    for (rel, ours) in FILES
        .iter()
        .filter(|(rel, _)| ledger.files.iter().any(|f| f.path == *rel))
    {
        let path = dir.join(rel);
        match place.read_text(&path)? {
            Some(text) if text == *ours => gone.push(path),
            Some(_) => report.stderr.push(format!(
                "crit: {} is not the text crit ships (changed since crit wrote it, or not crit's); left as it is",
                shown(&path)
            )),
            None => {}
        }
    }
    if opts.dry_run {
        let after = if delete_settings {
            ""
        } else {
            new_text.as_str()
        };
        let diff = merge::diff(&old_text, after, &label);
        if !diff.is_empty() {
            report.stdout.push(diff.trim_end().to_string());
        }
        for p in &gone {
            report.stdout.push(format!("would remove {}", shown(p)));
        }
        return Ok(report);
    }
    let gone_shown: Vec<String> = gone.iter().map(|p| shown(p)).collect();
    if delete_settings {
        place.remove(&settings_path)?;
    } else if new_text != old_text {
        place.write(&settings_path, &new_text)?;
    }
    for p in &gone {
        place.remove(p)?;
    }
    for sub in FILE_DIRS {
        if ledger.created.iter().any(|c| *c == format!("dir:{sub}")) {
            // Only when empty: anything the user put there stays.
            place.remove_empty_dir(&dir.join(sub));
        }
    }
    place.remove(&ledger_path)?;
    if let Some(r) = &records {
        r.forget(&settings_path);
    }
    if ledger.created.iter().any(|c| c == "dir:.") {
        place.remove_empty_dir(&dir);
    }
    if removed.is_empty() && rules.is_empty() {
        report
            .stdout
            .push(format!("{label}: nothing of crit's was left"));
    } else if delete_settings {
        report
            .stdout
            .push(format!("{label}: removed (crit created it)"));
    } else {
        if !removed.is_empty() {
            report
                .stdout
                .push(format!("{label}: removed {}", removed.join(", ")));
        }
        if !rules.is_empty() {
            report
                .stdout
                .push(format!("{label}: no longer allows {}", rules.join(", ")));
        }
    }
    for p in &gone_shown {
        report.stdout.push(format!("removed {p}"));
    }
    Ok(report)
}

/// Whether `program` is found on `env`'s PATH.
pub(crate) fn on_path(program: &str, env: &Env) -> bool {
    env.which(program).is_some()
}
