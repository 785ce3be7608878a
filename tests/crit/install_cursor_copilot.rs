//! `crit install cursor|copilot` through the binary: the review gate wired
//! in each agent's own hook file, in the shape it documents (Cursor's
//! `.cursor/hooks.json`, version 1, `{"command": …}` entries; Copilot CLI's
//! `.github/hooks/crit.json`, version 1, `{"type": "command", "bash": …,
//! "timeoutSec": …}`), Cursor's prompt review left out with the reason and
//! the MCP tool offered instead, a second install changing nothing, and
//! uninstall giving the file back byte for byte (or taking out what crit
//! created); `--mcp` registering `crit mcp` where each reads its servers
//! (Cursor's `mcp.json`, Copilot CLI's `.github/mcp.json` and
//! `mcp-config.json`), a server started from that entry answering with
//! crit's tools.

use crate::install_claude::{read, run, stdout};
use crate::install_mcp::{registered, tools};
use crate::support;

use serde_json::{Value, json};
use support::write;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    dir
}

const CURSOR: &str = "{\n  \"version\": 1,\n  \"hooks\": {\n    \"afterFileEdit\": [{\"command\": \"./fmt.sh\"}],\n    \"stop\": [{\"command\": \"./notify.sh\", \"loop_limit\": 3}]\n  }\n}\n";

#[test]
fn cursor_gets_the_gate_in_its_own_shape_and_its_file_back() {
    let dir = project();
    let d = dir.path();
    write(d, ".cursor/hooks.json", CURSOR);
    let out = run(d, &["install", "cursor"]);
    let text = stdout(&out);
    assert!(
        text.contains("Cursor has no place for prompt-review"),
        "{text}"
    );
    assert!(text.contains("review_prompt"), "{text}");
    let v: Value = serde_json::from_str(&read(d, ".cursor/hooks.json")).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(
        v["hooks"]["stop"],
        json!([{"command": "./notify.sh", "loop_limit": 3}, {"command": "crit hook cursor stop"}])
    );
    assert_eq!(
        v["hooks"]["beforeSubmitPrompt"],
        json!([{"command": "crit hook cursor beforeSubmitPrompt --note-only"}])
    );
    assert_eq!(
        v["hooks"]["afterFileEdit"],
        json!([{"command": "./fmt.sh"}])
    );
    let installed = read(d, ".cursor/hooks.json");
    let again = run(d, &["install", "cursor"]);
    assert!(
        stdout(&again).contains("already there"),
        "{}",
        stdout(&again)
    );
    assert_eq!(read(d, ".cursor/hooks.json"), installed);
    run(d, &["uninstall", "cursor"]);
    assert_eq!(read(d, ".cursor/hooks.json"), CURSOR);

    // A fresh install is taken out entirely, changed since or not: crit's
    // hook (with the user's loop_limit) was all the file held.
    let dir = project();
    let d = dir.path();
    run(d, &["install", "cursor"]);
    let mut v: Value = serde_json::from_str(&read(d, ".cursor/hooks.json")).unwrap();
    v["hooks"]["stop"][0]["loop_limit"] = json!(5);
    write(d, ".cursor/hooks.json", &v.to_string());
    run(d, &["uninstall", "cursor"]);
    assert!(!d.join(".cursor").exists());
}

#[test]
fn copilot_gets_a_hook_file_of_crits_own_and_no_ledger_beside_it() {
    let dir = project();
    let d = dir.path();
    write(
        d,
        ".github/hooks/team.json",
        "{\"version\": 1, \"hooks\": {}}\n",
    );
    let out = run(d, &["install", "copilot"]);
    let said = stdout(&out);
    for want in [
        "wired prompt-review",
        "Copilot CLI has no place for plan-gate, agent, statusline",
        "only in a folder you trust",
        "no OPENAI_BASE_URL, OPENAI_API_KEY or ANTHROPIC_API_KEY",
    ] {
        assert!(said.contains(want), "{want}: {said}");
    }
    let v: Value = serde_json::from_str(&read(d, ".github/hooks/crit.json")).unwrap();
    assert_eq!(
        v,
        json!({"version": 1, "hooks": {
            "userPromptSubmitted": [{"type": "command", "bash": "crit hook copilot userPromptSubmitted", "timeoutSec": 60}],
            "agentStop": [{"type": "command", "bash": "crit hook copilot agentStop", "timeoutSec": 360}]}})
    );
    // Copilot CLI reads every .json there as hooks: nothing else of crit's.
    let mut names: Vec<String> = std::fs::read_dir(d.join(".github/hooks"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["crit.json", "team.json"]);
    run(d, &["uninstall", "copilot"]);
    assert!(!d.join(".github/hooks/crit.json").exists());
    assert_eq!(
        read(d, ".github/hooks/team.json"),
        "{\"version\": 1, \"hooks\": {}}\n"
    );
}

/// A server of the user's own in an agent's MCP file.
const SERVERS: &str =
    "{\n  \"mcpServers\": {\n    \"docs\": {\"url\": \"https://docs.example/mcp\"}\n  }\n}\n";

#[test]
fn cursor_and_copilot_register_crit_mcp_where_they_read_servers_and_give_the_files_back() {
    for (agent, scope, file, note) in [
        (
            "cursor",
            "--project",
            ".cursor/mcp.json",
            "Customize > MCPs",
        ),
        (
            "cursor",
            "--user",
            ".home/.cursor/mcp.json",
            "every project",
        ),
        (
            "copilot",
            "--project",
            ".github/mcp.json",
            "only in a folder you trust",
        ),
        (
            "copilot",
            "--user",
            ".home/.copilot/mcp-config.json",
            "every project",
        ),
    ] {
        let dir = project();
        let d = dir.path();
        write(d, file, SERVERS);
        let out = run(d, &["install", agent, scope, "--mcp"]);
        let said = stdout(&out);
        assert!(
            said.contains("added the MCP server `crit`"),
            "{agent} {scope}: {said}"
        );
        assert!(said.contains(note), "{agent} {scope}: {said}");
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
        let v: Value = serde_json::from_str(&read(d, file)).unwrap();
        assert_eq!(
            v["mcpServers"]["docs"],
            json!({"url": "https://docs.example/mcp"})
        );
        let installed = read(d, file);
        run(d, &["install", agent, scope, "--mcp"]);
        assert_eq!(read(d, file), installed, "{agent} {scope}");
        run(d, &["uninstall", agent, scope]);
        assert_eq!(read(d, file), SERVERS, "{agent} {scope}");

        // A file crit created goes with it.
        let dir = project();
        let d = dir.path();
        run(d, &["install", agent, scope, "--mcp"]);
        assert!(d.join(file).is_file(), "{agent} {scope}");
        run(d, &["uninstall", agent, scope]);
        assert!(!d.join(file).exists(), "{agent} {scope}");
    }
}
