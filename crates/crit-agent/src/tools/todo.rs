//! `TodoWrite`: Claude Code's task list. It keeps a list and nothing else: the
//! list lives in the conversation (each call sends all of it), so the tool
//! checks the items and echoes them back; it touches no file.

use serde_json::{Value, json};

use crate::context::ToolContext;
use crate::tool::{Tool, ToolFuture, ToolOutput};

/// Items kept at most; a longer list is a model gone astray.
const MAX_ITEMS: usize = 100;

#[derive(Debug, Clone, Copy, Default)]
pub struct TodoWriteTool;

impl Tool for TodoWriteTool {
    fn name(&self) -> &str {
        "TodoWrite"
    }

    fn description(&self) -> &str {
        include_str!("../../prompts/tools/todo_write.md")
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "todos": {
                    "type": "array",
                    "description": "The updated todo list",
                    "items": {
                        "type": "object",
                        "properties": {
                            "content": {"type": "string", "minLength": 1},
                            "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]},
                            "activeForm": {"type": "string", "minLength": 1}
                        },
                        "required": ["content", "status", "activeForm"],
                        "additionalProperties": false
                    }
                }
            },
            "required": ["todos"],
            "additionalProperties": false
        })
    }

    fn call<'a>(&'a self, input: Value, _cx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move { update(&input) })
    }
}

fn update(input: &Value) -> ToolOutput {
    let Some(items) = input.get("todos").and_then(Value::as_array) else {
        return ToolOutput::error(
            "invalid input: expected {\"todos\": [{content, status, activeForm}, …]}",
        );
    };
    if items.len() > MAX_ITEMS {
        return ToolOutput::error(format!(
            "the list has {} items; keep it to {MAX_ITEMS}",
            items.len()
        ));
    }
    let mut lines = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let field = |k: &str| item.get(k).and_then(Value::as_str).unwrap_or_default();
        let mark = match field("status") {
            "pending" => "[ ]",
            "in_progress" => "[~]",
            "completed" => "[x]",
            other => {
                return ToolOutput::error(format!(
                    "todos[{i}].status `{other}`: expected pending, in_progress or completed"
                ));
            }
        };
        if field("content").trim().is_empty() {
            return ToolOutput::error(format!("todos[{i}].content is empty"));
        }
        lines.push(format!("{mark} {}", field("content").trim()));
    }
    ToolOutput::ok(format!(
        "Todos have been modified successfully. Keep using the list to track your progress.\n{}",
        lines.join("\n")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_list_and_checks_it() {
        let out = update(&json!({"todos": [
            {"content": "Read the diff", "status": "completed", "activeForm": "Reading the diff"},
            {"content": "Check auth", "status": "in_progress", "activeForm": "Checking auth"}
        ]}));
        assert!(!out.is_error);
        assert!(
            out.content.ends_with("[x] Read the diff\n[~] Check auth"),
            "{}",
            out.content
        );
        assert!(
            update(&json!({"todos": [{"content": "x", "status": "done", "activeForm": "x"}]}))
                .is_error
        );
        assert!(update(&json!({"list": []})).is_error);
        assert!(!update(&json!({"todos": []})).is_error);
    }
}
