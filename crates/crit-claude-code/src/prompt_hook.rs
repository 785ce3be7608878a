//! What the `UserPromptSubmit` hook tells Claude (its `additionalContext`)
//! for a prompt ending in `!!!`, in each mode the prompt-review plugin has:
//!
//! - subscription mode: run the `/prompt-review` command on the stripped
//!   prompt (the review then runs on the user's Claude login);
//! - API mode: the review already ran inside the hook; here are its block,
//!   diff and refined prompt; ask the user before doing anything.
//!
//! When the review could not run, the prompt proceeds as written and Claude
//! is told so in one line (prompt review fails open, loudly).

use crit_prompt::render::{self, BlockStyle};
use crit_prompt::{PromptReview, Status};

/// The approval question, as the plugin asks it.
pub const QUESTION: &str = "Proceed with the refined prompt? (yes / no / edit)";

/// The context for subscription mode: run `command` on `stripped`.
pub fn subscription(stripped: &str, command: &str) -> String {
    format!(
        "crit prompt review: the user ended this prompt with `!!!`, asking for it to be reviewed before anything is done. \
Do not act on the prompt yet. First run the {command} command (through the Skill tool) with the prompt below as its argument, \
show the user the review and the diff it prints, and ask them \"{QUESTION}\". \
Then carry out the prompt they choose: yes, the refined one; no, the original one; edit, their version.\n\n\
The prompt to review (without the `!!!`):\n<prompt>\n{stripped}\n</prompt>"
    )
}

/// The context for subscription mode in an agent without crit's slash
/// command: run `crit prompt` in the shell, as `/prompt-review` does.
pub fn subscription_shell(stripped: &str) -> String {
    format!(
        "crit prompt review: the user ended this prompt with `!!!`, asking for it to be reviewed before anything is done. \
Do not act on the prompt yet. First run this shell command, which passes the prompt on stdin exactly as written:\n\n\
crit prompt --format markdown - <<'CRIT_PROMPT_END'\n{stripped}\nCRIT_PROMPT_END\n\n\
Show the user crit's report as it printed it (the reviewers, the changes, the diff and the refined prompt). \
If crit proposed changes, ask them \"{QUESTION}\" and wait; then carry out the prompt they choose: yes, the refined one; no, the original one; edit, their version. \
If crit proposed no changes or could not run, say so in one line and carry out the original prompt."
    )
}

/// The context for a review that ran in the hook (API mode).
pub fn reviewed(review: &PromptReview) -> String {
    let style = BlockStyle {
        width: 72,
        color: false,
    };
    let block = render::block(review, &style);
    match review.status {
        Status::Refined => format!(
            "crit reviewed this prompt before it runs (the user ended it with `!!!`). Do not act on it yet. \
Show the user the review, the diff and the refined prompt below as they are, then ask exactly: \"{QUESTION}\" and wait for the answer. \
yes: carry out the refined prompt. no: carry out the original prompt (without the `!!!`). edit: ask for their version and carry that out.\n\n\
<review>\n{}\n</review>\n\n<diff>\n{}\n</diff>\n\n<refined_prompt>\n{}\n</refined_prompt>",
            block.trim_end(),
            review.diff.trim_end(),
            review.refined.trim_end()
        ),
        Status::NoChanges if review.partly_reviewed().is_some() => format!(
            "crit reviewed this prompt (the user ended it with `!!!`), but not fully: {} \
Tell the user so in one line, then carry out the prompt as written, without the trailing `!!!`.\n\n<review>\n{}\n</review>",
            review.no_changes_sentence(),
            block.trim_end()
        ),
        Status::NoChanges => format!(
            "crit reviewed this prompt (the user ended it with `!!!`) and proposes no changes. \
Tell the user so in one line, then carry out the prompt as written, without the trailing `!!!`.\n\n<review>\n{}\n</review>",
            block.trim_end()
        ),
        Status::EditorFailed => format!(
            "crit reviewed this prompt (the user ended it with `!!!`) but could not merge the reviewers' edits. \
Show the user the critiques below, then carry out the prompt as written, without the trailing `!!!`.\n\n<review>\n{}\n</review>\n\n<critiques>\n{}\n</critiques>",
            block.trim_end(),
            render::critique_bullets(review).trim_end()
        ),
        Status::FailedOpen | Status::Disabled => failed(&why(review)),
    }
}

/// The context when the review could not run: the prompt proceeds.
pub fn failed(why: &str) -> String {
    format!(
        "crit's prompt review could not run ({why}). Tell the user so in one line, \
then carry out the prompt as written, without the trailing `!!!`."
    )
}

/// One line on why `review` did not refine anything, for people.
pub fn why(review: &PromptReview) -> String {
    review
        .warnings
        .iter()
        .rev()
        .find(|w| w.starts_with("prompt review could not run"))
        .map(|w| {
            w.trim_start_matches("prompt review could not run (")
                .trim_end_matches("; the original prompt proceeds")
                .trim_end_matches(')')
                .to_string()
        })
        .or_else(|| review.warnings.last().cloned())
        .unwrap_or_else(|| "no reason given".into())
}
