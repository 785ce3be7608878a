//! The prompt review's project context: stack detection from package.json,
//! tsconfig.json, pyproject.toml, setup.py, Cargo.toml and go.mod; CLAUDE.md
//! through crit's conventions discovery; the structure listing (.gitignore
//! respected); extra files confined to the project; missing files.

use crate::support;

use std::path::Path;

use crit_project::config::prompt_review::PromptConfig;
use crit_prompt::context::{ProjectContext, build};
use support::project;

fn ctx(dir: &Path) -> ProjectContext {
    build(dir, dir, &PromptConfig::default().context)
}

#[test]
fn node_and_typescript_from_package_json() {
    let dir = project(&[
        (
            "package.json",
            r#"{"name": "obsidian-claude-daily", "dependencies": {"obsidian": "1", "react": "19"},
            "devDependencies": {"typescript": "5", "vitest": "1", "esbuild": "0.20", "tailwindcss": "4"}}"#,
        ),
        (
            "tsconfig.json",
            "{\n  // strict\n  \"compilerOptions\": {\"target\": \"ES2022\", \"strict\": true,},\n}\n",
        ),
    ]);
    let c = ctx(dir.path());
    assert_eq!(c.project_name, "obsidian-claude-daily");
    assert_eq!(
        c.stack,
        [
            "node",
            "typescript",
            "react",
            "tailwind",
            "obsidian-plugin",
            "esbuild"
        ]
    );
    assert_eq!(c.test_framework.as_deref(), Some("vitest"));
    assert_eq!(c.build_tool.as_deref(), Some("esbuild"));
    assert_eq!(c.compiler_target.as_deref(), Some("ES2022"));
    let block = c.render();
    assert!(
        block.contains("Stack: node, typescript, react, tailwind, obsidian-plugin, esbuild\n"),
        "{block}"
    );
    assert!(block.contains("TypeScript target: ES2022\n"), "{block}");
}

#[test]
fn scripts_name_the_tools_when_dependencies_do_not() {
    let dir = project(&[(
        "package.json",
        r#"{"scripts": {"test": "jest --ci", "build": "webpack --mode production"}}"#,
    )]);
    let c = ctx(dir.path());
    assert_eq!(c.test_framework.as_deref(), Some("jest"));
    assert_eq!(c.build_tool.as_deref(), Some("webpack"));
    // No name in package.json: the directory's.
    assert_eq!(
        c.project_name,
        dir.path().file_name().unwrap().to_string_lossy()
    );
    // The plugin's include_package_json: false skips it.
    let mut cfg = PromptConfig::default().context;
    cfg.include_package_json = false;
    assert!(build(dir.path(), dir.path(), &cfg).stack.is_empty());
}

#[test]
fn python_from_pyproject_and_setup_py() {
    let dir = project(&[(
        "pyproject.toml",
        "[project]\nname = \"billing-api\"\ndependencies = [\n  \"fastapi>=0.110\",  # web\n  \"pydantic\",\n]\n\n[project.optional-dependencies]\ndev = [\"pytest>=8\"]\n\n[build-system]\nrequires = [\"hatchling\"]\nbuild-backend = \"hatchling.build\"\n",
    )]);
    let c = ctx(dir.path());
    assert_eq!(c.project_name, "billing-api");
    assert_eq!(c.stack, ["python", "fastapi", "pydantic"]);
    assert_eq!(c.test_framework.as_deref(), Some("pytest"));
    assert_eq!(c.build_tool.as_deref(), Some("hatch"));

    let dir = project(&[(
        "pyproject.toml",
        "[tool.poetry]\nname = \"legacy\"\n[tool.poetry.dependencies]\npython = \"^3.11\"\ndjango = \"^5\"\n[tool.pytest.ini_options]\naddopts = \"-q\"\n",
    )]);
    let c = ctx(dir.path());
    assert_eq!(c.project_name, "legacy");
    assert_eq!(c.stack, ["python", "django"]);
    assert_eq!(c.build_tool.as_deref(), Some("poetry"));
    assert_eq!(c.test_framework.as_deref(), Some("pytest"));

    let dir = project(&[("setup.py", "from setuptools import setup\nsetup()\n")]);
    let c = ctx(dir.path());
    assert_eq!(c.stack, ["python"]);
    assert_eq!(c.build_tool.as_deref(), Some("setuptools"));
}

#[test]
fn rust_from_cargo_toml_and_go_from_go_mod() {
    let dir = project(&[(
        "Cargo.toml",
        "[package]\nname = \"ledger\"\nversion = \"0.1.0\"\n\n[dependencies]\ntokio = { version = \"1\", features = [\"rt\"] }\naxum = \"0.8\"\n",
    )]);
    let c = ctx(dir.path());
    assert_eq!(c.project_name, "ledger");
    assert_eq!(c.stack, ["rust", "tokio", "axum"]);
    assert_eq!(c.test_framework.as_deref(), Some("cargo test"));
    assert_eq!(c.build_tool.as_deref(), Some("cargo"));

    let dir = project(&[("go.mod", "module github.com/acme/widgets\n\ngo 1.23\n")]);
    let c = ctx(dir.path());
    assert_eq!(c.project_name, "widgets");
    assert_eq!(c.stack, ["go"]);
    assert_eq!(c.test_framework.as_deref(), Some("go test"));
}

