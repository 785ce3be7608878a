//! An agent that switches its own gate off, through the binary: crit's hook
//! files are left out of a review only while they wire crit's gate as
//! install writes it. With the install not yet committed, an agent that
//! drops crit's stop hook and rewrites the checkout's ledger to match is
//! reviewed by the very next stop (the ledger is in the checkout, so its
//! list of crit's hooks counts for nothing); and a commit that drops
//! Copilot CLI's gate is reviewed in CI.

use crate::stop_gate::{agent, agents_with, event, pass, repo, stop};
use crate::support;

use std::path::Path;

use crit_testkit::FakeServer;
use serde_json::{Value, json};
use support::{git, write};

/// The running agent's hook file, and whether a ledger is kept beside it.
fn hook_file() -> (&'static str, bool) {
    match agent().id {
        "claude-code" => (".claude/settings.json", true),
        "codex" => (".codex/hooks.json", true),
        "gemini" => (".gemini/settings.json", true),
        "cursor" => (".cursor/hooks.json", true),
        _ => (".github/hooks/crit.json", false),
    }
}

fn read_json(d: &Path, file: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(d.join(file)).unwrap()).unwrap()
}

/// Takes crit's hook for `hook_event` out of the hook file and, where there
/// is one, brings the ledger beside it up to date as install would have
/// written it without that hook.
fn drop_hook(d: &Path, hook_event: &str) {
    let (file, ledger) = hook_file();
    let mut v = read_json(d, file);
    let hooks = v["hooks"].as_object_mut().unwrap();
    assert!(
        hooks.remove(hook_event).is_some(),
        "{file}: no {hook_event}"
    );
    let text = serde_json::to_string_pretty(&v).unwrap();
    write(d, file, &text);
    if ledger {
        let path = Path::new(file).parent().unwrap().join("crit-install.json");
        let path = path.to_str().unwrap();
        let mut l = read_json(d, path);
        l["hooks"]
            .as_array_mut()
            .unwrap()
            .retain(|h| h["event"] != hook_event);
        l["created"]
            .as_array_mut()
            .unwrap()
            .retain(|c| !c.as_str().unwrap().ends_with(&format!(".{hook_event}")));
        l["settings_sha256"] = json!(crit_os::seal::sha256_hex(text.as_bytes()));
        write(d, path, &serde_json::to_string_pretty(&l).unwrap());
    }
}

fn install(d: &Path, server: &FakeServer) {
    let out = support::crit(d, server, None)
        .args(["install", agent().id, "--project"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", support::stderr(&out));
}

fn asked(server: &FakeServer) -> Vec<String> {
    server
        .model_requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect()
}

/// Installs crit for the running agent, uncommitted; the gate reviews
/// nothing of it. Then the agent drops crit's hook for `hook_event` and
/// rewrites the ledger: the gate's next stop reviews the hook file.
fn dropping_it_is_reviewed(hook_event: &str) {
    let dir = repo("def main():\n    return 1\n");
    let d = dir.path();
    let server = FakeServer::start_blocking();
    install(d, &server);
    let out = stop(d, &server, &event(Some("s1"), false), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    assert_eq!(
        server.model_requests().len(),
        0,
        "crit's files were reviewed"
    );
    drop_hook(d, hook_event);
    server.push(pass());
    let out = stop(d, &server, &event(Some("s1"), false), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let (file, _) = hook_file();
    let asked = asked(&server);
    assert_eq!(asked.len(), 1, "the gate passed without a review");
    assert!(
        asked[0].contains(file),
        "{file} was not reviewed: {}",
        asked[0]
    );
}

#[test]
fn an_uncommitted_install_whose_stop_hook_the_agent_dropped_is_reviewed() {
    agents_with(
        &["claude-code", "codex", "gemini", "cursor", "copilot"],
        || dropping_it_is_reviewed(agent().stop),
    );
}

/// The plan gate is no part of the review gate: what tells that install
/// wrote it is install's record in the state directory, not the ledger the
/// agent rewrote. Through `crit review code`, as a user or CI reviews.
#[test]
fn dropping_a_hook_install_s_record_lists_is_reviewed_whatever_the_ledger_says() {
    agents_with(&["claude-code"], || {
        let dir = repo("def main():\n    return 1\n");
        let d = dir.path();
        let server = FakeServer::start_blocking();
        install(d, &server);
        let review = |server: &FakeServer| {
            let out = support::crit(d, server, None)
                .args(["review", "code", "--verify", "off", "--no-cache", "--json"])
                .arg("--uncommitted")
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
        };
        review(&server);
        assert_eq!(
            server.model_requests().len(),
            0,
            "crit's files were reviewed"
        );
        drop_hook(d, "PreToolUse");
        server.push(pass());
        review(&server);
        let asked = asked(&server);
        assert_eq!(asked.len(), 1, "nothing was reviewed");
        assert!(asked[0].contains(".claude/settings.json"), "{}", asked[0]);
    });
}

#[test]
fn a_commit_that_drops_copilot_s_gate_is_reviewed_in_ci() {
    agents_with(&["copilot"], || {
        type Edit = fn(&mut serde_json::Map<String, Value>);
        let edits: [(&str, Edit); 3] = [
            ("agentStop dropped", |h| {
                h.remove("agentStop");
            }),
            ("agentStop emptied", |h| {
                h.insert("agentStop".into(), json!([]));
            }),
            ("the session note dropped", |h| {
                h.remove("userPromptSubmitted");
            }),
        ];
        for (what, edit) in edits {
            let dir = repo("def main():\n    return 1\n");
            let d = dir.path();
            let server = FakeServer::start_blocking();
            git(d, &["checkout", "-q", "--", "src/app.py"]);
            install(d, &server);
            git(d, &["add", "-A"]);
            git(d, &["commit", "-q", "-m", "crit installed"]);
            let file = ".github/hooks/crit.json";
            let mut v = read_json(d, file);
            edit(v["hooks"].as_object_mut().unwrap());
            write(d, file, &serde_json::to_string_pretty(&v).unwrap());
            git(d, &["commit", "-q", "-am", "tidy hooks"]);
            server.push(pass());
            let out = support::crit(d, &server, None)
                .args(["review", "code", "--verify", "off", "--no-cache", "--json"])
                .args(["--diff", "HEAD~1..HEAD"])
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "{what}: {}",
                support::stderr(&out)
            );
            let asked = asked(&server);
            assert_eq!(asked.len(), 1, "{what}: nothing was reviewed");
            assert!(asked[0].contains(file), "{what}: {}", asked[0]);
        }
    });
}
