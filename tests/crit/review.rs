//! `crit review` end to end: listing, project templates overriding built-ins,
//! inputs as flags, prompts printed, and the seed's error cases.

use assert_cmd::Command;
use predicates::prelude::*;
use tempfile::TempDir;

fn crit(dir: &TempDir) -> Command {
    let mut c = Command::cargo_bin("crit").unwrap();
    c.current_dir(dir.path())
        .env("XDG_CONFIG_HOME", dir.path().join("xdg"))
        .env("XDG_STATE_HOME", dir.path().join("state"))
        // Outside CI: there, a project's rules come from the base revision.
        .env_remove("CI")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITLAB_CI")
        .env_remove("CRIT_PROVIDER")
        .env_remove("CRIT_MODEL");
    c
}

#[test]
fn list_shows_name_origin_and_description() {
    let dir = TempDir::new().unwrap();
    crit(&dir).args(["review", "list"]).assert().success().stdout(
        "Available review templates:\n\
         \x20 arch   built-in  Architectural review — evaluate a document against the architecture/HLD\n\
         \x20 code   built-in  Code review — review code against project conventions and rules\n\
         \x20 tasks  built-in  Task plan review — check a task breakdown against its slice design\n",
    );
}

#[test]
fn project_template_overrides_built_in_and_user() {
    let dir = TempDir::new().unwrap();
    let tpl = |desc: &str| {
        format!(
            "name: arch\ndescription: {desc}\nsystem_prompt: Be brief.\nallowed_tools: [Read]\ninputs:\n  required:\n    - name: input\n      description: doc\nprompt_template: Check {{input}}\n"
        )
    };
    std::fs::create_dir_all(dir.path().join("xdg/crit/templates")).unwrap();
    std::fs::write(dir.path().join("xdg/crit/templates/arch.yaml"), tpl("Mine")).unwrap();
    std::fs::write(
        dir.path().join("xdg/crit/templates/sec.yaml"),
        tpl("Security").replace("name: arch", "name: sec"),
    )
    .unwrap();
    crit(&dir)
        .args(["review", "list"])
        .assert()
        .success()
        .stdout(predicate::str::contains("  arch   user      Mine\n"))
        .stdout(predicate::str::contains("  sec    user      Security\n"));
    std::fs::create_dir_all(dir.path().join(".crit/templates")).unwrap();
    std::fs::write(dir.path().join(".crit/templates/arch.yaml"), tpl("Ours")).unwrap();
    // Replacing a built-in template is the project's to decide: untrusted,
    // the user's stands, and the warning says how to trust it.
    crit(&dir)
        .args(["review", "list"])
        .assert()
        .success()
        .stdout(predicate::str::contains("  arch   user      Mine\n"))
        .stderr(predicate::str::contains(
            "ignoring `template` from .crit/templates/arch.yaml",
        ));
    crit(&dir).args(["trust", "--yes"]).assert().success();
    crit(&dir)
        .args(["review", "list"])
        .assert()
        .success()
        .stdout(predicate::str::contains("  arch   project   Ours\n"));
    crit(&dir)
        .args(["review", "arch", "notes.md", "--print-prompt"])
        .assert()
        .success()
        .stdout(predicate::str::contains("=== request 1 of 1 · model"))
        .stdout(predicate::str::contains("Be brief.\n\n## Your answer"))
        .stdout(predicate::str::contains("Check notes.md\n"));
    let out = crit(&dir)
        .args(["review", "list", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["name"], "arch");
    assert_eq!(v[0]["origin"], "project");
    assert!(
        v[0]["path"]
            .as_str()
            .unwrap()
            .ends_with(".crit/templates/arch.yaml")
    );
}

#[test]
fn inputs_are_flags_and_the_first_is_positional() {
    let dir = TempDir::new().unwrap();
    // The requests printed are the review's own: its files exist.
    std::fs::write(dir.path().join("slice.md"), "# Slice\n").unwrap();
    std::fs::write(dir.path().join("hld.md"), "# HLD\n").unwrap();
    for args in [
        vec![
            "review",
            "arch",
            "slice.md",
            "--against",
            "hld.md",
            "--print-prompt",
        ],
        vec![
            "review",
            "arch",
            "--input",
            "slice.md",
            "--against=hld.md",
            "--print-prompt",
        ],
        vec![
            "--json",
            "review",
            "arch",
            "slice.md",
            "--print-prompt",
            "--against",
            "hld.md",
        ],
    ] {
        crit(&dir)
            .args(&args)
            .assert()
            .success()
            // With --json the requests are JSON: the newline is escaped.
            .stdout(
                predicate::str::contains(
                    "**Input document:** slice.md\n**Architecture document:** hld.md",
                )
                .or(predicate::str::contains(
                    "**Input document:** slice.md\\n**Architecture document:** hld.md",
                )),
            );
    }
    // A code review's request holds its change: a repository with one.
    let git = |args: &[&str]| {
        let st = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .unwrap();
        assert!(st.success());
    };
    git(&["init", "-q", "-b", "main"]);
    std::fs::write(dir.path().join("a.py"), "x = 1\n").unwrap();
    git(&["add", "a.py"]);
    git(&["commit", "-q", "-m", "a"]);
    std::fs::write(dir.path().join("a.py"), "x = 2\n").unwrap();
    crit(&dir)
        .args(["review", "code", "--diff", "main", "--print-prompt"])
        .assert()
        .success()
        .stdout(predicate::str::contains("changes since merge base"))
        .stdout(predicate::str::contains("+ x = 2"));
    crit(&dir)
        .args(["review", "arch", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("--against <AGAINST>"));
}

#[test]
fn the_seeds_error_cases() {
    let dir = TempDir::new().unwrap();
    crit(&dir)
        .args(["review", "archh"])
        .assert()
        .code(2)
        .stderr("crit: unknown template `archh`; available: arch, code, tasks\n");
    crit(&dir).args(["review", "arch", "slice.md"]).assert().code(2).stderr(
        "crit: template `arch` needs --against (Architecture document or HLD to review against)\n\
         usage: crit review arch INPUT --against AGAINST [--cwd CWD]\n",
    );
    crit(&dir)
        .args([
            "review",
            "arch",
            "a.md",
            "--against",
            "b.md",
            "--bogus",
            "x",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unexpected argument '--bogus'"));
    crit(&dir)
        .args([
            "review",
            "arch",
            "a.md",
            "--input",
            "b.md",
            "--against",
            "c.md",
            "--print-prompt",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--input was given twice"));
    crit(&dir).args(["review"]).assert().code(2);
    std::fs::create_dir_all(dir.path().join(".crit/templates")).unwrap();
    std::fs::write(
        dir.path().join(".crit/templates/bad.yaml"),
        "name: bad\ndescription: d\nsystem_prompt: s\nallowed_tools: [Read]\nprompt_template: x\nprompt_builder: code\n",
    )
    .unwrap();
    // A broken template is listed with its error and fails only when used.
    crit(&dir)
        .args(["review", "list"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("bad    project   error: ./.crit/templates/bad.yaml:6:17: set prompt_template or prompt_builder, not both\n"));
    crit(&dir)
        .args(["review", "bad"])
        .assert()
        .code(2)
        .stderr(predicate::str::is_match(r"^crit: template `bad` does not load: \./\.crit/templates/bad\.yaml:6:17: set prompt_template or prompt_builder, not both\n$").unwrap());
}

#[test]
fn running_without_a_backend_names_every_fix_and_exits_2() {
    let dir = TempDir::new().unwrap();
    crit(&dir)
        .env_clear()
        .env("PATH", "/nonexistent")
        .env("HOME", dir.path())
        .args(["review", "code", "--all", "--no-log"])
        .assert()
        .code(2)
        // The terminal report says it (once: stderr does not repeat it).
        .stdout(predicate::str::contains("ANTHROPIC_API_KEY"))
        .stderr(predicate::str::contains("ANTHROPIC_API_KEY").not());
}

#[test]
fn missing_input_files_are_usage_errors_before_any_model_call() {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("hld.md"), "# HLD\n").unwrap();
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    let server = crit_testkit::FakeServer::start_blocking();
    let cases: [(&[&str], &str); 4] = [
        (
            &["arch", "slice.md", "--against", "hld.md"],
            "--input slice.md",
        ),
        (
            &["arch", "hld.md", "--against", "nope.md"],
            "--against nope.md",
        ),
        (&["tasks", "docs", "--against", "hld.md"], "--input docs"),
        (
            &["arch", "--input", "hld.md", "--against", "../x/hld.md"],
            "--against ../x/hld.md",
        ),
    ];
    for (args, says) in cases {
        crit(&dir)
            .env("ANTHROPIC_API_KEY", "sk-ant-test")
            .env("ANTHROPIC_BASE_URL", server.url())
            .args(["review", "--no-log"])
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(says))
            .stderr(predicate::str::contains("no such file"));
    }
    assert!(server.model_requests().is_empty(), "no model was asked");
}
