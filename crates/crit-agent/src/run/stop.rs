//! Stop and SubagentStop hooks: when the model would end, hooks may send it back
//! with feedback (`Stop hook feedback: R`), a bounded number of times.

use super::execute::Exec;
use crate::hooks::{EventData, HookEvent, MAX_STOP_BLOCKS};

pub(super) enum StopVerdict {
    /// End as planned.
    Proceed,
    /// Send the model this text and go on.
    Reprompt(String),
    /// A hook ended the run (`continue: false`).
    End(String),
}

/// Runs the stop hooks; `blocks_so_far` re-prompts already happened in this run.
pub(super) async fn on_stop(
    ex: &Exec<'_, '_>,
    blocks_so_far: u32,
    last_message: String,
) -> StopVerdict {
    let event = if ex.who.agent_id.is_some() {
        HookEvent::SubagentStop
    } else {
        HookEvent::Stop
    };
    let answers = ex
        .fire(
            event,
            EventData {
                stop_hook_active: Some(blocks_so_far > 0),
                last_assistant_message: Some(last_message),
                ..EventData::default()
            },
        )
        .await;
    let mut parts = Vec::new();
    for a in answers {
        if let Some(why) = a.response.stop_run {
            return StopVerdict::End(why);
        }
        if let Some(why) = a.response.block {
            parts.push(format!("Stop hook feedback: {why}"));
        }
        if let Some(c) = a.response.additional_context {
            parts.push(format!(
                "<system-reminder>{event} hook additional context: {c}</system-reminder>"
            ));
        }
    }
    if parts.is_empty() {
        return StopVerdict::Proceed;
    }
    if blocks_so_far >= MAX_STOP_BLOCKS {
        tracing::warn!(
            "{event} hooks asked to continue {} times; ending the run anyway",
            blocks_so_far + 1
        );
        return StopVerdict::Proceed;
    }
    StopVerdict::Reprompt(parts.join("\n\n"))
}
