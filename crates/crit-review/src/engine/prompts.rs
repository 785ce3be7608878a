//! The prompts crit sends, beyond a template's own text: crit's partials
//! (`crit/rubric.md`, the answer contracts), the preamble every review opens
//! with, the code builder, and rendering with minijinja (the original review
//! templates' Python-format placeholders, `{input}`, become `{{ input }}`).

use crit_core::contract::Contract;
use minijinja::{Environment, UndefinedBehavior, Value};

/// Why one of crit's prompts could not be rendered or a template's prompt
/// was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PromptError {
    /// minijinja could not render it: its message, with the prompt's line.
    #[error("{message}{}", line.map(|l| format!(" (prompt line {l})")).unwrap_or_default())]
    Render {
        message: String,
        line: Option<usize>,
    },
    /// The prompt does not compile.
    #[error("invalid prompt template: {message}{}", line.map(|l| format!(" (prompt line {l})")).unwrap_or_default())]
    Invalid {
        message: String,
        line: Option<usize>,
    },
    /// It names a variable the template does not declare as an input.
    #[error("prompt uses `{name}`, which is not a declared input (declared: {})", if declared.is_empty() { "none".to_string() } else { declared.join(", ") })]
    UndeclaredInput { name: String, declared: Vec<String> },
}

impl PromptError {
    fn render(e: &minijinja::Error) -> PromptError {
        PromptError::Render {
            message: e.to_string(),
            line: e.line(),
        }
    }
}

/// What a reviewer must answer in.
#[derive(Debug, Clone, PartialEq)]
pub enum OutputSpec {
    /// One of crit's contracts (findings JSON by default, or the review templates' markdown).
    Contract(Contract),
    /// A caller-supplied JSON Schema; the answer lands in `structured_output`.
    Schema(serde_json::Value),
}

const PARTIALS: [(&str, &str); 4] = [
    ("crit/rubric.md", include_str!("../../prompts/rubric.md")),
    (
        "crit/contract_findings.md",
        include_str!("../../prompts/contract_findings.md"),
    ),
    (
        "crit/contract_markdown.md",
        include_str!("../../prompts/contract_markdown.md"),
    ),
    (
        "crit/contract_schema.md",
        include_str!("../../prompts/contract_schema.md"),
    ),
];
pub(crate) const CODE_BUILDER: &str = include_str!("../../prompts/builders/code.md");
pub(crate) const CODE_WORK: &str = include_str!("../../prompts/builders/code_work.md");
/// What the change is (its range, commits, the author's notes): what a fix
/// changes even where the diff does not, so it follows the diff, after the
/// cache breakpoint.
pub(crate) const CODE_ABOUT: &str = include_str!("../../prompts/builders/code_about.md");

/// The text of crit's own prompt parts (partials and builders): what a
/// review's reviewers are told besides the template, for cache keys.
pub(crate) fn prompt_sources() -> String {
    let mut s: String = PARTIALS.iter().map(|(_, t)| *t).collect();
    s.push_str(CODE_BUILDER);
    s.push_str(CODE_WORK);
    s.push_str(CODE_ABOUT);
    s
}

/// crit's reviewer preamble: what the reviewer is given and that it is data.
/// It opens the system prompt of every template review.
pub const PREAMBLE: &str = include_str!("../../prompts/preamble.md");

/// The "Your answer" section for an output contract: what a system prompt
/// ends with so the reviewer answers in a form crit can read.
pub fn contract_instructions(output: &OutputSpec) -> Result<String, PromptError> {
    environment()
        .render_str(
            contract_partial(output),
            minijinja::context! { schema => schema_text(output) },
        )
        .map_err(|e| PromptError::render(&e))
}

/// A system prompt followed by its answer contract's instructions (none for
/// a contract the prompt states itself).
pub(crate) fn with_contract(system: &str, contract: &str) -> String {
    match contract.trim().is_empty() {
        true => system.to_string(),
        false => format!("{}\n\n{}", system.trim_end(), contract.trim_end()),
    }
}

/// A prompt written for the review templates' markdown format already says how
/// to answer: a second set of instructions would only repeat (or contradict) it.
pub(crate) fn carries_own_format(system: &str, output: &OutputSpec) -> bool {
    matches!(output, OutputSpec::Contract(Contract::Markdown))
        && crit_core::contract::markdown::describes_format(system)
}

/// Renders one of crit's own prompt files with the shared partials
/// (`crit/rubric.md`, the answer contracts, …) available.
pub fn render_prompt(text: &str, ctx: Value) -> Result<String, PromptError> {
    environment()
        .render_str(text, ctx)
        .map(|s| tidy(&s))
        .map_err(|e| PromptError::render(&e))
}

