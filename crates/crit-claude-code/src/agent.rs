//! The coding agents crit's hooks speak to, and what differs between them:
//! the names of their events, where they say the project is, and the words
//! of their answers. Every decision is made once, agent-neutral (the review
//! gate in [`crate::stop`], the prompt review in [`crate::prompt_submit`]);
//! an adapter here only reads an agent's event and writes its answer.
//!
//! The hook inputs of the three agents share the fields crit reads
//! (`session_id`, `cwd`, `transcript_path`, `hook_event_name`, `prompt`,
//! `stop_hook_active`, `agent_id`):
//!
//! - Claude Code: `UserPromptSubmit`, `Stop`, `SubagentStop`, `PreToolUse`;
//!   a stop is held with `{"decision":"block","reason":…}`.
//! - Codex CLI (`codex-rs/hooks/schema/generated/stop.command.{input,output}.schema.json`):
//!   the same events and answers; its output schema allows no other keys
//!   (`continue`, `decision`, `reason`, `stopReason`, `suppressOutput`,
//!   `systemMessage`, and `hookSpecificOutput` for `UserPromptSubmit`). It
//!   names no project directory: the hook runs in the session's directory.
//! - Gemini CLI (`docs/hooks/reference.md`): `BeforeAgent` (the prompt,
//!   context in `hookSpecificOutput.additionalContext`) and `AfterAgent`
//!   (the agent's final answer; `{"decision":"deny","reason":…}` sends the
//!   reason back as a new prompt, and the retry carries `stop_hook_active`);
//!   the project is `GEMINI_PROJECT_DIR`.
//! - Cursor (`hooks.json`, version 1): `beforeSubmitPrompt` (its answer is
//!   `{"continue": …}` only: no context can ride along, so crit notes the
//!   session's start there and reviews no prompt) and `stop` (`status`,
//!   `loop_count`; `{"followup_message": …}` is sent as the user's next
//!   message, so the gate's reason goes back that way). The session is its
//!   `conversation_id`; a stop with a `loop_count` above 0 follows a held one.
//! - Copilot CLI (`.github/hooks/*.json`, `~/.copilot/hooks/*.json`;
//!   camelCase events and fields: `sessionId`, `cwd`, `transcriptPath`,
//!   `prompt`), as its 1.0.102 runs them (`tests/crit/copilot_real.rs`):
//!   `userPromptSubmitted` (a top-level `additionalContext` in the answer is
//!   added to the prompt the model reads; `hookSpecificOutput` is not read)
//!   and `agentStop` (`{"decision":"block","reason":…}` sends the reason as
//!   the next prompt, and the stop after it carries `stop_hook_active`). The
//!   gate also counts the rounds of a session itself until a review passes,
//!   as Copilot CLI's documented stop input has no such field.
//!
//! - OpenCode (plugins, `packages/plugin/src/index.ts` `Hooks`): no command
//!   hooks; crit's plugin ([`crate::install::opencode`]) runs `crit hook
//!   opencode EVENT` and writes the event's fields as crit reads them
//!   (`sessionID`, `cwd`, `prompt`). `chat.message` (awaited before the
//!   user's message is saved: the review's context is added to its text)
//!   and `session.idle` (the turn has ended: a hold is sent back as the next
//!   prompt). Its idle event says nothing of an earlier hold, so the gate
//!   counts a session's rounds, as for Copilot CLI.
//!
//! When the gate lets an agent go without a passing review, every agent's
//! answer carries `systemMessage` (Cursor and Copilot CLI ignore keys they
//! do not know), and stderr says it too.

use serde_json::Value;

use crate::HookOutput;

/// A coding agent crit's hooks answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Agent {
    #[default]
    ClaudeCode,
    Codex,
    Gemini,
    Cursor,
    Copilot,
    OpenCode,
}

/// What an agent's event is to crit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// The user submitted a prompt: the `!!!` prompt review.
    Prompt,
    /// The agent is about to stop: the review gate.
    Stop,
    /// A subagent is about to stop: the review gate, counted apart.
    SubagentStop,
    /// A tool is about to run: the plan gate (Claude Code's `ExitPlanMode`).
    PreTool,
}

