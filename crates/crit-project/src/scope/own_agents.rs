//! crit's own files among other agents' files in a project that have no
//! ledger of crit's beside them: Copilot CLI's `.github/hooks/crit.json`
//! (crit's alone) and the MCP files `crit install cursor|copilot --mcp`
//! writes `mcpServers.crit` into (`.cursor/mcp.json`, `.github/mcp.json`).
//! Each is crit's only while all it holds beyond its version at the
//! change's base is crit's entries exactly as install writes them, and the
//! hook file still wires crit's gate (its stop and prompt hooks) with every
//! entry of crit's the base had: an agent that edits crit's hook (a shorter
//! timeout, a chained command), adds a hook or a server of its own, or drops
//! one of crit's, is reviewed.

use std::path::Path;

use serde_json::{Value, json};

use super::installed::{self, HookShape, PROGRAM};
use super::revision::Revision;

/// The project MCP files `crit install AGENT --mcp` registers crit in, as
/// `mcpServers.crit` (Cursor's, Copilot CLI's).
pub const MCP_FILES: [&str; 2] = [".cursor/mcp.json", ".github/mcp.json"];

/// The server entry install writes there.
pub fn mcp_server(crit: &str) -> Value {
    json!({"command": crit, "args": ["mcp"]})
}

/// `settings` without crit's server, while it is exactly install's, and
/// without `mcpServers` when that leaves it empty.
pub fn without_crit_server(settings: &Value) -> Value {
    let mut v = settings.clone();
    let Some(servers) = v.get_mut("mcpServers").and_then(Value::as_object_mut) else {
        return v;
    };
    if servers.get("crit") != Some(&mcp_server(PROGRAM)) {
        return v;
    }
    servers.remove("crit");
    if servers.is_empty()
        && let Some(o) = v.as_object_mut()
    {
        o.remove("mcpServers");
    }
    v
}

/// These files of `root` that are crit's (paths from the root).
pub(super) fn crits(root: &Path, base: Option<&str>, env: &crit_os::Env) -> Vec<String> {
    let mut own = Vec::new();
    for a in installed::AGENT_HOOKS
        .iter()
        .filter(|a| a.shape == HookShape::Copilot)
    {
        let rel = format!("{}/{}", a.dir, a.file);
        // crit's only with its gate wired and every entry of crit's the base
        // had still there: else it is an agent switching its gate off.
        let only = |v: &Value| a.without_crits(v);
        let has = |now: &Value, before: &Value| {
            installed::has_gate(now, a.dir)
                && super::own::kept(
                    &super::own::crits(before, &only),
                    &super::own::crits(now, &only),
                )
        };
        if only_crits(root, base, &rel, env, &only, &has) {
            own.push(rel);
        }
    }
    for rel in MCP_FILES {
        let has = |v: &Value, _: &Value| v.pointer("/mcpServers/crit").is_some();
        if only_crits(root, base, rel, env, &without_crit_server, &has) {
            own.push(rel.to_string());
        }
    }
    own
}

/// Whether `rel` holds crit's entries (`has`, of the file now and at
/// `base`) and, with them taken out (`only`), is what it was at `base`.
fn only_crits(
    root: &Path,
    base: Option<&str>,
    rel: &str,
    env: &crit_os::Env,
    only: &dyn Fn(&Value) -> Value,
    has: &dyn Fn(&Value, &Value) -> bool,
) -> bool {
    let Some(now) =
        super::own::read(&root.join(rel)).and_then(|b| serde_json::from_slice::<Value>(&b).ok())
    else {
        return false;
    };
    let Some(before) = at_base(root, base, rel, env) else {
        return false;
    };
    has(&now, &before) && only(&now) == only(&before)
}

