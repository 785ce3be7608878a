//! `crit install AGENT` and `crit uninstall AGENT` for every agent against a
//! hostile checkout and a user's own bytes, through the binary: a ledger
//! planted beside the agent's file deletes and empties nothing; installing
//! the gate alone and then everything wires one prompt hook; uninstall gives
//! back the file's bytes exactly, whatever their formatting; each agent's
//! sessions keep a memory of their own; and a review leaves out what
//! install wrote into `.codex/` and `.gemini/` only while it is crit's.

use crate::install_claude::{read, run, stdout};
use crate::support;

use std::path::Path;

use crit_testkit::FakeServer;
use serde_json::{Value, json};
use support::{git, init_repo, write};

/// Each agent's id, its file, its prompt event.
const AGENTS: [(&str, &str, &str); 3] = [
    ("claude-code", ".claude/settings.json", "UserPromptSubmit"),
    ("codex", ".codex/hooks.json", "UserPromptSubmit"),
    ("gemini", ".gemini/settings.json", "BeforeAgent"),
];

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    dir
}

fn ledger_beside(file: &str) -> String {
    Path::new(file)
        .with_file_name("crit-install.json")
        .display()
        .to_string()
}

/// A ledger the checkout planted: crit "created" the user's file and its
/// `hooks`, and "added" a hook crit writes.
fn planted(agent: &str, prompt: &str) -> String {
    json!({"version": 1, "created_settings": true,
        "created": ["hooks", format!("hooks.{prompt}"), "dir:."],
        "hooks": [{"event": prompt, "command": format!("crit hook {agent} {prompt}")}]})
    .to_string()
}

#[test]
fn a_planted_ledger_deletes_and_empties_nothing_of_the_users() {
    for (agent, file, prompt) in AGENTS {
        // The user's file holds nothing crit would leave: all of it is
        // `hooks` and crit's own prompt hook, which the user wrote.
        let theirs = format!(
            "{{\"hooks\":{{\"{prompt}\":[{{\"hooks\":[{{\"type\":\"command\",\"command\":\"crit hook {agent} {prompt}\"}}]}}]}}}}"
        );
        for original in ["{\"hooks\": {}}\n".to_string(), theirs] {
            let dir = project();
            let d = dir.path();
            write(d, file, &original);
            write(d, &ledger_beside(file), &planted(agent, prompt));
            let out = run(d, &["uninstall", agent]);
            assert!(
                d.join(file).exists(),
                "{agent}: {original} deleted: {}",
                stdout(&out)
            );
            let left: Value = serde_json::from_str(&read(d, file)).unwrap();
            // `hooks` and the event's list are the user's: they stay.
            assert!(left["hooks"].is_object(), "{agent}: {left}");
            if original.contains("command") {
                assert!(left["hooks"][prompt].is_array(), "{agent}: {left}");
            } else {
                assert_eq!(read(d, file), original, "{agent}");
            }
        }
    }
}

/// The commands under the agent's prompt event that run crit.
fn prompt_hooks(d: &Path, file: &str, prompt: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(&read(d, file)).unwrap();
    v["hooks"][prompt]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|g| g["hooks"].as_array().unwrap().clone())
        .filter_map(|h| h["command"].as_str().map(str::to_string))
        .filter(|c| c.starts_with("crit "))
        .collect()
}

#[test]
fn installing_the_gate_then_everything_wires_one_prompt_hook() {
    for (agent, file, prompt) in AGENTS {
        let dir = project();
        let d = dir.path();
        run(d, &["install", agent, "--only", "stop-gate"]);
        assert_eq!(
            prompt_hooks(d, file, prompt),
            [format!("crit hook {agent} {prompt} --note-only")]
        );
        run(d, &["install", agent]);
        assert_eq!(
            prompt_hooks(d, file, prompt),
            [format!("crit hook {agent} {prompt}")],
            "{agent}"
        );
        // And the other way: the gate alone adds no note-only hook beside
        // the prompt review's.
        let out = run(d, &["install", agent, "--only", "stop-gate"]);
        assert!(
            stdout(&out).contains("already there"),
            "{agent}: {}",
            stdout(&out)
        );
        assert_eq!(prompt_hooks(d, file, prompt).len(), 1, "{agent}");
        run(d, &["uninstall", agent]);
        assert!(!d.join(file).exists(), "{agent}");
        assert!(!d.join(ledger_beside(file)).exists(), "{agent}");
    }
}

