//! `claude -p --output-format stream-json --verbose` lines → an [`AgentOutcome`].
//! Fields are read by name: key order differs by version.

use crit_core::Usage;
use serde_json::{Value, json};

use crate::error::LlmError;
use crate::protocol::{Cost, StopReason};

/// What a Claude Code run produced.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AgentOutcome {
    /// The final answer text (`result`).
    pub text: String,
    /// The `--json-schema` answer.
    pub structured_output: Option<Value>,
    /// Set when a limit ended the run (`error_max_turns`, `error_max_budget_usd`, …).
    pub incomplete: Option<AgentIncomplete>,
    pub usage: Usage,
    /// `total_cost_usd`: computed by the CLI from list prices, even on a subscription.
    pub cost: Cost,
    pub num_turns: u32,
    pub model: Option<String>,
    pub session_id: Option<String>,
    pub stop_reason: Option<StopReason>,
    pub terminal_reason: Option<String>,
    /// Every `assistant` and `user` line, verbatim, for the session transcript.
    pub transcript: Vec<Value>,
}

/// How a limit ended a Claude Code run: the result's `subtype` and the CLI's
/// messages. Displayed as `subtype: message; message`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AgentIncomplete {
    /// `error_max_turns`, `error_max_budget_usd`, `error_during_execution`, …
    pub subtype: String,
    pub errors: Vec<String>,
}

impl AgentIncomplete {
    /// The limit's name: the subtype as the CLI wrote it.
    pub fn limit(&self) -> &str {
        &self.subtype
    }
}

impl std::fmt::Display for AgentIncomplete {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.subtype)?;
        if !self.errors.is_empty() {
            write!(f, ": {}", self.errors.join("; "))?;
        }
        Ok(())
    }
}

/// What a running agent is doing, for a progress display.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AgentProgress {
    Started { model: String },
    Text { text: String },
    ToolUse { name: String, input: Value },
    Retrying { attempt: u64, status: Option<u16> },
}

/// Folds the lines of one run.
#[derive(Debug, Default)]
pub(crate) struct LineParser {
    pub outcome: AgentOutcome,
    pub result: Option<Value>,
}

impl LineParser {
    /// Folds one stdout line in; returns what a progress display would show.
    pub(super) fn line(&mut self, line: &str) -> Vec<AgentProgress> {
        let line = line.trim();
        if line.is_empty() {
            return vec![];
        }
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            tracing::debug!(line, "claude printed a non-JSON line");
            return vec![];
        };
        match (v["type"].as_str(), v["subtype"].as_str()) {
            (Some("system"), Some("init")) => {
                self.outcome.model = v["model"].as_str().map(str::to_string);
                self.outcome.session_id = v["session_id"].as_str().map(str::to_string);
                vec![AgentProgress::Started {
                    model: self.outcome.model.clone().unwrap_or_default(),
                }]
            }
            (Some("system"), Some("api_retry")) => {
                let attempt = v["attempt"].as_u64().unwrap_or(0);
                let status = v["error_status"]
                    .as_u64()
                    .and_then(|s| u16::try_from(s).ok());
                tracing::warn!(
                    attempt,
                    status,
                    error = v["error"].as_str(),
                    "claude is retrying an API call"
                );
                vec![AgentProgress::Retrying { attempt, status }]
            }
            (Some("assistant"), _) => {
                let out = v["message"]["content"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|b| match b["type"].as_str() {
                        Some("text") => Some(AgentProgress::Text {
                            text: b["text"].as_str().unwrap_or_default().to_string(),
                        }),
                        Some("tool_use") => Some(AgentProgress::ToolUse {
                            name: b["name"].as_str().unwrap_or_default().to_string(),
                            input: b["input"].clone(),
                        }),
                        _ => None,
                    })
                    .collect();
                self.outcome.transcript.push(v);
                out
            }
            (Some("user"), _) => {
                self.outcome.transcript.push(v);
                vec![]
            }
            (Some("result"), _) => {
                self.result = Some(v);
                vec![]
            }
            _ => vec![],
        }
    }

    /// The outcome, once stdout has closed.
    pub(super) fn finish(mut self, schema_asked: bool) -> Result<AgentOutcome, LlmError> {
        let Some(r) = self.result.take() else {
            return Err(LlmError::Agent {
                message: "claude ended without a result line".into(),
            });
        };
        let mut out = self.outcome;
        let u = &r["usage"];
        let n = |k: &str| u[k].as_u64().unwrap_or(0);
        out.usage = Usage {
            input_tokens: n("input_tokens"),
            output_tokens: n("output_tokens"),
            cache_write_tokens: n("cache_creation_input_tokens"),
            cache_read_tokens: n("cache_read_input_tokens"),
        };
        out.cost = Cost {
            usd: r["total_cost_usd"].as_f64().unwrap_or(0.0),
            priced: r["total_cost_usd"].is_number(),
        };
        out.num_turns = r["num_turns"]
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(0);
        out.stop_reason = r["stop_reason"].as_str().map(StopReason::from_wire);
        out.terminal_reason = r["terminal_reason"].as_str().map(str::to_string);
        if let Some(s) = r["session_id"].as_str() {
            out.session_id = Some(s.to_string());
        }
        let subtype = r["subtype"].as_str().unwrap_or_default();
        let is_error = r["is_error"].as_bool().unwrap_or(false);
        let text = r["result"].as_str().unwrap_or_default().to_string();

        if subtype.starts_with("error_") {
            let errors = r["errors"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            out.incomplete = Some(AgentIncomplete {
                subtype: subtype.to_string(),
                errors,
            });
            out.text = text;
            return Ok(out);
        }
        if is_error {
            // API failures come as subtype "success" with is_error.
            return Err(api_error(&r, &text));
        }
        out.text = text;
        if schema_asked {
            match r.get("structured_output") {
                Some(v) if !v.is_null() => out.structured_output = Some(v.clone()),
                _ => {
                    return Err(LlmError::Parse {
                        message: "Claude Code finished without `structured_output`: the model never called the StructuredOutput tool".into(),
                    });
                }
            }
        }
        Ok(out)
    }
}

