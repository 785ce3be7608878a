//! A settings file that is wrong, for people: file, line and column where
//! there is one, and what was expected.

use std::path::PathBuf;

use crate::trust::TrustError;

#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// Not valid YAML (or JSON) for what it is, or fails validation.
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
    /// A project file could not be read where the project's rules come from.
    #[error(transparent)]
    Rules(#[from] TrustError),
}

impl FileError {
    /// A YAML error at its line and column. The library's message may carry a
    /// rendered snippet; only its first line is kept, so errors stay one line.
    pub fn from_yaml(file: &str, e: &serde_saphyr::Error) -> Self {
        let (line, column) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
        let full = e.to_string();
        let message = full
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("invalid YAML")
            .trim();
        FileError::at(file, line, column, strip_position(message))
    }

    pub fn at(file: &str, line: u64, column: u64, message: impl Into<String>) -> Self {
        FileError::Invalid {
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
