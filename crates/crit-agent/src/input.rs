//! Reading a tool's JSON input field by field, so every validation error names the
//! field and says what was expected. Lenient where models often slip: numbers and
//! booleans sent as strings are accepted.

use serde_json::{Map, Value};

/// A validation error; `Display` is the message the model reads.
#[derive(Debug, thiserror::Error)]
pub(crate) enum InputError {
    #[error("invalid input: expected a JSON object with the tool's fields, got {0}")]
    NotObject(&'static str),
    #[error("invalid input: unknown field `{field}`; known fields: {known}")]
    Unknown { field: String, known: String },
    #[error("invalid input: missing required field `{0}`")]
    Missing(&'static str),
    #[error("invalid input: field `{field}` must be {expected}, got {got}")]
    Type {
        field: &'static str,
        expected: &'static str,
        got: String,
    },
}

pub(crate) struct Input {
    map: Map<String, Value>,
}

impl Input {
    /// Checks that `value` is an object whose keys are all in `known`.
    pub(crate) fn parse(value: Value, known: &[&str]) -> Result<Self, InputError> {
        let map = match value {
            Value::Object(m) => m,
            other => return Err(InputError::NotObject(kind(&other))),
        };
        if let Some(field) = map.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(InputError::Unknown {
                field: field.clone(),
                known: known
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        Ok(Self { map })
    }

    fn get(&self, field: &str) -> Option<&Value> {
        self.map.get(field).filter(|v| !v.is_null())
    }

    pub(crate) fn req_str(&self, field: &'static str) -> Result<String, InputError> {
        self.opt_str(field)?.ok_or(InputError::Missing(field))
    }

    pub(crate) fn opt_str(&self, field: &'static str) -> Result<Option<String>, InputError> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(type_err(field, "a string", other)),
        }
    }

    /// A non-negative integer; `min` rejects too-small values (e.g. 1-based offsets).
    pub(crate) fn opt_u64(&self, field: &'static str, min: u64) -> Result<Option<u64>, InputError> {
        let expected = if min == 0 {
            "a non-negative integer"
        } else {
            "a positive integer"
        };
        let n = match self.get(field) {
            None => return Ok(None),
            Some(Value::Number(n)) => n.as_u64(),
            Some(Value::String(s)) => s.trim().parse::<u64>().ok(),
            Some(other) => return Err(type_err(field, expected, other)),
        };
        match n {
            Some(n) if n >= min => Ok(Some(n)),
            _ => Err(type_err(
                field,
                expected,
                self.get(field).unwrap_or(&Value::Null),
            )),
        }
    }

    pub(crate) fn opt_bool(&self, field: &'static str) -> Result<Option<bool>, InputError> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(Value::String(s)) if s == "true" => Ok(Some(true)),
            Some(Value::String(s)) if s == "false" => Ok(Some(false)),
            Some(other) => Err(type_err(field, "true or false", other)),
        }
    }
}

fn type_err(field: &'static str, expected: &'static str, got: &Value) -> InputError {
    let mut shown = got.to_string();
    if shown.len() > 80 {
        let cut = (0..=80)
            .rev()
            .find(|i| shown.is_char_boundary(*i))
            .unwrap_or(0);
        shown.truncate(cut);
        shown.push('…');
    }
    InputError::Type {
        field,
        expected,
        got: shown,
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
