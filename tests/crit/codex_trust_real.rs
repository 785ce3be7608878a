//! Codex CLI's trust in hooks, with the real CLI (0.171) and without
//! `--dangerously-bypass-hook-trust`. Codex runs a hook only while the
//! user's `config.toml` holds its current hash under `[hooks.state."KEY"]`
//! (`trusted_hash`, what `/hooks` writes when the user trusts it; the key is
//! the hook file, the event, the group and the hook), and reads a
//! project's `.codex/` only while `[projects."ROOT"]` says `trust_level =
//! "trusted"`. `codex exec` skips a hook it does not trust without a word.
//! The tests trust a hook as `/hooks` does: the key and hash come from
//! Codex itself (`codex app-server`'s `hooks/list`, the list `/hooks`
//! shows), written where `/hooks` writes them.
//!
//! - what `crit install codex --user` wrote runs only once trusted, and a
//!   changed hook must be trusted again;
//! - what `crit install codex --project` wrote runs only in a project the
//!   user trusts, and only once its hooks are trusted too;
//! - install says so.

use crate::codex_real::{Setup, codex_requests, conversation, ok};
use crate::stop_gate::{EVAL, confirmed};
use crate::support;

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

use crit_testkit::prompt_review::{GUARDRAIL_CHECK, no_contradictions, vague_panel, who};
use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};

/// The hooks Codex finds for the project, as `/hooks` lists them.
fn hooks_list(s: &Setup) -> Vec<Value> {
    let mut child = std::process::Command::new(crate::support::npm_bin("codex"))
        .arg("app-server")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", s.home.path())
        .env("CODEX_HOME", s.codex_home())
        .current_dir(s.project())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut call = |id: u64, method: &str, params: Value| -> Value {
        let msg = json!({"id": id, "method": method, "params": params});
        writeln!(stdin, "{msg}").unwrap();
        if id == 1 {
            writeln!(stdin, "{}", json!({"method": "initialized"})).unwrap();
        }
        loop {
            let line = lines.next().expect("codex app-server ended").unwrap();
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id {
                return v;
            }
        }
    };
    call(
        1,
        "initialize",
        json!({"clientInfo": {"name": "crit-tests", "version": "1"}}),
    );
    let listed = call(
        2,
        "hooks/list",
        json!({"cwds": [s.project().to_string_lossy()]}),
    );
    let _ = child.kill();
    let _ = child.wait();
    listed["result"]["data"][0]["hooks"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"))
        .clone()
}

/// What `/hooks` writes when the user trusts `hooks`.
fn trusted(hooks: &[&Value]) -> String {
    hooks
        .iter()
        .map(|h| {
            format!(
                "\n[hooks.state.{}]\ntrusted_hash = {}\n",
                h["key"], h["currentHash"]
            )
        })
        .collect()
}

/// The project as one the user trusts, in Codex's words.
fn project_trusted(s: &Setup) -> String {
    let root = s.project().canonicalize().unwrap();
    format!(
        "\n[projects.{}]\ntrust_level = \"trusted\"\n",
        json!(root.to_string_lossy())
    )
}

/// crit's hooks in `list` (crit's commands), with their trust.
fn crits<'a>(list: &'a [Value], source: &str) -> Vec<(&'a Value, &'a str, &'a str)> {
    list.iter()
        .filter(|h| h["source"] == source)
        .filter(|h| {
            h["command"]
                .as_str()
                .is_some_and(|c| c.starts_with("crit hook codex"))
        })
        .map(|h| {
            (
                h,
                h["command"].as_str().unwrap(),
                h["trustStatus"].as_str().unwrap_or_default(),
            )
        })
        .collect()
}

