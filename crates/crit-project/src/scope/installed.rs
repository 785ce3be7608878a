//! What `crit install claude-code` writes into a `.claude` directory: the
//! files the Claude Code plugin ships, the hooks, the permission rules and the
//! status line. Install (crit-claude-code) writes these; the scope's own-file
//! rule ([`super::OwnFiles`]) leaves out of a review only what is exactly
//! these, never what a ledger in the checkout merely claims.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// How the hooks, the rules and the status line call crit.
pub const PROGRAM: &str = "crit";

/// The expert-review agent's file, from the `.claude` directory.
pub const AGENT: &str = "agents/expert-review.md";

/// The files install writes, from the `.claude` directory, as the plugin
/// ships them: the slash commands and the expert-review agent (a drop-in for
/// the original's `Task(subagent_type="expert-review", …)`).
pub const FILES: [(&str, &str); 3] = [
    (
        "commands/prompt-review.md",
        include_str!("../../../../claude-plugin/commands/prompt-review.md"),
    ),
    (
        "commands/crit-review.md",
        include_str!("../../../../claude-plugin/commands/crit-review.md"),
    ),
    (
        AGENT,
        include_str!("../../../../claude-plugin/agents/expert-review.md"),
    ),
];

/// What crit added to one settings file, kept beside it as
/// `crit-install.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    pub version: u32,
    /// The settings file did not exist: uninstall deletes it when nothing else is left.
    #[serde(default)]
    pub created_settings: bool,
    /// Objects and arrays crit created (`hooks`, `hooks.Stop`): removed again once empty.
    #[serde(default)]
    pub created: Vec<String>,
    #[serde(default)]
    pub hooks: Vec<AddedHook>,
    /// Rules crit added to `permissions.allow` (crit-claude-code's `install::permissions`).
    #[serde(default)]
    pub permissions: Vec<String>,
    /// The status line crit set, as it set it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_line: Option<serde_json::Value>,
    /// Files written (relative to the `.claude` directory) and their SHA-256.
    #[serde(default)]
    pub files: Vec<AddedFile>,
    /// SHA-256 of `settings.json` as install last wrote it: while it is
    /// unchanged, reviews leave it out as crit's own ([`super::OwnFiles`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings_sha256: Option<String>,
}

