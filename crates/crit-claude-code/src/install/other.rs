//! `crit install codex|gemini` and `crit uninstall codex|gemini`: crit's
//! hooks merged into Codex CLI's `hooks.json` (`.codex/` in the project, or
//! `$CODEX_HOME`, by default `~/.codex/`) or Gemini CLI's `settings.json`
//! (`.gemini/` in the project, or `~/.gemini/`), with the same ledger and the
//! same rules as Claude Code's ([`super::merge`]): everything the file has
//! stays as it is, and uninstall takes out exactly what install added.
//!
//! What each agent gets of crit's pieces: the `!!!` prompt review
//! (`UserPromptSubmit`, `BeforeAgent`) and the review gate when the agent
//! stops (`Stop`, `AfterAgent`). Neither has Claude Code's plan mode tool,
//! agents or status line.

use std::path::{Path, PathBuf};

use crit_llm::Env;
use crit_project::scope::installed;

use super::merge::{self, HookSpec, InstallError, LEDGER_FILE, Ledger};
use super::pieces::{Piece, Pieces};
use super::record::{self, Before, Record, Records};
use super::{CRIT, Files, Report, on_path, read_ledger, sha256, shown};
use crate::agent::{Agent, Event};
use crate::json_doc;

/// Where and how to install into an agent other than Claude Code.
#[derive(Debug, Clone)]
pub struct AgentInstall {
    pub agent: Agent,
    /// The agent's directory (`.codex`, `.gemini`): [`agent_dir`].
    pub dir: PathBuf,
    /// The project root, for `--project`: every read and write stays beneath it.
    pub confine_to: Option<PathBuf>,
    pub dry_run: bool,
    pub pieces: Pieces,
    pub env: Env,
}

/// The pieces `agent` has.
pub fn supported(agent: Agent) -> &'static [Piece] {
    match agent {
        Agent::ClaudeCode => &Piece::ALL,
        Agent::Codex | Agent::Gemini | Agent::Copilot | Agent::OpenCode => {
            &[Piece::PromptReview, Piece::StopGate]
        }
        // Its prompt hook cannot carry a review back.
        Agent::Cursor => &[Piece::StopGate],
    }
}

/// The agent's configuration directory and, for a project, its root.
pub fn agent_dir(
    agent: Agent,
    user: bool,
    cwd: Option<&Path>,
    env: &Env,
) -> Result<(PathBuf, Option<PathBuf>), InstallError> {
    let home = env.get("HOME").filter(|h| !h.is_empty());
    let name = match agent {
        Agent::ClaudeCode => ".claude",
        Agent::Codex => ".codex",
        Agent::Gemini => ".gemini",
        Agent::Cursor => ".cursor",
        Agent::Copilot => ".github/hooks",
        Agent::OpenCode => ".opencode",
    };
    if user {
        if agent == Agent::OpenCode {
            // OpenCode's global config directory (xdg-basedir).
            let config = env
                .get("XDG_CONFIG_HOME")
                .filter(|d| !d.is_empty())
                .map(PathBuf::from)
                .or_else(|| home.map(|h| PathBuf::from(h).join(".config")));
            return config
                .map(|c| (c.join("opencode"), None))
                .ok_or(InstallError::NoHome);
        }
        if agent == Agent::Copilot {
            return copilot_home(env)
                .map(|h| (h.join("hooks"), None))
                .ok_or(InstallError::NoHome);
        }
        if agent == Agent::Codex
            && let Some(dir) = env.get("CODEX_HOME").filter(|d| !d.is_empty())
        {
            return Ok((PathBuf::from(dir), None));
        }
        return home
            .map(|h| (PathBuf::from(h).join(name), None))
            .ok_or(InstallError::NoHome);
    }
    let cwd = cwd.map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let root = crit_project::paths::project_root_in(&cwd, home.map(Path::new));
    Ok((root.join(name), Some(root)))
}

/// Copilot CLI's own directory: `$COPILOT_HOME`, by default `~/.copilot`.
pub fn copilot_home(env: &Env) -> Option<PathBuf> {
    if let Some(dir) = env.get("COPILOT_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    env.get("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(".copilot"))
}

/// The file the agent reads its hooks from, in its directory.
pub fn config_file(agent: Agent) -> &'static str {
    match agent {
        Agent::Codex | Agent::Cursor => "hooks.json",
        Agent::ClaudeCode | Agent::Gemini => "settings.json",
        Agent::Copilot => "crit.json",
        Agent::OpenCode => super::opencode::PLUGIN,
    }
}

