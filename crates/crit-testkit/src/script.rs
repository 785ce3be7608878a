//! Steps written as JSON, for test suites in other languages that drive
//! [`FakeServer`](crate::FakeServer) through the `crit-fake-server` program
//! (the Python binding's pytest suite).
//!
//! A step is `{"reply": REPLY, "when_contains": "needle"}` (`when_contains`
//! optional) or a bare REPLY. A REPLY has exactly one body key:
//!
//! | key | value | builds |
//! | --- | --- | --- |
//! | `text` | string | [`Reply::text`] |
//! | `json` | any | [`Reply::json`] |
//! | `tool_use` | `{"name", "input"}` | [`Reply::tool_use`] |
//! | `tool_uses` | `[{"name", "input"}, …]` | [`Reply::tool_uses`] |
//! | `api_error` | `{"status", "type", "message"}` | [`Reply::api_error`] |
//! | `http_error` | `{"status", "body"}` | [`Reply::http_error`] |
//!
//! and optional modifiers: `then_text` (string), `usage`
//! (`[input, output, cache_write, cache_read]`), `delay_ms`,
//! `stall_after_bytes` (`[bytes, ms]`), `chunked` (bytes), `stop_reason`,
//! `model`.

use std::time::Duration;

use serde_json::Value;

use crate::reply::{Reply, Step};

/// What is wrong in a scripted reply: which key, and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptError(pub String);

impl From<String> for ScriptError {
    fn from(s: String) -> Self {
        ScriptError(s)
    }
}

impl From<&str> for ScriptError {
    fn from(s: &str) -> Self {
        ScriptError(s.to_string())
    }
}

impl std::fmt::Display for ScriptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ScriptError {}

/// Reads one step; the error says which key is wrong and what was expected.
pub fn step_from_json(v: &Value) -> Result<Step, ScriptError> {
    let reply_json = v.get("reply").unwrap_or(v);
    let reply = reply_from_json(reply_json)?;
    Ok(match v.get("when_contains") {
        None | Some(Value::Null) => Step::reply(reply),
        Some(Value::String(needle)) => Step::when_contains(needle.clone()).reply(reply),
        Some(other) => {
            return Err(ScriptError::from(format!(
                "when_contains: expected a string, got {other}"
            )));
        }
    })
}

/// Reads one reply (see the module docs for its keys).
pub fn reply_from_json(v: &Value) -> Result<Reply, ScriptError> {
    let Value::Object(map) = v else {
        return Err(ScriptError::from(format!(
            "a reply must be an object, got {v}"
        )));
    };
    let bodies = [
        "text",
        "json",
        "tool_use",
        "tool_uses",
        "api_error",
        "http_error",
    ];
    let given: Vec<&str> = bodies
        .iter()
        .copied()
        .filter(|k| map.contains_key(*k))
        .collect();
    let [kind] = given.as_slice() else {
        return Err(ScriptError::from(format!(
            "a reply needs exactly one of {}, got {}",
            bodies.join(", "),
            given.len()
        )));
    };
    let body = &map[*kind];
    let mut reply = match *kind {
        "text" => Reply::text(string(body, "text")?),
        "json" => Reply::json(body.clone()),
        "tool_use" => {
            let (name, input) = call(body)?;
            Reply::tool_use(name, input)
        }
        "tool_uses" => {
            let calls = body
                .as_array()
                .ok_or("tool_uses: expected a list of {\"name\", \"input\"}")?
                .iter()
                .map(call)
                .collect::<Result<Vec<_>, _>>()?;
            Reply::tool_uses(calls)
        }
        "api_error" => Reply::api_error(
            status(body)?,
            string(&body["type"], "api_error.type")?,
            string(&body["message"], "api_error.message")?,
        ),
        _ => Reply::http_error(status(body)?, body["body"].clone()),
    };
    if let Some(t) = map.get("then_text") {
        reply = reply.then_text(string(t, "then_text")?);
    }
    if let Some(u) = map.get("usage") {
        let n: Vec<u64> = u
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_u64).collect())
            .unwrap_or_default();
        let [i, o, w, r] = n.as_slice() else {
            return Err(ScriptError::from(format!(
                "usage: expected [input, output, cache_write, cache_read], got {u}"
            )));
        };
        reply = reply.usage(*i, *o, *w, *r);
    }
    if let Some(ms) = map.get("delay_ms") {
        reply = reply.delay(Duration::from_millis(number(ms, "delay_ms")?));
    }
    if let Some(s) = map.get("stall_after_bytes") {
        let n: Vec<u64> = s
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_u64).collect())
            .unwrap_or_default();
        let [bytes, ms] = n.as_slice() else {
            return Err(ScriptError::from(format!(
                "stall_after_bytes: expected [bytes, ms], got {s}"
            )));
        };
        reply = reply.stall_after_bytes(*bytes as usize, Duration::from_millis(*ms));
    }
    if let Some(n) = map.get("chunked") {
        reply = reply.chunked(number(n, "chunked")? as usize);
    }
    if let Some(s) = map.get("stop_reason") {
        reply = reply.stop_reason(string(s, "stop_reason")?);
    }
    if let Some(m) = map.get("model") {
        reply = reply.model(string(m, "model")?);
    }
    Ok(reply)
}