#[test]
fn uninstall_gives_back_the_users_bytes_whatever_their_formatting() {
    for (agent, file, _) in AGENTS {
        for original in [
            // One line, no newline at the end.
            r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"}]}]},"x":1.50}"#,
            // Tabs, a space before colons, a trailing blank line.
            "{\n\t\"theme\" : \"GitHub\",\n\t\"hooks\" : {}\n}\n\n",
            "{}",
        ] {
            let dir = project();
            let d = dir.path();
            write(d, file, original);
            run(d, &["install", agent]);
            assert_ne!(read(d, file), original);
            // A second install (another piece) keeps the first's bytes.
            run(d, &["install", agent, "--only", "stop-gate"]);
            let out = run(d, &["uninstall", agent]);
            assert!(stdout(&out).contains("removed"), "{}", stdout(&out));
            assert_eq!(read(d, file), original, "{agent}");
        }
        // Changed since crit wrote it: crit's hooks come out, the user's
        // change stays.
        let dir = project();
        let d = dir.path();
        write(d, file, "{\"a\":1}");
        run(d, &["install", agent]);
        let mut v: Value = serde_json::from_str(&read(d, file)).unwrap();
        v["mine"] = json!(true);
        write(d, file, &v.to_string());
        run(d, &["uninstall", agent]);
        let left: Value = serde_json::from_str(&read(d, file)).unwrap();
        assert_eq!(left["mine"], true, "{agent}: {left}");
        assert_eq!(left["a"], 1, "{agent}: {left}");
        assert!(!left.to_string().contains("crit hook"), "{agent}: {left}");
    }
}

fn stop(d: &Path, server: &FakeServer, agent: &str, event: &str, input: &Value) -> String {
    let out = support::crit(d, server, None)
        .args(["hook", agent, event, "--no-log"])
        .write_stdin(input.to_string())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    stdout(&out)
}

fn changed_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, ".gitignore", ".state/\n.home/\n");
    write(d, "src/app.py", "def main():\n    return 1\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    write(d, "src/app.py", "def main():\n    return 2\n");
    dir
}

#[test]
fn each_agent_s_sessions_keep_a_memory_of_their_own() {
    let dir = changed_repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(crit_testkit::Reply::json(support::pass()));
    let event = json!({"session_id": "s-1", "hook_event_name": "Stop", "stop_hook_active": false});
    assert_eq!(stop(d, &server, "codex", "Stop", &event), "");
    let sessions = |agent: &str| d.join(".state/crit").join(agent).join("sessions");
    assert!(sessions("codex").join("s-1.stop.json").is_file());
    assert!(!sessions("claude-code").join("s-1.stop.json").exists());

    // A Gemini CLI session from before its own directory: its memory (five
    // rounds held this turn) is read where it was.
    std::fs::create_dir_all(sessions("claude-code")).unwrap();
    std::fs::write(
        sessions("claude-code").join("g-1.stop.json"),
        json!({"fingerprint": "older", "rounds": 5, "at": 0}).to_string(),
    )
    .unwrap();
    let after =
        json!({"session_id": "g-1", "hook_event_name": "AfterAgent", "stop_hook_active": true});
    let said: Value = serde_json::from_str(&stop(d, &server, "gemini", "AfterAgent", &after))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        said["systemMessage"]
            .as_str()
            .is_some_and(|m| m.contains("5 times")),
        "{said}"
    );
    assert_eq!(server.model_requests().len(), 1, "only codex's review ran");
}

