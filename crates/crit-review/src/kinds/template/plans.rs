//! From a template to the plans a panel runs: which reviewers apply (trigger
//! rules), their prompts, models, tools and limits.

use std::collections::BTreeMap;
use std::time::Duration;

use crit_agent::RunLimits;
use crit_core::{ReviewerOutcome, ReviewerStatus, Verdict};
use globset::{Glob, GlobSetBuilder};
use minijinja::Value;

use super::ReviewOptions;
use crate::engine::panel::{ReviewerPlan, ReviewerRun, SharedPrompt};
use crate::engine::prompts::PREAMBLE;
use crate::kinds::template::{Inputs, Limits, ReviewerSpec, Template, TemplateError, Trigger};

/// Largest answer one model call may write; findings with bodies fit well.
const MAX_OUTPUT_TOKENS: u32 = 16_384;

/// The reviewers that run, and those whose triggers did not match (reported
/// as skipped, never silently dropped).
pub(super) struct Plans {
    pub run: Vec<ReviewerPlan>,
    pub skipped: Vec<ReviewerRun>,
}

pub(super) fn plans(
    template: &Template,
    inputs: &Inputs,
    extra: &BTreeMap<String, Value>,
    under_review: &[String],
    opts: &ReviewOptions,
) -> Result<Plans, TemplateError> {
    let mut out = Plans {
        run: Vec::new(),
        skipped: Vec::new(),
    };
    let mut rendered = Vec::new();
    for reviewer in template.panel() {
        if let Some(trigger) = &reviewer.trigger
            && let Some(why) = not_triggered(trigger, inputs, under_review)
        {
            out.skipped.push(skipped(&reviewer.name, why));
            continue;
        }
        let parts = template.render(&reviewer, inputs, extra)?;
        rendered.push((reviewer, parts));
    }
    // What the panel shares goes first, so its members (and the other parts
    // of a split change) read it from the cache one of them wrote: crit's
    // preamble, the system prompt when every member has the same one, then
    // (after the conventions) the work. Each member's own text comes last.
    let same_system = rendered.windows(2).all(|w| w[0].1.system == w[1].1.system);
    for (reviewer, parts) in rendered {
        let (shared_system, own_system) = match same_system {
            true => (
                format!("{}\n\n{}", PREAMBLE.trim_end(), parts.system),
                String::new(),
            ),
            false => (PREAMBLE.trim_end().to_string(), parts.system),
        };
        out.run.push(ReviewerPlan {
            model: model_for(template, &reviewer, opts),
            name: reviewer.name.clone(),
            system: own_system,
            // What the work is, then the request: after the cached work.
            user: [parts.about.trim(), parts.user.trim()]
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join("\n\n"),
            shared: Some(SharedPrompt {
                system: shared_system,
                work: parts.work,
            }),
            tools: reviewer.allowed_tools.clone(),
            output: reviewer.output.clone(),
            limits: limits(&template.limits, &opts.limits),
            max_output_tokens: MAX_OUTPUT_TOKENS,
            sub_agents: Vec::new(),
        });
    }
    Ok(out)
}

/// A `--model` given for this run wins; then the reviewer's own model, the
/// template's, and the configured default.
fn model_for(template: &Template, reviewer: &ReviewerSpec, opts: &ReviewOptions) -> String {
    opts.model_override
        .clone()
        .or_else(|| reviewer.model.clone())
        .or_else(|| template.model.clone())
        .unwrap_or_else(|| opts.default_model.clone())
}

/// Limits given for this run (flags, config) over the template's own.
pub(super) fn limits(template: &Limits, given: &Limits) -> RunLimits {
    RunLimits {
        max_turns: given.max_turns.or(template.max_turns),
        // Unbounded is never the default: a stuck review must end (mala's reviewer R5).
        timeout: Some(
            given
                .timeout_secs
                .or(template.timeout_secs)
                .map_or(crate::engine::panel::DEFAULT_TIMEOUT, Duration::from_secs),
        ),
        max_tokens: given.max_tokens.or(template.max_tokens),
        max_budget_usd: given.max_budget_usd.or(template.max_budget_usd),
    }
}

/// `None` when the trigger matches; else why it does not.
fn not_triggered(trigger: &Trigger, inputs: &Inputs, files: &[String]) -> Option<String> {
    if let Some(missing) = trigger.inputs.iter().find(|i| !inputs.0.contains_key(*i)) {
        return Some(format!("input `{missing}` was not given"));
    }
    if trigger.paths.is_empty() {
        return None;
    }
    let mut set = GlobSetBuilder::new();
    for p in &trigger.paths {
        // Globs were validated when the template loaded.
        if let Ok(g) = Glob::new(p) {
            set.add(g);
        }
    }
    let set = set.build().ok()?;
    if files.iter().any(|f| set.is_match(f)) {
        None
    } else {
        Some(format!(
            "no file under review matches {}",
            trigger.paths.join(", ")
        ))
    }
}

fn skipped(name: &str, why: String) -> ReviewerRun {
    ReviewerRun {
        outcome: ReviewerOutcome {
            name: name.to_string(),
            status: ReviewerStatus::Skipped,
            verdict: Verdict::Pass,
            model: None,
            findings: 0,
            usage: Default::default(),
            cost_usd: Some(0.0),
            duration_ms: 0,
            error: Some(why),
        },
        findings: Vec::new(),
        summary: String::new(),
        raw: String::new(),
        structured: None,
        parse_error: None,
        timed_out: false,
        failure: None,
        sub_agents: Vec::new(),
        derived: false,
        notes: Vec::new(),
    }
}