impl Ledger {
    /// `bytes` as install writes a ledger: its keys, its shapes, nothing
    /// beside them (a script saved under the ledger's name is not one).
    pub fn exactly(bytes: &[u8]) -> Option<Ledger> {
        let file: Value = serde_json::from_slice(bytes).ok()?;
        let ledger: Ledger = serde_json::from_value(file.clone()).ok()?;
        (serde_json::to_value(&ledger).ok()? == file).then_some(ledger)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddedHook {
    pub event: String,
    pub command: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddedFile {
    pub path: String,
    pub sha256: String,
}

/// One hook crit adds to `settings.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hook {
    pub event: &'static str,
    /// Seconds Claude Code waits before it cancels the hook (and goes on).
    pub timeout: u64,
    /// The tools a tool event's hook runs for (a regex on the tool name).
    pub matcher: Option<&'static str>,
}

/// crit's hooks; `SubagentStop`, last, only when the user asks for it.
pub const HOOKS: [Hook; 4] = [
    // The pipeline's own deadline (`budget.timeout_ms`, 8 s by default) ends
    // the review well before this.
    Hook {
        event: "UserPromptSubmit",
        timeout: 60,
        matcher: None,
    },
    // A code review of the uncommitted changes; the hook's own deadline
    // (`--timeout`, 300 s by default) ends it first, and a review that cannot
    // decide holds the gate.
    Hook {
        event: "Stop",
        timeout: 360,
        matcher: None,
    },
    // The plan gate: leaving plan mode waits for `crit plan` to approve the
    // plan.
    Hook {
        event: "PreToolUse",
        timeout: 60,
        matcher: Some("ExitPlanMode"),
    },
    Hook {
        event: "SubagentStop",
        timeout: 360,
        matcher: None,
    },
];

/// The command a hook for `event` runs.
pub fn hook_command(crit: &str, event: &str) -> String {
    format!("{crit} hook claude-code {event}")
}

/// The flag of the `UserPromptSubmit` hook install wires when the review
/// gate is wanted without the prompt review: it only notes the commit the
/// gate measures the session's commits from, and reviews no prompt.
pub const NOTE_ONLY: &str = "--note-only";

/// [`HOOKS`]' `UserPromptSubmit`, as install writes it without the prompt review.
pub fn note_only_group(crit: &str) -> Value {
    json!({"hooks": [{
        "type": "command",
        "command": format!("{} {NOTE_ONLY}", hook_command(crit, "UserPromptSubmit")),
        "timeout": HOOKS[0].timeout,
    }]})
}

/// The group install appends to `hooks.<event>`: one hook, as written.
pub fn hook_group(crit: &str, hook: &Hook) -> Value {
    let mut group = serde_json::Map::new();
    if let Some(m) = hook.matcher {
        group.insert("matcher".into(), json!(m));
    }
    group.insert(
        "hooks".into(),
        json!([{
            "type": "command",
            "command": hook_command(crit, hook.event),
            "timeout": hook.timeout,
        }]),
    );
    Value::Object(group)
}

/// The permission rules install adds to `permissions.allow`.
pub fn allow_rules(crit: &str) -> Vec<String> {
    vec![
        "Skill(prompt-review)".to_string(),
        format!("Bash({crit} prompt:*)"),
        "Skill(crit-review)".to_string(),
        format!("Bash({crit} plan:*)"),
    ]
}

/// The `statusLine` install sets when there is none.
pub fn status_line(crit: &str) -> Value {
    json!({"type": "command", "command": format!("{crit} statusline"), "padding": 0})
}

/// `settings` without what install adds, exactly as it adds it: its hook
/// groups, its rules and its status line (a hook of crit's with another
/// timeout or matcher is not crit's). What `hooks` or `permissions` holds
/// once they are gone is kept, empty or not, so two files differ here only
/// in what is not crit's.
pub fn without_crits(settings: &Value) -> Value {
    let mut v = settings.clone();
    let mut groups: Vec<Value> = HOOKS.iter().map(|h| hook_group(PROGRAM, h)).collect();
    groups.push(note_only_group(PROGRAM));
    if let Some(hooks) = v.get_mut("hooks").and_then(Value::as_object_mut) {
        for list in hooks.values_mut().filter_map(Value::as_array_mut) {
            list.retain(|g| !groups.contains(g));
        }
        hooks.retain(|_, list| list.as_array().is_none_or(|l| !l.is_empty()));
    }
    let rules = allow_rules(PROGRAM);
    if let Some(allow) = v
        .pointer_mut("/permissions/allow")
        .and_then(Value::as_array_mut)
    {
        allow.retain(|r| !r.as_str().is_some_and(|r| rules.iter().any(|o| o == r)));
    }
    if v.get("statusLine") == Some(&status_line(PROGRAM))
        && let Some(o) = v.as_object_mut()
    {
        o.remove("statusLine");
    }
    if let Some(o) = v.as_object_mut() {
        if let Some(p) = o.get_mut("permissions").and_then(Value::as_object_mut)
            && p.get("allow")
                .and_then(Value::as_array)
                .is_some_and(Vec::is_empty)
        {
            p.remove("allow");
        }
        for key in ["hooks", "permissions"] {
            if o.get(key)
                .and_then(Value::as_object)
                .is_some_and(|x| x.is_empty())
            {
                o.remove(key);
            }
        }
    }
    v
}

/// An agent besides Claude Code that `crit install` wires hooks into, as a
/// review knows its files: its directory in a project, its hook file, and
/// the events crit's hooks answer there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentHooks {
    /// The name `crit hook` and `crit install` take.
    pub id: &'static str,
    /// The agent's directory in a project.
    pub dir: &'static str,
    /// Its hook file in that directory.
    pub file: &'static str,
    /// The event of a submitted prompt.
    pub prompt: &'static str,
    /// The event before the agent stops.
    pub stop: &'static str,
    /// The agent's timeout units in a second (Gemini CLI counts milliseconds).
    pub per_second: u64,
    /// How its file writes one of crit's hooks.
    pub shape: HookShape,
}

/// How an agent's hook file writes one of crit's hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookShape {
    /// A group: `{"hooks": [{"type": "command", "command": …, "timeout": …}]}`.
    Grouped,
    /// Cursor's entry of its own, `{"command": …}`, in a file of `version` 1.
    /// Its prompt hook carries no review: install writes only the note.
    Cursor,
    /// Copilot CLI's, `{"type": "command", "bash": …, "timeoutSec": …}`, in
    /// a file of `version` 1 that is crit's alone (`.github/hooks/crit.json`:
    /// no ledger beside it, as Copilot reads every `.json` there).
    Copilot,
}

