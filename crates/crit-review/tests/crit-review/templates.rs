//! Templates: built-ins, the seed's own format, validation errors with their
//! locations, the registry's precedence, and the prompts crit sends.

use std::collections::BTreeMap;
use std::path::Path;

use crit_review::template::{
    Origin, Registry, Template, TemplateDirs, TemplateError, parse_template,
};
use minijinja::Value;

fn parse(text: &str) -> Result<Template, TemplateError> {
    parse_template(text, "t.yaml", Origin::Project, None)
}

fn err(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

fn inputs(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn render(t: &Template, given: &[(&str, &str)], extra: BTreeMap<String, Value>) -> String {
    let inputs = t.resolve_inputs(&inputs(given)).unwrap();
    let reviewer = &t.panel()[0];
    let p = t.render(reviewer, &inputs, &extra).unwrap();
    match p.work.is_empty() {
        true => format!("=== system ===\n{}\n=== user ===\n{}", p.system, p.user),
        false => format!(
            "=== system ===\n{}\n=== work ===\n{}\n=== about ===\n{}\n=== user ===\n{}",
            p.system, p.work, p.about, p.user
        ),
    }
}

const MINIMAL: &str = "name: mini\ndescription: d\nsystem_prompt: s\nallowed_tools: [Read]\nprompt_template: Review {input}\ninputs:\n  required:\n    - name: input\n      description: the doc\n";

#[test]
fn built_ins_load_and_list() {
    let reg = Registry::built_in().unwrap();
    let names: Vec<(&str, &str)> = reg
        .list()
        .map(|t| (t.name.as_str(), t.origin.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("arch", "built-in"),
            ("code", "built-in"),
            ("tasks", "built-in")
        ]
    );
    let code = reg.get("code").unwrap();
    assert_eq!(code.allowed_tools, ["Read", "Glob", "Grep", "Bash"]);
    assert!(code.loads_project_context());
    assert!(reg.get("arch").unwrap().loads_project_context());
}

#[test]
fn arch_prompt() {
    let reg = Registry::built_in().unwrap();
    let t = reg.get("arch").unwrap();
    insta::assert_snapshot!(render(
        t,
        &[
            ("input", "slices/105-slice.md"),
            ("against", "architecture/100-arch.md")
        ],
        BTreeMap::new()
    ));
}

#[test]
fn tasks_prompt() {
    let reg = Registry::built_in().unwrap();
    let t = reg.get("tasks").unwrap();
    insta::assert_snapshot!(render(
        t,
        &[
            ("input", "tasks/105-tasks.md"),
            ("against", "slices/105-slice.md")
        ],
        BTreeMap::new()
    ));
}

fn scope() -> Value {
    Value::from(minijinja::value::Serde(serde_json::json!({
        "description": "changes from the merge base of main to HEAD",
        "files": [
            {"path": "src/pool.rs", "status": "modified", "additions": 4, "deletions": 1},
            {"path": "src/new.rs", "status": "added", "additions": 20, "deletions": 0},
        ],
        "patch": "diff --git a/src/pool.rs b/src/pool.rs\n@@ -40,3 +40,6 @@\n-    let c = pool.get()?;\n+    let c = pool.get()?;\n+    if fail { return Err(e); }",
        "truncated": false,
    })))
}

#[test]
fn code_prompt_for_each_scope() {
    let reg = Registry::built_in().unwrap();
    let t = reg.get("code").unwrap();
    let mut with_scope = BTreeMap::new();
    with_scope.insert("scope".to_string(), scope());
    with_scope.insert(
        "context".to_string(),
        Value::from("Fixes the connection leak from issue 12."),
    );
    with_scope.insert("context_path".to_string(), Value::from("/tmp/ctx.md"));
    insta::assert_snapshot!("code_prompt_computed_diff", render(t, &[], with_scope));
    insta::assert_snapshot!(
        "code_prompt_diff_ref",
        render(t, &[("diff", "main")], BTreeMap::new())
            .split("=== user ===")
            .nth(1)
            .unwrap()
    );
    insta::assert_snapshot!(
        "code_prompt_files",
        render(t, &[("files", "src/**/*.rs")], BTreeMap::new())
            .split("=== user ===")
            .nth(1)
            .unwrap()
    );
    insta::assert_snapshot!(
        "code_prompt_survey",
        render(t, &[], BTreeMap::new())
            .split("=== user ===")
            .nth(1)
            .unwrap()
    );
}

#[test]
fn seed_format_templates_load_and_run_unchanged() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/crit-review/fixtures/seed");
    let arch_text = std::fs::read_to_string(dir.join("arch.yaml")).unwrap();
    let arch = parse(&arch_text).unwrap();
    assert_eq!(arch.setting_sources, None);
    assert_eq!(arch.permission_mode, "bypassPermissions");
    let out = render(
        &arch,
        &[("input", "a.md"), ("against", "b.md")],
        BTreeMap::new(),
    );
    assert!(
        out.contains("**Input document:** a.md\n**Architecture document:** b.md"),
        "{out}"
    );
    assert!(
        out.contains("### [PASS|CONCERN|FAIL] Finding title"),
        "the seed's system prompt is kept: {out}"
    );
    let code_text = std::fs::read_to_string(dir.join("code.yaml")).unwrap();
    let code = parse(&code_text).unwrap();
    assert_eq!(
        code.setting_sources.as_deref(),
        Some(&["project".to_string()][..])
    );
    let out = render(&code, &[("diff", "main")], BTreeMap::new());
    assert!(
        out.contains("Review the changes between `main` and the working tree."),
        "{out}"
    );
}

#[test]
fn registry_precedence_project_over_user_over_built_in() {
    let user = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let tpl = |desc: &str| {
        MINIMAL
            .replace("name: mini", "name: arch")
            .replace("description: d", &format!("description: {desc}"))
    };
    std::fs::write(user.path().join("arch.yaml"), tpl("user arch")).unwrap();
    std::fs::write(
        user.path().join("extra.yml"),
        MINIMAL.replace("name: mini", "name: extra"),
    )
    .unwrap();
    std::fs::write(user.path().join("notes.txt"), "not a template").unwrap();
    let dirs = TemplateDirs {
        user: Some(user.path().to_path_buf()),
        project: Some(project.path().to_path_buf()),
        ..TemplateDirs::default()
    };
    let reg = Registry::load(&dirs).unwrap();
    assert_eq!(reg.get("arch").unwrap().description, "user arch");
    assert_eq!(reg.get("arch").unwrap().origin, Origin::User);
    assert_eq!(reg.get("extra").unwrap().origin, Origin::User);
    // A project template that replaces a built-in one changes every review
    // of that name: the loader that trusts no project keeps the others.
    std::fs::write(project.path().join("arch.yaml"), tpl("project arch")).unwrap();
    let reg = Registry::load(&dirs).unwrap();
    assert_eq!(reg.get("arch").unwrap().origin, Origin::User);
    // Where the project's rules allow it, the project's wins.
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join(".crit/templates")).unwrap();
    std::fs::write(
        root.path().join(".crit/templates/arch.yaml"),
        tpl("project arch"),
    )
    .unwrap();
    let dirs = TemplateDirs {
        user: Some(user.path().to_path_buf()),
        ..TemplateDirs::default()
    };
    let trusting = crit_project::trust::ProjectRules::trusting(root.path());
    let reg = Registry::load_with(&dirs, &trusting).unwrap();
    let arch = reg.get("arch").unwrap();
    assert_eq!(
        (arch.description.as_str(), arch.origin),
        ("project arch", Origin::Project)
    );
    assert_eq!(
        arch.path.as_deref(),
        Some(root.path().join(".crit/templates/arch.yaml").as_path())
    );
    assert_eq!(reg.get("code").unwrap().origin, Origin::BuiltIn);
    // Untrusted, it is ignored by name, with the way to trust it.
    let untrusted = crit_project::trust::ProjectRules::untrusted(root.path(), "test");
    let reg = Registry::load_with(&dirs, &untrusted).unwrap();
    assert_eq!(reg.get("arch").unwrap().origin, Origin::User);
    let asked = untrusted.asked();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].setting.key, "template");
    assert!(
        asked[0]
            .setting
            .value
            .starts_with("replaces the built-in `arch` template")
    );
}

