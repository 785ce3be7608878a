//! `.claude/agents/*.md` reviewer definitions: a Reldo-style set loads as
//! written, and every mistake is reported with file, line and column.

use std::path::{Path, PathBuf};

use crit_project::agent_defs::{AgentDef, AgentDefError, load_dir, parse};

fn agents_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/crit-project/fixtures/context/laravel/.claude/agents")
}

fn err(text: &str) -> String {
    parse(text, Path::new(".claude/agents/r.md"))
        .unwrap_err()
        .to_string()
}

#[test]
fn a_reldo_style_set_loads_sorted_by_name() {
    let defs = load_dir(&agents_dir()).unwrap();
    let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "architecture-reviewer",
            "backend-reviewer",
            "frontend-reviewer"
        ]
    );

    let [arch, backend, frontend] = &defs[..] else {
        unreachable!()
    };
    assert_eq!(
        backend.description,
        "Reviews PHP/Laravel changes against the backend conventions. Use for any change under app/, routes/ or database/."
    );
    assert_eq!(backend.tools, ["Read", "Grep", "Glob", "Bash"]);
    assert_eq!(backend.model.as_deref(), Some("sonnet"));
    assert!(backend.prompt.starts_with("# Backend Reviewer\n\n<role>\n"));
    assert!(backend.prompt.ends_with("</instructions>"));
    assert_eq!(backend.path, agents_dir().join("backend-reviewer.md"));

    assert_eq!(
        frontend.tools,
        ["Read", "Grep", "Glob", "mcp__eslint__lint_files"]
    );
    assert_eq!(frontend.model, None, "inherit");

    // `description: Use when: …` is not strict YAML; Claude Code accepts it.
    assert_eq!(
        arch.description,
        "Use when: a change adds a module, crosses layers or changes a public interface."
    );
    assert!(arch.tools.is_empty(), "no tools: inherit all");
    assert_eq!(arch.model.as_deref(), Some("claude-opus-4-5"));
}

#[test]
fn into_sub_agent_keeps_every_field() {
    let def = parse(
        "---\nname: sec\ndescription: Security review\ntools: Read, Grep\nmodel: haiku\n---\nFind injection bugs.\n",
        Path::new("sec.md"),
    )
    .unwrap();
    let sub = def.into_sub_agent();
    assert_eq!(
        sub,
        crit_core::agent::SubAgentDef {
            name: "sec".into(),
            description: "Security review".into(),
            system_prompt: "Find injection bugs.".into(),
            tools: vec!["Read".into(), "Grep".into()],
            model: Some("haiku".into()),
        }
    );
    assert_eq!(sub.model_or("sonnet"), "haiku");
}

#[test]
fn tools_with_arguments_and_quotes_split_where_a_person_would() {
    let def: AgentDef = parse(
        "---\nname: git-reviewer\ndescription: d\ntools: \"Bash(git log:*, git diff:*), Read\"\n---\np\n",
        Path::new("g.md"),
    )
    .unwrap();
    assert_eq!(def.tools, ["Bash(git log:*, git diff:*)", "Read"]);
}

#[test]
fn a_missing_directory_has_no_agents() {
    let dir = tempfile::tempdir().unwrap();
    assert!(load_dir(&dir.path().join("agents")).unwrap().is_empty());
    std::fs::write(dir.path().join("README.txt"), "not an agent").unwrap();
    assert!(load_dir(dir.path()).unwrap().is_empty());
}

#[test]
fn missing_or_broken_frontmatter() {
    assert_eq!(
        err("# Reviewer\nYou review code.\n"),
        ".claude/agents/r.md:1:1: no frontmatter: an agent file starts with a `---` line, then `name:` and `description:`, then `---` and the prompt"
    );
    assert_eq!(
        err("---\nname: r\ndescription: d\nYou review code.\n"),
        ".claude/agents/r.md:1:1: the frontmatter opened by `---` on line 1 is never closed; end it with a line `---`"
    );
    assert_eq!(
        err("---\nname: r\ndescription: d\ntools: [Read\n---\nbody\n"),
        ".claude/agents/r.md:4:8: unclosed bracket '['"
    );
    assert_eq!(
        err("---\nname: r\nname: s\ndescription: d\n---\nbody\n"),
        ".claude/agents/r.md:3:1: duplicate mapping key: name"
    );
}

#[test]
fn missing_and_empty_fields() {
    assert_eq!(
        err("---\ndescription: d\n---\nbody\n"),
        ".claude/agents/r.md:1:1: missing `name`: add e.g. `name: backend-reviewer` to the frontmatter"
    );
    assert!(
        err("---\nname: r\n---\nbody\n").starts_with(
            ".claude/agents/r.md:1:1: missing `description`: say when to use this agent"
        )
    );
    assert_eq!(
        err("---\nname: r\ndescription: \"  \"\n---\nbody\n"),
        ".claude/agents/r.md:3:14: empty `description`: say when to use this agent"
    );
    assert_eq!(
        err("---\nname: r\ndescription: d\nmodel: \"\"\n---\nbody\n"),
        ".claude/agents/r.md:4:8: empty `model`: use sonnet, opus, haiku, inherit or a model id, or leave `model` out"
    );
    assert_eq!(
        err("---\nname: r\ndescription: d\n---\n\n   \n"),
        ".claude/agents/r.md:5:1: no prompt: write the agent's instructions after the closing `---`"
    );
}

