//! Review templates: a reviewer (or a panel) defined in YAML.
//!
//! A template written for the review templates' original tool loads and runs
//! unchanged; crit adds `model`, `output`, `reviewers` (a panel) and
//! `limits`. Templates come from three places, later ones overriding earlier:
//! built into the binary, the user's (`$XDG_CONFIG_HOME/crit/templates`, a
//! `templates_dir`), the project's (`.orchestration/templates`,
//! `.crit/templates`, a `templates_dir`).

mod builder;
pub(crate) mod checks;
mod coverage;
mod diff;
mod error;
mod estimate;
mod format;
mod load;
mod parts;
mod phases;
mod planner;
mod plans;
mod prompt;
mod raw;
mod registry;
mod run;
mod work;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use crate::engine::prompts::OutputSpec;
pub use checks::finish::Finish;
pub use checks::verify::{UnknownVerifyMode, VerifyMode, VerifySettings};
pub use error::TemplateError;
pub use estimate::{CostPlan, HoldToLimit, Spending, sends_unpriced};
pub use load::{KNOWN_TOOLS, parse_template};
pub use prompt::{Inputs, PromptParts};
pub use registry::{Broken, PROJECT_DIRS, Registry, TemplateDirs, trust_survey};
pub(crate) use run::Job;
pub use run::{
    ReviewError, ReviewOptions, ReviewRequest, run_template, run_template_or,
    run_template_with_follow_up,
};
pub use work::PartLimits;

/// Where a template came from. Later origins override earlier ones by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Origin {
    BuiltIn,
    User,
    Project,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::BuiltIn => "built-in",
            Origin::User => "user",
            Origin::Project => "project",
        }
    }
}

/// One input a template takes; each becomes a flag of `crit review NAME`.
#[derive(Debug, Clone, PartialEq)]
pub struct InputDef {
    pub name: String,
    pub description: String,
    pub required: bool,
    pub default: Option<String>,
    /// The value is a path to a file that must exist (`file: true`).
    pub file: bool,
}

/// How the user prompt is built.
#[derive(Debug, Clone, PartialEq)]
pub enum PromptSource {
    /// A minijinja template; the review templates' `{input}` placeholders are accepted too.
    Template(String),
    /// A built-in builder, by name.
    Builder(Builder),
    /// A program that builds the prompt (`prompt_builder: {command: [...]}`,
    /// the port of a Python builder): the inputs as a JSON object on stdin,
    /// the prompt on stdout. A project's template runs it only once trusted.
    Command(Vec<String>),
}

/// The built-in prompt builders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builder {
    /// Code review scoped by a diff, a file glob, or nothing (survey the project).
    Code,
}

impl Builder {
    /// Every accepted spelling, including the review templates' dotted Python path.
    pub const NAMES: [(&'static str, Builder); 3] = [
        ("code", Builder::Code),
        ("code_review_prompt", Builder::Code),
        (
            "orchestration.review.builders.code.code_review_prompt",
            Builder::Code,
        ),
    ];

    pub fn parse(name: &str) -> Option<Builder> {
        Self::NAMES
            .iter()
            .find(|(n, _)| *n == name.trim())
            .map(|(_, b)| *b)
    }
}

/// Conditions under which a panel reviewer runs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trigger {
    /// A file under review matches one of these globs.
    pub paths: Vec<String>,
    /// Each of these inputs was given.
    pub inputs: Vec<String>,
}

/// One member of a panel. Unset fields inherit from the template.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewerSpec {
    pub name: String,
    pub description: String,
    pub system_prompt: String,
    pub prompt: Option<String>,
    pub model: Option<String>,
    pub allowed_tools: Vec<String>,
    pub output: OutputSpec,
    pub trigger: Option<Trigger>,
}

/// Limits the agent loop enforces (not the prompt).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Limits {
    pub max_turns: Option<u32>,
    pub timeout_secs: Option<u64>,
    pub max_budget_usd: Option<f64>,
    pub max_tokens: Option<u64>,
}

