//! The run's final answer: the structured-output calls of a turn, and a turn
//! that ends without one. Nothing here ever takes one answer out of several:
//! two final answers in one turn, or a malformed one, never pass as a verdict.

use serde_json::Value;

use super::execute::Call;
use super::{RejectedAnswer, RunStatus};
use crate::structured::{StructuredOutput, TOOL_NAME};

/// A tool result owed to the model: (call id, content, is_error).
pub(super) type Owed = (String, String, bool);

/// What happened to the answers of the runs so far.
#[derive(Debug, Default)]
pub(super) struct Answers {
    invalid: u32,
    nudged: bool,
    /// The last structured answer refused: its JSON, or why its input was
    /// not JSON. Read with the caller's contract, it names exactly what was
    /// wrong (`invalid verdict: MAYBE`).
    rejected: Option<RejectedAnswer>,
}

/// What a turn that ended without tool calls leads to.
pub(super) enum NoTools {
    /// The run ends so.
    End(RunStatus),
    /// One reminder to the model (its text), then another turn.
    Remind(String),
}

/// The verdict on one turn's structured-output calls.
pub(super) enum Checked {
    /// None of them was valid; their errors go back to the model.
    Retry,
    /// One valid answer.
    Accepted { value: Value, call_id: String },
    /// The run ends without an answer.
    End(RunStatus),
}

impl Answers {
    /// Validates the structured-output calls of one turn (there is at least one).
    pub(super) fn check(
        &mut self,
        out: &StructuredOutput,
        calls: &[&Call],
        results: &mut Vec<Owed>,
    ) -> Checked {
        if calls.len() > 1 {
            return Checked::End(RunStatus::AmbiguousOutput(format!(
                "the model gave {} final answers in one turn",
                calls.len()
            )));
        }
        let Some(call) = calls.first() else {
            return Checked::Retry;
        };
        // What the model is told is wrong, if anything.
        let problems = match &call.input_error {
            Some(e) => Some(format!(
                "Your answer was not valid JSON ({e}). Call {TOOL_NAME} again with the complete answer as a JSON object."
            )),
            None => out.validate(&call.input).err().map(|e| e.to_string()),
        };
        match problems {
            None => Checked::Accepted {
                value: call.input.clone(),
                call_id: call.id.clone(),
            },
            Some(errors) => {
                self.invalid += 1;
                self.rejected = Some(match &call.input_error {
                    Some(e) => RejectedAnswer::NotJson(e.clone()),
                    None => RejectedAnswer::Json(call.input.clone()),
                });
                if self.invalid > out.max_retries {
                    return Checked::End(RunStatus::NoValidOutput(errors));
                }
                results.push((call.id.clone(), errors, true));
                Checked::Retry
            }
        }
    }

    /// The last structured answer that was refused, if any.
    pub(super) fn take_rejected(&mut self) -> Option<RejectedAnswer> {
        self.rejected.take()
    }

    /// The model ended its turn without calling a tool. Done, unless a
    /// structured answer is required: then one reminder, then give up.
    pub(super) fn without_tools(&mut self, wants_output: bool) -> NoTools {
        if !wants_output {
            return NoTools::End(RunStatus::Completed);
        }
        if self.nudged {
            return NoTools::End(RunStatus::NoValidOutput(format!(
                "the model answered without calling the {TOOL_NAME} tool"
            )));
        }
        self.nudged = true;
        NoTools::Remind(format!(
            "You must call the {TOOL_NAME} tool with your final answer. Call it now."
        ))
    }
}
