//! `editor.mode: model`: the editor model phrases the merged op list as one
//! prompt. It only rewords what the deterministic editor decided; when it
//! fails (or time runs out) the deterministic result stands.

use std::time::Duration;

use crit_agent::RunLimits;
use crit_llm::Backend;
use serde_json::{Value, json};

use super::render;
use super::result::PromptReview;
use super::run::PromptOptions;
use crit_review::panel::{self, PanelEnv, ReviewerPlan};
use crit_review::{OutputSpec, PromptError, contract_instructions, render_prompt};

const EDITOR: &str = include_str!("../prompts/editor.md");

/// Less time than this left: not worth asking.
const MIN_TIME: Duration = Duration::from_millis(500);

fn schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["refined_prompt"],
        "properties": {"refined_prompt": {"type": "string", "minLength": 1}}
    })
}

/// The editor model's plan for `review`'s applied changes.
pub fn plan(
    review: &PromptReview,
    model: &str,
    timeout: Duration,
    max_retries: u32,
) -> Result<ReviewerPlan, PromptError> {
    let edits: Vec<minijinja::Value> = review
        .changes
        .iter()
        .map(|a| {
            let who = review
                .reviewers
                .iter()
                .find(|r| r.name == a.proposal.reviewer)
                .map_or(a.proposal.reviewer.as_str(), |r| r.label.as_str());
            minijinja::context! { reviewer => who, summary => render::change_summary(a) }
        })
        .collect();
    let user = render_prompt(
        EDITOR,
        minijinja::context! { original => review.original.trim_end(), edits => edits },
    )?;
    let output = OutputSpec::Schema(schema());
    let system = format!(
        "You edit prompts for AI coding agents, applying reviewers' edits exactly.\n\n{}",
        contract_instructions(&output)?.trim_end()
    );
    Ok(ReviewerPlan {
        name: "editor".into(),
        model: model.to_string(),
        system,
        user,
        shared: None,
        tools: Vec::new(),
        output,
        limits: RunLimits {
            max_turns: Some(2 + max_retries),
            timeout: Some(timeout),
            ..RunLimits::default()
        },
        max_output_tokens: 8192,
        sub_agents: Vec::new(),
    })
}

/// Replaces `review.refined` with the editor model's phrasing, or leaves it
/// and says why.
pub(super) async fn rephrase(
    review: &mut PromptReview,
    backend: &Backend,
    opts: &PromptOptions,
    left: Duration,
    env: &PanelEnv,
) {
    let fallback = |review: &mut PromptReview, why: String| {
        review.warnings.push(format!(
            "the editor model did not phrase the prompt ({why}); the deterministic edit stands"
        ));
    };
    if left < MIN_TIME {
        return fallback(review, "no time left before the deadline".into());
    }
    // Its answer replaces the prompt, so it would have to see the credential
    // that reviewers are never shown.
    if crit_review::session::redact_text(&review.original) != review.original {
        return fallback(review, "the prompt holds a credential".into());
    }
    let plan = match plan(
        review,
        &opts.editor_model,
        left,
        opts.config.editor.max_retries,
    ) {
        Ok(p) => p,
        Err(e) => return fallback(review, e.to_string()),
    };
    let runs = panel::run_panel(backend, std::slice::from_ref(&plan), env).await;
    let Some(run) = runs.into_iter().next() else {
        return fallback(review, "no answer".into());
    };
    review.usage += run.outcome.usage;
    review.api_price_usd += run.outcome.cost_usd.unwrap_or(0.0);
    if opts.mode == crit_project::config::prompt_review::Mode::Api {
        review.cost_usd += run.outcome.cost_usd.unwrap_or(0.0);
    }
    let text = run
        .structured
        .as_ref()
        .and_then(|v| v.get("refined_prompt"))
        .and_then(Value::as_str)
        .map(str::trim_end)
        .filter(|t| !t.trim().is_empty());
    match text {
        Some(t) => {
            let mut t = t.to_string();
            if review.original.ends_with('\n') {
                t.push('\n');
            }
            review.refined = t;
        }
        None => fallback(
            review,
            run.outcome
                .error
                .or(run.parse_error)
                .unwrap_or_else(|| "its answer held no refined prompt".into()),
        ),
    }
}
