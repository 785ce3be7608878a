//! `crit install AGENT --mcp` through the binary: `crit mcp` registered in
//! each agent's own MCP configuration, in the shape that agent documents
//! (Claude Code's `.mcp.json`, Codex CLI's `[mcp_servers.crit]` in
//! `.codex/config.toml`, Gemini CLI's `mcpServers` in `.gemini/settings.json`),
//! a server the agent starts from that entry answers rmcp's client with
//! crit's four tools, a second install changes nothing, a server of the
//! user's own named `crit` is left alone, and uninstall gives every file back
//! byte for byte.

use crate::install_claude::{crit, read, run, stdout};
use crate::support;

use std::path::Path;

use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use support::write;

/// Each agent, its MCP file and what the user had there.
const FILES: [(&str, &str, &str); 3] = [
    (
        "claude-code",
        ".mcp.json",
        "{\n  \"mcpServers\": {\n    \"docs\": {\"command\": \"npx\", \"args\": [\"-y\", \"docs-mcp\"]}\n  }\n}\n",
    ),
    (
        "codex",
        ".codex/config.toml",
        "model = \"o3\"\n\n[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"docs-mcp\"]",
    ),
    (
        "gemini",
        ".gemini/settings.json",
        "{\n    \"theme\": \"GitHub\",\n    \"mcpServers\": {}\n}\n",
    ),
];

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    dir
}

/// The command and arguments the agent would start, from its file.
pub(crate) fn registered(d: &Path, agent: &str, file: &str) -> (String, Vec<String>) {
    let text = read(d, file);
    if agent == "codex" {
        assert!(text.starts_with(FILES[1].2), "{text}");
        let table = text.split("[mcp_servers.crit]\n").nth(1).unwrap();
        assert_eq!(table, "command = \"crit\"\nargs = [\"mcp\"]\n", "{text}");
        return ("crit".into(), vec!["mcp".into()]);
    }
    let v: Value = serde_json::from_str(&text).unwrap();
    let entry = &v["mcpServers"]["crit"];
    let expected = match agent {
        "claude-code" => json!({"type": "stdio", "command": "crit", "args": ["mcp"]}),
        _ => json!({"command": "crit", "args": ["mcp"]}),
    };
    assert_eq!(entry, &expected, "{text}");
    let args = entry["args"].as_array().unwrap();
    (
        entry["command"].as_str().unwrap().to_string(),
        args.iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect(),
    )
}

/// Starts the server as the agent would and lists its tools.
pub(crate) fn tools(d: &Path, command: &str, args: &[String]) -> Vec<String> {
    let bin = Path::new(env!("CARGO_BIN_EXE_crit")).parent().unwrap();
    let mut c = tokio::process::Command::new(command);
    c.env_clear()
        .env(
            "PATH",
            format!(
                "{}:{}",
                bin.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("HOME", d.join(".home"))
        .env("XDG_STATE_HOME", d.join(".state"))
        .args(args)
        .current_dir(d);
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            let client = ().serve(TokioChildProcess::new(c).unwrap()).await.unwrap();
            let names = client
                .list_all_tools()
                .await
                .unwrap()
                .iter()
                .map(|t| t.name.to_string())
                .collect();
            client.cancel().await.unwrap();
            names
        })
}

#[test]
fn install_mcp_registers_crit_in_each_agent_and_uninstall_gives_the_files_back() {
    for (agent, file, original) in FILES {
        let dir = project();
        let d = dir.path();
        write(d, file, original);
        let dry = run(d, &["install", agent, "--mcp", "--dry-run"]);
        assert!(stdout(&dry).contains("mcp"), "{}", stdout(&dry));
        assert_eq!(read(d, file), original);

        let out = run(d, &["install", agent, "--mcp"]);
        assert!(
            stdout(&out).contains("added the MCP server `crit`"),
            "{agent}: {}",
            stdout(&out)
        );
        let (command, args) = registered(d, agent, file);
        assert_eq!(
            tools(d, &command, &args),
            [
                "review_code",
                "check_plan",
                "review_prompt",
                "explain_finding"
            ]
        );
        let installed = read(d, file);
        let again = run(d, &["install", agent, "--mcp"]);
        assert!(
            stdout(&again).contains("crit's MCP server is already there"),
            "{}",
            stdout(&again)
        );
        assert_eq!(read(d, file), installed);

        let out = run(d, &["uninstall", agent]);
        assert_eq!(read(d, file), original, "{agent}: {}", stdout(&out));
        for hooks in [".claude/settings.json", ".codex/hooks.json"] {
            assert!(!d.join(hooks).exists(), "{agent}: {hooks}");
        }
    }
}

#[test]
fn a_fresh_registration_is_taken_out_entirely() {
    for (agent, file, _) in FILES {
        let dir = project();
        let d = dir.path();
        run(d, &["install", agent, "--mcp", "--only", "stop-gate"]);
        assert!(d.join(file).is_file(), "{agent}");
        // The user edits the file after: crit's entry alone comes out.
        if agent == "codex" {
            let text = format!("# mine\n{}", read(d, file));
            write(d, file, &text);
        } else {
            let mut v: Value = serde_json::from_str(&read(d, file)).unwrap();
            v["mine"] = json!(1);
            write(d, file, &serde_json::to_string_pretty(&v).unwrap());
        }
        run(d, &["uninstall", agent]);
        let left = read(d, file);
        assert!(!left.contains("\"crit\""), "{agent}: {left}");
        assert!(!left.contains("mcp_servers.crit"), "{agent}: {left}");
        assert!(left.contains("mine"), "{agent}: {left}");
    }
}

#[test]
fn a_server_of_the_users_own_named_crit_is_left_alone() {
    for (agent, file, theirs) in [
        (
            "claude-code",
            ".mcp.json",
            "{\"mcpServers\": {\"crit\": {\"command\": \"/opt/crit-dev/bin/crit\", \"args\": [\"mcp\"]}}}\n",
        ),
        (
            "codex",
            ".codex/config.toml",
            "[mcp_servers]\ncrit = { command = \"/opt/crit-dev/bin/crit\", args = [\"mcp\"] }\n",
        ),
        (
            "gemini",
            ".gemini/settings.json",
            "{\"mcpServers\": {\"crit\": {\"command\": \"crit\", \"args\": [\"mcp\", \"--max-budget-usd\", \"1\"]}}}\n",
        ),
    ] {
        let dir = project();
        let d = dir.path();
        write(d, file, theirs);
        let out = crit(d).args(["install", agent, "--mcp"]).output().unwrap();
        assert!(out.status.success(), "{}", support::stderr(&out));
        assert!(
            support::stderr(&out).contains("has an MCP server named `crit` of its own"),
            "{agent}: {}",
            support::stderr(&out)
        );
        if agent != "gemini" {
            assert_eq!(read(d, file), theirs, "{agent}");
        }
        run(d, &["uninstall", agent]);
        assert_eq!(read(d, file), theirs, "{agent}");
    }
}