/// The hooks `pieces` need in `agent`. Codex takes timeouts in seconds,
/// Gemini CLI in milliseconds; the gate's review ends before either (its
/// own deadline is 300 s).
pub fn hooks(agent: Agent, crit: &str, pieces: &Pieces) -> Vec<HookSpec> {
    let scale = if agent == Agent::Gemini { 1000 } else { 1 };
    let mut specs = Vec::new();
    let prompt = pieces.has(Piece::PromptReview) && agent.reviews_prompts();
    let stop = pieces.has(Piece::StopGate);
    let name = |e| agent.event_name(e).unwrap_or_default();
    if prompt || stop {
        let event = name(Event::Prompt);
        let mut command = format!("{crit} hook {} {event}", agent.id());
        if !prompt {
            command = format!("{command} {}", installed::NOTE_ONLY);
        }
        specs.push(HookSpec {
            event,
            command,
            timeout: installed::HOOKS[0].timeout * scale,
            matcher: None,
            shape: shape(agent),
        });
    }
    if stop {
        let event = name(Event::Stop);
        specs.push(HookSpec {
            event,
            command: format!("{crit} hook {} {event}", agent.id()),
            timeout: installed::HOOKS[1].timeout * scale,
            matcher: None,
            shape: shape(agent),
        });
    }
    specs
}

/// How `agent`'s file writes a hook. Cursor's entry is its command alone
/// (its documented fields: `command`, and `loop_limit` for `stop`);
/// Copilot CLI's (`docs/.../hooks-reference`: `type`, `bash`, `timeoutSec`,
/// 30 s unless said) carries the gate's deadline.
fn shape(agent: Agent) -> merge::Shape {
    match agent {
        Agent::Cursor => merge::Shape::Cursor,
        Agent::Copilot => merge::Shape::Copilot,
        _ => merge::Shape::Grouped,
    }
}

/// Where install keeps its ledger beside the agent's file: none for
/// Copilot CLI, which reads every `.json` in its hooks directory as hooks
/// (the record in the user's state directory is uninstall's guide there).
fn ledger_path(agent: Agent, dir: &Path) -> Option<PathBuf> {
    (agent != Agent::Copilot).then(|| dir.join(LEDGER_FILE))
}

/// Every hook install may have added to `agent`'s file, for uninstall.
fn all_hooks(agent: Agent) -> Vec<HookSpec> {
    let mut all = hooks(
        agent,
        CRIT,
        &Pieces::choose(&[Piece::PromptReview, Piece::StopGate], &[]),
    );
    all.extend(
        hooks(agent, CRIT, &Pieces::choose(&[Piece::StopGate], &[]))
            .into_iter()
            .filter(|h| h.command.ends_with(installed::NOTE_ONLY)),
    );
    all
}

/// What Copilot CLI (1.0.102) keeps from its hooks' environment.
const COPILOT_ENV: &str = "It passes its hooks no OPENAI_BASE_URL, OPENAI_API_KEY or ANTHROPIC_API_KEY: crit reviews there with the claude CLI's login, or a server your ~/.config/crit/config.yaml names (provider, base_url)";

/// What the agent itself asks before crit's hooks run.
fn trust_note(agent: Agent, project: bool) -> String {
    match (agent, project) {
        (Agent::Codex, true) => "Codex runs a hook only once you have trusted it (open /hooks in Codex; it asks again whenever a hook changes), and a project's hooks only in a project you trust; codex exec skips a hook you have not trusted without a word".into(),
        (Agent::Codex, false) => "Codex runs a hook only once you have trusted it (open /hooks in Codex; it asks again whenever a hook changes); codex exec skips a hook you have not trusted without a word".into(),
        (Agent::Cursor, _) => "Cursor sends the gate's reason back as your next message, at most loop_limit times a turn (5 unless set); its prompt hook cannot carry a review, so the prompt review is the MCP tool review_prompt (crit install cursor --mcp)".into(),
        (Agent::Copilot, true) => format!("Copilot CLI runs a project's .github/hooks/ only in a folder you trust (its trust prompt when it starts there, trustedFolders in ~/.copilot/config.json, or --trust-folder for one prompt); crit install copilot --user wires your own hooks, which run in every project. {COPILOT_ENV}"),
        (Agent::Copilot, false) => format!("Copilot CLI runs these hooks in every project. {COPILOT_ENV}"),
        (Agent::OpenCode, _) => "OpenCode loads crit's plugin when it starts; restart a running OpenCode to load it".into(),
        (_, true) => "Gemini CLI runs a project's hooks only in a folder you trust, and warns before it runs a project hook it has not seen".into(),
        (_, false) => "Gemini CLI runs these hooks in every project".into(),
    }
}

