//! Prompt review's settings: the prompt-review plugin's `config.json`, loaded
//! as it is, layered and deep-merged (objects merge key by key, arrays and
//! values replace):
//!
//! 1. the defaults (the plugin's own);
//! 2. `~/.claude/plugins/prompt-review/config.json` (the plugin's global file);
//! 3. `$XDG_CONFIG_HOME/crit/prompt-review.yaml` (crit's user file, same keys);
//! 4. `<project>/.claude/prompt-review.json` (the plugin's per-project file);
//! 5. `<project>/.crit/prompt-review.yaml` (crit's project file);
//! 6. `PROMPT_REVIEW_*` environment variables;
//!
//! then the caller's flags. Which backend runs the reviewers is crit's own
//! configuration (`--provider`, `CRIT_*`, `.crit/config.yaml`); `mode` picks
//! between the Claude Code CLI (`subscription`) and a model API (`api`).
//!
//! The project's files belong to the checkout, which may be hostile, so they
//! are read through [`ProjectRules`]: in CI from the base revision, not the
//! change. They may tune reviewers, triggers, context and the budget; `mode`,
//! `api_fallback` and `models` (who pays, which model runs) apply only when
//! the user trusted them (`crit trust`) or they come from the base revision;
//! and a reviewer prompt file they name must be inside the project.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

mod check;
mod words;

use crate::trust::ProjectRules;
use check::Layer;
pub use words::{OpKind, Severity};

/// Where the reviewers run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The Claude Code CLI on the user's Claude subscription.
    Subscription,
    /// A model API (Anthropic, or crit's configured OpenAI-compatible server).
    Api,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Subscription => "subscription",
            Mode::Api => "api",
        }
    }
}

