//! `crit install opencode` and `crit uninstall opencode`: OpenCode has no
//! command hooks, so crit writes a plugin (`opencode.js`, one file) into its
//! plugin directory, `.opencode/plugins/` in the project or
//! `~/.config/opencode/plugins/` (`$XDG_CONFIG_HOME/opencode`) for the user;
//! OpenCode loads every file there at start
//! (https://opencode.ai/docs/plugins, "From local files"). The plugin runs
//! `crit hook opencode chat.message` and `crit hook opencode session.idle`
//! and acts on their answers (see the plugin's own comments for the hooks it
//! uses and why a stop is held by sending the findings back as a prompt).
//!
//! The file is crit's only with exactly one of the texts this crit writes:
//! install leaves a file of that name that is not crit's, and uninstall
//! removes only crit's, with the directories install created while they are
//! empty (the user's record of the install says which).

use std::path::PathBuf;

use crit_project::scope::installed;

use super::merge::{InstallError, Ledger};
use super::other::AgentInstall;
use super::pieces::{Piece, Pieces};
use super::record::{Before, Record, Records};
use super::{CRIT, Files, Report, on_path, sha256, shown};

/// The plugin's file name in the plugin directory.
pub const PLUGIN: &str = "plugins/crit.js";

/// The plugin as install writes it for `pieces`.
pub fn plugin_text(crit: &str, pieces: &Pieces) -> String {
    installed::opencode_plugin(
        crit,
        pieces.has(Piece::PromptReview),
        pieces.has(Piece::StopGate),
    )
}

/// Every text install may have written (one per choice of pieces).
pub fn plugin_texts(crit: &str) -> Vec<String> {
    installed::opencode_plugins(crit)
}

fn plugin_path(opts: &AgentInstall) -> PathBuf {
    opts.dir.join(PLUGIN)
}

/// What OpenCode lets the plugin do, said at install.
fn limits(project: bool) -> Vec<String> {
    let mut lines = vec![
        "OpenCode cannot hold a turn from a plugin: when the gate holds, crit's plugin sends the findings back as the next prompt, which OpenCode's TUI and `opencode serve` run at once; `opencode run` exits when the turn ends, before it runs (there, check with crit's pre-commit hook, or the MCP tool review_code: `crit install opencode --mcp`)".to_string(),
    ];
    if project {
        lines.push("OpenCode loads a project's plugins from .opencode/plugins/ in every project it opens, with no trust prompt".into());
        lines.push("OpenCode writes .opencode/.gitignore (which ignores itself) when it first starts in a project; the review gate reviews no file a .gitignore the session wrote hides, and holds: commit it once (`git add -f .opencode/.gitignore`)".into());
    }
    lines
}

/// Writes crit's plugin, unless a file of that name that is not crit's is there.
pub fn install(opts: &AgentInstall) -> Result<Report, InstallError> {
    let place = Files::confined(opts.confine_to.as_ref())?;
    let path = plugin_path(opts);
    let label = shown(&path);
    let mut report = Report::default();
    let text = plugin_text(CRIT, &opts.pieces);
    let ours = plugin_texts(CRIT);
    let before = place.read_text(&path)?;
    match &before {
        Some(have) if *have == text => {
            report
                .stdout
                .push(format!("{label}: crit's plugin is already there"));
            report.stdout.extend(super::other::wired_lines(opts));
            return Ok(report);
        }
        Some(have) if !ours.contains(have) => {
            report.stderr.push(format!(
                "crit: {label} is not crit's (crit did not write it, or it was changed since); left as it is. To install crit's, move it aside and run `crit install opencode` again"
            ));
            return Ok(report);
        }
        _ => {}
    }
    if opts.dry_run {
        report.stdout.push(format!("would write {label}"));
        return Ok(report);
    }
    let records = Records::of(&opts.env);
    let mut record = records.as_ref().and_then(|r| r.load(&path));
    let mut ledger = record
        .as_ref()
        .map(|r| r.ledger.clone())
        .unwrap_or_default();
    let plugins = path.parent().map(PathBuf::from).unwrap_or_default();
    for (dir, name) in [(&opts.dir, "dir:."), (&plugins, "dir:plugins")] {
        if !dir.exists() && !ledger.created.iter().any(|c| c == name) {
            ledger.created.push(name.into());
        }
    }
    place.write(&path, &text)?;
    let kept = Record {
        file: path.clone(),
        before: match record.take() {
            Some(r) => r.before,
            None => Some(before.map_or(Before::Absent, |text| Before::Text { text })),
        },
        ledger: Ledger {
            created_settings: true,
            ..ledger
        },
        written: sha256(&text),
    };
    if let Some(Err(e)) = records.as_ref().map(|r| r.save(&kept)) {
        report.stderr.push(format!(
            "crit: keeping the record of this install: {e}; crit uninstall opencode will remove the plugin but leave its directories"
        ));
    }
    report.stdout.push(format!("wrote {label}"));
    report.stdout.extend(super::other::wired_lines(opts));
    report.stdout.extend(limits(opts.confine_to.is_some()));
    if !on_path(CRIT, &opts.env) {
        report.stderr.push(format!(
            "crit: `{CRIT}` is not on PATH, so OpenCode's plugin cannot run it; put crit's directory on PATH"
        ));
    }
    Ok(report)
}

/// Removes crit's plugin while it is exactly a text crit writes, and the
/// directories install created while they are empty.
pub fn uninstall(opts: &AgentInstall) -> Result<Report, InstallError> {
    let place = Files::confined(opts.confine_to.as_ref())?;
    let path = plugin_path(opts);
    let label = shown(&path);
    let mut report = Report::default();
    let records = Records::of(&opts.env);
    let record = records.as_ref().and_then(|r| r.load(&path));
    let Some(now) = place.read_text(&path)? else {
        report
            .stdout
            .push(format!("nothing to uninstall: {label} does not exist"));
        if let Some(r) = &records {
            r.forget(&path);
        }
        return Ok(report);
    };
    if !plugin_texts(CRIT).contains(&now) {
        report.stderr.push(format!(
            "crit: {label} is not the text crit writes (changed since crit wrote it, or not crit's); left as it is"
        ));
        return Ok(report);
    }
    if opts.dry_run {
        report.stdout.push(format!("would remove {label}"));
        return Ok(report);
    }
    place.remove(&path)?;
    if let Some(r) = &record {
        let created = |name: &str| r.ledger.created.iter().any(|c| c == name);
        if created("dir:plugins")
            && let Some(dir) = path.parent()
        {
            place.remove_empty_dir(dir);
        }
        if created("dir:.") {
            place.remove_empty_dir(&opts.dir);
        }
    }
    if let Some(r) = &records {
        r.forget(&path);
    }
    report.stdout.push(format!("removed {label}"));
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugin_says_which_pieces_it_runs() {
        let all = plugin_text("crit", &Pieces::default());
        assert!(all.contains("const PROMPT_REVIEW = true;"), "{all}");
        assert!(all.contains("const STOP_GATE = true;"));
        assert!(all.contains("const CRIT = \"crit\";"));
        assert!(!all.contains("__"), "a placeholder is left");
        let stop = plugin_text("crit", &Pieces::choose(&[Piece::StopGate], &[]));
        assert!(stop.contains("const PROMPT_REVIEW = false;"));
        let texts = plugin_texts("crit");
        assert_eq!(texts.len(), 3);
        assert!(texts.contains(&all) && texts.contains(&stop));
    }
}
