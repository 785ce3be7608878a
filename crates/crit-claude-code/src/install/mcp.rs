//! `crit install AGENT --mcp`: `crit mcp` registered as an MCP server named
//! `crit` in the agent's own MCP configuration, and `crit uninstall AGENT`
//! taking exactly that out again.
//!
//! Where each agent reads its servers, as it documents them:
//! - Claude Code: a project's `.mcp.json` at its root (what `claude mcp add
//!   --scope project` writes: `mcpServers.<name>` with `type`, `command`,
//!   `args`), the user's `~/.claude.json` (`--scope user`, the same key);
//!   Claude Code asks before it starts a project's server.
//! - Codex CLI: `config.toml` in `$CODEX_HOME` (`~/.codex`), or a trusted
//!   project's `.codex/config.toml`: a table `[mcp_servers.<name>]` with
//!   `command` and `args`.
//! - Gemini CLI: `settings.json` (`~/.gemini/`, a project's `.gemini/`):
//!   `mcpServers.<name>` with `command` and `args`
//!   (`docs/tools/mcp-server.md`).
//! - Cursor (`cursor.com/docs/mcp`): `mcp.json` (`~/.cursor/`, a project's
//!   `.cursor/`): `mcpServers.<name>` with `command`, `args` (and `env`).
//! - Copilot CLI (1.0.102, `copilot mcp --help`): the user's
//!   `mcp-config.json` in `$COPILOT_HOME` (`~/.copilot`), a project's
//!   `.mcp.json` or `.github/mcp.json`: `mcpServers.<name>` with `command`
//!   and `args` (`copilot mcp add` adds `"type": "local"` and `"tools":
//!   ["*"]`, which it assumes when they are left out). crit takes
//!   `.github/mcp.json`, Copilot's own (`.mcp.json` is Claude Code's too).
//! - OpenCode: `opencode.json` (a project's at its root, the user's in
//!   `~/.config/opencode/`): `mcp.<name>` with `type: "local"` and
//!   `command` as an array (opencode-ai 1.18.33's config schema: `local`
//!   servers take `command`, `cwd`, `environment`, `disabled`, `timeout`).
//!
//! crit's entry is known by its exact shape: uninstall removes it only while
//! it is exactly what install wrote (a server of the user's own named
//! `crit` is never touched, and install leaves it as it is). The file's
//! bytes before the install come back while the file is as crit left it
//! (the record in the user's state directory, [`super::record`]); a TOML
//! file is never reformatted: crit's table is appended, and taken out as
//! appended.

use std::path::{Path, PathBuf};

use crit_llm::Env;

use super::merge::{self, InstallError};
use super::record::{Before, Record, Records};
use super::{CRIT, Files, Report, sha256, shown};
use crate::agent::Agent;
use crate::json_doc::{self, Json};

/// The server's name in every agent's configuration.
pub const NAME: &str = "crit";

/// The TOML table install appends to Codex CLI's `config.toml`.
pub fn toml_table(crit: &str) -> String {
    format!(
        "\n# crit's review tools (crit install codex --mcp; crit uninstall codex takes this out)\n[mcp_servers.{NAME}]\ncommand = \"{crit}\"\nargs = [\"mcp\"]\n"
    )
}

/// The key `agent`'s file keeps its servers under.
fn servers_key(agent: Agent) -> &'static str {
    if agent == Agent::OpenCode {
        "mcp"
    } else {
        "mcpServers"
    }
}

/// The JSON entry install sets under `mcpServers.crit` (OpenCode's `mcp.crit`).
pub fn json_entry(agent: Agent, crit: &str) -> Json {
    if agent == Agent::OpenCode {
        return Json::Object(vec![
            ("type".into(), Json::str("local")),
            (
                "command".into(),
                Json::Array(vec![Json::str(crit), Json::str("mcp")]),
            ),
        ]);
    }
    let mut fields = Vec::new();
    if agent == Agent::ClaudeCode {
        fields.push(("type".to_string(), Json::str("stdio")));
    }
    fields.push(("command".into(), Json::str(crit)));
    fields.push(("args".into(), Json::Array(vec![Json::str("mcp")])));
    Json::Object(fields)
}

