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

/// The Task tool's description lists the sub-agents as Claude Code does.
#[test]
fn task_description() {
    let defs = [
        crit_agent::SubAgentDef {
            name: "security-reviewer".into(),
            description: "Finds injection, auth and secrets problems.".into(),
            system_prompt: "You review for security.".into(),
            tools: vec!["Read".into(), "Grep".into(), "Glob".into()],
            model: None,
        },
        crit_agent::SubAgentDef {
            name: "generalist".into(),
            description: "Anything else.".into(),
            system_prompt: "You review.".into(),
            tools: Vec::new(),
            model: Some("haiku".into()),
        },
    ];
    let spec = crit_agent::subagent::task_tool_spec(&defs, &ToolRegistry::builtin());
    insta::assert_snapshot!("description_Task", spec.description);
    insta::assert_json_snapshot!("schema_Task", spec.input_schema);
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