/// Codex CLI, Gemini CLI, Cursor and Copilot CLI.
pub const AGENT_HOOKS: [AgentHooks; 4] = [
    AgentHooks {
        id: "codex",
        dir: ".codex",
        file: "hooks.json",
        prompt: "UserPromptSubmit",
        stop: "Stop",
        per_second: 1,
        shape: HookShape::Grouped,
    },
    AgentHooks {
        id: "gemini",
        dir: ".gemini",
        file: "settings.json",
        prompt: "BeforeAgent",
        stop: "AfterAgent",
        per_second: 1000,
        shape: HookShape::Grouped,
    },
    AgentHooks {
        id: "cursor",
        dir: ".cursor",
        file: "hooks.json",
        prompt: "beforeSubmitPrompt",
        stop: "stop",
        per_second: 1,
        shape: HookShape::Cursor,
    },
    AgentHooks {
        id: "copilot",
        dir: ".github/hooks",
        file: "crit.json",
        prompt: "userPromptSubmitted",
        stop: "agentStop",
        per_second: 1,
        shape: HookShape::Copilot,
    },
];

impl AgentHooks {
    /// Every group install may append, with its event: the prompt review,
    /// the note-only prompt hook, the review gate.
    pub fn groups(&self, crit: &str) -> Vec<(&'static str, Value)> {
        let group = |event: &str, suffix: &str, timeout: u64| {
            let command = format!("{crit} hook {} {event}{suffix}", self.id);
            let timeout = timeout * self.per_second;
            match self.shape {
                HookShape::Grouped => json!({"hooks": [{
                    "type": "command", "command": command, "timeout": timeout,
                }]}),
                HookShape::Cursor => json!({"command": command}),
                HookShape::Copilot => {
                    json!({"type": "command", "bash": command, "timeoutSec": timeout})
                }
            }
        };
        let note = format!(" {NOTE_ONLY}");
        let mut all = vec![
            (self.prompt, group(self.prompt, "", HOOKS[0].timeout)),
            (self.prompt, group(self.prompt, &note, HOOKS[0].timeout)),
            (self.stop, group(self.stop, "", HOOKS[1].timeout)),
        ];
        if self.shape == HookShape::Cursor {
            all.remove(0);
        }
        all
    }

    /// `settings` without crit's groups, exactly as install writes them
    /// (see [`without_crits`]), and without the `version` 1 of a file that
    /// holds nothing else (install writes it with crit's first entry).
    pub fn without_crits(&self, settings: &Value) -> Value {
        let groups: Vec<Value> = self.groups(PROGRAM).into_iter().map(|(_, g)| g).collect();
        let v = without_groups(settings, &groups);
        if self.shape != HookShape::Grouped && v == json!({"version": 1}) {
            return json!({});
        }
        v
    }
}

