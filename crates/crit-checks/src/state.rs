//! `state.yaml` and `context.yaml` (expert-review's SETUP steps 3, 4 and 7).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::check::RawCheck;
use crate::error::CheckError;
use crate::yaml;

/// The review's memory between runs (expert-review's "State File").
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    #[serde(default)]
    pub edits: u32,
    #[serde(default)]
    pub retries: BTreeMap<String, u32>,
    #[serde(default)]
    pub history: Vec<HistoryEntry>,
    #[serde(default)]
    pub approved: Vec<String>,
}

/// One edit: which check, what changed, where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryEntry {
    pub check: String,
    pub fix: String,
    pub line: u32,
}

impl State {
    /// Parse `state.yaml`; a malformed file yields the default state and a warning.
    pub fn parse_or_reset(path: &Path, text: &str) -> (State, Option<String>) {
        match yaml::parse::<State>(path, text) {
            Ok(s) => (s, None),
            Err(e) => (
                State::default(),
                Some(format!("{e}; state.yaml was reset to the default state")),
            ),
        }
    }

    pub fn to_yaml(&self) -> String {
        // Written by hand: the shape is fixed and must read like expert-review's example.
        let mut out = format!("edits: {}\n", self.edits);
        if self.retries.is_empty() {
            out.push_str("retries: {}\n");
        } else {
            out.push_str("retries:\n");
            for (k, v) in &self.retries {
                out.push_str(&format!("  {}: {v}\n", quote(k)));
            }
        }
        if self.history.is_empty() {
            out.push_str("history: []\n");
        } else {
            out.push_str("history:\n");
            for h in &self.history {
                out.push_str(&format!(
                    "  - check: {}\n    fix: {}\n    line: {}\n",
                    quote(&h.check),
                    quote(&h.fix),
                    h.line
                ));
            }
        }
        if self.approved.is_empty() {
            out.push_str("approved: []\n");
        } else {
            out.push_str("approved:\n");
            for a in &self.approved {
                out.push_str(&format!("  - {}\n", quote(a)));
            }
        }
        out
    }

    pub fn retries_of(&self, id: &str) -> u32 {
        self.retries.get(id).copied().unwrap_or(0)
    }

    pub fn is_approved(&self, id: &str) -> bool {
        self.approved.iter().any(|a| a == id)
    }
}

/// A plain scalar when it reads back as the same string (`no_eval`), else a
/// double-quoted one, which is valid YAML whatever the text.
fn quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !s.starts_with(['-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9'])
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n"
        );
    if plain {
        s.to_string()
    } else {
        serde_json::to_string(s).unwrap_or_else(|_| format!("{s:?}"))
    }
}

/// One reviewer of a panel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Persona {
    pub name: String,
    #[serde(default)]
    pub domain: String,
    #[serde(default)]
    pub focus: Vec<String>,
}

/// `context.yaml`. Keys expert-review does not name are allowed and ignored.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Context {
    #[serde(default)]
    pub reviewer_persona: Option<String>,
    #[serde(default)]
    pub reviewer_personas: Option<Vec<Persona>>,
    #[serde(default)]
    pub project_root: Option<PathBuf>,
    #[serde(default)]
    pub(crate) checks: Option<Vec<RawCheck>>,
}

impl Context {
    pub fn parse(path: &Path, text: &str) -> Result<Context, CheckError> {
        yaml::parse(path, text)
    }
}

/// Expert-review's fallback panel, used when context.yaml names no reviewer.
pub fn default_panel() -> Vec<Persona> {
    vec![
        Persona {
            name: "Senior Technical Reviewer".into(),
            domain: "general".into(),
            focus: vec!["correctness".into(), "clarity".into()],
        },
        Persona {
            name: "Claude".into(),
            domain: "anti-pattern detection".into(),
            focus: vec!["CLAUDE.md violations".into()],
        },
    ]
}