#[test]
fn claude_md_gives_conventions_within_the_token_budget() {
    let long = "filler line of text\n".repeat(2_000);
    let dir = project(&[(
        "CLAUDE.md",
        &format!(
            "# Daily Notes Plugin\n\n## Conventions\n- Use named exports only\n- No classes in src/\n* Tests live next to the code\n\n{long}"
        ),
    )]);
    let c = ctx(dir.path());
    assert_eq!(c.project_name, "Daily Notes Plugin");
    assert_eq!(
        c.conventions,
        [
            "Use named exports only",
            "No classes in src/",
            "Tests live next to the code"
        ]
    );
    let md = c.claude_md.as_deref().unwrap();
    assert!(md.contains("Use named exports only"));
    assert!(
        md.len() <= 2_000 * 4 + 64,
        "CLAUDE.md was not cut to max_tokens: {} bytes",
        md.len()
    );
    assert!(
        c.notes.iter().any(|n| n.starts_with("CLAUDE.md:")),
        "{:?}",
        c.notes
    );
    let mut cfg = PromptConfig::default().context;
    cfg.include_claude_md = false;
    let c = build(dir.path(), dir.path(), &cfg);
    assert!(c.claude_md.is_none() && c.conventions.is_empty());
}

#[test]
fn nothing_to_find_is_fine() {
    let dir = project(&[]);
    let c = ctx(dir.path());
    assert!(
        c.stack.is_empty()
            && c.claude_md.is_none()
            && c.test_framework.is_none()
            && c.build_tool.is_none()
    );
    assert_eq!(c.structure, "");
    let missing = dir.path().join("does-not-exist");
    let c = build(&missing, &missing, &PromptConfig::default().context);
    assert_eq!(c.project_name, "does-not-exist");
    assert!(c.notes[0].contains("not a directory"));
    // Unreadable manifests are passed over, not fatal.
    let dir = project(&[("package.json", "{ not json"), ("Cargo.toml", "[[[")]);
    let c = ctx(dir.path());
    assert_eq!(c.stack, ["node", "rust"]);
}

#[test]
fn the_structure_listing_respects_gitignore_and_depth() {
    let dir = project(&[
        (".gitignore", "target/\n*.log\n"),
        ("src/main.rs", ""),
        ("src/deep/er/file.rs", ""),
        ("target/debug/x", ""),
        ("app.log", ""),
        ("README.md", ""),
        (".hidden/secret", ""),
    ]);
    let c = ctx(dir.path());
    assert_eq!(c.structure, "README.md\nsrc/\n  deep/\n  main.rs");
    let mut cfg = PromptConfig::default().context;
    cfg.include_structure = false;
    assert_eq!(build(dir.path(), dir.path(), &cfg).structure, "");
    cfg.include_structure = true;
    cfg.structure_depth = 1;
    assert_eq!(
        build(dir.path(), dir.path(), &cfg).structure,
        "README.md\nsrc/"
    );
}

#[test]
fn extra_files_stay_inside_the_project() {
    let outside = project(&[("secret.txt", "TOP-SECRET-CONTENT")]);
    let dir = project(&[(
        "docs/pipeline.md",
        "# Pipeline\nData flows left to right.\n",
    )]);
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        dir.path().join("docs/link.md"),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("outdir")).unwrap();
    let mut cfg = PromptConfig::default().context;
    let secret = outside.path().join("secret.txt").display().to_string();
    cfg.extra_files = vec![
        "docs/pipeline.md".into(),
        "./docs/pipeline.md".into(),
        "docs/missing.md".into(),
        "docs/link.md".into(),
        "outdir/secret.txt".into(),
        "../secret.txt".into(),
        format!(
            "../{}/secret.txt",
            outside.path().file_name().unwrap().to_string_lossy()
        ),
        secret.clone(),
        format!(
            "docs/../../{}/secret.txt",
            outside.path().file_name().unwrap().to_string_lossy()
        ),
    ];
    let c = build(dir.path(), dir.path(), &cfg);
    assert_eq!(c.extra_files.len(), 2);
    assert_eq!(c.extra_files[0].1, "# Pipeline\nData flows left to right.");
    assert!(
        !c.render().contains("TOP-SECRET-CONTENT"),
        "a file outside the project was read"
    );
    assert!(
        c.notes.iter().any(|n| n == "docs/missing.md: not found"),
        "{:?}",
        c.notes
    );
    assert!(
        c.notes
            .iter()
            .filter(|n| n.contains("outside the project root"))
            .count()
            >= 2,
        "{:?}",
        c.notes
    );
    assert!(c.render().contains("<file path=\"docs/pipeline.md\">"));
}
