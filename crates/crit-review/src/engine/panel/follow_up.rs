//! Follow-up questions about a finished review (the review templates' interactive
//! mode): the reviewer keeps its instructions, tools and the review it gave,
//! and answers in prose. Each question carries the conversation so far, so
//! the backend needs no server-side session; the shared prefix stays cached.

use crit_core::Usage;
use crit_llm::Backend;

use super::{PanelEnv, ReviewerPlan};

/// A conversation with one reviewer about its review.
#[derive(Debug)]
pub struct FollowUp {
    backend: Backend,
    plan: ReviewerPlan,
    env: PanelEnv,
    review: String,
    exchanges: Vec<(String, String)>,
    pub usage: Usage,
    pub cost_usd: f64,
}

impl FollowUp {
    /// `review` is the reviewer's answer as it gave it.
    pub fn new(backend: Backend, plan: ReviewerPlan, env: PanelEnv, review: String) -> Self {
        FollowUp {
            backend,
            plan,
            env,
            review,
            exchanges: Vec::new(),
            usage: Usage::default(),
            cost_usd: 0.0,
        }
    }

    /// The reviewer's name.
    pub fn reviewer(&self) -> &str {
        &self.plan.name
    }

    /// Asks one question; the answer joins the conversation.
    pub async fn ask(&mut self, question: &str) -> Result<String, FollowUpError> {
        let prompt = self.prompt(question);
        let (answer, usage, cost) =
            super::one::converse(&self.backend, &self.plan, &self.env, prompt).await?;
        self.usage += usage;
        self.cost_usd += cost;
        self.exchanges.push((question.to_string(), answer.clone()));
        Ok(answer)
    }

    fn prompt(&self, question: &str) -> String {
        let mut p = format!(
            "{}\n\n<your_review>\n{}\n</your_review>\n\n\
             Your review above is finished. The author now asks follow-up questions about it. \
             Answer in plain prose (markdown is fine): no JSON, and the answer format in your \
             instructions does not apply. Check the code again with your tools when the question needs it; \
             say so when you are not sure.\n",
            self.plan.user.trim_end(),
            self.review.trim()
        );
        for (q, a) in &self.exchanges {
            p.push_str(&format!(
                "\n<question>\n{q}\n</question>\n<answer>\n{a}\n</answer>\n"
            ));
        }
        p.push_str(&format!("\n<question>\n{question}\n</question>\n"));
        p
    }
}

/// Why a follow-up question got no answer.
#[derive(Debug, thiserror::Error)]
pub enum FollowUpError {
    /// A limit (time, turns, budget) ended it; the limit's words.
    #[error("the answer was cut short: {0}")]
    CutShort(String),
    #[error("cancelled")]
    Cancelled,
    /// The model refused; what it said, shortened.
    #[error("{0}")]
    Refused(String),
    /// The run failed; the backend's own error when it was the backend.
    #[error("{message}")]
    Failed {
        message: String,
        error: Option<crit_llm::LlmError>,
    },
}
