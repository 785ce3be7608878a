//! What a Claude Code hook receives on stdin, and the first decision of the
//! `UserPromptSubmit` hook, which runs on every prompt: a prompt ending in
//! `!!!` is reviewed, a bare answer to crit's approval question is recorded,
//! anything else passes at once. Deciding parses the event and compares a
//! few bytes: no settings, no files, no network.

use serde::Deserialize;

use crit_prompt::Outcome;

/// The fields crit reads from a hook event (the rest is ignored).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct HookInput {
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub hook_event_name: Option<String>,
    #[serde(default)]
    pub transcript_path: Option<String>,
    /// `UserPromptSubmit`.
    #[serde(default)]
    pub prompt: Option<String>,
    /// `Stop`/`SubagentStop`: the agent is already continuing because a
    /// stop hook blocked.
    #[serde(default)]
    pub stop_hook_active: bool,
    /// `SubagentStop`.
    #[serde(default)]
    pub agent_id: Option<String>,
}

impl HookInput {
    /// The event's fields, each taken when it has its documented type and
    /// left out otherwise: one odd field (a number where a path was) never
    /// costs the rest. Only input that is not a JSON object is an error.
    pub fn parse(input: &[u8]) -> Result<HookInput, serde_json::Error> {
        let value: serde_json::Value = serde_json::from_slice(input)?;
        let Some(fields) = value.as_object() else {
            return Err(serde::de::Error::custom("the event is not a JSON object"));
        };
        // Each field under any agent's name for it: Cursor's
        // `conversation_id`, Copilot CLI's camelCase, OpenCode's `sessionID`.
        let text = |keys: &[&str]| {
            keys.iter()
                .find_map(|k| fields.get(*k).and_then(|v| v.as_str()))
                .map(str::to_string)
        };
        let held = fields
            .get("stop_hook_active")
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false)
            || fields
                .get("loop_count")
                .and_then(serde_json::Value::as_u64)
                .is_some_and(|n| n > 0);
        Ok(HookInput {
            session_id: text(&["session_id", "sessionId", "sessionID", "conversation_id"]),
            cwd: text(&["cwd"]),
            hook_event_name: text(&["hook_event_name", "hookEventName"]),
            transcript_path: text(&["transcript_path", "transcriptPath"]),
            prompt: text(&["prompt"]),
            stop_hook_active: held,
            agent_id: text(&["agent_id", "agentId"]),
        })
    }
}

/// What the `UserPromptSubmit` hook does with a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptAction {
    /// Not for crit: exit 0, print nothing.
    Pass,
    /// Ends in `!!!`: review the prompt without it.
    Review(String),
    /// "yes", "no" or "edit …": maybe the answer to crit's question.
    Answer(Outcome),
}

/// The trigger the prompt-review plugin uses.
pub const TRIGGER: &str = "!!!";

/// The decision on an event's raw bytes; `None` when they are not a JSON
/// object (the caller fails open).
pub fn decide(input: &[u8]) -> Option<(PromptAction, HookInput)> {
    // Fields of the wrong type make no event; each agent's names are read.
    serde_json::from_slice::<HookInput>(input).ok()?;
    let event = HookInput::parse(input).ok()?;
    let action = event
        .prompt
        .as_deref()
        .map_or(PromptAction::Pass, prompt_action);
    Some((action, event))
}

/// The decision on a prompt's text.
/// Whether the hook has anything to do with `input`: a prompt without
/// `!!!` and that answers nothing passes before any setting is read.
pub fn acts_on(input: &[u8]) -> bool {
    !matches!(decide(input), Some((PromptAction::Pass, _)))
}

pub fn prompt_action(prompt: &str) -> PromptAction {
    if let Some(stripped) = bang(prompt) {
        return PromptAction::Review(stripped.to_string());
    }
    match answer(prompt) {
        Some(o) => PromptAction::Answer(o),
        None => PromptAction::Pass,
    }
}

/// The prompt without its trailing `!!!` (trailing whitespace first), when it
/// has one and something is left.
pub fn bang(prompt: &str) -> Option<&str> {
    let stripped = prompt.trim_end().strip_suffix(TRIGGER)?.trim_end();
    (!stripped.trim().is_empty()).then_some(stripped)
}

/// A reply to "Proceed with the refined prompt? (yes / no / edit)".
pub fn answer(prompt: &str) -> Option<Outcome> {
    let t = prompt.trim();
    // Only short replies: anything longer is a new request, not an answer.
    if t.len() > 200 {
        return None;
    }
    let end = t.find(|c: char| !c.is_alphabetic()).unwrap_or(t.len());
    let word = t[..end].to_lowercase();
    let rest = t[end..].trim_start_matches(['.', '!', ',', ':', ' ']);
    match word.as_str() {
        "yes" | "y" if rest.is_empty() => Some(Outcome::Approved),
        "no" | "n" if rest.is_empty() => Some(Outcome::Rejected),
        "edit" => Some(Outcome::Edited),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trigger_after_trailing_whitespace() {
        assert_eq!(
            bang("optimize the settings page!!!"),
            Some("optimize the settings page")
        );
        assert_eq!(bang("fix it !!!  \n\t"), Some("fix it"));
        assert_eq!(bang("multi\nline!!!\n"), Some("multi\nline"));
        for no in [
            "optimize the settings page",
            "wow!!",
            "!!!",
            "   !!!  ",
            "!!! at the start",
            "mid !!! dle",
            "",
        ] {
            assert_eq!(bang(no), None, "{no:?}");
        }
    }

    #[test]
    fn answers_are_short_and_exact() {
        assert_eq!(answer("yes"), Some(Outcome::Approved));
        assert_eq!(answer(" Y. "), Some(Outcome::Approved));
        assert_eq!(answer("No!"), Some(Outcome::Rejected));
        assert_eq!(answer("edit: say tests too"), Some(Outcome::Edited));
        for no in [
            "yes please also fix the tests",
            "nope",
            "yesterday",
            "n8n",
            "",
            "editing is hard",
        ] {
            assert_eq!(answer(no), None, "{no:?}");
        }
    }

    #[test]
    fn decide_reads_the_event() {
        let (a, e) = decide(
            br#"{"prompt":"optimize the settings page!!!","session_id":"s1","extra":{"x":1}}"#,
        )
        .unwrap();
        assert_eq!(a, PromptAction::Review("optimize the settings page".into()));
        assert_eq!(e.session_id.as_deref(), Some("s1"));
        assert_eq!(
            decide(br#"{"prompt":"read notes"}"#).unwrap().0,
            PromptAction::Pass
        );
        assert_eq!(decide(br#"{}"#).unwrap().0, PromptAction::Pass);
        assert!(decide(b"not json").is_none());
        assert!(decide(br#"{"prompt": 3}"#).is_none());
    }
}
