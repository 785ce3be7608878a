//! The persona's own words on a check's question or rejection
//! (expert-review's "Persona Usage"): one short answer from the panel's
//! model, in the persona's voice, that crit shows on one escaped line.

use std::time::Duration;

use crit_agent::RunLimits;
use crit_checks::{VoiceError, VoiceKind, VoiceRequest};
use serde_json::{Value, json};

use super::LlmPanel;
use crate::engine::panel::{self, PanelEnv, ReviewerPlan};
use crate::engine::prompts::{OutputSpec, contract_instructions, render_prompt};

const VOICE: &str = include_str!("../../../prompts/plan/voice.md");
/// Most characters of a persona's words on a question or a rejection.
const VOICE_CHARS: u64 = 800;

impl LlmPanel {
    /// The persona's own words on a check's question or rejection.
    pub(super) async fn word(&self, req: &VoiceRequest<'_>) -> Result<String, VoiceError> {
        let user = render_prompt(
            VOICE,
            minijinja::context! {
                name => req.persona,
                pattern => req.pattern,
                reason => req.reason.trim(),
                line => req.line,
                line_text => req.line_text,
                rejection => req.kind == VoiceKind::Rejection,
            },
        )
        .map_err(|e| VoiceError::Prompt(e.to_string()))?;
        let schema = json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["text"],
            "properties": {"text": {"type": "string", "minLength": 1, "maxLength": VOICE_CHARS}}
        });
        let output = OutputSpec::Schema(schema);
        let system = format!(
            "You speak as {} to the author of a plan.\n\n{}",
            req.persona,
            contract_instructions(&output)
                .map_err(|e| VoiceError::Prompt(e.to_string()))?
                .trim_end()
        );
        let plan = ReviewerPlan {
            name: req.persona.to_string(),
            model: self.default_model.clone(),
            system,
            user,
            shared: None,
            tools: Vec::new(),
            output,
            limits: RunLimits {
                max_turns: Some(3),
                timeout: Some(self.timeout.min(Duration::from_secs(120))),
                max_budget_usd: self.max_budget_usd,
                ..RunLimits::default()
            },
            max_output_tokens: 1024,
            sub_agents: Vec::new(),
        };
        let env = PanelEnv {
            root: req.project_root.to_path_buf(),
            cancel: self.cancel.clone(),
            redaction: crate::engine::redaction::tools_redactor(),
            ..PanelEnv::default()
        };
        let run = panel::run_panel(&self.backend, std::slice::from_ref(&plan), &env)
            .await
            .into_iter()
            .next()
            .ok_or(VoiceError::NoAnswer)?;
        let words = run
            .structured
            .as_ref()
            .and_then(|v| v.get("text"))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|t| !t.is_empty());
        match words {
            Some(w) => Ok(w.chars().take(VOICE_CHARS as usize).collect()),
            None => Err(match run.outcome.error.or(run.parse_error) {
                Some(why) => VoiceError::Failed(why),
                None => VoiceError::NoWords,
            }),
        }
    }
}