fn call(v: &Value) -> Result<(String, Value), ScriptError> {
    let name = string(&v["name"], "tool_use.name")?;
    Ok((name, v.get("input").cloned().unwrap_or(Value::Null)))
}

fn status(v: &Value) -> Result<u16, ScriptError> {
    v["status"]
        .as_u64()
        .and_then(|s| u16::try_from(s).ok())
        .ok_or_else(|| {
            ScriptError::from(format!(
                "status: expected an HTTP status code, got {}",
                v["status"]
            ))
        })
}

fn string(v: &Value, key: &str) -> Result<String, ScriptError> {
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| ScriptError::from(format!("{key}: expected a string, got {v}")))
}

fn number(v: &Value, key: &str) -> Result<u64, ScriptError> {
    v.as_u64()
        .ok_or_else(|| ScriptError::from(format!("{key}: expected a whole number, got {v}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn steps_read_as_the_constructors_build_them() {
        let s = step_from_json(&json!({"text": "hi", "usage": [1, 2, 3, 4]})).unwrap();
        assert_eq!(s, Step::reply(Reply::text("hi").usage(1, 2, 3, 4)));
        let s = step_from_json(&json!({
            "when_contains": "security",
            "reply": {"tool_use": {"name": "Read", "input": {"file_path": "a"}}, "delay_ms": 5}
        }))
        .unwrap();
        assert_eq!(
            s,
            Step::when_contains("security").reply(
                Reply::tool_use("Read", json!({"file_path": "a"})).delay(Duration::from_millis(5))
            )
        );
        let s = step_from_json(
            &json!({"api_error": {"status": 529, "type": "overloaded_error", "message": "m"}}),
        )
        .unwrap();
        assert_eq!(
            s,
            Step::reply(Reply::api_error(529, "overloaded_error", "m"))
        );
    }

    #[test]
    fn mistakes_are_named() {
        for (bad, says) in [
            (json!({}), "exactly one of"),
            (json!({"text": "a", "json": {}}), "exactly one of"),
            (json!({"text": 3}), "text: expected a string"),
            (json!({"text": "a", "usage": [1]}), "usage: expected"),
            (
                json!({"when_contains": 1, "reply": {"text": "a"}}),
                "when_contains",
            ),
            (json!({"http_error": {"status": "x"}}), "status"),
            (json!("text"), "must be an object"),
        ] {
            let e = step_from_json(&bad).unwrap_err();
            assert!(e.0.contains(says), "{bad}: {e}");
        }
    }
}