/// `rel` (JSON) at the commit `base`: `{}` where it was not there (or no
/// base was given), `None` when that could not be read: the file is then
/// reviewed.
pub(super) fn at_base(
    root: &Path,
    base: Option<&str>,
    rel: &str,
    env: &crit_os::Env,
) -> Option<Value> {
    let Some(rev) = base else {
        return Some(json!({}));
    };
    match Revision::resolve(root, rev, env)
        .ok()
        .flatten()
        .map(|r| r.read(rel))
    {
        Some(Ok(Some(text))) => serde_json::from_str(&text).ok(),
        Some(Ok(None)) => Some(json!({})),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_crits_exact_entries_are_crits() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let env = crit_os::Env::new();
        std::fs::create_dir_all(d.join(".github/hooks")).unwrap();
        std::fs::create_dir_all(d.join(".cursor")).unwrap();
        let copilot = json!({"version": 1, "hooks": {
            "userPromptSubmitted": [{"type": "command", "bash": "crit hook copilot userPromptSubmitted", "timeoutSec": 60}],
            "agentStop": [{"type": "command", "bash": "crit hook copilot agentStop", "timeoutSec": 360}]}});
        let mcp = json!({"mcpServers": {"crit": {"command": "crit", "args": ["mcp"]}}});
        let own = |copilot: &Value, mcp: &Value| {
            std::fs::write(d.join(".github/hooks/crit.json"), copilot.to_string()).unwrap();
            std::fs::write(d.join(".cursor/mcp.json"), mcp.to_string()).unwrap();
            crits(d, None, &env)
        };
        assert_eq!(
            own(&copilot, &mcp),
            [".github/hooks/crit.json", ".cursor/mcp.json"]
        );
        let mut short = copilot.clone();
        short["hooks"]["agentStop"][0]["timeoutSec"] = json!(1);
        let mut extra = mcp.clone();
        extra["mcpServers"]["x"] = json!({"command": "sh"});
        assert!(own(&short, &extra).is_empty());
        let mut chained = mcp.clone();
        chained["mcpServers"]["crit"]["args"] = json!(["mcp", ";", "sh"]);
        let mut added = copilot.clone();
        added["hooks"]["sessionStart"] = json!([{"type": "command", "bash": "sh x"}]);
        assert!(own(&added, &chained).is_empty());
    }

    #[test]
    fn copilot_s_file_without_crit_s_gate_is_not_crits() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let env = crit_os::Env::new();
        std::fs::create_dir_all(d.join(".github/hooks")).unwrap();
        let copilot = json!({"version": 1, "hooks": {
            "userPromptSubmitted": [{"type": "command", "bash": "crit hook copilot userPromptSubmitted", "timeoutSec": 60}],
            "agentStop": [{"type": "command", "bash": "crit hook copilot agentStop", "timeoutSec": 360}]}});
        let mut no_stop = copilot.clone();
        no_stop["hooks"]
            .as_object_mut()
            .unwrap()
            .remove("agentStop");
        let mut empty_stop = copilot.clone();
        empty_stop["hooks"]["agentStop"] = json!([]);
        let mut no_prompt = copilot.clone();
        no_prompt["hooks"]
            .as_object_mut()
            .unwrap()
            .remove("userPromptSubmitted");
        for forged in [&no_stop, &empty_stop, &no_prompt] {
            std::fs::write(d.join(".github/hooks/crit.json"), forged.to_string()).unwrap();
            assert!(crits(d, None, &env).is_empty(), "{forged}");
        }
        // Against a base that had the whole gate, dropping a piece of it is
        // the agent's change too.
        let git = |args: &[&str]| {
            let ok = std::process::Command::new("git")
                .args([
                    "-c",
                    "user.name=t",
                    "-c",
                    "user.email=t@t",
                    "-c",
                    "commit.gpgsign=false",
                ])
                .args(args)
                .current_dir(d)
                .status()
                .unwrap()
                .success();
            assert!(ok, "git {args:?}");
        };
        git(&["init", "-q"]);
        std::fs::write(d.join(".github/hooks/crit.json"), copilot.to_string()).unwrap();
        git(&["add", "-A"]);
        git(&["commit", "-q", "-m", "crit"]);
        assert_eq!(crits(d, Some("HEAD"), &env), [".github/hooks/crit.json"]);
        for forged in [&no_stop, &empty_stop, &no_prompt] {
            std::fs::write(d.join(".github/hooks/crit.json"), forged.to_string()).unwrap();
            assert!(crits(d, Some("HEAD"), &env).is_empty(), "{forged}");
        }
    }
}