fn api_error(r: &Value, text: &str) -> LlmError {
    if let Some(status) = r["api_error_status"]
        .as_u64()
        .and_then(|s| u16::try_from(s).ok())
    {
        return LlmError::from_http(
            status,
            None,
            &json!({"error": {"message": text}}).to_string(),
        );
    }
    if r["terminal_reason"].as_str() == Some("prompt_too_long") {
        return LlmError::ContextTooLong {
            message: text.to_string(),
        };
    }
    let lower = text.to_ascii_lowercase();
    if lower.contains("not logged in") || lower.contains("/login") {
        return LlmError::Auth {
            status: 401,
            message: text.to_string(),
        };
    }
    if lower.contains("unable to connect") {
        return LlmError::Network {
            message: text.to_string(),
        };
    }
    LlmError::Agent {
        message: if text.is_empty() {
            "claude reported an error without a message".into()
        } else {
            text.to_string()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(lines: &[Value], schema: bool) -> Result<AgentOutcome, LlmError> {
        let mut p = LineParser::default();
        for l in lines {
            p.line(&l.to_string());
        }
        p.line("not json at all");
        p.finish(schema)
    }

    #[test]
    fn key_order_does_not_matter_and_usage_is_read() {
        let r = json!({"usage":{"output_tokens":32,"input_tokens":12612,"cache_read_input_tokens":5,"cache_creation_input_tokens":7},
                        "total_cost_usd":0.051088,"num_turns":2,"is_error":false,"subtype":"success","type":"result",
                        "result":"{\"ok\":true}","structured_output":{"ok":true},"stop_reason":"tool_use"});
        let o = parse(&[r], true).unwrap();
        assert_eq!(o.structured_output, Some(json!({"ok": true})));
        assert_eq!(o.usage.input_tokens, 12612);
        assert_eq!(o.usage.cache_write_tokens, 7);
        assert_eq!(o.cost.usd, 0.051088);
        assert_eq!(o.num_turns, 2);
    }

    #[test]
    fn not_logged_in_is_auth() {
        let r = json!({"type":"result","subtype":"success","is_error":true,"api_error_status":null,"result":"Not logged in · Please run /login"});
        assert!(matches!(parse(&[r], false), Err(LlmError::Auth { .. })));
    }

    #[test]
    fn no_result_line() {
        assert!(matches!(parse(&[], false), Err(LlmError::Agent { .. })));
    }
}