#[test]
fn a_broken_project_template_fails_when_used_with_its_location() {
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("bad.yaml"), "name: bad\ndescription: d\nsystem_prompt: s\nallowed_tools: [Read, Write]\nprompt_template: x\n").unwrap();
    let dirs = TemplateDirs {
        user: None,
        project: Some(project.path().to_path_buf()),
        ..TemplateDirs::default()
    };
    // The others still load; the broken one is an error when it is asked for.
    let reg = Registry::load(&dirs).unwrap();
    assert!(reg.get("arch").is_ok());
    assert_eq!(reg.broken().count(), 1);
    let e = reg.get("bad").unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "template `bad` does not load: {}:4:23: tool `Write` is not available: crit's reviewers are read-only",
            project.path().join("bad.yaml").display()
        )
    );
}

#[test]
fn standard_dirs_follow_xdg() {
    let env = crit_os::Env::from_pairs([("XDG_CONFIG_HOME", "/x/config"), ("HOME", "/home/u")]);
    let d = TemplateDirs::standard(Path::new("/p"), &env);
    assert_eq!(
        d.user.as_deref(),
        Some(Path::new("/x/config/crit/templates"))
    );
    assert_eq!(d.project.as_deref(), Some(Path::new("/p/.crit/templates")));
    let d = TemplateDirs::standard(
        Path::new("/p"),
        &crit_os::Env::new().with("HOME", "/home/u"),
    );
    assert_eq!(
        d.user.as_deref(),
        Some(Path::new("/home/u/.config/crit/templates"))
    );
}

