//! mala's `mala.yaml`, read for the three keys of its code-review section
//! when a project has one: `reviewer_type` (`agent_sdk`, the default, or
//! `cerberus`: an external reviewer program), `agent_sdk_reviewer_model`
//! (default `sonnet`) and `agent_sdk_review_timeout` (seconds, default 600).
//! Everything else in the file is mala's own and left alone. crit's own
//! `.crit/config.yaml`, the environment and flags win over these.
//!
//! `reviewer_type: cerberus` makes crit run a program, so a project's file
//! gets it only as the project's rules allow ([`crate::trust`]).

use serde_json::Value;

use crit_llm::Sourced;

use crate::config::line_of;
use crate::error::FileError;
use crate::trust::{Gated, ProjectRules};

/// The file, from the project root.
pub const FILE: &str = "mala.yaml";
/// mala's default model for the in-process reviewer.
pub const DEFAULT_MODEL: &str = "sonnet";

/// Which reviewer mala.yaml asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewerType {
    /// In-process: crit's agent reviewer.
    AgentSdk,
    /// An external reviewer program (`review-gate`): crit's command reviewer.
    Cerberus,
}

impl ReviewerType {
    /// The name mala logs it under.
    pub fn log_name(self) -> &'static str {
        match self {
            ReviewerType::AgentSdk => "agent-sdk",
            ReviewerType::Cerberus => "cerberus",
        }
    }
}

/// What mala.yaml sets, each with its line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MalaConfig {
    pub reviewer_type: Option<Sourced<ReviewerType>>,
    pub model: Option<Sourced<String>>,
    pub timeout_secs: Option<Sourced<u64>>,
}

impl MalaConfig {
    /// The project's mala.yaml where `rules` read the project (`None`: there
    /// is none). `cerberus` is dropped, with the rules' warning, unless they
    /// allow it.
    pub fn load(rules: &ProjectRules) -> Result<Option<MalaConfig>, FileError> {
        let Some(file) = rules.read(FILE)? else {
            return Ok(None);
        };
        let mut config = MalaConfig::parse(&file.text, &file.label)?;
        if let Some(t) = &config.reviewer_type
            && t.value == ReviewerType::Cerberus
            && !rules.allow(Gated::new(
                FILE,
                line_of(&t.source),
                "reviewer_type",
                "cerberus",
            ))
        {
            config.reviewer_type = None;
        }
        Ok(Some(config))
    }

    /// The three keys of `text`; `file` names it in errors and provenance.
    pub fn parse(text: &str, file: &str) -> Result<MalaConfig, FileError> {
        if text.trim().is_empty() {
            return Ok(MalaConfig::default());
        }
        let doc: Value =
            serde_saphyr::from_str(text).map_err(|e| FileError::from_yaml(file, &e))?;
        let line = |key: &str| {
            text.lines()
                .position(|l| l.starts_with(key) && l[key.len()..].trim_start().starts_with(':'))
                .map_or(1, |i| i + 1)
        };
        let at = |key: &str, message: String| FileError::at(file, line(key) as u64, 1, message);
        let source = |key: &str| format!("{file}:{}", line(key));
        let mut config = MalaConfig::default();
        match doc.get("reviewer_type") {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) => {
                let t = match s.trim() {
                    "agent_sdk" | "agent-sdk" => ReviewerType::AgentSdk,
                    "cerberus" => ReviewerType::Cerberus,
                    other => {
                        return Err(at(
                            "reviewer_type",
                            format!(
                                "unknown reviewer_type `{other}`; expected agent_sdk or cerberus"
                            ),
                        ));
                    }
                };
                config.reviewer_type = Some(Sourced::explicit(t, source("reviewer_type")));
            }
            Some(_) => {
                return Err(at(
                    "reviewer_type",
                    "reviewer_type must be agent_sdk or cerberus".into(),
                ));
            }
        }
        match doc.get("agent_sdk_reviewer_model") {
            None | Some(Value::Null) => {}
            Some(Value::String(m)) if !m.trim().is_empty() => {
                config.model = Some(Sourced::explicit(
                    m.trim().to_string(),
                    source("agent_sdk_reviewer_model"),
                ));
            }
            Some(_) => {
                return Err(at(
                    "agent_sdk_reviewer_model",
                    "agent_sdk_reviewer_model must be a model name, e.g. sonnet".into(),
                ));
            }
        }
        match doc.get("agent_sdk_review_timeout") {
            None | Some(Value::Null) => {}
            Some(v) => match v.as_u64().filter(|n| *n > 0) {
                Some(n) => {
                    config.timeout_secs =
                        Some(Sourced::explicit(n, source("agent_sdk_review_timeout")));
                }
                None => {
                    return Err(at(
                        "agent_sdk_review_timeout",
                        format!(
                            "agent_sdk_review_timeout must be a positive number of seconds, got {v}"
                        ),
                    ));
                }
            },
        }
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_keys_and_nothing_else() {
        let c = MalaConfig::parse(
            "# mala\nbeads_dir: .beads\nreviewer_type: cerberus\nagent_sdk_review_timeout: 900\nagent_sdk_reviewer_model: opus\nvalidations: [lint]\n",
            "mala.yaml",
        )
        .unwrap();
        assert_eq!(c.reviewer_type.unwrap().value, ReviewerType::Cerberus);
        assert_eq!(c.timeout_secs.as_ref().unwrap().value, 900);
        assert_eq!(c.timeout_secs.unwrap().source.to_string(), "mala.yaml:4");
        assert_eq!(c.model.unwrap().value, "opus");
        let d = MalaConfig::parse("reviewer_type: agent_sdk\n", "mala.yaml").unwrap();
        assert_eq!(d.reviewer_type.unwrap().value, ReviewerType::AgentSdk);
        assert_eq!(MalaConfig::parse("", "m").unwrap(), MalaConfig::default());
        for bad in [
            "reviewer_type: codex\n",
            "reviewer_type: [a]\n",
            "agent_sdk_review_timeout: soon\n",
            "agent_sdk_review_timeout: -5\n",
            "agent_sdk_reviewer_model: 3\n",
        ] {
            let e = MalaConfig::parse(bad, "mala.yaml").unwrap_err().to_string();
            assert!(e.starts_with("mala.yaml:1:1: "), "{e}");
        }
    }
}