/// What `context.yaml` is created with when it is missing: no reviewer, so
/// AUTO-SELECT picks the panel (and writes it here) when a model backend is
/// configured; without one, expert-review's default panel stands in.
pub fn minimal_context_yaml() -> String {
    "# Created by `crit plan`: no context.yaml was found. With a model backend, AUTO-SELECT\n\
     # picks the reviewer panel and writes it here; without one, expert-review's default\n\
     # panel (Senior Technical Reviewer, Claude) reviews.\n"
        .to_string()
}

/// `context` (a context.yaml's text that names no reviewer) with
/// `reviewer_personas: panel` added.
pub fn with_panel(context: &str, panel: &[Persona]) -> String {
    // An empty `reviewer_personas: []` (or persona) named no one: replaced.
    let empty = |l: &str| {
        let Some((key, value)) = l.split_once(':') else {
            return false;
        };
        matches!(key, "reviewer_personas" | "reviewer_persona")
            && matches!(value.trim(), "" | "[]" | "null" | "~" | "\"\"" | "''")
    };
    let mut out: String = context
        .lines()
        .filter(|l| !empty(l))
        .map(|l| format!("{l}\n"))
        .collect();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("# Chosen by AUTO-SELECT.\nreviewer_personas:\n");
    for p in panel {
        let focus: Vec<String> = p.focus.iter().map(|f| quote(f)).collect();
        out.push_str(&format!(
            "  - name: {}\n    domain: {}\n    focus: [{}]\n",
            quote(&p.name),
            quote(&p.domain),
            focus.join(", ")
        ));
    }
    out
}

/// Who reviews: one persona or a panel (expert-review's "Backward Compatibility").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reviewers {
    pub panel: Vec<Persona>,
    /// True for the single-expert `reviewer_persona` form.
    pub single: bool,
    /// True when neither key was present and the default panel stands in.
    pub defaulted: bool,
}

impl Reviewers {
    /// `reviewer_personas` wins over `reviewer_persona` (with a warning); with
    /// neither, the default panel (AUTO-SELECT's fallback: no model picks one here).
    pub fn from_context(ctx: &Context) -> (Reviewers, Option<String>) {
        let plural = ctx.reviewer_personas.as_ref().filter(|p| !p.is_empty());
        let single = ctx
            .reviewer_persona
            .as_ref()
            .map(|s| s.trim())
            .filter(|s| !s.is_empty());
        match (plural, single) {
            (Some(panel), single) => {
                let mut warnings: Vec<String> = single.map(|_| "context.yaml has both reviewer_personas and reviewer_persona; reviewer_personas takes precedence and reviewer_persona is redundant".to_string()).into_iter().collect();
                // "Claude must always be included", a hand-written panel too.
                let (panel, added) = crate::panel_rules::with_claude(panel.clone());
                if added {
                    warnings.push("context.yaml's reviewer_personas has no Claude; Claude joins the panel for anti-pattern detection, as expert-review requires".into());
                }
                (
                    Reviewers {
                        panel,
                        single: false,
                        defaulted: false,
                    },
                    (!warnings.is_empty()).then(|| warnings.join("; ")),
                )
            }
            (None, Some(name)) => (
                Reviewers {
                    panel: vec![Persona {
                        name: name.to_string(),
                        domain: String::new(),
                        focus: Vec::new(),
                    }],
                    single: true,
                    defaulted: false,
                },
                None,
            ),
            (None, None) => (
                Reviewers {
                    panel: default_panel(),
                    single: false,
                    defaulted: true,
                },
                None,
            ),
        }
    }

    /// `Reviewer: …` in the output: the persona, or the panel's names.
    pub fn display(&self) -> String {
        self.panel
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The voice of the deterministic checks: the panel's anti-pattern member
    /// (expert-review always includes Claude for that), else the first reviewer.
    pub fn check_voice(&self) -> &str {
        self.panel
            .iter()
            .find(|p| p.domain.to_lowercase().contains("anti-pattern"))
            .or_else(|| self.panel.iter().find(|p| p.name.starts_with("Claude")))
            .or(self.panel.first())
            .map_or("Reviewer", |p| p.name.as_str())
    }
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