/// Merges crit's hooks into the agent's file.
pub fn install(opts: &AgentInstall) -> Result<Report, InstallError> {
    if opts.agent == Agent::OpenCode {
        return super::opencode::install(opts);
    }
    let agent = opts.agent;
    let place = Files::confined(opts.confine_to.as_ref())?;
    let mut report = Report::default();
    let path = opts.dir.join(config_file(agent));
    let ledger_path = ledger_path(agent, &opts.dir);
    let label = shown(&path);
    let before = place.read_text(&path)?;
    let records = Records::of(&opts.env);
    let record = records.as_ref().and_then(|r| r.load(&path));
    let beside = match &ledger_path {
        Some(p) => read_ledger(&place, p)?,
        None => None,
    };
    let first = record.is_none() && beside.is_none();
    let mut ledger = record::trusted_ledger(record.as_ref(), beside).unwrap_or_else(|| Ledger {
        created_settings: before.is_none(),
        ..Ledger::default()
    });
    let old_text = before.clone().unwrap_or_default();
    let mut doc = merge::parse_settings(&label, &old_text)?;
    let added = merge::merge(
        &label,
        &mut doc,
        &hooks(agent, CRIT, &opts.pieces),
        None,
        &mut ledger,
    )?;
    let new_text = if added.is_empty() && before.is_some() {
        old_text.clone()
    } else {
        doc.to_text(&json_doc::indent_of(&old_text))
    };
    if !opts.dir.exists() && !ledger.created.iter().any(|c| c == "dir:.") {
        ledger.created.push("dir:.".into());
    }
    let wired = wired(agent, &opts.pieces, opts.confine_to.is_some());
    if opts.dry_run {
        let diff = merge::diff(&old_text, &new_text, &label);
        report.stdout.push(if diff.is_empty() {
            format!("{label}: no change (crit's hooks are already there)")
        } else {
            diff.trim_end().to_string()
        });
        return Ok(report);
    }
    if new_text != old_text || before.is_none() {
        place.write(&path, &new_text)?;
    }
    ledger.settings_sha256 = Some(sha256(&new_text));
    if let Some(p) = &ledger_path {
        let ledger_text = serde_json::to_string_pretty(&ledger).unwrap_or_default() + "\n";
        place.write(p, &ledger_text)?;
    }
    let kept = Record {
        file: path.clone(),
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
            "crit: keeping the record of this install: {e}; crit uninstall {} will take out only crit's hooks",
            agent.id()
        ));
    }
    report.stdout.push(if added.is_empty() {
        format!("{label}: crit's hooks are already there")
    } else {
        format!("{label}: added {}", added.join(", "))
    });
    report.stdout.extend(wired);
    if !on_path(CRIT, &opts.env) {
        report.stderr.push(format!(
            "crit: `{CRIT}` is not on PATH, so {} cannot run the hooks; put crit's directory on PATH",
            agent.name()
        ));
    }
    Ok(report)
}

/// [`wired`] for `opts`.
pub(crate) fn wired_lines(opts: &AgentInstall) -> Vec<String> {
    wired(opts.agent, &opts.pieces, opts.confine_to.is_some())
}

/// What install wired in `agent`, what it could not, and how to take a piece out.
fn wired(agent: Agent, pieces: &Pieces, project: bool) -> Vec<String> {
    let has = supported(agent);
    let mut lines: Vec<String> = pieces
        .iter()
        .filter(|p| has.contains(p))
        .map(|p| format!("wired {}: {}", p.name(), p.what()))
        .collect();
    let missing: Vec<&str> = pieces
        .iter()
        .filter(|p| !has.contains(p))
        .map(Piece::name)
        .collect();
    if !missing.is_empty() {
        lines.push(format!(
            "{} has no place for {}: left out",
            agent.name(),
            missing.join(", ")
        ));
    }
    lines.push(trust_note(agent, project));
    lines.push(format!(
        "To take a piece out, run `crit uninstall {id}`, then `crit install {id} --skip NAME`",
        id = agent.id()
    ));
    lines
}

