//! Parsing and validating a template file. Every error names file, line and
//! column, and says what was expected.

use std::path::Path;

use crit_core::contract::Contract;
use serde_saphyr::Spanned;

use super::raw::{RawInput, RawReviewer, RawTemplate};
use super::{
    Builder, InputDef, Limits, Origin, OutputSpec, PromptSource, ReviewerSpec, Template,
    TemplateError, Trigger,
};

pub use crit_project::config::KNOWN_TOOLS;
const WRITING_TOOLS: [&str; 5] = ["Write", "Edit", "MultiEdit", "NotebookEdit", "WebFetch"];
const PERMISSION_MODES: [&str; 6] = [
    "default",
    "acceptEdits",
    "plan",
    "bypassPermissions",
    "dontAsk",
    "auto",
];
const SETTING_SOURCES: [&str; 3] = ["user", "project", "local"];
const HOOK_EVENTS: [&str; 4] = ["PreToolUse", "PostToolUse", "SubagentStop", "Stop"];
/// Flags of `crit` itself; an input of the same name would shadow one. `cwd` is
/// allowed: the review templates declare it and it means the same as `--cwd`.
const RESERVED_INPUTS: [&str; 16] = [
    "format",
    "json",
    "output",
    "out",
    "color",
    "exit-code",
    "fail-on",
    "timeout",
    "max-turns",
    "max-budget-usd",
    "verbose",
    "quiet",
    "no-log",
    "provider",
    "model",
    "help",
];

/// Parse and validate a template. `file` names it in errors.
pub fn parse_template(
    text: &str,
    file: &str,
    origin: Origin,
    path: Option<&Path>,
) -> Result<Template, TemplateError> {
    let raw: RawTemplate =
        serde_saphyr::from_str(text).map_err(|e| TemplateError::from_yaml(file, &e))?;
    Validator { file }.template(raw, origin, path)
}

struct Validator<'a> {
    file: &'a str,
}

