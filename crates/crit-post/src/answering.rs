//! crit's answers in a pull or merge request's conversation, whichever forge
//! it is on: the comments and notes waiting for an answer, what each asks
//! ([`Heard`], by the rules of [`crate::respond`]), crit's answer in the
//! right place, and the thread resolved when a re-check dismissed its
//! finding. The caller decides what to answer; where it goes, and how, is
//! the forge's, and lives beside its poster (`respond_github.rs`,
//! `respond_gitlab.rs`).

use std::collections::HashMap;

use crate::error::{ForgeKind, PostError};
use crate::github::GithubPoster;
use crate::gitlab::GitlabPoster;
use crate::respond::{Heard, Said};
use crate::respond_catchup::Remembered;
use crate::respond_github::Reacted;

/// Answers on the pull or merge request a [`crate::Destination`] names
/// (`Destination::responder`).
#[derive(Debug)]
pub enum Responder {
    Github(GithubPoster),
    Gitlab(GitlabPoster),
}

/// A comment or note crit is to answer, what it asks, and where the answer
/// goes.
#[derive(Debug, Clone)]
pub struct Waiting {
    pub said: Said,
    pub heard: Heard,
    pub(crate) place: Place,
}

/// Where an answer goes, in the forge's terms.
#[derive(Debug, Clone)]
pub(crate) enum Place {
    /// GitHub: the comment's review thread, or the conversation (the said
    /// comment knows which).
    Github,
    /// GitLab: a discussion, threaded (replies go in it) or a lone note.
    Gitlab { discussion: String, threaded: bool },
}

/// What waits on the pull or merge request: the comments to answer, and
/// the findings crit dismissed on a dispute in their threads.
#[derive(Debug, Clone, Default)]
pub struct Pending {
    pub waiting: Vec<Waiting>,
    pub dismissed: Vec<Remembered>,
}

/// What the rules leave to answer: the caller's choice for commands from
/// people without write access, and the limit per thread.
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    /// Most answers in one thread in an hour.
    pub limit: usize,
    /// Commands from people without write access get a short answer.
    pub answer_others: bool,
}

impl Responder {
    pub fn forge(&self) -> ForgeKind {
        match self {
            Responder::Github(_) => ForgeKind::Github,
            Responder::Gitlab(_) => ForgeKind::Gitlab,
        }
    }

    /// What one comment a job was started for asks (GitHub's comment events;
    /// GitLab starts no job on a note, so its notes are answered by
    /// [`Responder::waiting`] on the next pipeline).
    pub async fn hear(&mut self, said: Said, limit: usize) -> Result<Waiting, PostError> {
        match self {
            Responder::Github(p) => Ok(Waiting {
                heard: p.hear(&said, limit).await?,
                said,
                place: Place::Github,
            }),
            Responder::Gitlab(_) => Err(PostError::Unsupported {
                forge: ForgeKind::Gitlab,
                what: "answering one note on its own event: GitLab starts no pipeline on a comment, so crit answers notes on the next `--post` review",
            }),
        }
    }

    /// Every comment crit has yet to answer that asks something of it,
    /// oldest first, each heard as if the answers before it were given
    /// (they count against their thread's limit); and the findings crit
    /// dismissed on a dispute there.
    pub async fn waiting(&mut self, rules: Rules) -> Result<Pending, PostError> {
        match self {
            Responder::Gitlab(p) => p.waiting(rules).await,
            Responder::Github(p) => {
                let (said, dismissed) = p.unanswered().await?;
                // This run's answers so far, per thread (`None`: the
                // conversation), as `hear` will count them once given.
                let mut given: HashMap<Option<u64>, usize> = HashMap::new();
                let mut waiting = Vec::new();
                for said in said {
                    let thread = said.on_a_line.then(|| said.in_reply_to.unwrap_or(said.id));
                    let left = rules
                        .limit
                        .saturating_sub(given.get(&thread).copied().unwrap_or(0));
                    let heard = p.hear(&said, left).await?;
                    match &heard {
                        Heard::Nothing(_) => continue,
                        Heard::NotAllowed(_) if !rules.answer_others => continue,
                        _ => {}
                    }
                    *given.entry(thread).or_default() += 1;
                    waiting.push(Waiting {
                        said,
                        heard,
                        place: Place::Github,
                    });
                }
                Ok(Pending { waiting, dismissed })
            }
        }
    }

    /// Posts `text` (markdown crit wrote; model text in it already made
    /// inert) as crit's one answer to `w`.
    pub async fn answer(&mut self, w: &Waiting, text: &str) -> Result<(), PostError> {
        match (self, &w.place) {
            (Responder::Github(p), Place::Github) => p.answer(&w.said, text).await,
            (
                Responder::Gitlab(p),
                Place::Gitlab {
                    discussion,
                    threaded,
                },
            ) => p.answer_note(&w.said, discussion, *threaded, text).await,
            (me, _) => Err(elsewhere(me.forge())),
        }
    }

    /// Resolves `w`'s thread (a reply in a finding's thread); true when the
    /// forge did. A token that may not resolve is logged, not an error: the
    /// answer already says what was decided.
    pub async fn resolve(&mut self, w: &Waiting) -> Result<bool, PostError> {
        match (self, &w.place) {
            (Responder::Github(p), Place::Github) => match &w.heard {
                Heard::Reply { root, .. } => p.resolve_thread(*root).await,
                _ => Ok(false),
            },
            (Responder::Gitlab(p), Place::Gitlab { discussion, .. }) => {
                Ok(p.resolve_discussion(discussion).await)
            }
            (me, _) => Err(elsewhere(me.forge())),
        }
    }

    /// 👍/👎 by people on crit's finding comments, and threads they
    /// resolved with the flagged lines unchanged. GitLab's award emoji are
    /// not read yet: none.
    pub async fn reactions(&mut self) -> Result<Vec<Reacted>, PostError> {
        match self {
            Responder::Github(p) => p.reactions().await,
            Responder::Gitlab(_) => Ok(Vec::new()),
        }
    }
}

/// A waiting comment handed to another forge's responder: a caller's bug,
/// refused rather than posted to the wrong place.
fn elsewhere(forge: ForgeKind) -> PostError {
    PostError::Unsupported {
        forge,
        what: "answering a comment read on another forge",
    }
}
