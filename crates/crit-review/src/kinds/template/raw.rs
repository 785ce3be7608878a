//! The YAML shape of a template file, as written. Spanned where validation needs
//! to point at a line. The review templates' fields plus crit's own (`model`, `output`,
//! `reviewers`, `limits`).

use serde::Deserialize;
use serde_saphyr::Spanned;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTemplate {
    pub name: Option<Spanned<String>>,
    pub description: Option<Spanned<String>>,
    pub system_prompt: Option<Spanned<String>>,
    pub allowed_tools: Option<Vec<Spanned<String>>>,
    pub permission_mode: Option<Spanned<String>>,
    pub setting_sources: Option<Vec<Spanned<String>>>,
    pub inputs: Option<RawInputs>,
    pub hooks: Option<Spanned<serde_json::Value>>,
    pub prompt_template: Option<Spanned<String>>,
    /// A built-in builder's name, or `{command: [program, args…]}`.
    pub prompt_builder: Option<Spanned<serde_json::Value>>,
    pub model: Option<Spanned<String>>,
    pub output: Option<Spanned<serde_json::Value>>,
    pub reviewers: Option<Vec<RawReviewer>>,
    pub limits: Option<RawLimits>,
    /// `any`, `majority` or `all` of a panel must report a finding.
    pub consensus: Option<Spanned<String>>,
    /// Which findings get a second look: `off`, `blocking` or `all`.
    pub verify: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawInputs {
    #[serde(default)]
    pub required: Vec<RawInput>,
    #[serde(default)]
    pub optional: Vec<RawInput>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawInput {
    pub name: Option<Spanned<String>>,
    pub description: Option<String>,
    pub default: Option<Spanned<serde_json::Value>>,
    /// The value names a file that must exist before any model is asked.
    #[serde(default)]
    pub file: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawReviewer {
    pub name: Option<Spanned<String>>,
    pub description: Option<String>,
    pub system_prompt: Option<Spanned<String>>,
    pub prompt_template: Option<Spanned<String>>,
    pub model: Option<Spanned<String>>,
    pub allowed_tools: Option<Vec<Spanned<String>>>,
    pub output: Option<Spanned<serde_json::Value>>,
    pub trigger: Option<RawTrigger>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTrigger {
    /// Run only when a file under review matches one of these globs.
    #[serde(default)]
    pub paths: Vec<Spanned<String>>,
    /// Run only when this input was given.
    #[serde(default)]
    pub inputs: Vec<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLimits {
    pub max_turns: Option<u32>,
    pub timeout_secs: Option<u64>,
    pub max_budget_usd: Option<f64>,
    pub max_tokens: Option<u64>,
}
