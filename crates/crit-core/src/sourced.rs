//! A setting's value and where it came from, the provenance every front end
//! shows (`crit config`, `crit doctor`, a session's settings) and every crate
//! that resolves a setting records.

use std::fmt;

use serde::Serialize;

/// Where a setting came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum Source {
    /// Passed in by the caller, labelled (`--provider`, `.crit/config.yaml`).
    Explicit(String),
    /// An environment variable.
    Env(String),
    /// Picked by auto-detection, with the reason.
    Auto(String),
    Default,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Explicit(label) => f.write_str(label),
            Source::Env(var) => write!(f, "env {var}"),
            Source::Auto(why) => write!(f, "auto: {why}"),
            Source::Default => f.write_str("default"),
        }
    }
}

/// A value and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sourced<T> {
    pub value: T,
    pub source: Source,
}

impl<T> Sourced<T> {
    pub fn new(value: T, source: Source) -> Self {
        Sourced { value, source }
    }

    /// A value the caller passed in, labelled by where it came from.
    pub fn explicit(value: T, label: impl Into<String>) -> Self {
        Sourced::new(value, Source::Explicit(label.into()))
    }
}