#[test]
fn names_must_be_lower_case_letters_digits_and_hyphens() {
    assert_eq!(
        err("---\nname: Backend_Reviewer\ndescription: d\n---\nbody\n"),
        ".claude/agents/r.md:2:7: invalid name `Backend_Reviewer`: use lower-case letters, digits and hyphens, e.g. `backend-reviewer`"
    );
    assert!(
        err("---\nname: -reviewer\ndescription: d\n---\nb\n").contains("invalid name `-reviewer`")
    );
    assert!(
        parse(
            "---\nname: k8s-reviewer\ndescription: d\n---\nb\n",
            Path::new("k.md")
        )
        .is_ok()
    );
}

#[test]
fn empty_tool_names_are_errors_unknown_ones_are_not() {
    assert_eq!(
        err("---\nname: r\ndescription: d\ntools: Read, , Grep\n---\nbody\n"),
        ".claude/agents/r.md:4:14: empty tool name in `tools`: remove the extra comma, or leave `tools` out to inherit all tools"
    );
    assert_eq!(
        err("---\nname: r\ndescription: d\ntools: \"Read,\"\n---\nbody\n"),
        ".claude/agents/r.md:4:13: empty tool name in `tools`: remove the extra comma, or leave `tools` out to inherit all tools"
    );
    assert!(
        err("---\nname: r\ndescription: d\ntools: \"Read,\u{3000}\"\n---\nbody\n")
            .starts_with(".claude/agents/r.md:4:13: empty tool name")
    );
    assert!(
        err("---\nname: r\ndescription: d\ntools:\n  - Read\n  - \"\"\n---\nbody\n")
            .contains("empty tool name")
    );
    assert!(
        err("---\nname: r\ndescription: d\ntools: []\n---\nbody\n")
            .contains("`tools` lists no tools")
    );
    assert!(
        err("---\nname: r\ndescription: d\ntools: 3\n---\nbody\n")
            .starts_with(".claude/agents/r.md:4:8: expected tool names")
    );
    let def = parse(
        "---\nname: r\ndescription: d\ntools: Read, mcp__github__get_pr, FutureTool\n---\nb\n",
        Path::new("r.md"),
    )
    .unwrap();
    assert_eq!(def.tools, ["Read", "mcp__github__get_pr", "FutureTool"]);
}

#[test]
fn duplicate_names_across_files_name_both() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("backend.md"),
        "---\nname: backend-reviewer\ndescription: one\n---\np\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("php.md"),
        "---\ndescription: two\nname: backend-reviewer\n---\np\n",
    )
    .unwrap();
    let e = load_dir(dir.path()).unwrap_err();
    assert!(matches!(e, AgentDefError::Duplicate { .. }));
    let first = dir.path().join("backend.md");
    let second = dir.path().join("php.md");
    assert_eq!(
        e.to_string(),
        format!(
            "{}:3:7: agent `backend-reviewer` is already defined at {}:2:7; agent names must be unique, so rename one of them",
            second.display(),
            first.display()
        )
    );
}

#[test]
fn a_broken_file_in_a_directory_is_reported_with_its_path() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("ok.md"),
        "---\nname: ok\ndescription: d\n---\np\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("bad.md"),
        "---\nname: Bad\ndescription: d\n---\np\n",
    )
    .unwrap();
    let e = load_dir(dir.path()).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!(
            "{}:2:7: invalid name `Bad`",
            dir.path().join("bad.md").display()
        )),
        "{e}"
    );
    std::fs::write(dir.path().join("bad.md"), b"---\nname: x\xff\n---\n").unwrap();
    let e = load_dir(dir.path()).unwrap_err();
    assert!(matches!(e, AgentDefError::Io { .. }), "{e}");
}

/// Every short arrangement of awkward fragments parses or fails cleanly.
#[test]
fn no_input_panics() {
    const PIECES: [&str; 12] = [
        "---\n",
        "name: r\n",
        "description: d:",
        " x\n",
        "tools: ",
        ",",
        "*",
        "é",
        "\u{3000}",
        "\"",
        "[",
        "\r\n",
    ];
    let mut count = 0;
    for a in PIECES {
        for b in PIECES {
            for c in PIECES {
                for d in PIECES {
                    let text = format!("---\n{a}{b}{c}{d}---\nbody");
                    let _ = parse(&text, Path::new("x.md"));
                    let _ = parse(&format!("{a}{b}{c}{d}"), Path::new("x.md"));
                    count += 1;
                }
            }
        }
    }
    assert_eq!(count, 12 * 12 * 12 * 12);
}
