//! The refined prompt held against every Security critique by meaning. The
//! editor finds contradictions that name one subject ("the API key" against
//! "never print API keys"); another reviewer's edit can break a guardrail in
//! other words ("log the full request headers" against "never expose API
//! keys in logs"). A model (the editor's) reads the guardrails, the other
//! reviewers' applied edits and the refined prompt and names the edits that
//! break one; the editor runs again without them, each a conflict Security
//! won, as the editor's own rules say. When the check cannot run, the edit
//! stands and a warning says so.

use std::time::Duration;

use crit_agent::RunLimits;
use crit_llm::Backend;
use serde_json::{Value, json};

use super::critique::{Critique, Op};
use super::editor::{self, Conflict, Edit, EditorInput, Proposal, SECURITY};
use super::render;
use super::result::PromptReview;
use super::run::PromptOptions;
use crit_review::panel::{self, PanelEnv, ReviewerPlan};
use crit_review::{OutputSpec, PromptError, contract_instructions, render_prompt};

const CHECK: &str = include_str!("../prompts/guardrails.md");

/// Less time than this left: not worth asking.
const MIN_TIME: Duration = Duration::from_millis(500);

fn schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["contradictions"],
        "properties": {"contradictions": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": false,
                "required": ["edit", "guardrail", "why"],
                "properties": {
                    "edit": {"type": "integer", "minimum": 1},
                    "guardrail": {"type": "integer", "minimum": 1},
                    "why": {"type": "string"}
                }
            }
        }}
    })
}

/// Every Security op, as the proposal the editor would make of it.
fn guardrails(critiques: &[Critique]) -> Vec<Proposal> {
    critiques
        .iter()
        .filter(|c| c.reviewer_role == SECURITY && !c.no_issues)
        .flat_map(|c| {
            c.findings.iter().flat_map(move |f| {
                f.suggested_ops.iter().map(move |op: &Op| Proposal {
                    reviewer: c.reviewer_role.clone(),
                    finding: f.id.clone(),
                    severity: f.severity,
                    confidence: f.confidence,
                    issue: f.issue.clone(),
                    evidence: f.evidence.trim().to_string(),
                    op: op.op,
                    target: op.target,
                    value: op.value.trim().to_string(),
                    original: op.original.clone(),
                })
            })
        })
        .collect()
}

/// `edit` with the applied edits that break a Security guardrail (in any
/// words) left out, or as it was (a warning says why when the check could
/// not run).
pub(super) async fn settle(
    review: &mut PromptReview,
    edit: Edit,
    input: &EditorInput<'_>,
    backend: &Backend,
    opts: &PromptOptions,
    left: Duration,
    env: &PanelEnv,
) -> Edit {
    let guards = guardrails(input.critiques);
    let others: Vec<usize> = (0..edit.applied.len())
        .filter(|i| edit.applied[*i].proposal.reviewer != SECURITY)
        .collect();
    if guards.is_empty() || others.is_empty() {
        return edit;
    }
    let warn = |review: &mut PromptReview, why: String| {
        review.warnings.push(format!(
            "the refined prompt was not checked against the security guardrails ({why}); an edit that contradicts one in other words may remain"
        ));
    };
    if left < MIN_TIME {
        warn(review, "no time left before the deadline".into());
        return edit;
    }
    let plan = match plan(review, &edit, &others, &guards, opts, left) {
        Ok(p) => p,
        Err(e) => {
            warn(review, e.to_string());
            return edit;
        }
    };
    let runs = panel::run_panel(backend, std::slice::from_ref(&plan), env).await;
    let Some(run) = runs.into_iter().next() else {
        warn(review, "no answer".into());
        return edit;
    };
    review.usage += run.outcome.usage;
    review.api_price_usd += run.outcome.cost_usd.unwrap_or(0.0);
    if opts.mode == crit_project::config::prompt_review::Mode::Api {
        review.cost_usd += run.outcome.cost_usd.unwrap_or(0.0);
    }
    let Some(found) = run
        .structured
        .as_ref()
        .and_then(|v| v.get("contradictions"))
        .and_then(Value::as_array)
    else {
        warn(
            review,
            run.outcome
                .error
                .or(run.parse_error)
                .unwrap_or_else(|| "its answer held no list".into()),
        );
        return edit;
    };
    let overridden = overridden(found, &edit, &others, &guards);
    if overridden.is_empty() {
        return edit;
    }
    match editor::edit_overriding(input, overridden) {
        Ok(e) => e,
        Err(e) => {
            warn(review, e.to_string());
            edit
        }
    }
}

/// The applied edits (`others`, indexes into `edit.applied`) the check found
/// contradicting a guardrail, each as a conflict the guardrail wins; once each.
fn overridden(
    found: &[Value],
    edit: &Edit,
    others: &[usize],
    guards: &[Proposal],
) -> Vec<Conflict> {
    let mut overridden: Vec<Conflict> = Vec::new();
    for c in found {
        let index = |k: &str| {
            c.get(k)
                .and_then(Value::as_u64)
                .and_then(|n| usize::try_from(n).ok())
                .and_then(|n| n.checked_sub(1))
        };
        let (Some(e), Some(g)) = (index("edit"), index("guardrail")) else {
            continue;
        };
        let (Some(&applied), Some(winner)) = (others.get(e), guards.get(g)) else {
            continue;
        };
        let loser = edit.applied[applied].proposal.clone();
        if overridden.iter().any(|o| o.loser == loser) {
            continue;
        }
        let why = c.get("why").and_then(Value::as_str).unwrap_or("").trim();
        overridden.push(Conflict {
            winner: winner.clone(),
            loser,
            why: format!(
                "it contradicts a security guardrail in other words, and Security wins: {}",
                why.split_whitespace().collect::<Vec<_>>().join(" ")
            ),
        });
    }
    overridden
}

fn plan(
    review: &PromptReview,
    edit: &Edit,
    others: &[usize],
    guards: &[Proposal],
    opts: &PromptOptions,
    timeout: Duration,
) -> Result<ReviewerPlan, PromptError> {
    let edits: Vec<minijinja::Value> = others
        .iter()
        .map(|i| {
            let a = &edit.applied[*i];
            minijinja::context! {
                reviewer => render::label_of(review, &a.proposal.reviewer),
                summary => render::change_summary(a),
            }
        })
        .collect();
    let guardrails: Vec<String> = guards
        .iter()
        .map(|p| format!("{} ({})", p.value, p.issue))
        .collect();
    let user = render_prompt(
        CHECK,
        minijinja::context! {
            guardrails => guardrails,
            edits => edits,
            refined => edit.refined.trim_end(),
        },
    )?;
    // It judges, it does not write the prompt: secrets need not reach it.
    let user = crit_review::session::redact_text(&user);
    let output = OutputSpec::Schema(schema());
    let system = format!(
        "You check prompts for AI coding agents against their security guardrails.\n\n{}",
        contract_instructions(&output)?.trim_end()
    );
    Ok(ReviewerPlan {
        name: "guardrails".into(),
        model: opts.editor_model.clone(),
        system,
        user,
        shared: None,
        tools: Vec::new(),
        output,
        limits: RunLimits {
            max_turns: Some(2 + opts.config.editor.max_retries),
            timeout: Some(timeout),
            ..RunLimits::default()
        },
        max_output_tokens: 2048,
        sub_agents: Vec::new(),
    })
}
