//! The benchmark's requests as it sends them: a system and a user message,
//! `temperature: 0`, the answer read from the text (no schema, no tools),
//! asked again up to three times in all when the text is not what it wants.

use crit_core::Usage;
use crit_llm::{Backend, Message, ModelRequest, SystemBlock};
use tokio_util::sync::CancellationToken;

use super::{EXTRACT_SYSTEM, PairAnswer, extract_user, parse_extracted, parse_judge_answer};

/// The benchmark's attempts per request.
const ATTEMPTS: usize = 3;
/// Enough for a short JSON answer or a list of issues.
const MAX_TOKENS: u32 = 4_096;

/// What asking cost, across the attempts.
#[derive(Debug, Clone, Copy, Default)]
pub struct Spent {
    pub usage: Usage,
    /// `None` when the model has no known price.
    pub cost_usd: Option<f64>,
}

/// Why asking gave no answer, after the attempts.
#[derive(Debug, Clone, thiserror::Error)]
pub enum AskError {
    #[error("stopped")]
    Stopped,
    #[error("no answer")]
    NoAnswer,
    #[error("the answer is not the JSON object asked for")]
    NotTheAnswer,
    #[error("{0}")]
    Model(#[from] crit_llm::LlmError),
}

/// The request for one message pair.
pub fn request(model: &str, system: &str, user: String) -> ModelRequest {
    let mut r = ModelRequest::new(model, MAX_TOKENS);
    r.system = vec![SystemBlock {
        text: system.to_string(),
        cache: false,
    }];
    r.messages = vec![Message::user_text(user)];
    r.temperature = Some(0.0);
    r
}

/// Asks until `read` takes the answer's text, at most three times; the last
/// failure otherwise.
async fn ask<T>(
    backend: &Backend,
    req: &ModelRequest,
    cancel: &CancellationToken,
    read: impl Fn(&str) -> Option<T>,
) -> (Result<T, AskError>, Spent) {
    let mut spent = Spent {
        usage: Usage::default(),
        cost_usd: Some(0.0),
    };
    let mut why = AskError::NoAnswer;
    for _ in 0..ATTEMPTS {
        if cancel.is_cancelled() {
            return (Err(AskError::Stopped), spent);
        }
        match backend.model.complete(req, cancel.clone()).await {
            Ok(resp) => {
                spent.usage += resp.usage;
                let cost = resp.cost.priced.then_some(resp.cost.usd);
                spent.cost_usd = crit_core::usage::add_cost(spent.cost_usd, cost);
                let text = resp.text();
                if let Some(v) = read(&text) {
                    return (Ok(v), spent);
                }
                why = AskError::NotTheAnswer;
            }
            Err(e) => why = AskError::Model(e),
        }
    }
    (Err(why), spent)
}

/// The benchmark's judge on one pair: its answer and reasoning; a pair that
/// still fails after the retries is `Failed` (no match), with why.
pub async fn judge_pair(
    backend: &Backend,
    model: &str,
    system: &str,
    user: String,
    cancel: &CancellationToken,
) -> (Result<(PairAnswer, Option<String>), AskError>, Spent) {
    let req = request(model, system, user);
    ask(backend, &req, cancel, parse_judge_answer).await
}

/// The benchmark's extraction step over all of a tool's comments on one
/// pull request (joined as it joins them).
pub async fn extract(
    backend: &Backend,
    model: &str,
    comments: &[String],
    cancel: &CancellationToken,
) -> (Result<Vec<String>, AskError>, Spent) {
    let text = comments
        .iter()
        .filter(|c| !c.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join("\n\n---\n\n");
    let req = request(model, EXTRACT_SYSTEM, extract_user(&text));
    ask(backend, &req, cancel, parse_extracted).await
}

impl crate::judge::Judge {
    /// One pair through the benchmark's judge, its answer cached like crit's.
    pub(crate) async fn ask_martian(
        &self,
        backend: &Backend,
        env: &crit_review::panel::PanelEnv,
        key: &str,
        user: String,
    ) -> crate::judge::Asked {
        use crate::judge::{Asked, Judgement, Undecided};
        let (answer, spent) = judge_pair(
            backend,
            &self.model,
            &self.system,
            user.clone(),
            &env.cancel,
        )
        .await;
        let judgement = match answer {
            Ok((
                PairAnswer::Answer {
                    matched,
                    confidence,
                },
                reasoning,
            )) => Ok(Judgement {
                reasoning: reasoning.unwrap_or_default(),
                matched,
                confidence,
            }),
            Ok((PairAnswer::Failed, _)) => {
                Err(Undecided::Retried("its answer was an error".into()))
            }
            Err(why) => Err(Undecided::Retried(why.to_string())),
        };
        if let (Ok(j), Some(c)) = (&judgement, &self.cache) {
            c.store(key, &user, j);
        }
        Asked {
            judgement,
            cached: false,
            usage: spent.usage,
            cost_usd: spent.cost_usd,
        }
    }
}