/// Where `agent` reads its MCP servers: the file, and for a project the
/// root every write stays beneath.
pub fn mcp_file(
    agent: Agent,
    user: bool,
    cwd: Option<&Path>,
    env: &Env,
) -> Result<(PathBuf, Option<PathBuf>), InstallError> {
    let home = env.get("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    if user {
        if agent == Agent::Copilot {
            let dir = super::other::copilot_home(env).ok_or(InstallError::NoHome)?;
            return Ok((dir.join("mcp-config.json"), None));
        }
        if agent == Agent::Codex
            && let Some(dir) = env.get("CODEX_HOME").filter(|d| !d.is_empty())
        {
            return Ok((PathBuf::from(dir).join("config.toml"), None));
        }
        let home = home.ok_or(InstallError::NoHome)?;
        let file = match agent {
            Agent::ClaudeCode => home.join(".claude.json"),
            Agent::Codex => home.join(".codex/config.toml"),
            Agent::Gemini => home.join(".gemini/settings.json"),
            Agent::Cursor => home.join(".cursor/mcp.json"),
            Agent::Copilot => home.join(".copilot/mcp-config.json"),
            Agent::OpenCode => env
                .get("XDG_CONFIG_HOME")
                .filter(|d| !d.is_empty())
                .map_or_else(|| home.join(".config"), PathBuf::from)
                .join("opencode/opencode.json"),
        };
        return Ok((file, None));
    }
    let cwd = cwd.map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let root = crit_project::paths::project_root_in(&cwd, home.as_deref());
    let file = match agent {
        Agent::ClaudeCode => root.join(".mcp.json"),
        Agent::Codex => root.join(".codex/config.toml"),
        Agent::Gemini => root.join(".gemini/settings.json"),
        Agent::Cursor => root.join(".cursor/mcp.json"),
        Agent::Copilot => root.join(".github/mcp.json"),
        Agent::OpenCode => root.join("opencode.json"),
    };
    Ok((file, Some(root)))
}

/// Where and how to register.
#[derive(Debug, Clone)]
pub struct McpInstall {
    pub agent: Agent,
    pub file: PathBuf,
    pub confine_to: Option<PathBuf>,
    pub dry_run: bool,
    pub env: Env,
}

fn is_toml(file: &Path) -> bool {
    file.extension().is_some_and(|e| e == "toml")
}

/// Whether a TOML text already has a server named crit: a table of its
/// own, one in `[mcp_servers]`, or a dotted key. Read as lines: crit
/// appends nothing where it cannot tell.
fn toml_has_crit(text: &str) -> bool {
    // `crit` (or `"crit"`) as a whole key at the start of `rest`.
    let crit_key = |rest: &str| {
        let rest = rest
            .strip_prefix("crit")
            .or_else(|| rest.strip_prefix("\"crit\""));
        rest.is_some_and(|r| r.is_empty() || r.starts_with([']', '.', '=']))
    };
    let mut in_servers = false;
    for line in text.lines() {
        let compact: String = line.chars().filter(|c| !c.is_whitespace()).collect();
        if let Some(header) = compact.strip_prefix('[') {
            let header = header.trim_start_matches('[');
            in_servers = header.trim_end_matches(']') == "mcp_servers";
            if header.strip_prefix("mcp_servers.").is_some_and(crit_key) {
                return true;
            }
            continue;
        }
        if compact.strip_prefix("mcp_servers.").is_some_and(crit_key)
            || (in_servers && crit_key(&compact))
        {
            return true;
        }
    }
    false
}