#[test]
fn unknown_template_lists_the_available_ones() {
    let reg = Registry::built_in().unwrap();
    assert_eq!(
        reg.get("secuirty").unwrap_err().to_string(),
        "unknown template `secuirty`; available: arch, code, tasks"
    );
}

#[test]
fn missing_and_unknown_inputs_name_the_usage() {
    let reg = Registry::built_in().unwrap();
    let arch = reg.get("arch").unwrap();
    let e = arch
        .resolve_inputs(&inputs(&[("input", "a.md")]))
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "template `arch` needs --against (Architecture document or HLD to review against)\n\
         usage: crit review arch INPUT --against AGAINST [--cwd CWD]"
    );
    let e = arch
        .resolve_inputs(&inputs(&[("input", "a"), ("against", "b"), ("bogus", "c")]))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("template `arch` has no input `bogus`"), "{e}");
    let ok = arch
        .resolve_inputs(&inputs(&[("input", "a"), ("against", "b")]))
        .unwrap();
    assert_eq!(ok.0.get("cwd").map(String::as_str), Some("."));
}

#[test]
fn validation_errors_name_line_and_column() {
    let cases: &[(&str, &str)] = &[
        (
            "description: d\nsystem_prompt: s\nallowed_tools: [Read]\nprompt_template: x\n",
            "t.yaml:1:1: missing field `name`: the template's short name, e.g. `name: security`",
        ),
        (
            "name: a\nsystem_prompt: s\nallowed_tools: [Read]\nprompt_template: x\n",
            "t.yaml:1:1: missing field `description`: one line shown by `crit review list`",
        ),
        (
            "name: a\ndescription: d\nallowed_tools: [Read]\nprompt_template: x\n",
            "t.yaml:1:1: missing field `system_prompt`: the reviewer's instructions",
        ),
        (
            "name: a\ndescription: d\nsystem_prompt: s\nprompt_template: x\n",
            "t.yaml:1:1: missing field `allowed_tools`: e.g. `allowed_tools: [Read, Glob, Grep]`",
        ),
        (
            "name: a\ndescription: d\nsystem_prompt: s\nallowed_tools: [Read]\n",
            "t.yaml:1:1: missing field `prompt_template`: set prompt_template (a prompt with {{ input }} placeholders) or prompt_builder (a built-in builder, or {command: [program, args…]})",
        ),
        (
            "name: a\ndescription: d\nsystem_prompt: s\nallowed_tools: [Read]\nprompt_template: x\nprompt_builder: code\n",
            "t.yaml:6:17: set prompt_template or prompt_builder, not both",
        ),
        (
            "name: a\ndescription: d\nsystem_prompt: s\nallowed_tools: [Read]\nprompt_builder: my.module.fn\n",
            "t.yaml:5:17: unknown prompt_builder `my.module.fn`; built-in builders: code, code_review_prompt, orchestration.review.builders.code.code_review_prompt. crit does not import Python: run your builder as a program, `prompt_builder: {command: [python3, path/to/builder.py]}` (the inputs as JSON on stdin, the prompt on stdout)",
        ),
        (
            "name: a\ndescription: d\nsystem_prompt: s\nallowed_tools: [Read, Browse]\nprompt_template: x\n",
            "t.yaml:4:23: unknown tool `Browse`; expected one of Read, Glob, Grep, Bash, Task, TodoWrite, or an MCP tool as `mcp__server__tool`",
        ),
        (
            "name: a\ndescription: d\nsystem_prompt: s\nallowed_tools:\n  - Read\n  - Edit\nprompt_template: x\n",
            "t.yaml:6:5: tool `Edit` is not available: crit's reviewers are read-only",
        ),
        (
            "name: A B\ndescription: d\nsystem_prompt: s\nallowed_tools: [Read]\nprompt_template: x\n",
            "t.yaml:1:7: invalid name `A B`: use lower-case letters, digits, `-` and `_`",
        ),
        (
            "name: a\ndescription: d\nsystem_prompt: s\nallowed_tools: [Read]\nprompt_template: x\ninputs:\n  required:\n    - name: doc\n      default: x.md\n",
            "t.yaml:9:16: required input `doc` cannot have a default; move it to `optional`",
        ),
        (
            "name: a\ndescription: d\nsystem_prompt: s\nallowed_tools: [Read]\nprompt_template: x\ninputs:\n  optional:\n    - name: format\n",
            "t.yaml:8:13: input `format` would shadow crit's own --format flag; rename it",
        ),
        (
            "name: a\ndescription: d\nsystem_prompt: s\nallowed_tools: [Read]\nprompt_template: x\ninputs:\n  optional:\n    - description: no name\n",
            "t.yaml:1:1: missing field `inputs.optional[].name`: every input needs a name",
        ),
        (
            "name: a\ndescription: d\nsystem_prompt: s\nallowed_tools: [Read]\nprompt_template: Review {{ doc }}\n",
            "t.yaml:5:18: prompt uses `doc`, which is not a declared input (declared: none)",
        ),
        (
            "name: a\ndescription: d\nsystem_prompt: s\nallowed_tools: [Read]\nprompt_template: x\npermission_mode: yolo\n",
            "t.yaml:6:18: unknown permission_mode `yolo`; expected one of default, acceptEdits, plan, bypassPermissions, dontAsk, auto",
        ),
        (
            "name: a\ndescription: d\nsystem_prompt: s\nallowed_tools: [Read]\nprompt_template: x\noutput: xml\n",
            "t.yaml:6:9: unknown output `xml`; expected `findings`, `markdown`, or a JSON Schema mapping",
        ),
        (
            "name: a\ndescription: d\nsystem_prompt: s\nallowed_tools: [Read]\nprompt_template: x\nhooks:\n  BeforeRead: []\n",
            "t.yaml:7:3: unknown hook event `BeforeRead`; expected one of PreToolUse, PostToolUse, SubagentStop, Stop",
        ),
        (
            "name: a\ndescription: d\nsystem_prompt: s\nallowed_tools: [Read]\nprompt_template: x\nsetting_sources: [project, team]\n",
            "t.yaml:6:28: unknown setting source `team`; expected one of user, project, local",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(&err(text), expected, "for:\n{text}");
    }
    // A schema that does not compile is refused where it is written, not
    // when the first answer comes.
    let e = err(
        "name: a\ndescription: d\nsystem_prompt: s\nallowed_tools: [Read]\nprompt_template: x\noutput:\n  type: 12\n",
    );
    assert!(e.starts_with("t.yaml:7:3: invalid output schema: "), "{e}");
    assert!(
        e.ends_with("; fix the schema or use `output: findings`"),
        "{e}"
    );
}

#[test]
fn yaml_errors_and_unknown_keys() {
    let e = err("name: a\ndescription: [unclosed\n");
    assert!(e.starts_with("t.yaml:"), "{e}");
    assert!(!e.contains('\n'), "one line: {e}");
    let e = err("name: a\ndescriptoin: d\n");
    assert!(e.starts_with("t.yaml:2:1: "), "{e}");
    assert!(e.contains("descriptoin"), "{e}");
}

#[test]
fn panel_template_with_triggers() {
    let text = r#"
name: panel
description: Three reviewers
system_prompt: You review code.
allowed_tools: [Read, Grep]
model: sonnet
prompt_builder: code
inputs:
  optional:
    - name: diff
reviewers:
  - name: security
    system_prompt: You look for security holes.
    model: opus
  - name: sql
    trigger:
      paths: ["**/*.sql", "migrations/**"]
  - name: docs
    allowed_tools: [Read]
    output: markdown
    trigger:
      inputs: [diff]
"#;
    let t = parse(text).unwrap();
    let panel = t.panel();
    let summary: Vec<(String, Option<String>, Vec<String>)> = panel
        .iter()
        .map(|r| (r.name.clone(), r.model.clone(), r.allowed_tools.clone()))
        .collect();
    assert_eq!(
        summary,
        [
            (
                "security".into(),
                Some("opus".into()),
                vec!["Read".to_string(), "Grep".into()]
            ),
            (
                "sql".into(),
                Some("sonnet".into()),
                vec!["Read".into(), "Grep".into()]
            ),
            ("docs".into(), Some("sonnet".into()), vec!["Read".into()]),
        ]
    );
    assert_eq!(panel[1].system_prompt, "You review code.");
    assert_eq!(
        panel[1].trigger.as_ref().unwrap().paths,
        ["**/*.sql", "migrations/**"]
    );
    assert!(
        err(&text.replace("[diff]", "[files]"))
            .contains("trigger names input `files`, which the template does not declare")
    );
    assert!(
        err(&text.replace("\"**/*.sql\"", "\"[unclosed\"")).contains("invalid glob `[unclosed`")
    );
    assert!(
        err(&text.replace("name: sql", "name: security")).contains("duplicate reviewer `security`")
    );
}

#[test]
fn schema_output_and_rubric_include() {
    let text = "name: a\ndescription: d\nsystem_prompt: |\n  Judge it.\n  {% include \"crit/rubric.md\" %}\nallowed_tools: [Read]\nprompt_template: Go\noutput:\n  type: object\n  properties:\n    ok: {type: boolean}\n  required: [ok]\n";
    let t = parse(text).unwrap();
    let out = render(&t, &[], BTreeMap::new());
    assert!(out.contains("Prefer no finding to a weak one"), "{out}");
    assert!(out.contains("valid against this JSON Schema"), "{out}");
    assert!(out.contains("\"required\": [\n    \"ok\"\n  ]"), "{out}");
}