/// Takes out exactly what [`install`] added, as the user's record of it
/// lists it (the ledger beside the file, which the checkout may have
/// written, only for crit's own hooks): the file's bytes before the install
/// come back while the file is as crit wrote it.
pub fn uninstall(opts: &AgentInstall) -> Result<Report, InstallError> {
    if opts.agent == Agent::OpenCode {
        return super::opencode::uninstall(opts);
    }
    let agent = opts.agent;
    let place = Files::confined(opts.confine_to.as_ref())?;
    let mut report = Report::default();
    let path = opts.dir.join(config_file(agent));
    let ledger_path = ledger_path(agent, &opts.dir);
    let label = shown(&path);
    let records = Records::of(&opts.env);
    let record = records.as_ref().and_then(|r| r.load(&path));
    let beside = match &ledger_path {
        Some(p) => read_ledger(&place, p)?,
        None => None,
    };
    let Some(ledger) = record::trusted_ledger(record.as_ref(), beside) else {
        report.stdout.push(format!(
            "nothing to uninstall: crit has no record of installing into {} (crit install {} writes one)",
            shown(&path),
            agent.id()
        ));
        return Ok(report);
    };
    let before = place.read_text(&path)?;
    let old_text = before.clone().unwrap_or_default();
    let ours = all_hooks(agent);
    let (new_text, removed, delete) = match record::restore(record.as_ref(), before.as_deref()) {
        Some(back) => {
            let removed = merge::listed(&ledger, &ours);
            match back {
                Before::Absent => (String::new(), removed, true),
                Before::Text { text } => (text.clone(), removed, false),
            }
        }
        None => {
            let mut doc = merge::parse_settings(&label, &old_text)?;
            let removed = merge::unmerge(&mut doc, &ledger, &ours, &json_doc::Json::Null);
            let delete =
                before.is_some() && ledger.created_settings && doc == json_doc::Json::object();
            let text = if removed.is_empty() {
                old_text.clone()
            } else {
                doc.to_text(&json_doc::indent_of(&old_text))
            };
            (text, removed, delete)
        }
    };
    let delete = delete && before.is_some();
    if opts.dry_run {
        let diff = merge::diff(&old_text, if delete { "" } else { &new_text }, &label);
        if !diff.is_empty() {
            report.stdout.push(diff.trim_end().to_string());
        }
        return Ok(report);
    }
    if delete {
        place.remove(&path)?;
    } else if new_text != old_text {
        place.write(&path, &new_text)?;
    }
    if let Some(p) = &ledger_path {
        place.remove(p)?;
    }
    if let Some(r) = &records {
        r.forget(&path);
    }
    if ledger.created.iter().any(|c| c == "dir:.") {
        place.remove_empty_dir(&opts.dir);
    }
    report.stdout.push(match (removed.is_empty(), delete) {
        (true, _) => format!("{label}: nothing of crit's was left"),
        (false, true) => format!("{label}: removed (crit created it)"),
        (false, false) => format!("{label}: removed {}", removed.join(", ")),
    });
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_agent_gets_its_events_and_its_units() {
        let all = Pieces::default();
        let codex = hooks(Agent::Codex, "crit", &all);
        assert_eq!(
            codex
                .iter()
                .map(|h| (h.event, h.command.as_str(), h.timeout))
                .collect::<Vec<_>>(),
            [
                ("UserPromptSubmit", "crit hook codex UserPromptSubmit", 60),
                ("Stop", "crit hook codex Stop", 360)
            ]
        );
        let gemini = hooks(
            Agent::Gemini,
            "crit",
            &Pieces::choose(&[Piece::StopGate], &[]),
        );
        assert_eq!(
            gemini
                .iter()
                .map(|h| (h.event, h.command.as_str(), h.timeout))
                .collect::<Vec<_>>(),
            [
                (
                    "BeforeAgent",
                    "crit hook gemini BeforeAgent --note-only",
                    60_000
                ),
                ("AfterAgent", "crit hook gemini AfterAgent", 360_000)
            ]
        );
        assert_eq!(all_hooks(Agent::Gemini).len(), 3);
    }

    /// A review tells crit's entries from the agent's own by these shapes.
    #[test]
    fn what_install_writes_is_what_a_review_knows_as_crits() {
        for agent in [Agent::Codex, Agent::Gemini, Agent::Cursor, Agent::Copilot] {
            let known = installed::AGENT_HOOKS
                .iter()
                .find(|a| a.id == agent.id())
                .unwrap();
            assert_eq!(known.file, config_file(agent));
            let written: Vec<(&str, serde_json::Value)> = all_hooks(agent)
                .iter()
                .map(|h| {
                    let group = merge::hooks_object(std::slice::from_ref(h));
                    let v = serde_json::to_value(&group).unwrap();
                    (h.event, v[h.event][0].clone())
                })
                .collect();
            let mut known = known.groups(CRIT);
            let mut written = written;
            known.sort_by_key(|(e, g)| (*e, g.to_string()));
            written.sort_by_key(|(e, g)| (*e, g.to_string()));
            // Cursor's note is written for either choice of pieces.
            written.dedup();
            assert_eq!(written, known, "{}", agent.id());
        }
    }
}