/// Whether `settings` (the hook file of the agent whose directory is
/// `dir`) wires crit's review gate as install writes it: the stop hook, and
/// a prompt hook (the review's or the note-only one), which notes the commit
/// the gate measures the session's commits from. A file without them is an
/// agent's that switched its gate off, never crit's own.
pub fn has_gate(settings: &Value, dir: &str) -> bool {
    let (prompt, stop, groups): (&str, &str, Vec<(&str, Value)>) =
        match AGENT_HOOKS.iter().find(|a| a.dir == dir) {
            Some(a) => (a.prompt, a.stop, a.groups(PROGRAM)),
            None => (
                HOOKS[0].event,
                HOOKS[1].event,
                vec![
                    (HOOKS[0].event, hook_group(PROGRAM, &HOOKS[0])),
                    (HOOKS[0].event, note_only_group(PROGRAM)),
                    (HOOKS[1].event, hook_group(PROGRAM, &HOOKS[1])),
                ],
            ),
        };
    let holds = |event: &str| {
        let list = settings
            .get("hooks")
            .and_then(|h| h.get(event))
            .and_then(Value::as_array);
        groups
            .iter()
            .any(|(e, g)| *e == event && list.is_some_and(|l| l.contains(g)))
    };
    holds(prompt) && holds(stop)
}

/// `settings` with none of `groups` under `hooks`: an event left with none
/// is taken out, and `hooks` when it is left empty.
fn without_groups(settings: &Value, groups: &[Value]) -> Value {
    let mut v = settings.clone();
    if let Some(hooks) = v.get_mut("hooks").and_then(Value::as_object_mut) {
        for list in hooks.values_mut().filter_map(Value::as_array_mut) {
            list.retain(|g| !groups.contains(g));
        }
        hooks.retain(|_, list| list.as_array().is_none_or(|l| !l.is_empty()));
    }
    if let Some(o) = v.as_object_mut()
        && o.get("hooks")
            .and_then(Value::as_object)
            .is_some_and(|x| x.is_empty())
    {
        o.remove("hooks");
    }
    v
}

/// OpenCode's plugin as `crit install opencode` writes it, from the
/// project root: OpenCode has no command hooks, so crit's plugin runs `crit
/// hook opencode …` (the template's comments say which hooks and why).
pub const OPENCODE_PLUGIN: &str = ".opencode/plugins/crit.js";

const OPENCODE_TEMPLATE: &str = include_str!("opencode_plugin.js");

/// The plugin's text for the pieces it runs.
pub fn opencode_plugin(crit: &str, prompt_review: bool, stop_gate: bool) -> String {
    let flag = |on: bool| if on { "true" } else { "false" };
    OPENCODE_TEMPLATE
        .replace("__CRIT__", crit)
        .replace("__PROMPT_REVIEW__", flag(prompt_review))
        .replace("__STOP_GATE__", flag(stop_gate))
}

/// Every text install may write as OpenCode's plugin.
pub fn opencode_plugins(crit: &str) -> Vec<String> {
    [(true, true), (true, false), (false, true)]
        .into_iter()
        .map(|(p, s)| opencode_plugin(crit, p, s))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_install_writes_exactly_is_crits() {
        let mut all: Vec<Value> = HOOKS.iter().map(|h| hook_group(PROGRAM, h)).collect();
        let mine = json!({"hooks": [{"type": "command", "command": "say done"}]});
        all.push(mine.clone());
        let settings = json!({
            "model": "opus",
            "hooks": {"Stop": all, "PreToolUse": [hook_group(PROGRAM, &HOOKS[2])]},
            "permissions": {"allow": allow_rules(PROGRAM)},
            "statusLine": status_line(PROGRAM),
        });
        assert_eq!(
            without_crits(&settings),
            json!({"model": "opus", "hooks": {"Stop": [mine]}})
        );
        // crit's Stop hook with a one-second timeout (which would let the
        // agent walk past the gate) is not crit's; nor a chained command.
        for forged in [
            json!({"hooks": [{"type": "command", "command": "crit hook claude-code Stop", "timeout": 1}]}),
            json!({"hooks": [{"type": "command", "command": "crit hook claude-code Stop; sh x", "timeout": 360}]}),
        ] {
            let s = json!({"hooks": {"Stop": [forged]}});
            assert_eq!(without_crits(&s), s);
        }
        let wider = json!({"permissions": {"allow": ["Bash(*)", "Skill(prompt-review)"]}});
        assert_eq!(
            without_crits(&wider),
            json!({"permissions": {"allow": ["Bash(*)"]}})
        );
    }
}
