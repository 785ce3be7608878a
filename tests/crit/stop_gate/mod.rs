//! The review gate through the binary (`crit hook AGENT Stop`, Gemini CLI's
//! `AfterAgent`), in real git repositories against crit-testkit: it blocks
//! with the findings, sends an unchanged failing change back again, fails
//! closed when the review cannot decide, never loops (`stop_hook_active`,
//! `--max-rounds`) and tells the user when it lets the agent go, passes clean
//! trees at once, and reads its settings as committed and trusted: nothing
//! the agent writes moves it. Every test runs against every agent's adapter
//! (Claude Code, Codex CLI, Gemini CLI): one gate, each agent's words.

mod basics;
mod hostile;
mod rounds;

use crate::support;

use std::path::Path;
use std::process::Output;

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};
use support::{crit, git, init_repo, write};

/// One agent's hook protocol, as the tests speak it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Adapter {
    /// `crit hook ID …`
    pub id: &'static str,
    /// The event before the agent stops.
    pub stop: &'static str,
    /// The event of a submitted prompt.
    pub prompt: &'static str,
    /// The decision that holds the agent (Cursor has none: its
    /// `followup_message` is the hold).
    pub block: Option<&'static str>,
    /// Where the reason is.
    pub reason: &'static str,
}

pub(crate) const ADAPTERS: [Adapter; 6] = [
    Adapter {
        id: "claude-code",
        stop: "Stop",
        prompt: "UserPromptSubmit",
        block: Some("block"),
        reason: "reason",
    },
    Adapter {
        id: "codex",
        stop: "Stop",
        prompt: "UserPromptSubmit",
        block: Some("block"),
        reason: "reason",
    },
    Adapter {
        id: "gemini",
        stop: "AfterAgent",
        prompt: "BeforeAgent",
        block: Some("deny"),
        reason: "reason",
    },
    Adapter {
        id: "cursor",
        stop: "stop",
        prompt: "beforeSubmitPrompt",
        block: None,
        reason: "followup_message",
    },
    Adapter {
        id: "copilot",
        stop: "agentStop",
        prompt: "userPromptSubmitted",
        block: Some("block"),
        reason: "reason",
    },
    // What crit's OpenCode plugin writes and reads.
    Adapter {
        id: "opencode",
        stop: "session.idle",
        prompt: "chat.message",
        block: Some("block"),
        reason: "reason",
    },
];

/// Whether `answer` holds the agent, in the running agent's words.
pub(crate) fn holds(answer: &Value) -> bool {
    let a = agent();
    answer.get(a.reason).and_then(Value::as_str).is_some()
        && a.block.is_none_or(|b| answer["decision"] == b)
}

thread_local! {
    static AGENT: std::cell::Cell<Adapter> = const { std::cell::Cell::new(ADAPTERS[0]) };
}

/// The agent the running test speaks for.
pub(crate) fn agent() -> Adapter {
    AGENT.with(std::cell::Cell::get)
}

/// Runs `body` once for each agent's adapter (each run makes its own
/// repository and server).
pub(crate) fn every_agent(body: fn()) {
    agents_with(
        &[
            "claude-code",
            "codex",
            "gemini",
            "cursor",
            "copilot",
            "opencode",
        ],
        body,
    );
}

/// Runs `body` for the agents whose stop says when a hook held it (all but
/// Copilot CLI and OpenCode, whose rounds are counted per session: see `rounds`).
pub(crate) fn agents_saying_when_held(body: fn()) {
    agents_with(&["claude-code", "codex", "gemini", "cursor"], body);
}

/// Runs `body` for the adapters named in `ids`.
pub(crate) fn agents_with(ids: &[&str], body: fn()) {
    for a in ADAPTERS.iter().filter(|a| ids.contains(&a.id)) {
        AGENT.with(|c| c.set(*a));
        eprintln!("-- as {}", a.id);
        body();
    }
}

/// A repository with `src/app.py` committed, then changed (uncommitted).
pub(crate) fn repo(change: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    // crit's state and the test's HOME live in the directory, out of the change.
    write(d, ".gitignore", ".state/\n.home/\n");
    write(d, "src/app.py", "def main():\n    return 1\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    write(d, "src/app.py", change);
    dir
}

pub(crate) const EVAL: &str = "def main():\n    return eval(input())\n";

fn p0() -> Reply {
    Reply::json(
        json!({"verdict": "FAIL", "summary": "Runs user input as code.", "findings": [
        {"file_path": "src/app.py", "line_start": 2, "line_end": 2, "priority": 0,
         "title": "eval of user input", "body": "Any input runs as Python. Use ast.literal_eval."}]}),
    )
}

/// The second look the gate takes at a blocking finding, as `crit review
/// code --uncommitted` does: the finding holds.
pub(crate) fn confirmed() -> Step {
    Step::when_contains("The finding to check").reply(Reply::json(
        json!({"outcome": "confirmed", "reason": "It runs whatever is typed."}),
    ))
}

/// The review requests the server received, the second looks left out.
pub(crate) fn reviews(server: &FakeServer) -> usize {
    server
        .model_requests()
        .iter()
        .filter(|r| !r.body.to_string().contains("The finding to check"))
        .count()
}

pub(crate) fn pass() -> Reply {
    Reply::json(support::pass())
}

/// A stop event as the running agent writes one: Cursor's
/// `conversation_id` and `loop_count`, Copilot CLI's camelCase (and no word
/// of an earlier hold), the others' `session_id` and `stop_hook_active`.
pub(crate) fn event(session: Option<&str>, active: bool) -> String {
    let mut e = match agent().id {
        "cursor" => json!({"hook_event_name": "stop", "status": "completed",
            "loop_count": u32::from(active), "generation_id": "g",
            "workspace_roots": ["/nonexistent"]}),
        "copilot" => json!({"timestamp": 1_704_614_750_000_u64, "cwd": "/nonexistent",
            "transcriptPath": "/nonexistent.jsonl", "stopReason": "end_turn"}),
        "opencode" => json!({"hook_event_name": "session.idle", "cwd": "/nonexistent"}),
        _ => json!({"hook_event_name": agent().stop, "stop_hook_active": active,
            "last_assistant_message": "Done.", "transcript_path": "/nonexistent.jsonl"}),
    };
    if let Some(s) = session {
        let key = match agent().id {
            "cursor" => "conversation_id",
            "copilot" => "sessionId",
            "opencode" => "sessionID",
            _ => "session_id",
        };
        e[key] = json!(s);
    }
    e.to_string()
}

pub(crate) fn stop(d: &Path, server: &FakeServer, input: &str, extra: &[&str]) -> Output {
    crit(d, server, None)
        .args(["hook", agent().id, agent().stop, "--no-log"])
        .args(extra)
        .write_stdin(input)
        .output()
        .unwrap()
}

/// The block decision, if the hook printed one.
pub(crate) fn decision(o: &Output) -> Option<Value> {
    assert_eq!(o.status.code(), Some(0), "{}", support::stderr(o));
    let text = String::from_utf8_lossy(&o.stdout);
    (!text.trim().is_empty()).then(|| serde_json::from_str(&text).unwrap())
}

pub(crate) fn blocked(o: &Output) -> String {
    let d = decision(o).unwrap_or_else(|| panic!("not blocked: {}", support::stderr(o)));
    assert!(holds(&d), "{d}");
    d[agent().reason].as_str().unwrap().to_string()
}