impl Validator<'_> {
    fn err<T>(&self, at: &Spanned<T>, message: impl Into<String>) -> TemplateError {
        TemplateError::at(
            self.file,
            at.referenced.line(),
            at.referenced.column(),
            message,
        )
    }

    fn missing(&self, what: &str, hint: &str) -> TemplateError {
        TemplateError::at(self.file, 1, 1, format!("missing field `{what}`: {hint}"))
    }

    fn template(
        &self,
        raw: RawTemplate,
        origin: Origin,
        path: Option<&Path>,
    ) -> Result<Template, TemplateError> {
        let name = raw.name.ok_or_else(|| {
            self.missing("name", "the template's short name, e.g. `name: security`")
        })?;
        if !is_identifier(&name.value) {
            return Err(self.err(
                &name,
                format!(
                    "invalid name `{}`: use lower-case letters, digits, `-` and `_`",
                    name.value
                ),
            ));
        }
        if ["list", "help"].contains(&name.value.as_str()) {
            return Err(self.err(
                &name,
                format!("`{}` is a crit command, not a template name", name.value),
            ));
        }
        let description = raw
            .description
            .ok_or_else(|| self.missing("description", "one line shown by `crit review list`"))?;
        let system_prompt = raw
            .system_prompt
            .ok_or_else(|| self.missing("system_prompt", "the reviewer's instructions"))?;
        let tools = raw.allowed_tools.ok_or_else(|| {
            self.missing("allowed_tools", "e.g. `allowed_tools: [Read, Glob, Grep]`")
        })?;
        let allowed_tools = self.tools(&tools)?;
        let permission_mode = match raw.permission_mode {
            Some(m) if PERMISSION_MODES.contains(&m.value.as_str()) => m.value,
            Some(m) => {
                return Err(self.err(
                    &m,
                    format!(
                        "unknown permission_mode `{}`; expected one of {}",
                        m.value,
                        PERMISSION_MODES.join(", ")
                    ),
                ));
            }
            None => "default".to_string(),
        };
        let setting_sources = match raw.setting_sources {
            Some(list) => Some(self.setting_sources(list)?),
            None => None,
        };
        let inputs = self.inputs(raw.inputs.unwrap_or_default())?;
        let prompt = self.prompt(raw.prompt_template, raw.prompt_builder, &inputs)?;
        let hooks = match raw.hooks {
            Some(h) => Some(self.hooks(h)?),
            None => None,
        };
        let output = match raw.output {
            Some(o) => self.output(&o)?,
            None => implied_output(&system_prompt.value),
        };
        let model = raw.model.map(|m| m.value);
        let template = Template {
            name: name.value,
            description: description.value.trim().to_string(),
            system_prompt: system_prompt.value,
            allowed_tools,
            permission_mode,
            setting_sources,
            inputs,
            hooks,
            prompt,
            model,
            output,
            reviewers: Vec::new(),
            limits: Limits::default(),
            consensus: match raw.consensus {
                Some(c) => Some(c.value.parse().map_err(
                    |e: crate::engine::panel::UnknownConsensus| self.err(&c, e.to_string()),
                )?),
                None => None,
            },
            verify: match raw.verify {
                Some(v) => Some(
                    v.value
                        .parse::<super::VerifyMode>()
                        .map_err(|e| self.err(&v, e.to_string()))?,
                ),
                None => None,
            },
            origin,
            path: path.map(Path::to_path_buf),
        };
        let reviewers = self.reviewers(raw.reviewers.unwrap_or_default(), &template)?;
        let limits = raw.limits.map(|l| Limits {
            max_turns: l.max_turns,
            timeout_secs: l.timeout_secs,
            max_budget_usd: l.max_budget_usd,
            max_tokens: l.max_tokens,
        });
        Ok(Template {
            reviewers,
            limits: limits.unwrap_or_default(),
            ..template
        })
    }

    fn tools(&self, tools: &[Spanned<String>]) -> Result<Vec<String>, TemplateError> {
        tools
            .iter()
            .map(|t| {
                let name = t.value.trim();
                if KNOWN_TOOLS.contains(&name) || is_mcp_tool(name) {
                    Ok(name.to_string())
                } else if WRITING_TOOLS.contains(&name) {
                    Err(self.err(t, format!("tool `{name}` is not available: crit's reviewers are read-only")))
                } else {
                    Err(self.err(t, format!("unknown tool `{name}`; expected one of {}, or an MCP tool as `mcp__server__tool`", KNOWN_TOOLS.join(", "))))
                }
            })
            .collect()
    }

    fn setting_sources(&self, list: Vec<Spanned<String>>) -> Result<Vec<String>, TemplateError> {
        list.into_iter()
            .map(|s| {
                if SETTING_SOURCES.contains(&s.value.as_str()) {
                    Ok(s.value)
                } else {
                    Err(self.err(
                        &s,
                        format!(
                            "unknown setting source `{}`; expected one of {}",
                            s.value,
                            SETTING_SOURCES.join(", ")
                        ),
                    ))
                }
            })
            .collect()
    }

    fn inputs(&self, raw: super::raw::RawInputs) -> Result<Vec<InputDef>, TemplateError> {
        let mut out: Vec<InputDef> = Vec::new();
        let all = raw
            .required
            .into_iter()
            .map(|i| (i, true))
            .chain(raw.optional.into_iter().map(|i| (i, false)));
        for (input, required) in all {
            let def = self.input(input, required)?;
            out.push(def);
        }
        Ok(out)
    }

    fn input(&self, raw: RawInput, required: bool) -> Result<InputDef, TemplateError> {
        let kind = if required { "required" } else { "optional" };
        let name = raw.name.ok_or_else(|| {
            self.missing(&format!("inputs.{kind}[].name"), "every input needs a name")
        })?;
        if !is_identifier(&name.value) {
            return Err(self.err(
                &name,
                format!(
                    "invalid input name `{}`: use lower-case letters, digits, `-` and `_`",
                    name.value
                ),
            ));
        }
        if RESERVED_INPUTS.contains(&name.value.as_str()) {
            return Err(self.err(
                &name,
                format!(
                    "input `{}` would shadow crit's own --{} flag; rename it",
                    name.value, name.value
                ),
            ));
        }
        let default = match raw.default {
            None => None,
            Some(d) if required => {
                return Err(self.err(
                    &d,
                    format!(
                        "required input `{}` cannot have a default; move it to `optional`",
                        name.value
                    ),
                ));
            }
            Some(d) => Some(match &d.value {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Number(n) => n.to_string(),
                serde_json::Value::Bool(b) => b.to_string(),
                serde_json::Value::Null => {
                    return Err(self.err(&d, "a default of null means no default; remove it"));
                }
                _ => return Err(self.err(&d, "a default must be a string, number or boolean")),
            }),
        };
        Ok(InputDef {
            name: name.value,
            description: raw.description.unwrap_or_default(),
            required,
            default,
            file: raw.file,
        })
    }

    fn prompt(
        &self,
        template: Option<Spanned<String>>,
        builder: Option<Spanned<serde_json::Value>>,
        inputs: &[InputDef],
    ) -> Result<PromptSource, TemplateError> {
        match (template, builder) {
            (Some(_), Some(b)) => Err(self.err(&b, "set prompt_template or prompt_builder, not both")),
            (None, None) => Err(self.missing("prompt_template", "set prompt_template (a prompt with {{ input }} placeholders) or prompt_builder (a built-in builder, or {command: [program, args…]})")),
            (None, Some(b)) => self.builder(&b),
            (Some(t), None) => {
                let names: Vec<&str> = inputs.iter().map(|i| i.name.as_str()).collect();
                self.prompt_template(&t, &names).map(PromptSource::Template)
            }
        }
    }

    /// A built-in builder by name, or a builder program. A Python builder
    /// (a dotted path) cannot be imported: it says how to run it as a program.
    fn builder(&self, b: &Spanned<serde_json::Value>) -> Result<PromptSource, TemplateError> {
        let names: Vec<&str> = Builder::NAMES.iter().map(|(n, _)| *n).collect();
        match &b.value {
            serde_json::Value::String(name) => Builder::parse(name).map(PromptSource::Builder).ok_or_else(|| {
                self.err(b, format!(
                    "unknown prompt_builder `{name}`; built-in builders: {}. crit does not import Python: run your builder as a program, `prompt_builder: {{command: [python3, path/to/builder.py]}}` (the inputs as JSON on stdin, the prompt on stdout)",
                    names.join(", ")
                ))
            }),
            serde_json::Value::Object(map) if map.len() == 1 => {
                let argv: Option<Vec<String>> = map.get("command").and_then(|c| c.as_array()).and_then(|a| {
                    a.iter().map(|v| v.as_str().map(str::to_string)).collect()
                });
                match argv {
                    Some(argv) if argv.first().is_some_and(|p| !p.trim().is_empty()) => Ok(PromptSource::Command(argv)),
                    _ => Err(self.err(b, "prompt_builder.command must be a non-empty list of strings: [program, args…]")),
                }
            }
            _ => Err(self.err(b, format!(
                "prompt_builder must be a built-in builder ({}) or {{command: [program, args…]}}",
                names.join(", ")
            ))),
        }
    }

    /// A `prompt_template`, checked, as minijinja: `str.format` rules for a
    /// template written for the original tool, minijinja's for crit's own.
    fn prompt_template(
        &self,
        t: &Spanned<String>,
        names: &[&str],
    ) -> Result<String, TemplateError> {
        let text = match super::format::is_minijinja(&t.value) {
            true => t.value.clone(),
            false => super::format::to_minijinja(&t.value, names).map_err(|m| self.err(t, m.0))?,
        };
        crate::engine::prompts::check_template(&text, names)
            .map_err(|m| self.err(t, m.to_string()))?;
        Ok(text)
    }

    fn hooks(&self, hooks: Spanned<serde_json::Value>) -> Result<serde_json::Value, TemplateError> {
        let Some(map) = hooks.value.as_object() else {
            return Err(self.err(&hooks, "hooks must be a mapping of event names (PreToolUse, PostToolUse, SubagentStop, Stop) to matchers"));
        };
        for (event, matchers) in map {
            if !HOOK_EVENTS.contains(&event.as_str()) {
                return Err(self.err(
                    &hooks,
                    format!(
                        "unknown hook event `{event}`; expected one of {}",
                        HOOK_EVENTS.join(", ")
                    ),
                ));
            }
            if !matchers.is_array() {
                return Err(self.err(&hooks, format!("hooks.{event} must be a list of {{matcher, hooks: [{{type: command, command}}]}}")));
            }
        }
        Ok(hooks.value.clone())
    }

    fn output(&self, o: &Spanned<serde_json::Value>) -> Result<OutputSpec, TemplateError> {
        match &o.value {
            serde_json::Value::String(s) => match s.as_str() {
                "findings" | "findings_json" | "json" => Ok(OutputSpec::Contract(Contract::FindingsJson)),
                "markdown" => Ok(OutputSpec::Contract(Contract::Markdown)),
                other => Err(self.err(o, format!("unknown output `{other}`; expected `findings`, `markdown`, or a JSON Schema mapping"))),
            },
            serde_json::Value::Object(map) => {
                let schema = map.get("schema").cloned().unwrap_or_else(|| o.value.clone());
                if schema.get("type").is_none() && schema.get("properties").is_none() && schema.get("$ref").is_none() {
                    return Err(self.err(o, "output schema must be a JSON Schema (with `type` or `properties`), or `schema: {…}`"));
                }
                // Checked here, where the error can name the file and line;
                // a review compiles it only when an answer comes.
                if let Err(e) = crit_agent::StructuredOutput::new(schema.clone()) {
                    return Err(self.err(o, format!("{e}; fix the schema or use `output: findings`")));
                }
                Ok(OutputSpec::Schema(schema))
            }
            _ => Err(self.err(o, "output must be `findings`, `markdown`, or a JSON Schema mapping")),
        }
    }

    fn reviewers(
        &self,
        raw: Vec<RawReviewer>,
        template: &Template,
    ) -> Result<Vec<ReviewerSpec>, TemplateError> {
        let mut out: Vec<ReviewerSpec> = Vec::new();
        for r in raw {
            let name = r.name.ok_or_else(|| {
                self.missing("reviewers[].name", "every panel reviewer needs a name")
            })?;
            if !is_identifier(&name.value) {
                return Err(self.err(&name, format!("invalid reviewer name `{}`", name.value)));
            }
            if out.iter().any(|o| o.name == name.value) {
                return Err(self.err(&name, format!("duplicate reviewer `{}`", name.value)));
            }
            let allowed_tools = match &r.allowed_tools {
                Some(t) => self.tools(t)?,
                None => template.allowed_tools.clone(),
            };
            let output = match (&r.output, &r.system_prompt) {
                (Some(o), _) => self.output(o)?,
                (None, Some(own)) => implied_output(&own.value),
                (None, None) => template.output.clone(),
            };
            let prompt = match r.prompt_template {
                Some(t) => {
                    let names: Vec<&str> =
                        template.inputs.iter().map(|i| i.name.as_str()).collect();
                    Some(self.prompt_template(&t, &names)?)
                }
                None => None,
            };
            let trigger = match r.trigger {
                Some(t) => {
                    for p in &t.paths {
                        globset::Glob::new(&p.value)
                            .map_err(|e| self.err(p, format!("invalid glob `{}`: {e}", p.value)))?;
                    }
                    for i in &t.inputs {
                        if !template.inputs.iter().any(|d| d.name == i.value) {
                            return Err(self.err(
                                i,
                                format!(
                                    "trigger names input `{}`, which the template does not declare",
                                    i.value
                                ),
                            ));
                        }
                    }
                    Some(Trigger {
                        paths: t.paths.into_iter().map(|p| p.value).collect(),
                        inputs: t.inputs.into_iter().map(|p| p.value).collect(),
                    })
                }
                None => None,
            };
            out.push(ReviewerSpec {
                name: name.value,
                description: r.description.unwrap_or_default(),
                system_prompt: r
                    .system_prompt
                    .map_or_else(|| template.system_prompt.clone(), |s| s.value),
                prompt,
                model: r.model.map(|m| m.value).or_else(|| template.model.clone()),
                allowed_tools,
                output,
                trigger,
            });
        }
        Ok(out)
    }
}

/// The contract of a reviewer whose template names none: the markdown format
/// when its prompt already asks for it (a review template written for the
/// original tool), else the findings JSON.
fn implied_output(system_prompt: &str) -> OutputSpec {
    match crit_core::contract::markdown::describes_format(system_prompt) {
        true => OutputSpec::Contract(Contract::Markdown),
        false => OutputSpec::Contract(Contract::FindingsJson),
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

fn is_mcp_tool(name: &str) -> bool {
    match name.strip_prefix("mcp__") {
        // `mcp__server` (all of its tools) or `mcp__server__tool`.
        Some(rest) => !rest.is_empty() && !rest.starts_with('_'),
        None => name
            .split_once("__")
            .is_some_and(|(server, tool)| !server.is_empty() && !tool.is_empty()),
    }
}
