//! A reply in crit's thread that is not worded as a dispute, read by the
//! model (the dispute classifier): a dispute in other words is checked again
//! like any dispute, a question is answered, anything else gets no answer.
//! The reading only chooses what runs next; nothing is removed on it (the
//! re-check's proof alone dismisses a finding). When the model gives no
//! reading, the reply's wording decides, as without it.

use crit_core::Finding;
use crit_llm::Backend;
use crit_review::converse::{Conversation, ReplyKind};

use crate::exit::CliError;
use crate::runner;

/// What crit does with the reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Check the finding again with the reply as context.
    Recheck,
    /// Answer it in the thread.
    Answer,
    /// Say nothing; why, for the log.
    Nothing(&'static str),
}

/// What to do with `reply` (already redacted), not worded as a dispute, in
/// the thread of `finding`.
pub fn read(
    talk: &Conversation,
    backend: &Backend,
    finding: &Finding,
    reply: &str,
    stop: &runner::Stop,
) -> Result<Next, CliError> {
    let read = runner::block_on(stop, |_| talk.classify(backend, finding, reply))?;
    let kind = read.ok().and_then(|c| c.kind);
    Ok(match kind {
        Some(ReplyKind::Dispute) => Next::Recheck,
        Some(ReplyKind::Question) => Next::Answer,
        Some(ReplyKind::Acknowledgement) => Next::Nothing("an acknowledgement"),
        Some(ReplyKind::Other) => Next::Nothing("neither a question nor a dispute"),
        None if crit_post::asks(reply) => Next::Answer,
        None => Next::Nothing("neither a question nor a dispute"),
    })
}
