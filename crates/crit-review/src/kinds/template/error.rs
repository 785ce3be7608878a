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
    Rules(#[from] crit_project::trust::TrustError),
}

impl From<crit_project::FileError> for TemplateError {
    fn from(e: crit_project::FileError) -> Self {
        use crit_project::FileError;
        match e {
            FileError::Invalid {
                file,
                line,
                column,
                message,
            } => TemplateError::Invalid {
                file,
                line,
                column,
                message,
            },
            FileError::Io { path, source } => TemplateError::Io { path, source },
            FileError::Rules(r) => TemplateError::Rules(r),
        }
    }
}

impl TemplateError {
    /// A YAML error at its line and column, as every settings file reports it.
    pub(crate) fn from_yaml(file: &str, e: &serde_saphyr::Error) -> Self {
        crit_project::FileError::from_yaml(file, e).into()
    }

    pub(crate) fn at(file: &str, line: u64, column: u64, message: impl Into<String>) -> Self {
        crit_project::FileError::at(file, line, column, message).into()
    }
}