/// The text after install, and whether crit's entry was added (`None`:
/// already there; `Some(false)`: a server of the user's own holds the name).
fn added(
    opts: &McpInstall,
    label: &str,
    old: &str,
) -> Result<(String, Option<bool>), InstallError> {
    if is_toml(&opts.file) {
        let ours = toml_table(CRIT);
        if old.contains(&ours) {
            return Ok((old.to_string(), None));
        }
        if toml_has_crit(old) {
            return Ok((old.to_string(), Some(false)));
        }
        let mut text = old.to_string();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&ours);
        return Ok((text, Some(true)));
    }
    let mut doc = merge::parse_settings(label, old)?;
    let ours = json_entry(opts.agent, CRIT);
    let key = servers_key(opts.agent);
    if doc.get(key).is_none() {
        doc.set(key, Json::object());
    }
    let servers =
        doc.get_mut(key)
            .filter(|s| s.is_object())
            .ok_or_else(|| InstallError::Shape {
                file: label.into(),
                what: format!("`{key}`"),
                expected: "an object",
            })?;
    match servers.get(NAME) {
        Some(v) if same(v, &ours) => return Ok((old.to_string(), None)),
        Some(_) => return Ok((old.to_string(), Some(false))),
        None => servers.set(NAME, ours),
    }
    Ok((doc.to_text(&json_doc::indent_of(old)), Some(true)))
}

/// The same JSON, whatever order the keys are in.
fn same(a: &Json, b: &Json) -> bool {
    serde_json::to_value(a).ok() == serde_json::to_value(b).ok()
}

/// Registers `crit mcp` in the agent's MCP configuration.
pub fn install(opts: &McpInstall) -> Result<Report, InstallError> {
    let place = Files::confined(opts.confine_to.as_ref())?;
    let label = shown(&opts.file);
    let mut report = Report::default();
    let before = place.read_text(&opts.file)?;
    let old = before.clone().unwrap_or_default();
    let (new, added) = added(opts, &label, &old)?;
    if opts.dry_run {
        let diff = merge::diff(&old, &new, &label);
        if !diff.is_empty() {
            report.stdout.push(diff.trim_end().to_string());
        }
        return Ok(report);
    }
    match added {
        None => report
            .stdout
            .push(format!("{label}: crit's MCP server is already there")),
        Some(false) => report.stderr.push(format!(
            "crit: {label} has an MCP server named `{NAME}` of its own; left as it is"
        )),
        Some(true) => {
            let records = Records::of(&opts.env);
            let record = records.as_ref().and_then(|r| r.load(&opts.file));
            place.write(&opts.file, &new)?;
            let kept = Record {
                file: opts.file.clone(),
                before: match &record {
                    Some(r) => r.before.clone(),
                    None => Some(before.map_or(Before::Absent, |text| Before::Text { text })),
                },
                ledger: record.map(|r| r.ledger).unwrap_or_default(),
                written: sha256(&new),
            };
            if let Some(Err(e)) = records.as_ref().map(|r| r.save(&kept)) {
                report.stderr.push(format!(
                    "crit: keeping the record of this install: {e}; uninstall will take out only crit's server"
                ));
            }
            report.stdout.push(format!(
                "{label}: added the MCP server `{NAME}` (`{CRIT} mcp`: review_code, check_plan, review_prompt, explain_finding)"
            ));
        }
    }
    report
        .stdout
        .push(trust_note(opts.agent, opts.confine_to.is_some()));
    Ok(report)
}

/// What the agent asks before it starts a server a file names.
fn trust_note(agent: Agent, project: bool) -> String {
    match (agent, project) {
        (Agent::ClaudeCode, true) => "Claude Code asks before it starts a server a project's .mcp.json names (`/mcp` shows it)".into(),
        (Agent::Codex, true) => "Codex reads a project's .codex/config.toml only in a project you trust (`/mcp` shows the server)".into(),
        (Agent::Gemini, true) => "Gemini CLI starts a project's servers only in a folder you trust (`/mcp` shows the server)".into(),
        (Agent::Cursor, true) => "Cursor lists a project's servers under Customize > MCPs: check that crit's is switched on there".into(),
        (Agent::Copilot, true) => "Copilot CLI starts a project's servers only in a folder you trust (`/mcp` shows the server)".into(),
        (Agent::OpenCode, true) => "OpenCode starts the servers a project's opencode.json names, with no prompt (`opencode mcp list` shows it)".into(),
        (_, false) => format!("{} starts the server in every project; it serves the project it starts in", agent.name()),
    }
}

