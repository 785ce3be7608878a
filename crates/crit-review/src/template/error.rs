//! Template errors: for people, with file, line and column where there is one.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    /// The file is not valid YAML for a template, or fails validation.
    #[error("{file}:{line}:{column}: {message}")]
    Invalid {
        file: String,
        line: u64,
        column: u64,
        message: String,
    },
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A template file that did not load, asked for by its name.
    #[error("template `{name}` does not load: {error}")]
    Broken { name: String, error: String },
    #[error("unknown template `{name}`; available: {}", available.join(", "))]
    Unknown {
        name: String,
        available: Vec<String>,
    },
    #[error("template `{template}` needs --{input} ({description})\nusage: {usage}")]
    MissingInput {
        template: String,
        input: String,
        description: String,
        usage: String,
    },
    #[error(
        "template `{template}`: --{input} {}: no such file (paths are relative to {}; give an existing file)",
        path.display(),
        base.display()
    )]
    MissingFile {
        template: String,
        input: String,
        path: PathBuf,
        base: PathBuf,
    },
    #[error("template `{template}` has no input `{input}`\nusage: {usage}")]
    UnknownInput {
        template: String,
        input: String,
        usage: String,
    },
    #[error("template `{template}`: cannot render the prompt: {message}")]
    Render { template: String, message: String },
    /// A project file could not be read where the project's rules come from.
    #[error(transparent)]
    Rules(#[from] crate::trust::TrustError),
}

impl TemplateError {
    /// A YAML error at its line and column. The library's message may carry a
    /// rendered snippet; only its first line is kept, so errors stay one line.
    pub(crate) fn from_yaml(file: &str, e: &serde_saphyr::Error) -> Self {
        let (line, column) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
        let full = e.to_string();
        let message = full
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("invalid YAML")
            .trim();
        TemplateError::at(file, line, column, strip_position(message))
    }

    pub(crate) fn at(file: &str, line: u64, column: u64, message: impl Into<String>) -> Self {
        TemplateError::Invalid {
            file: file.to_string(),
            line: line.max(1),
            column: column.max(1),
            message: message.into(),
        }
    }
}

/// serde-saphyr writes `error: line 5 column 5: unknown field …`; the position
/// is already in `file:line:column`, so only the message is kept.
fn strip_position(message: &str) -> &str {
    let m = message
        .strip_prefix("error:")
        .map_or(message, str::trim_start);
    match m.strip_prefix("line ") {
        Some(rest) => rest
            .split_once(": ")
            .filter(|(pos, _)| pos.contains("column"))
            .map_or(m, |(_, msg)| msg),
        None => m,
    }
}