impl Agent {
    /// The agent's name, for people.
    pub fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude Code",
            Agent::Codex => "Codex",
            Agent::Gemini => "Gemini CLI",
            Agent::Cursor => "Cursor",
            Agent::Copilot => "Copilot CLI",
            Agent::OpenCode => "OpenCode",
        }
    }

    /// The name `crit hook` and `crit install` take.
    pub fn id(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Cursor => "cursor",
            Agent::Copilot => "copilot",
            Agent::OpenCode => "opencode",
        }
    }

    /// The environment variable the agent names the project in, if any.
    pub fn project_dir_var(self) -> Option<&'static str> {
        match self {
            Agent::ClaudeCode => Some("CLAUDE_PROJECT_DIR"),
            Agent::Codex | Agent::Cursor | Agent::OpenCode => None,
            Agent::Gemini => Some("GEMINI_PROJECT_DIR"),
            // Set for a project's hooks and the user's alike.
            Agent::Copilot => Some("COPILOT_PROJECT_DIR"),
        }
    }

    /// Whether the agent's prompt hook can carry the prompt review's answer
    /// back (Cursor's cannot: it only notes the start).
    pub fn reviews_prompts(self) -> bool {
        self != Agent::Cursor
    }

    /// Whether the agent's stop event says the agent goes on because a
    /// stop hook held it (Copilot CLI's and OpenCode's do not).
    pub fn says_when_held(self) -> bool {
        !matches!(self, Agent::Copilot | Agent::OpenCode)
    }

    /// The agent's events crit answers, by their names.
    pub fn events(self) -> &'static [(&'static str, Event)] {
        match self {
            Agent::ClaudeCode => &[
                ("UserPromptSubmit", Event::Prompt),
                ("Stop", Event::Stop),
                ("SubagentStop", Event::SubagentStop),
                ("PreToolUse", Event::PreTool),
            ],
            Agent::Codex => &[
                ("UserPromptSubmit", Event::Prompt),
                ("Stop", Event::Stop),
                ("SubagentStop", Event::SubagentStop),
            ],
            Agent::Gemini => &[("BeforeAgent", Event::Prompt), ("AfterAgent", Event::Stop)],
            Agent::Cursor => &[("beforeSubmitPrompt", Event::Prompt), ("stop", Event::Stop)],
            Agent::Copilot => &[
                ("userPromptSubmitted", Event::Prompt),
                ("agentStop", Event::Stop),
                ("subagentStop", Event::SubagentStop),
            ],
            Agent::OpenCode => &[
                ("chat.message", Event::Prompt),
                ("session.idle", Event::Stop),
            ],
        }
    }

    /// The event called `name`, when crit answers it for this agent.
    pub fn event(self, name: &str) -> Option<Event> {
        self.events()
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, e)| *e)
    }

    /// The agent's name for `event`.
    pub fn event_name(self, event: Event) -> Option<&'static str> {
        self.events()
            .iter()
            .find(|(_, e)| *e == event)
            .map(|(n, _)| *n)
    }

    /// `out`, written as crit answers Claude Code, in this agent's words:
    /// Gemini CLI denies where Claude Code blocks, and names its own event
    /// in `hookSpecificOutput`.
    pub fn render(self, event: Event, mut out: HookOutput) -> HookOutput {
        if self == Agent::Cursor && event == Event::Prompt {
            // Cursor waits for an answer to every prompt: it goes on.
            out.stdout = Some(serde_json::json!({"continue": true}));
            return out;
        }
        let Some(v) = out.stdout.as_mut().and_then(Value::as_object_mut) else {
            return out;
        };
        if matches!(self, Agent::Cursor | Agent::Copilot) {
            // Neither has Claude Code's event-specific answers: Copilot CLI
            // reads a prompt's context at the top level.
            let context = v
                .remove("hookSpecificOutput")
                .and_then(|mut s| s.get_mut("additionalContext").map(Value::take));
            if let Some(context) = context.filter(|_| self == Agent::Copilot) {
                v.insert("additionalContext".into(), context);
            }
        }
        if self == Agent::Cursor {
            let reason = v.remove("reason");
            if v.remove("decision").is_some()
                && let Some(reason) = reason
            {
                v.insert("followup_message".into(), reason);
            }
        }
        if self == Agent::Gemini && v.get("decision").and_then(Value::as_str) == Some("block") {
            v.insert("decision".into(), Value::from("deny"));
        }
        if let (Some(specific), Some(name)) = (
            v.get_mut("hookSpecificOutput")
                .and_then(Value::as_object_mut),
            self.event_name(event),
        ) {
            specific.insert("hookEventName".into(), Value::from(name));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn out(v: Value) -> HookOutput {
        HookOutput {
            stdout: Some(v),
            stderr: Vec::new(),
        }
    }

    #[test]
    fn each_agent_gets_its_own_words() {
        let block = json!({"decision": "block", "reason": "fix it"});
        for agent in [Agent::ClaudeCode, Agent::Codex] {
            assert_eq!(
                agent.render(Event::Stop, out(block.clone())),
                out(block.clone())
            );
        }
        assert_eq!(
            Agent::Gemini.render(Event::Stop, out(block)).stdout,
            Some(json!({"decision": "deny", "reason": "fix it"}))
        );
        let context = json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "c"}});
        assert_eq!(
            Agent::Gemini
                .render(Event::Prompt, out(context.clone()))
                .stdout,
            Some(
                json!({"hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": "c"}})
            )
        );
        assert_eq!(
            Agent::Codex
                .render(Event::Prompt, out(context.clone()))
                .stdout,
            Some(context.clone())
        );
        let block = json!({"decision": "block", "reason": "fix it"});
        assert_eq!(
            Agent::Cursor.render(Event::Stop, out(block.clone())).stdout,
            Some(json!({"followup_message": "fix it"}))
        );
        assert_eq!(
            Agent::Copilot
                .render(Event::Stop, out(block.clone()))
                .stdout,
            Some(block)
        );
        assert_eq!(
            Agent::Cursor
                .render(Event::Prompt, HookOutput::default())
                .stdout,
            Some(json!({"continue": true}))
        );
        assert_eq!(
            Agent::Copilot
                .render(Event::Prompt, out(context.clone()))
                .stdout,
            Some(json!({"additionalContext": "c"}))
        );
        assert_eq!(
            Agent::Cursor.render(Event::Stop, out(context)).stdout,
            Some(json!({}))
        );
        assert_eq!(Agent::Copilot.event("agentStop"), Some(Event::Stop));
        assert_eq!(Agent::Cursor.event("stop"), Some(Event::Stop));
        assert_eq!(Agent::Gemini.event("AfterAgent"), Some(Event::Stop));
        assert_eq!(Agent::Gemini.event("Stop"), None);
        assert_eq!(Agent::Codex.event("PreToolUse"), None);
        assert_eq!(Agent::OpenCode.event("session.idle"), Some(Event::Stop));
        assert_eq!(
            Agent::OpenCode
                .render(
                    Event::Stop,
                    out(json!({"decision": "block", "reason": "r"}))
                )
                .stdout,
            Some(json!({"decision": "block", "reason": "r"}))
        );
    }
}
