#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns
use crate::common;

use common::Fixture;
use crit_agent::{RegistryError, ToolRegistry};
use serde_json::json;

#[test]
fn builtin_has_the_claude_code_names() {
    let r = ToolRegistry::builtin();
    assert_eq!(
        r.names().collect::<Vec<_>>(),
        ["Read", "Glob", "Grep", "Bash", "TodoWrite"]
    );
    assert!(r.tools().all(|t| !t.is_mutating()));
}

#[test]
fn from_names_keeps_order_and_drops_duplicates() {
    let r = ToolRegistry::from_names(&["Grep", "Read", "Grep"]).unwrap();
    assert_eq!(r.names().collect::<Vec<_>>(), ["Grep", "Read"]);
    assert_eq!(r.len(), 2);
    assert!(r.get("Bash").is_none());
    assert!(ToolRegistry::from_names::<&str>(&[]).unwrap().is_empty());
}

#[test]
fn unknown_names_are_a_typed_error_listing_the_known_tools() {
    let err = ToolRegistry::from_names(&["Read", "Write"]).unwrap_err();
    assert_eq!(
        err,
        RegistryError::UnknownTool {
            name: "Write".into(),
            known: vec![
                "Read".into(),
                "Glob".into(),
                "Grep".into(),
                "Bash".into(),
                "TodoWrite".into(),
            ],
        }
    );
    assert_eq!(
        err.to_string(),
        "unknown tool `Write`; known tools: Read, Glob, Grep, Bash, TodoWrite"
    );
}

#[tokio::test]
async fn calling_a_tool_outside_the_set_is_an_error_output() {
    let f = Fixture::new();
    f.write("a.txt", "hi\n");
    let r = ToolRegistry::from_names(&["Read"]).unwrap();
    let out = r.call("Read", json!({"file_path": "a.txt"}), &f.cx).await;
    assert_eq!(out.content, "     1\thi\n");
    let out = r.call("Bash", json!({"command": "ls"}), &f.cx).await;
    assert!(out.is_error);
    assert_eq!(
        out.content,
        "no tool named `Bash` is available; available tools: Read"
    );
}

#[test]
fn schemas_are_closed_objects_whose_required_fields_exist() {
    for tool in ToolRegistry::builtin().tools() {
        let s = tool.input_schema();
        assert_eq!(s["type"], "object", "{}", tool.name());
        assert_eq!(s["additionalProperties"], false, "{}", tool.name());
        for req in s["required"].as_array().unwrap() {
            assert!(
                s["properties"].get(req.as_str().unwrap()).is_some(),
                "{}: {req}",
                tool.name()
            );
        }
    }
}

/// The loop runs the read-only calls of one turn concurrently on spawned tasks:
/// the registry, the context and the futures must be `Send + 'static`-friendly.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_run_concurrently_on_spawned_tasks() {
    let f = Fixture::new();
    for i in 0..8 {
        f.write(&format!("f{i}.txt"), &format!("file {i}\n"));
    }
    let registry = std::sync::Arc::new(ToolRegistry::builtin());
    let mut tasks = Vec::new();
    for i in 0..8 {
        let (r, cx) = (registry.clone(), f.cx.clone());
        tasks.push(tokio::spawn(async move {
            let name = if i % 2 == 0 { "Read" } else { "Grep" };
            let input = if i % 2 == 0 {
                json!({"file_path": format!("f{i}.txt")})
            } else {
                json!({"pattern": format!("file {i}"), "output_mode": "content"})
            };
            r.call(name, input, &cx).await
        }));
    }
    for (i, t) in tasks.into_iter().enumerate() {
        let out = t.await.unwrap();
        assert!(!out.is_error, "{}", out.content);
        assert!(
            out.content.contains(&format!("file {i}")),
            "{i}: {}",
            out.content
        );
    }
}
