//! When a panel's later reviewers start. The first reviewer's first request
//! writes the prefix the panel shares (tools, system prompt, conventions, the
//! work) to the prompt cache; a later reviewer gains by waiting for that
//! write only when its own request can read it: the same prefix byte for
//! byte, on the same model and provider (one backend per panel), and the
//! prefix at or above that model's cacheable minimum. Otherwise waiting
//! costs one model turn and saves nothing.

use crit_agent::StructuredOutput;
use crit_llm::Backend;
use crit_project::PanelStart;

use super::one::{answer_schema, first_message, system_blocks, tools_of};
use super::{PanelEnv, ReviewerPlan};

/// Whether `plan` waits for `lead`'s first answer before it starts.
pub(super) fn waits_for(
    backend: &Backend,
    lead: &ReviewerPlan,
    plan: &ReviewerPlan,
    env: &PanelEnv,
) -> bool {
    // An agent backend (Claude Code) builds its own requests; only crit's
    // loop sends the prefix byte for byte.
    if backend.agent.is_some() || plan.shared.is_none() || lead.shared.is_none() {
        return false;
    }
    match env.panel_start {
        PanelStart::Together => false,
        PanelStart::WarmFirst => true,
        PanelStart::Auto => reads_cache_of(lead, plan, env),
    }
}

/// Whether the later parts of a split change wait for the first part's
/// first answer. Parts share the tools, system prompt and conventions (each
/// has its own piece of the diff), so waiting pays only when that much is
/// at or above the model's cacheable minimum.
pub(crate) fn parts_wait(backend: &Backend, first: &ReviewerPlan, env: &PanelEnv) -> bool {
    if backend.agent.is_some() {
        return false;
    }
    match env.panel_start {
        PanelStart::Together => false,
        PanelStart::WarmFirst => true,
        PanelStart::Auto => {
            let model = crit_llm::pricing::resolve_alias(&first.model);
            let work = first_message(first).0.len() as u64;
            prefix_tokens(first, env).saturating_sub(work.div_ceil(4))
                >= crit_llm::pricing::cache_min_tokens(&model)
        }
    }
}

/// `plan`'s request starts with the prefix `lead`'s first request caches,
/// and that prefix is long enough to be cached on their model.
pub(super) fn reads_cache_of(lead: &ReviewerPlan, plan: &ReviewerPlan, env: &PanelEnv) -> bool {
    let model = crit_llm::pricing::resolve_alias(&lead.model);
    model == crit_llm::pricing::resolve_alias(&plan.model)
        && plan.shared == lead.shared
        && plan.tools == lead.tools
        && answer_schema(&plan.output) == answer_schema(&lead.output)
        && prefix_tokens(lead, env) >= crit_llm::pricing::cache_min_tokens(&model)
}

/// The estimated tokens of what a panel shares, as the prompt-cache
/// breakpoints count them (a token per four bytes): the tools' definitions,
/// the system prompt and conventions, and the shared work.
pub(super) fn prefix_tokens(plan: &ReviewerPlan, env: &PanelEnv) -> u64 {
    let tool_bytes: usize = tools_of(plan, env)
        .map(|tools| {
            tools
                .tools()
                .map(|t| {
                    t.name().len() + t.description().len() + t.input_schema().to_string().len()
                })
                .sum()
        })
        .unwrap_or(0);
    let answer_bytes = answer_schema(&plan.output)
        .map(StructuredOutput::deferred)
        .map_or(0, |o| {
            let t = o.tool_spec();
            t.name.len() + t.description.len() + t.input_schema.to_string().len()
        });
    let system_bytes: usize = system_blocks(plan, env).iter().map(|b| b.text.len()).sum();
    let work_bytes = first_message(plan).0.len();
    ((tool_bytes + answer_bytes + system_bytes + work_bytes) as u64).div_ceil(4)
}
