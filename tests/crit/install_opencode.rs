//! `crit install opencode` through the binary: crit's plugin written into
//! OpenCode's plugin directory (`.opencode/plugins/crit.js`, or the user's
//! `$XDG_CONFIG_HOME/opencode/plugins/`) calling `crit hook opencode` for
//! the pieces chosen, `--mcp` under `opencode.json`'s `mcp`, a file of that
//! name that is not crit's left alone, and uninstall taking out exactly
//! what install added (the user's `opencode.json` back byte for byte). The
//! plugin is crit's own file only as crit writes it: the review gate leaves
//! it out of a review then, and reviews an agent's edit of it.

use crate::install_claude::{crit, read, run, stdout};
use crate::stop_gate::{agents_with, repo, stop};
use crate::support;

use crit_testkit::{FakeServer, Reply};
use serde_json::{Value, json};
use support::write;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    dir
}

/// A user's own config: keys crit does not know, four-space indent.
const CONFIG: &str = "{\n    \"$schema\": \"https://opencode.ai/config.json\",\n    \"mcp\": {\n        \"docs\": {\"type\": \"remote\", \"url\": \"https://example.test/mcp\"}\n    }\n}\n";

#[test]
fn opencode_gets_crit_s_plugin_and_its_mcp_entry_and_uninstall_gives_its_files_back() {
    let dir = project();
    let d = dir.path();
    write(d, "opencode.json", CONFIG);
    let out = run(d, &["install", "opencode", "--mcp"]);
    let text = stdout(&out);
    for want in [
        "wrote .opencode/plugins/crit.js",
        "wired prompt-review",
        "wired stop-gate",
        "cannot hold a turn from a plugin",
        "git add -f .opencode/.gitignore",
    ] {
        assert!(text.contains(want), "missing {want:?}: {text}");
    }
    let plugin = read(d, ".opencode/plugins/crit.js");
    assert!(plugin.contains("const PROMPT_REVIEW = true;"), "{plugin}");
    assert!(plugin.contains("const STOP_GATE = true;"));
    assert!(plugin.contains("\"hook\", \"opencode\", event"));
    let v: Value = serde_json::from_str(&read(d, "opencode.json")).unwrap();
    assert_eq!(
        v["mcp"]["crit"],
        json!({"type": "local", "command": ["crit", "mcp"]})
    );
    assert_eq!(v["mcp"]["docs"]["type"], "remote");

    let again = run(d, &["install", "opencode"]);
    assert!(
        stdout(&again).contains("already there"),
        "{}",
        stdout(&again)
    );
    assert_eq!(read(d, ".opencode/plugins/crit.js"), plugin);

    let out = run(d, &["uninstall", "opencode"]);
    assert!(stdout(&out).contains("removed .opencode/plugins/crit.js"));
    assert_eq!(read(d, "opencode.json"), CONFIG);
    assert!(!d.join(".opencode").exists(), "crit created .opencode");
}

#[test]
fn a_plugin_of_that_name_that_is_not_crit_s_is_left_and_only_the_pieces_chosen_run() {
    let dir = project();
    let d = dir.path();
    write(
        d,
        ".opencode/plugins/crit.js",
        "export const Mine = async () => ({})\n",
    );
    let out = crit(d).args(["install", "opencode"]).output().unwrap();
    assert!(out.status.success(), "{}", support::stderr(&out));
    assert!(
        support::stderr(&out).contains("is not crit's"),
        "{}",
        support::stderr(&out)
    );
    assert_eq!(
        read(d, ".opencode/plugins/crit.js"),
        "export const Mine = async () => ({})\n"
    );
    let out = crit(d).args(["uninstall", "opencode"]).output().unwrap();
    assert!(out.status.success(), "{}", support::stderr(&out));
    assert!(d.join(".opencode/plugins/crit.js").exists());

    // The user's own plugin directory, with the gate alone.
    let dir = project();
    let d = dir.path();
    let out = crit(d)
        .env("XDG_CONFIG_HOME", d.join("cfg"))
        .args(["install", "opencode", "--user", "--only", "stop-gate"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", support::stderr(&out));
    let plugin = read(d, "cfg/opencode/plugins/crit.js");
    assert!(plugin.contains("const PROMPT_REVIEW = false;"), "{plugin}");
    assert!(plugin.contains("const STOP_GATE = true;"));
    let out = crit(d)
        .env("XDG_CONFIG_HOME", d.join("cfg"))
        .args(["uninstall", "opencode", "--user"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", support::stderr(&out));
    assert!(!d.join("cfg/opencode").exists());
}

/// crit's plugin as written is no change to review; an agent's edit of it
/// (switching the gate off) is reviewed.
#[test]
fn the_gate_leaves_crit_s_plugin_out_and_reviews_an_agent_s_edit_of_it() {
    agents_with(&["opencode"], || {
        let dir = repo("def main():\n    return 1\n");
        let d = dir.path();
        run(d, &["install", "opencode"]);
        let server = FakeServer::start_blocking();
        let event = json!({"hook_event_name": "session.idle", "sessionID": "s1"}).to_string();
        let out = stop(d, &server, &event, &[]);
        assert!(out.status.success(), "{}", support::stderr(&out));
        assert_eq!(
            server.model_requests().len(),
            0,
            "crit's plugin was reviewed"
        );

        let edited = read(d, ".opencode/plugins/crit.js")
            .replace("const STOP_GATE = true;", "const STOP_GATE = false;");
        write(d, ".opencode/plugins/crit.js", &edited);
        server.push(Reply::json(support::pass()));
        let out = stop(d, &server, &event, &[]);
        assert!(out.status.success(), "{}", support::stderr(&out));
        let asked = server.model_requests();
        assert_eq!(
            asked.len(),
            1,
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            support::stderr(&out)
        );
        assert!(
            asked[0].body.to_string().contains("STOP_GATE = false"),
            "the edit was not reviewed"
        );
    });
}
