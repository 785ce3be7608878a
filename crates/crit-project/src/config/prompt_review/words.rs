//! The prompt-review plugin's words for how bad a finding is and which edit a
//! reviewer may propose: its settings name them, and its critiques use them.

use std::fmt;

use serde::{Deserialize, Serialize};

/// How bad a finding is, in the plugin's four words. Ordered most severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Blocker,
    Major,
    Minor,
    Nit,
}

impl Severity {
    pub const ALL: [Severity; 4] = [
        Severity::Blocker,
        Severity::Major,
        Severity::Minor,
        Severity::Nit,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Blocker => "blocker",
            Severity::Major => "major",
            Severity::Minor => "minor",
            Severity::Nit => "nit",
        }
    }

    pub fn parse(word: &str) -> Option<Severity> {
        Severity::ALL
            .into_iter()
            .find(|s| s.as_str().eq_ignore_ascii_case(word.trim()))
    }

    /// crit's one scale (blocker → P0 … nit → P3), through `crit_core::scale`.
    pub fn to_crit(self) -> crit_core::Severity {
        crit_core::scale::critique_severity(self.as_str()).unwrap_or(crit_core::Severity::P3)
    }

    /// The word for a crit severity (`P1` → `major`), for `--fail-on major`.
    pub fn from_crit(s: crit_core::Severity) -> Severity {
        Severity::parse(crit_core::scale::critique_word(s)).unwrap_or(Severity::Nit)
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The bounded set of edits a reviewer may propose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum OpKind {
    AddConstraint,
    RemoveConstraint,
    RefactorStructure,
    ReplaceVague,
    AddContext,
    AddGuardrail,
    AddAcceptanceCriteria,
}

impl OpKind {
    pub const ALL: [OpKind; 7] = [
        OpKind::AddConstraint,
        OpKind::RemoveConstraint,
        OpKind::RefactorStructure,
        OpKind::ReplaceVague,
        OpKind::AddContext,
        OpKind::AddGuardrail,
        OpKind::AddAcceptanceCriteria,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            OpKind::AddConstraint => "AddConstraint",
            OpKind::RemoveConstraint => "RemoveConstraint",
            OpKind::RefactorStructure => "RefactorStructure",
            OpKind::ReplaceVague => "ReplaceVague",
            OpKind::AddContext => "AddContext",
            OpKind::AddGuardrail => "AddGuardrail",
            OpKind::AddAcceptanceCriteria => "AddAcceptanceCriteria",
        }
    }

    pub fn parse(word: &str) -> Option<OpKind> {
        OpKind::ALL.into_iter().find(|o| o.as_str() == word.trim())
    }

    /// Ops that add text (as opposed to replacing or removing it).
    pub fn adds(self) -> bool {
        !matches!(self, OpKind::RemoveConstraint | OpKind::ReplaceVague)
    }
}

impl fmt::Display for OpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
