//! The structured-output tool: its parameters are the requested JSON Schema, and
//! the run ends when the model calls it with valid arguments. Invalid arguments
//! go back to the model with the validation errors, up to a retry bound.
//!
//! Named `StructuredOutput`, as in Claude Code, so templates and fake servers
//! behave the same with either backend.

use std::sync::{Arc, OnceLock};

use crit_llm::ToolSpec;
use serde_json::Value;

/// The tool's name.
pub const TOOL_NAME: &str = "StructuredOutput";

/// A requested final answer shape.
#[derive(Debug, Clone)]
pub struct StructuredOutput {
    schema: Value,
    /// Compiled on first use by [`StructuredOutput::deferred`]: compiling
    /// costs a few milliseconds that a run which never gets an answer (a
    /// printed prompt) should not pay.
    validator: Arc<OnceLock<Result<jsonschema::Validator, SchemaError>>>,
    /// How many invalid answers are fed back before the run gives up.
    pub max_retries: u32,
}

/// Why a schema cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid output schema: {0}")]
pub struct SchemaError(String);

impl StructuredOutput {
    /// The schema, compiled now: an unusable schema is an error here.
    pub fn new(schema: Value) -> Result<Self, SchemaError> {
        let out = Self::deferred(schema);
        match out.validator() {
            Ok(_) => Ok(out),
            Err(e) => Err(e.clone()),
        }
    }

    /// For a schema checked where it was read (a template's or a
    /// configuration's, checked when loaded) or written by crit itself:
    /// compiled when the first answer is validated. Should it not compile
    /// then, every answer is rejected with the reason.
    pub fn deferred(schema: Value) -> Self {
        StructuredOutput {
            schema,
            validator: Arc::default(),
            max_retries: 3,
        }
    }

    fn validator(&self) -> Result<&jsonschema::Validator, &SchemaError> {
        self.validator
            .get_or_init(|| {
                jsonschema::validator_for(&self.schema).map_err(|e| SchemaError(e.to_string()))
            })
            .as_ref()
    }

    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// The tool the model is offered.
    pub fn tool_spec(&self) -> ToolSpec {
        ToolSpec {
            name: TOOL_NAME.to_string(),
            description: "Use this tool to return your final answer in the requested structured format. \
                          Call it exactly once, when you have finished investigating, with the complete answer \
                          as its arguments. If the call is rejected, fix the listed problems and call it again."
                .to_string(),
            input_schema: self.schema.clone(),
            strict: false,
        }
    }

    /// `Ok(())` when `value` is valid, else one line per problem, worded for the
    /// model (`/findings/0/priority: 7 is greater than the maximum of 3`).
    pub fn validate(&self, value: &Value) -> Result<(), SchemaMismatch> {
        let validator = self.validator().map_err(|e| SchemaMismatch {
            problems: vec![e.to_string()],
        })?;
        let errors: Vec<String> = validator
            .iter_errors(value)
            .map(|e| {
                let path = e.instance_path().to_string();
                format!(
                    "{}: {e}",
                    if path.is_empty() {
                        "(root)".to_string()
                    } else {
                        path
                    }
                )
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(SchemaMismatch { problems: errors })
        }
    }
}

/// Why an answer does not fit the schema: one line per problem, worded for
/// the model; `Display` is what it reads back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Output does not match required schema:\n{}", .problems.join("\n"))]
pub struct SchemaMismatch {
    pub problems: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn validation_messages_name_the_path() {
        let s = StructuredOutput::new(json!({
            "type": "object", "required": ["ok"],
            "properties": {"ok": {"type": "boolean"}, "n": {"type": "integer", "maximum": 3}}
        }))
        .unwrap();
        assert!(s.validate(&json!({"ok": true})).is_ok());
        let e = s.validate(&json!({"n": 7})).unwrap_err().to_string();
        assert!(
            e.starts_with("Output does not match required schema:\n"),
            "{e}"
        );
        assert!(e.contains("(root): \"ok\" is a required property"), "{e}");
        assert!(e.contains("/n: 7 is greater than the maximum of 3"), "{e}");
        assert!(StructuredOutput::new(json!({"type": 12})).is_err());
        // Deferred, the same schema rejects every answer with the reason.
        let bad = StructuredOutput::deferred(json!({"type": 12}));
        let e = bad.validate(&json!({})).unwrap_err().to_string();
        assert!(e.contains("invalid output schema"), "{e}");
    }
}
