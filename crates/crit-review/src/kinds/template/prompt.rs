//! A template's prompts for one reviewer: its system prompt with the answer
//! contract's instructions, and its user prompt (a template, or the code
//! builder), rendered with crit's prompt environment.

use std::collections::BTreeMap;

use minijinja::Value;

use super::{Builder, PromptSource, ReviewerSpec, Template, TemplateError};
use crate::engine::prompts::{
    CODE_ABOUT, CODE_BUILDER, CODE_WORK, carries_own_format, contract_instructions, describe,
    environment, python_placeholders, tidy, with_contract,
};

/// Inputs after defaults: name → value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inputs(pub BTreeMap<String, String>);

/// What a reviewer is sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptParts {
    pub system: String,
    pub user: String,
    /// The work under review as data (the code builder's diff), sent before
    /// `user` and cached: it stays the same from one review of a change to
    /// the next where the diff does; empty for a prompt template.
    pub work: String,
    /// What the work is (the change's range and commits, the author's
    /// notes), sent after `work`, outside the cached prefix: a new commit
    /// changes it everywhere.
    pub about: String,
}

impl Template {
    /// The prompts for one reviewer of this template. `extra` adds context the
    /// caller computed (for the code builder: `scope`, the change under review).
    pub fn render(
        &self,
        reviewer: &ReviewerSpec,
        inputs: &Inputs,
        extra: &BTreeMap<String, Value>,
    ) -> Result<PromptParts, TemplateError> {
        let fail = |message: String| TemplateError::Render {
            template: self.name.clone(),
            message,
        };
        let env = environment();
        let mut ctx: BTreeMap<String, Value> = inputs
            .0
            .iter()
            .map(|(k, v)| (k.clone(), Value::from(v.as_str())))
            .collect();
        ctx.insert(
            "inputs".into(),
            Value::from(minijinja::value::Serde(&inputs.0)),
        );
        ctx.extend(extra.iter().map(|(k, v)| (k.clone(), v.clone())));
        let names: Vec<&str> = self.inputs.iter().map(|i| i.name.as_str()).collect();
        let system = env
            .render_str(&python_placeholders(&reviewer.system_prompt, &names), &ctx)
            .map_err(|e| fail(describe(&e)))?;
        let contract = match carries_own_format(&system, &reviewer.output) {
            true => String::new(),
            false => contract_instructions(&reviewer.output).map_err(|e| fail(e.to_string()))?,
        };
        let user_template = match (&reviewer.prompt, &self.prompt) {
            (Some(own), _) => python_placeholders(own, &names),
            (None, PromptSource::Template(t)) => python_placeholders(t, &names),
            (None, PromptSource::Builder(Builder::Code)) => CODE_BUILDER.to_string(),
            (None, PromptSource::Command(argv)) => {
                // The program's prompt is text, not a template.
                super::builder::run(argv, inputs).map_err(|e| fail(e.to_string()))?
            }
        };
        let user = match (&reviewer.prompt, &self.prompt) {
            (None, PromptSource::Command(_)) => user_template,
            _ => env
                .render_str(&user_template, &ctx)
                .map_err(|e| fail(describe(&e)))?,
        };
        let (work, about) = match &self.prompt {
            PromptSource::Builder(Builder::Code) => (
                env.render_str(CODE_WORK, &ctx)
                    .map_err(|e| fail(describe(&e)))?,
                env.render_str(CODE_ABOUT, &ctx)
                    .map_err(|e| fail(describe(&e)))?,
            ),
            PromptSource::Template(_) | PromptSource::Command(_) => (String::new(), String::new()),
        };
        Ok(PromptParts {
            system: with_contract(&system, &contract),
            user: tidy(&user),
            work: tidy(&work),
            about: tidy(&about),
        })
    }
}
