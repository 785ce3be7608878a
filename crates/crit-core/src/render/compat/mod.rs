//! The JSON the original tools print, for scripts written against them
//! (`--compat reldo|squadron|mala`). Each shape is the original's exactly;
//! where crit knows more (an INCOMPLETE verdict, a cost it cannot know), it
//! maps onto the original's words on the failing side, and says so in the
//! module of that shape.

pub mod mala;
pub mod reldo;
pub mod squadron;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::ReviewResult;

/// An original tool whose JSON crit can print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Compat {
    /// Reldo's `--json`: `text`, `structured_output`, token counts, cost, duration.
    #[cfg_attr(
        feature = "clap",
        value(
            help = "Reldo's --json: text, structured_output, tokens, total_cost_usd, duration_ms"
        )
    )]
    Reldo,
    /// The review templates' `ReviewResult.to_dict()`.
    #[cfg_attr(
        feature = "clap",
        value(
            help = "The review templates' ReviewResult: verdict, findings, raw_output, template_name, input_files, timestamp"
        )
    )]
    Squadron,
    /// mala's `ReviewResult`: `passed`, `issues`, `parse_error`, `fatal_error`.
    #[cfg_attr(
        feature = "clap",
        value(
            help = "mala's ReviewResult: passed, issues, parse_error, fatal_error, review_log_path"
        )
    )]
    Mala,
}

impl Compat {
    pub const ALL: [Compat; 3] = [Compat::Reldo, Compat::Squadron, Compat::Mala];

    pub fn name(self) -> &'static str {
        match self {
            Compat::Reldo => "reldo",
            Compat::Squadron => "squadron",
            Compat::Mala => "mala",
        }
    }

    pub fn parse(s: &str) -> Option<Compat> {
        Compat::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(s.trim()))
    }

    /// The result as this tool's JSON value.
    pub fn value(self, result: &ReviewResult) -> serde_json::Value {
        match self {
            Compat::Reldo => reldo::value(result),
            Compat::Squadron => squadron::value(result),
            Compat::Mala => mala::value(result),
        }
    }
}

/// The result in `compat`'s JSON, its fields in the original's order,
/// pretty-printed with a final newline.
pub fn render(result: &ReviewResult, compat: Compat) -> String {
    let text = match compat {
        Compat::Reldo => serde_json::to_string_pretty(&reldo::shape(result)),
        Compat::Squadron => serde_json::to_string_pretty(&squadron::shape(result)),
        Compat::Mala => serde_json::to_string_pretty(&mala::shape(result)),
    };
    let mut text = crate::printable::json_document(text.unwrap_or_default());
    text.push('\n');
    text
}

#[cfg(test)]
mod golden_tests;