/// Validate a prompt template at load time: it compiles, and every variable it
/// uses is a declared input (or crit's `inputs`/`scope`).
pub(crate) fn check_template(text: &str, inputs: &[&str]) -> Result<(), PromptError> {
    let env = environment();
    let source = python_placeholders(text, inputs);
    let tmpl = env
        .template_from_str(&source)
        .map_err(|e| PromptError::Invalid {
            message: e.to_string(),
            line: e.line(),
        })?;
    let mut unknown: Vec<String> = tmpl
        .undeclared_variables(false)
        .into_iter()
        .filter(|v| !inputs.contains(&v.as_str()) && v != "inputs" && v != "scope")
        .collect();
    unknown.sort();
    match unknown.first() {
        None => Ok(()),
        Some(v) => Err(PromptError::UndeclaredInput {
            name: v.clone(),
            declared: inputs.iter().map(|i| i.to_string()).collect(),
        }),
    }
}

/// A minijinja environment with crit's shared partials (`crit/rubric.md`,
/// the answer contracts, …).
pub(crate) fn environment() -> Environment<'static> {
    PARTIALS_COMPILED.clone()
}

/// Compiles the shared partials now (a review does it while git reads its
/// change), not when the first prompt is rendered.
pub(crate) fn compile_partials() {
    std::sync::LazyLock::force(&PARTIALS_COMPILED);
}

/// The environment with the shared partials, compiled once per process;
/// each caller gets a copy of its own.
static PARTIALS_COMPILED: std::sync::LazyLock<Environment<'static>> =
    std::sync::LazyLock::new(|| {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Chainable);
        for (name, text) in PARTIALS {
            // The partials are constants of this crate; a syntax error in
            // one is caught by the snapshot tests.
            let _ = env.add_template(name, text);
        }
        env
    });

/// Rewrite Python-format `{name}` into `{{ name }}` for declared input names.
/// `{{` and `{%` (already minijinja) and braces around anything else (JSON
/// examples in a prompt) are left alone.
pub(crate) fn python_placeholders(text: &str, inputs: &[&str]) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with("{{") || tail.starts_with("{%") || tail.starts_with("{#") {
            // Copy the whole minijinja tag through untouched.
            let close = match &tail[..2] {
                "{{" => "}}",
                "{%" => "%}",
                _ => "#}",
            };
            let end = tail.find(close).map_or(tail.len(), |e| e + 2);
            out.push_str(&tail[..end]);
            rest = &tail[end..];
            continue;
        }
        match tail[1..].find('}') {
            Some(j) if inputs.contains(&&tail[1..1 + j]) => {
                out.push_str("{{ ");
                out.push_str(&tail[1..1 + j]);
                out.push_str(" }}");
                rest = &tail[j + 2..];
            }
            _ => {
                out.push('{');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn contract_partial(output: &OutputSpec) -> &'static str {
    match output {
        OutputSpec::Contract(Contract::FindingsJson) => "{% include 'crit/contract_findings.md' %}",
        OutputSpec::Contract(Contract::Markdown) => "{% include 'crit/contract_markdown.md' %}",
        // Reldo's convention lives in the user's own prompt; crit adds nothing.
        OutputSpec::Contract(Contract::StatusLine) => "",
        OutputSpec::Schema(_) => "{% include 'crit/contract_schema.md' %}",
    }
}

fn schema_text(output: &OutputSpec) -> String {
    match output {
        OutputSpec::Schema(s) => serde_json::to_string_pretty(s).unwrap_or_default(),
        OutputSpec::Contract(_) => String::new(),
    }
}

/// At most one blank line in a row, and a single trailing newline: conditional
/// sections leave gaps that would only cost tokens.
pub(crate) fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.trim().lines() {
        if line.trim().is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

pub(crate) fn describe(e: &minijinja::Error) -> String {
    let mut s = e.to_string();
    if let Some(line) = e.line() {
        s.push_str(&format!(" (prompt line {line})"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_placeholders_become_minijinja() {
        let t = python_placeholders(
            "Review {input} against {against}. JSON: {\"a\": 1} {{ x }} {% if y %}{y}{% endif %}",
            &["input", "against", "y"],
        );
        assert_eq!(
            t,
            "Review {{ input }} against {{ against }}. JSON: {\"a\": 1} {{ x }} {% if y %}{{ y }}{% endif %}"
        );
        assert_eq!(
            python_placeholders("{unknown} {", &["input"]),
            "{unknown} {"
        );
    }

    #[test]
    fn check_rejects_undeclared_and_broken() {
        assert!(check_template("Review {input}", &["input"]).is_ok());
        let e = check_template("Review {{ doc }}", &["input"]).unwrap_err();
        assert_eq!(
            e,
            PromptError::UndeclaredInput {
                name: "doc".into(),
                declared: vec!["input".into()]
            }
        );
        assert_eq!(
            e.to_string(),
            "prompt uses `doc`, which is not a declared input (declared: input)"
        );
        let e = check_template("{% if x %}", &["x"]).unwrap_err();
        assert!(matches!(e, PromptError::Invalid { .. }), "{e:?}");
        assert!(e.to_string().starts_with("invalid prompt template"));
    }

    #[test]
    fn tidy_collapses_blank_runs() {
        assert_eq!(tidy("\n\na\n\n\n\nb  \n\n"), "a\n\nb\n");
    }
}
