#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns
//! Tool descriptions and schemas are prompts the model reads: a change to them is
//! a reviewed change.
use crit_agent::ToolRegistry;

#[test]
fn tool_descriptions() {
    for tool in ToolRegistry::builtin().tools() {
        insta::assert_snapshot!(format!("description_{}", tool.name()), tool.description());
    }
}

#[test]
fn tool_input_schemas() {
    for tool in ToolRegistry::builtin().tools() {
        insta::assert_json_snapshot!(format!("schema_{}", tool.name()), tool.input_schema());
    }
}