/// Takes crit's server out of the agent's MCP configuration: the file's
/// bytes before the install while it is as crit left it, else crit's entry
/// alone, while it is exactly crit's.
pub fn uninstall(opts: &McpInstall) -> Result<Option<String>, InstallError> {
    let place = Files::confined(opts.confine_to.as_ref())?;
    let label = shown(&opts.file);
    let Some(now) = place.read_text(&opts.file)? else {
        return Ok(None);
    };
    let records = Records::of(&opts.env);
    let record = records.as_ref().and_then(|r| r.load(&opts.file));
    let back = super::record::restore(record.as_ref(), Some(&now));
    let new = match back {
        Some(Before::Absent) => None,
        Some(Before::Text { text }) => Some(text.clone()),
        None if is_toml(&opts.file) => {
            let ours = toml_table(CRIT);
            match now.rfind(&ours) {
                Some(at) => Some(format!("{}{}", &now[..at], &now[at + ours.len()..])),
                None => return Ok(None),
            }
        }
        None => {
            let mut doc = merge::parse_settings(&label, &now)?;
            let Some(servers) = doc.get_mut(servers_key(opts.agent)) else {
                return Ok(None);
            };
            if !servers
                .get(NAME)
                .is_some_and(|v| same(v, &json_entry(opts.agent, CRIT)))
            {
                return Ok(None);
            }
            if let Json::Object(pairs) = servers {
                pairs.retain(|(k, _)| k != NAME);
            }
            Some(doc.to_text(&json_doc::indent_of(&now)))
        }
    };
    if opts.dry_run {
        let diff = merge::diff(&now, new.as_deref().unwrap_or_default(), &label);
        return Ok((!diff.is_empty()).then(|| diff.trim_end().to_string()));
    }
    match &new {
        None => place.remove(&opts.file)?,
        Some(text) if *text != now => place.write(&opts.file, text)?,
        Some(_) => {}
    }
    if let Some(r) = &records {
        r.forget(&opts.file);
    }
    Ok(Some(match new {
        None => format!("{label}: removed (crit created it)"),
        Some(_) => format!("{label}: removed the MCP server `{NAME}`"),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A review tells crit's server from the user's by this entry.
    #[test]
    fn what_install_registers_is_what_a_review_knows_as_crits() {
        use crit_project::scope::own_agents;
        for agent in [Agent::Cursor, Agent::Copilot] {
            let (file, _) = mcp_file(agent, false, Some(Path::new("/p")), &Env::default()).unwrap();
            let rel = file
                .strip_prefix("/p")
                .unwrap()
                .to_string_lossy()
                .into_owned();
            assert!(own_agents::MCP_FILES.contains(&rel.as_str()), "{rel}");
            assert_eq!(
                serde_json::to_value(json_entry(agent, CRIT)).unwrap(),
                own_agents::mcp_server(CRIT)
            );
        }
    }

    #[test]
    fn a_server_named_crit_is_found_however_toml_spells_it() {
        for has in [
            "[mcp_servers.crit]\ncommand = \"x\"\n",
            "[ mcp_servers.\"crit\" ]\n",
            "[mcp_servers.crit.env]\nA = \"1\"\n",
            "mcp_servers.crit.command = \"x\"\n",
            "[mcp_servers]\ncrit = { command = \"x\" }\n",
        ] {
            assert!(toml_has_crit(has), "{has}");
        }
        for not in [
            "[mcp_servers.critic]\ncommand = \"x\"\n",
            "[other]\ncrit = 1\n",
            "model = \"o3\"\n",
        ] {
            assert!(!toml_has_crit(not), "{not}");
        }
    }
}