/// A validated template.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    pub name: String,
    pub description: String,
    pub system_prompt: String,
    pub allowed_tools: Vec<String>,
    pub permission_mode: String,
    /// `project` loads CLAUDE.md, AGENTS.md and `.claude/rules` into the prompt.
    pub setting_sources: Option<Vec<String>>,
    pub inputs: Vec<InputDef>,
    /// Claude-Code-shaped hook configuration (`PreToolUse`, …), passed to the loop.
    pub hooks: Option<serde_json::Value>,
    pub prompt: PromptSource,
    pub model: Option<String>,
    pub output: OutputSpec,
    /// A panel; empty means the template itself is the one reviewer.
    pub reviewers: Vec<ReviewerSpec>,
    pub limits: Limits,
    /// How many of the panel must report a finding for it to count.
    pub consensus: Option<crate::engine::panel::Consensus>,
    /// Which findings get a second look (the review's setting when unset).
    pub verify: Option<crate::kinds::template::VerifyMode>,
    pub origin: Origin,
    /// The file it was loaded from (`None` for built-ins).
    pub path: Option<PathBuf>,
}

impl Template {
    /// Whether this template is written in the review templates' original
    /// format: one reviewer answering in their markdown severity format. Its
    /// users read `--output json` as the original's `ReviewResult.to_dict()`.
    pub fn in_original_format(&self) -> bool {
        self.reviewers.is_empty()
            && matches!(
                self.output,
                OutputSpec::Contract(crit_core::contract::Contract::Markdown)
            )
    }

    /// Whether project conventions (CLAUDE.md, rules) go into the prompt.
    pub fn loads_project_context(&self) -> bool {
        self.setting_sources
            .as_ref()
            .is_some_and(|s| s.iter().any(|x| x == "project"))
    }

    pub fn required_inputs(&self) -> impl Iterator<Item = &InputDef> {
        self.inputs.iter().filter(|i| i.required)
    }

    /// `crit review NAME INPUT --other VALUE [--opt VALUE]`, for error messages:
    /// the first required input is positional, as in the review templates' usage.
    pub fn usage(&self) -> String {
        let mut parts = vec![format!("crit review {}", self.name)];
        let first = self.required_inputs().next().map(|i| i.name.as_str());
        for i in &self.inputs {
            let flag = if Some(i.name.as_str()) == first {
                i.name.to_uppercase()
            } else {
                format!("--{} {}", i.name, i.name.to_uppercase())
            };
            parts.push(if i.required {
                flag
            } else {
                format!("[{flag}]")
            });
        }
        parts.join(" ")
    }

    /// The panel as it runs: the declared reviewers, or the template itself.
    pub fn panel(&self) -> Vec<ReviewerSpec> {
        if !self.reviewers.is_empty() {
            return self.reviewers.clone();
        }
        vec![ReviewerSpec {
            name: self.name.clone(),
            description: self.description.clone(),
            system_prompt: self.system_prompt.clone(),
            prompt: None,
            model: self.model.clone(),
            allowed_tools: self.allowed_tools.clone(),
            output: self.output.clone(),
            trigger: None,
        }]
    }

    /// Inputs with defaults applied, for rendering.
    pub fn resolve_inputs(
        &self,
        given: &BTreeMap<String, String>,
    ) -> Result<Inputs, TemplateError> {
        let mut out = BTreeMap::new();
        for def in &self.inputs {
            match given.get(&def.name).or(def.default.as_ref()) {
                Some(v) => {
                    out.insert(def.name.clone(), v.clone());
                }
                None if def.required => {
                    return Err(TemplateError::MissingInput {
                        template: self.name.clone(),
                        input: def.name.clone(),
                        description: def.description.clone(),
                        usage: self.usage(),
                    });
                }
                None => {}
            }
        }
        for (k, v) in given {
            if !self.inputs.iter().any(|d| &d.name == k) {
                return Err(TemplateError::UnknownInput {
                    template: self.name.clone(),
                    input: k.clone(),
                    usage: self.usage(),
                });
            }
            out.entry(k.clone()).or_insert_with(|| v.clone());
        }
        Ok(Inputs(out))
    }

    /// Every input declared `file: true` names an existing file, relative to
    /// `base` (the directory the review runs in): checked before any model is
    /// asked, so a typo costs nothing.
    pub fn check_files(&self, inputs: &Inputs, base: &Path) -> Result<(), TemplateError> {
        for def in self.inputs.iter().filter(|d| d.file) {
            let Some(value) = inputs.0.get(&def.name) else {
                continue;
            };
            if !base.join(value).is_file() {
                return Err(TemplateError::MissingFile {
                    template: self.name.clone(),
                    input: def.name.clone(),
                    path: PathBuf::from(value),
                    base: base.to_path_buf(),
                });
            }
        }
        Ok(())
    }
}