#[test]
#[cfg_attr(
    missing_codex_cli,
    ignore = "the Codex CLI is not installed: run .ci/install-test-deps"
)]
fn codex_runs_the_user_hooks_crit_installed_only_once_the_user_trusts_them() {
    let s = Setup::new("def main():\n    return 1\n");
    let again = s.crit(&["install", "codex", "--user"]);
    let said = String::from_utf8_lossy(&again.stdout);
    assert!(said.contains("open /hooks in Codex"), "{said}");
    assert!(said.contains("codex exec skips"), "{said}");

    // Not trusted: the prompt goes to the model as typed, crit never ran.
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("optimize the settings page!!!").reply(Reply::text("On it.")));
    s.configure(&server, "");
    ok(&s.exec(&server, "optimize the settings page!!!", false));
    assert_eq!(support::chat_requests(&server).len(), 0);
    assert!(!conversation(&codex_requests(&server)[0]).contains("Prompt Review"));
    let list = hooks_list(&s);
    let ours = crits(&list, "user");
    assert_eq!(
        ours.iter().map(|(_, c, t)| (*c, *t)).collect::<Vec<_>>(),
        [
            ("crit hook codex UserPromptSubmit", "untrusted"),
            ("crit hook codex Stop", "untrusted")
        ],
        "{list:#?}"
    );
    for (h, _, _) in &ours {
        assert_eq!(h["sourcePath"], json!(s.hooks().to_string_lossy()));
    }

    // Trusted: the `!!!` prompt is reviewed in the hook.
    let trust = trusted(&ours.iter().map(|(h, _, _)| *h).collect::<Vec<_>>());
    let server = FakeServer::start_blocking();
    for (label, answer) in vague_panel() {
        server.push(Step::when_contains(who(label)).reply(Reply::json(answer)));
    }
    server.push(Step::when_contains(GUARDRAIL_CHECK).reply(Reply::json(no_contradictions())));
    server.push(Reply::text("Here is the review."));
    s.configure(&server, &trust);
    ok(&s.exec(&server, "optimize the settings page!!!", false));
    assert_eq!(support::chat_requests(&server).len(), 5);
    assert!(conversation(&codex_requests(&server)[0]).contains("+-- Prompt Review "));

    // A hook crit changes (the prompt review taken out) is to be trusted again.
    assert!(s.crit(&["uninstall", "codex", "--user"]).status.success());
    let out = s.crit(&["install", "codex", "--user", "--skip", "prompt-review"]);
    assert!(out.status.success(), "{}", support::stderr(&out));
    let list = hooks_list(&s);
    assert_eq!(
        crits(&list, "user")
            .iter()
            .map(|(_, c, t)| (*c, *t))
            .collect::<Vec<_>>(),
        [
            ("crit hook codex UserPromptSubmit --note-only", "modified"),
            ("crit hook codex Stop", "trusted")
        ],
        "{list:#?}"
    );
}

#[test]
#[cfg_attr(
    missing_codex_cli,
    ignore = "the Codex CLI is not installed: run .ci/install-test-deps"
)]
fn a_project_s_hooks_run_only_in_a_trusted_project_and_once_trusted_themselves() {
    let s = Setup::bare(EVAL);
    let out = s.crit(&["install", "codex", "--project"]);
    assert!(out.status.success(), "{}", support::stderr(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("a project's hooks only in a project you trust"),
        "{said}"
    );
    let gate = |server: &FakeServer| {
        server.push(confirmed());
        server.push(Step::when_contains("return eval(input())").reply(Reply::json(json!({
            "verdict": "FAIL", "summary": "Runs user input as code.",
            "findings": [{"file_path": "src/app.py", "line_start": 2, "line_end": 2, "priority": 1,
                          "title": "eval of user input", "body": "Any input runs as Python. Parse it with int()."}]}))));
        for i in 0..3 {
            server.push(Reply::text(format!("Done {i}.")));
        }
    };
    // Runs `codex exec` under `extra`; whether crit's gate held the stop.
    let held = |extra: &str| -> bool {
        let server = FakeServer::start_blocking();
        gate(&server);
        s.configure(&server, extra);
        ok(&s.exec(&server, "finish the task", false));
        let asked = codex_requests(&server);
        asked.len() > 1 && conversation(&asked[1]).contains("eval of user input")
    };

    // A project the user has not trusted: Codex does not read its .codex/.
    assert!(!held(""));
    assert!(crits(&hooks_list(&s), "project").is_empty());
    // Trusted, but its hooks are not yet.
    let project = project_trusted(&s);
    s.configure(&FakeServer::start_blocking(), &project);
    let list = hooks_list(&s);
    let ours = crits(&list, "project");
    assert_eq!(
        ours.iter().map(|(_, c, t)| (*c, *t)).collect::<Vec<_>>(),
        [
            ("crit hook codex UserPromptSubmit", "untrusted"),
            ("crit hook codex Stop", "untrusted")
        ],
        "{list:#?}"
    );
    assert!(!held(&project));
    // Both: the gate holds the stop with the finding.
    let hooks = trusted(&ours.iter().map(|(h, _, _)| *h).collect::<Vec<_>>());
    assert!(held(&format!("{project}{hooks}")));
    // Its hooks trusted, the project no more: not read again.
    assert!(!held(&hooks));
}
