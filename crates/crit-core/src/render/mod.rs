//! Renderers: one per output format, all from a `ReviewResult`.

mod codeclimate;
pub mod compat;
mod github;
mod json;
mod junit;
mod markdown;
mod rdjson;
mod sarif;
mod terminal;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{ReviewResult, Severity};

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Format {
    #[cfg_attr(feature = "clap", value(help = "For people; colors at a terminal"))]
    Terminal,
    #[cfg_attr(
        feature = "clap",
        value(help = "The ReviewResult document (schemas/review-result.schema.json)")
    )]
    Json,
    #[cfg_attr(
        feature = "clap",
        value(help = "A pull-request comment or job summary")
    )]
    Markdown,
    #[cfg_attr(
        feature = "clap",
        value(help = "SARIF 2.1.0, for GitHub code scanning")
    )]
    Sarif,
    #[cfg_attr(
        feature = "clap",
        value(help = "reviewdog's rdjson, for inline pull-request comments")
    )]
    Rdjson,
    /// GitHub Actions workflow commands (`::error file=…::…`): annotations
    /// with no action at all.
    #[cfg_attr(
        feature = "clap",
        value(help = "GitHub Actions annotations (workflow commands)")
    )]
    Github,
    /// GitLab Code Quality (Code Climate issues), for `artifacts:reports:codequality`.
    #[cfg_attr(feature = "clap", value(help = "GitLab Code Quality report"))]
    Codeclimate,
    /// JUnit XML test reports, which every CI shows.
    #[cfg_attr(feature = "clap", value(help = "JUnit XML test report"))]
    Junit,
}

impl Format {
    pub const ALL: [Format; 8] = [
        Format::Terminal,
        Format::Json,
        Format::Markdown,
        Format::Sarif,
        Format::Rdjson,
        Format::Github,
        Format::Codeclimate,
        Format::Junit,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::Terminal => "terminal",
            Format::Json => "json",
            Format::Markdown => "markdown",
            Format::Sarif => "sarif",
            Format::Rdjson => "rdjson",
            Format::Github => "github",
            Format::Codeclimate => "codeclimate",
            Format::Junit => "junit",
        }
    }

    pub fn parse(s: &str) -> Option<Format> {
        Format::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(s.trim()))
    }
}

/// What a renderer needs besides the result.
#[derive(Debug, Clone)]
pub struct RenderOptions {
    /// Emit ANSI colors (terminal format only).
    pub color: bool,
    /// Tool name and version written into SARIF and rdjson.
    pub tool_name: String,
    pub tool_version: String,
    pub tool_uri: String,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            color: false,
            tool_name: "crit".to_string(),
            tool_version: env!("CARGO_PKG_VERSION").to_string(),
            tool_uri: "https://github.com/crit-review/crit".to_string(),
        }
    }
}

/// The terminal report's last line (verdict, findings, tokens, cost, time,
/// gate), on its own: what `crit run` prints on stderr under the answer.
pub fn summary_line(result: &ReviewResult, color: bool) -> String {
    terminal::summary(result, color)
}

/// Render `result` in `format`. Every output ends with a newline.
pub fn render(result: &ReviewResult, format: Format, options: &RenderOptions) -> String {
    match format {
        Format::Terminal => terminal::render(result, options),
        Format::Json => json::render(result),
        Format::Markdown => markdown::render(result),
        Format::Sarif => sarif::render(result, options),
        Format::Rdjson => rdjson::render(result, options),
        Format::Github => github::render(result, options),
        Format::Codeclimate => codeclimate::render(result, options),
        Format::Junit => junit::render(result, options),
    }
}

/// The level names SARIF and rdjson share, from severity.
fn level(severity: Severity) -> Level {
    match severity {
        Severity::P0 | Severity::P1 => Level::Error,
        Severity::P2 => Level::Warning,
        Severity::P3 | Severity::Info => Level::Note,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Error,
    Warning,
    Note,
}

/// A finding's message: title, then body when there is one.
fn message(f: &crate::Finding) -> String {
    if f.body.trim().is_empty() {
        f.title.clone()
    } else {
        format!("{}\n\n{}", f.title, f.body.trim())
    }
}

/// Model or repository text for a JSON report read as plain text (SARIF,
/// Code Climate's description): JSON escapes control characters itself, and
/// this shows hidden ones and breaks workflow commands for any viewer that
/// prints it.
fn plain(s: &str) -> String {
    crate::Printable::new(s, crate::Dest::Terminal).into_string()
}

/// A name, rule id or path in a JSON report: [`plain`], on one line.
fn plain_line(s: &str) -> String {
    crate::Printable::line(s, crate::Dest::Terminal).into_string()
}

/// Text a JSON report's consumer renders as Markdown (reviewdog's comments,
/// Code Climate's `content.body`).
fn markdown(s: &str) -> String {
    crate::Printable::new(s, crate::Dest::Markdown).into_string()
}

/// Pretty JSON with a final newline, safe to print
/// ([`crate::printable::json_document`]). Serializing a `serde_json::Value`
/// cannot fail.
fn pretty(value: &serde_json::Value) -> String {
    let mut s =
        crate::printable::json_document(serde_json::to_string_pretty(value).unwrap_or_default());
    s.push('\n');
    s
}