/// The change a review sees, by its paths.
fn reviewed_paths(d: &Path, server: &FakeServer) -> String {
    server.push(crit_testkit::Reply::json(support::pass()));
    let out = support::crit(d, server, None)
        .args([
            "review",
            "code",
            "--uncommitted",
            "--verify",
            "off",
            "--no-cache",
            "--json",
        ])
        .output()
        .unwrap();
    let asked = server
        .model_requests()
        .last()
        .map(|r| r.body["messages"].to_string())
        .unwrap_or_default();
    format!("{}\n{asked}", support::stderr(&out))
}

#[test]
fn a_review_leaves_out_each_agent_s_install_only_while_it_is_crits() {
    for (agent, file, _) in &AGENTS[1..] {
        let dir = changed_repo();
        let d = dir.path();
        let server = FakeServer::start_blocking();
        run(d, &["install", agent]);
        let asked = reviewed_paths(d, &server);
        assert!(asked.contains("src/app.py"), "{asked}");
        assert!(!asked.contains(file), "{agent}: {asked}");
        assert!(!asked.contains("crit-install.json"), "{agent}: {asked}");

        // The agent switches its own gate off (every hook of crit's, or the
        // gate alone) and brings the ledger's hash up to date: reviewed.
        let installed: Value = serde_json::from_str(&read(d, file)).unwrap();
        let stop_event = if *agent == "codex" {
            "Stop"
        } else {
            "AfterAgent"
        };
        let mut none = installed.clone();
        none["hooks"].as_object_mut().unwrap().clear();
        let mut no_gate = installed.clone();
        no_gate["hooks"].as_object_mut().unwrap().remove(stop_event);
        let ledger_path = ledger_beside(file);
        let ledger = read(d, &ledger_path);
        for off in [none, no_gate] {
            let text = off.to_string();
            write(d, file, &text);
            let mut l: Value = serde_json::from_str(&ledger).unwrap();
            l["settings_sha256"] = json!(sha256(&text));
            write(d, &ledger_path, &serde_json::to_string_pretty(&l).unwrap());
            let asked = reviewed_paths(d, &server);
            assert!(asked.contains(file), "{agent}: {off}: {asked}");
        }
    }
}

fn sha256(text: &str) -> String {
    crit_os::seal::sha256_hex(text.as_bytes())
}

/// A checkout's file can hold crit's own stop command where it never runs
/// (a matcher that matches nothing) or has no time to (a 1 ms timeout):
/// install does not call that "already there", it wires crit's own hook.
#[test]
fn a_neutered_copy_of_crits_hook_is_not_crits_hook() {
    let stops = [
        ("claude-code", ".claude/settings.json", "Stop"),
        ("codex", ".codex/hooks.json", "Stop"),
        ("gemini", ".gemini/settings.json", "AfterAgent"),
    ];
    for (agent, file, stop) in stops {
        let command = format!("crit hook {agent} {stop}");
        let neutered = [
            json!({"matcher": "never-matches-anything",
                "hooks": [{"type": "command", "command": command}]}),
            json!({"hooks": [{"type": "command", "command": command, "timeout": 1}]}),
        ];
        for group in neutered {
            let dir = project();
            let d = dir.path();
            write(d, file, &json!({"hooks": {stop: [group]}}).to_string());
            let out = run(d, &["install", agent, "--only", "stop-gate"]);
            assert!(
                !stdout(&out).contains("already there"),
                "{agent}: {}",
                stdout(&out)
            );
            let v: Value = serde_json::from_str(&read(d, file)).unwrap();
            let wired = v["hooks"][stop].as_array().unwrap().iter().any(|g| {
                g.get("matcher").is_none()
                    && g["hooks"].as_array().unwrap().iter().any(|h| {
                        h["command"] == command.as_str()
                            && h["timeout"].as_u64().is_some_and(|t| t > 1)
                    })
            });
            assert!(wired, "{agent}: {v}");
        }
    }
}
