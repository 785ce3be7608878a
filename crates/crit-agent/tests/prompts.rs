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

/// The Bash description lists exactly what the policy allows; this keeps them in step.
#[test]
fn bash_description_names_every_allowed_program_and_subcommand() {
    let text = crit_agent::Tool::description(&crit_agent::BashTool);
    for name in crit_agent::tools::ALLOWED_PROGRAMS
        .iter()
        .chain(crit_agent::tools::GIT_SUBCOMMANDS)
    {
        assert!(
            text.contains(&format!("`{name}`")),
            "`{name}` missing from prompts/tools/bash.md"
        );
    }
}