/// How the editor writes the refined prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EditorMode {
    /// crit applies the merged ops itself (the default; byte-identical every time).
    #[default]
    Deterministic,
    /// The editor model phrases the merged ops; the deterministic result stands
    /// in when it fails.
    Model,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptConfig {
    pub mode: Mode,
    pub api_fallback: bool,
    pub models: Models,
    pub reviewers: BTreeMap<String, ReviewerConfig>,
    pub editor: EditorConfig,
    pub context: ContextConfig,
    pub budget: Budget,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Models {
    pub reviewer: String,
    pub editor: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReviewerConfig {
    pub enabled: bool,
    pub conditional: bool,
    pub triggers: Triggers,
    /// A reviewer of your own: the file with its instructions (relative to the
    /// config file that names it). Read when the settings load, into `prompt`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_file: Option<String>,
    /// Its instructions, inline (or as read from `prompt_file`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Its name in the review block (default: from its key).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The ops it may propose (default: all but `RemoveConstraint`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ops: Option<Vec<OpKind>>,
    /// The severities it may give (default: all four).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub severities: Option<Vec<Severity>>,
}

/// When a conditional reviewer runs. Keywords match whole words,
/// case-insensitively (`add` does not fire on "address").
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Triggers {
    pub prompt_keywords: Vec<String>,
    pub file_patterns: Vec<String>,
    pub stack_markers: Vec<String>,
    pub project_markers: Vec<String>,
    pub skip_keywords: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditorConfig {
    pub priority_order: Vec<String>,
    pub temperature: f64,
    pub max_retries: u32,
    #[serde(default)]
    pub mode: EditorMode,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextConfig {
    pub max_tokens: usize,
    pub include_claude_md: bool,
    pub include_package_json: bool,
    pub include_structure: bool,
    pub structure_depth: usize,
    /// Project files given to every reviewer (relative to the project root).
    #[serde(default)]
    pub extra_files: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    pub max_reviewers_per_call: usize,
    pub timeout_ms: u64,
    /// `false`: no audit line is written.
    pub log_costs: bool,
}

/// The plugin's defaults, as its `config.json` ships them.
pub fn defaults() -> Value {
    json!({
        "mode": "subscription",
        "api_fallback": true,
        "models": {"reviewer": "claude-haiku-4-5", "editor": "claude-sonnet-4-6"},
        "reviewers": {
            "domain_sme":    {"enabled": true, "conditional": false},
            "security":      {"enabled": true, "conditional": false},
            "clarity":       {"enabled": true, "conditional": false},
            "testing":       {"enabled": true, "conditional": false},
            "frontend_ux":   {"enabled": true, "conditional": true, "triggers": {
                "prompt_keywords": ["component", "modal", "CSS", "style", "layout", "form", "button",
                                    "a11y", "accessibility", "responsive", "UI", "UX", "settings tab"],
                "file_patterns": ["*.css", "*.scss", "*.tsx", "*.vue", "*.svelte", "settings.ts", "styles.css"],
                "stack_markers": ["react", "vue", "svelte", "nextjs", "tailwind", "obsidian-plugin"]
            }},
            "documentation": {"enabled": true, "conditional": true, "triggers": {
                "prompt_keywords": ["feature", "add", "new", "remove", "change", "refactor", "setting", "command", "API"],
                "project_markers": ["docs/", "screenshots/", "CHANGELOG", "README"],
                "skip_keywords": ["bugfix", "typo", "lint", "format"]
            }}
        },
        "editor": {
            "priority_order": ["security", "testing", "domain_sme", "documentation", "frontend_ux", "clarity"],
            "temperature": 0,
            "max_retries": 1
        },
        "context": {
            "max_tokens": 2000,
            "include_claude_md": true,
            "include_package_json": true,
            "include_structure": true,
            "structure_depth": 2
        },
        "budget": {"max_reviewers_per_call": 6, "timeout_ms": 8000, "log_costs": true}
    })
}

impl Default for PromptConfig {
    fn default() -> Self {
        // The defaults are a literal checked by a test; an error here is a bug.
        serde_json::from_value(with_reviewer_defaults(defaults())).unwrap_or_else(|_| {
            PromptConfig {
                mode: Mode::Subscription,
                api_fallback: true,
                models: Models {
                    reviewer: "claude-haiku-4-5".into(),
                    editor: "claude-sonnet-4-6".into(),
                },
                reviewers: BTreeMap::new(),
                editor: EditorConfig {
                    priority_order: Vec::new(),
                    temperature: 0.0,
                    max_retries: 1,
                    mode: EditorMode::Deterministic,
                },
                context: ContextConfig {
                    max_tokens: 2000,
                    include_claude_md: true,
                    include_package_json: true,
                    include_structure: true,
                    structure_depth: 2,
                    extra_files: Vec::new(),
                },
                budget: Budget {
                    max_reviewers_per_call: 6,
                    timeout_ms: 8000,
                    log_costs: true,
                },
            }
        })
    }
}

/// A reviewer entry that leaves out `enabled` is enabled, as in the plugin.
fn with_reviewer_defaults(mut v: Value) -> Value {
    if let Some(map) = v.get_mut("reviewers").and_then(Value::as_object_mut) {
        for entry in map.values_mut() {
            if let Some(o) = entry.as_object_mut() {
                o.entry("enabled").or_insert(Value::Bool(true));
            }
        }
    }
    v
}

/// The effective settings and where they came from.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedConfig {
    pub config: PromptConfig,
    /// False when `PROMPT_REVIEW_ENABLED` turns prompt review off.
    pub enabled: bool,
    /// Dotted key (`budget.timeout_ms`) to the file or variable that set it last.
    pub sources: BTreeMap<String, String>,
    /// Files that were read, in order.
    pub files: Vec<PathBuf>,
    /// Settings ignored, for people (`.claude/prompt-review.json: mode is ignored …`).
    pub warnings: Vec<String>,
}

impl LoadedConfig {
    /// Where `key` was set, when not by default.
    pub fn source(&self, key: &str) -> Option<&str> {
        self.sources.get(key).map(String::as_str)
    }
}

/// Why the settings could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{file}: {message}")]
    Invalid { file: String, message: String },
}

/// The user's files; the project's are [`PROJECT_FILES`], read through
/// [`ProjectRules`].
#[derive(Debug, Clone)]
pub struct ConfigPaths {
    pub plugin_user: Option<PathBuf>,
    pub crit_user: Option<PathBuf>,
}

/// The project's settings files, from the project root, in layer order.
pub const PROJECT_FILES: [&str; 2] = [".claude/prompt-review.json", ".crit/prompt-review.yaml"];

impl ConfigPaths {
    /// The standard locations; `env` gives `HOME` and `XDG_CONFIG_HOME`.
    pub fn standard(env: &crit_os::Env) -> ConfigPaths {
        let home = env.get("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
        ConfigPaths {
            plugin_user: home.map(|h| h.join(".claude/plugins/prompt-review/config.json")),
            crit_user: crit_os::dirs::config_dir(env).map(|d| d.join("prompt-review.yaml")),
        }
    }
}

/// Load every layer: the user's files, the project's (as `rules` read
/// them), then the `PROMPT_REVIEW_*` variables from `env`.
pub fn load(
    paths: &ConfigPaths,
    rules: &ProjectRules,
    env: &crit_os::Env,
) -> Result<LoadedConfig, ConfigError> {
    let mut merged = defaults();
    let mut loaded = LoadedConfig {
        config: PromptConfig::default(),
        enabled: true,
        sources: BTreeMap::new(),
        files: Vec::new(),
        warnings: Vec::new(),
    };
    for path in [paths.plugin_user.as_deref(), paths.crit_user.as_deref()]
        .into_iter()
        .flatten()
    {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(source) => {
                return Err(ConfigError::Io {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        let layer = Layer::user(path);
        add_layer(&mut merged, &mut loaded, &text, &layer, rules)?;
        loaded.files.push(path.to_path_buf());
    }
    for rel in PROJECT_FILES {
        let file = rules.read(rel).map_err(|e| ConfigError::Invalid {
            file: rel.to_string(),
            message: e.to_string(),
        })?;
        let Some(file) = file else { continue };
        let layer = Layer::project(rel, &file.label);
        add_layer(&mut merged, &mut loaded, &file.text, &layer, rules)?;
        loaded.files.push(PathBuf::from(&file.label));
    }
    apply_env(&mut merged, env, &mut loaded)?;
    loaded.config = serde_json::from_value(with_reviewer_defaults(merged)).map_err(|e| {
        ConfigError::Invalid {
            file: "prompt review settings".into(),
            message: e.to_string(),
        }
    })?;
    Ok(loaded)
}

fn add_layer(
    merged: &mut Value,
    loaded: &mut LoadedConfig,
    text: &str,
    layer: &Layer,
    rules: &ProjectRules,
) -> Result<(), ConfigError> {
    let value = check::parse(text, layer, &mut loaded.warnings)?;
    let value = check::admit(value, layer, rules, &mut loaded.warnings)?;
    check::record_sources(&value, "", &layer.file, &mut loaded.sources);
    check::merge(merged, value);
    Ok(())
}

/// `PROMPT_REVIEW_ENABLED`, `_MODE`, `_REVIEWER_MODEL`, `_EDITOR_MODEL`, `_TIMEOUT` (ms).
fn apply_env(
    merged: &mut Value,
    env: &crit_os::Env,
    loaded: &mut LoadedConfig,
) -> Result<(), ConfigError> {
    let get = |k: &str| {
        env.get(k)
            .map(str::to_string)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let bad = |var: &str, value: &str, expected: &str| ConfigError::Invalid {
        file: format!("env {var}"),
        message: format!("`{value}`: expected {expected}"),
    };
    if let Some(v) = get("PROMPT_REVIEW_ENABLED") {
        loaded.enabled = match v.to_ascii_lowercase().as_str() {
            "false" | "0" | "no" | "off" => false,
            "true" | "1" | "yes" | "on" => true,
            _ => return Err(bad("PROMPT_REVIEW_ENABLED", &v, "true or false")),
        };
        loaded
            .sources
            .insert("enabled".into(), "env PROMPT_REVIEW_ENABLED".into());
    }
    let mut set = |key: &str, var: &str, value: Value| {
        check::set_path(merged, key, value);
        loaded.sources.insert(key.into(), format!("env {var}"));
    };
    if let Some(v) = get("PROMPT_REVIEW_MODE") {
        let mode = v.to_ascii_lowercase();
        if mode != "subscription" && mode != "api" {
            return Err(bad("PROMPT_REVIEW_MODE", &v, "subscription or api"));
        }
        set("mode", "PROMPT_REVIEW_MODE", Value::String(mode));
    }
    if let Some(v) = get("PROMPT_REVIEW_REVIEWER_MODEL") {
        set(
            "models.reviewer",
            "PROMPT_REVIEW_REVIEWER_MODEL",
            Value::String(v),
        );
    }
    if let Some(v) = get("PROMPT_REVIEW_EDITOR_MODEL") {
        set(
            "models.editor",
            "PROMPT_REVIEW_EDITOR_MODEL",
            Value::String(v),
        );
    }
    if let Some(v) = get("PROMPT_REVIEW_TIMEOUT") {
        let ms: u64 = v
            .parse()
            .ok()
            .filter(|ms| *ms > 0)
            .ok_or_else(|| bad("PROMPT_REVIEW_TIMEOUT", &v, "milliseconds, e.g. 5000"))?;
        set("budget.timeout_ms", "PROMPT_REVIEW_TIMEOUT", json!(ms));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_deserialize() {
        let c: PromptConfig = serde_json::from_value(with_reviewer_defaults(defaults())).unwrap();
        assert_eq!(c.mode, Mode::Subscription);
        assert_eq!(c.reviewers.len(), 6);
        assert!(c.reviewers["frontend_ux"].conditional);
        assert_eq!(c.editor.priority_order[0], "security");
        assert_eq!(c.budget.timeout_ms, 8000);
        assert_eq!(PromptConfig::default(), c);
    }
}
