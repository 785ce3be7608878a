//! The review templates' own examples and published test scenarios, run
//! unchanged against `crit review` through crit-testkit: the design's
//! `arch.yaml` and `code.yaml` as user templates in `.orchestration/templates`,
//! answers in its markdown severity format, `prompt_template` under
//! `str.format` rules, a broken template that only fails when used,
//! `templates_dir`, `--diff` with `--files`, the `--output` modes (a bad one
//! refused before any model call), and `--compat squadron`.

use crate::support;

use std::path::Path;

use crit_testkit::{FakeServer, Reply};
use serde_json::{Value, json};
use support::{crit, git, init_repo, json_out, stderr, write};

/// The design's `templates/builtin/arch.yaml`, verbatim.
const SEED_ARCH: &str = r#"# templates/builtin/arch.yaml
name: arch
description: "Architectural review — evaluate document against architecture/HLD"

system_prompt: |
  You are an architectural reviewer. Your task is to evaluate whether a design
  document aligns with a parent architecture document and its stated goals.
  
  Evaluation criteria:
  - Alignment with stated architectural goals and principles
  - Violations of architectural boundaries or layer responsibilities
  - Scope creep beyond what the architecture defines
  - Dependency directions are correct
  - Integration points match what consuming/providing slices expect
  - Common antipatterns: over-engineering, under-specification, hidden dependencies
  
  Report your findings using severity levels:
  
  ## Summary
  [overall assessment: PASS | CONCERNS | FAIL]
  
  ## Findings
  
  ### [PASS|CONCERN|FAIL] Finding title
  Description with specific references.

allowed_tools: [Read, Glob, Grep]
permission_mode: bypassPermissions
setting_sources: null

inputs:
  required:
    - name: input
      description: "Document to review (slice design, plan, spec)"
    - name: against
      description: "Architecture document or HLD to review against"
  optional:
    - name: cwd
      description: "Working directory for file reads"
      default: "."

prompt_template: |
  Review the following document for architectural alignment:
  
  **Input document:** {input}
  **Architecture document:** {against}
  
  Read both documents, then evaluate the input against the architecture.
  Follow referenced files as needed to understand dependencies and integration points.
  Report your findings using the severity format described in your instructions.
"#;

/// The design's `templates/builtin/code.yaml`, verbatim.
const SEED_CODE: &str = r#"# templates/builtin/code.yaml
name: code
description: "Code review — review code against project conventions and rules"

system_prompt: |
  You are a code reviewer. Review code against language-specific rules, testing
  standards, and project conventions loaded from CLAUDE.md.
  
  Focus areas:
  - Project conventions (from CLAUDE.md)
  - Language-appropriate style and correctness
  - Test coverage patterns (test-with, not test-after)
  - Error handling patterns
  - Security concerns
  - Naming, structure, and documentation quality
  
  Report findings using the severity format.

allowed_tools: [Read, Glob, Grep, Bash]
permission_mode: bypassPermissions
setting_sources: [project]

inputs:
  required: []
  optional:
    - name: cwd
      description: "Project directory to review"
      default: "."
    - name: files
      description: "Glob pattern to scope the review"
    - name: diff
      description: "Git ref to diff against (reviews changed files)"

# Complex prompt construction — delegates to Python
prompt_builder: orchestration.review.builders.code.code_review_prompt
"#;

/// An answer in the design's markdown severity format.
const MARKDOWN_ANSWER: &str = "## Summary\nCONCERNS\n\nThe slice mostly fits; one boundary is crossed.\n\n## Findings\n\n### [CONCERN] Slice reaches into the storage layer\nslice.md:12 reads the users table directly instead of going through the repository.\n\n### [PASS] Dependencies point downwards\nNothing depends on the CLI.\n";

fn docs(d: &Path) {
    write(
        d,
        "slice.md",
        "# Slice\n\nRead users straight from the table.\n",
    );
    write(
        d,
        "arch.md",
        "# Architecture\n\nOnly repositories touch storage.\n",
    );
}

#[test]
fn the_designs_arch_template_runs_unchanged_from_orchestration_templates() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    docs(d);
    write(d, ".orchestration/templates/arch.yaml", SEED_ARCH);
    let server = FakeServer::start_blocking();
    // It replaces crit's built-in `arch`: the project's to decide, once.
    crit(d, &server, None)
        .args(["trust", "--yes"])
        .assert()
        .success();
    server.push(Reply::text(MARKDOWN_ANSWER));
    let out = crit(d, &server, None)
        .args([
            "review",
            "arch",
            "slice.md",
            "--against",
            "arch.md",
            "--output",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r = json_out(&out);
    assert_eq!(r["verdict"], "CONCERNS", "{r}");
    assert_eq!(r["parse_error"], Value::Null);
    assert_eq!(r["findings"].as_array().unwrap().len(), 2);
    let req = &server.model_requests()[0];
    let system = req.body["system"].to_string();
    // Its own answer format, and no second one.
    assert!(system.contains("[PASS|CONCERN|FAIL] Finding title"));
    assert!(!system.contains("StructuredOutput"), "{system}");
    assert!(!system.contains("\"verdict\""), "{system}");
    assert!(
        !req.body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "StructuredOutput")
    );
    let user = req.body["messages"][0]["content"][0]["text"]
        .as_str()
        .unwrap();
    assert!(
        user.contains("**Input document:** slice.md\n**Architecture document:** arch.md"),
        "{user}"
    );
    // `review list` shows it as the project's.
    let list = crit(d, &server, None)
        .args(["review", "list"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&list.stdout).contains(
            "arch   project   Architectural review — evaluate document against architecture/HLD"
        ),
        "{}",
        String::from_utf8_lossy(&list.stdout)
    );
}

#[test]
fn a_built_in_template_answered_in_the_markdown_format_gives_concerns() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    docs(d);
    let server = FakeServer::start_blocking();
    server.push(Reply::text(MARKDOWN_ANSWER));
    let out = crit(d, &server, None)
        .args([
            "review",
            "arch",
            "slice.md",
            "--against",
            "arch.md",
            "--json",
        ])
        .output()
        .unwrap();
    let r = json_out(&out);
    assert_eq!(r["verdict"], "CONCERNS", "{r}");
    assert_eq!(r["parse_error"], Value::Null);
    let concern = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["severity"] == "P2")
        .unwrap();
    assert_eq!(concern["title"], "Slice reaches into the storage layer");
    // Answered at once: no reminder to use the tool.
    assert_eq!(server.model_requests().len(), 1);
}

#[test]
fn the_parser_cases_of_the_design() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    docs(d);
    write(d, ".orchestration/templates/arch.yaml", SEED_ARCH);
    let server = FakeServer::start_blocking();
    for (answer, verdict) in [
        ("## Summary\nPASS\n\n## Findings\n\nNone.\n", "PASS"),
        (
            "## Summary\nFAIL\n\n## Findings\n\n### [FAIL] Wrong layer\nslice.md:3\n",
            "FAIL",
        ),
        // Malformed: no summary; findings without a severity prefix.
        (
            "Overall it is fine.\n\n### Wrong layer\nslice.md:3\n",
            "UNKNOWN",
        ),
        ("", "UNKNOWN"),
    ] {
        server.push(Reply::text(answer));
        let out = crit(d, &server, None)
            .args([
                "review",
                "arch",
                "slice.md",
                "--against",
                "arch.md",
                "--compat",
                "squadron",
            ])
            .output()
            .unwrap();
        let r = json_out(&out);
        assert_eq!(r["verdict"], verdict, "{answer:?}: {r}");
        // The raw output is always kept.
        assert_eq!(r["raw_output"], answer);
        assert_eq!(r["template_name"], "arch");
        assert_eq!(
            r["input_files"],
            json!({"input": "slice.md", "against": "arch.md", "cwd": "."})
        );
        assert!(r["timestamp"].is_string());
        let keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "findings",
                "input_files",
                "raw_output",
                "template_name",
                "timestamp",
                "verdict"
            ]
        );
    }
}

#[test]
fn prompt_template_follows_str_format() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    docs(d);
    let tpl = |prompt: &str| {
        format!(
            "name: json-check\ndescription: JSON check\nsystem_prompt: Review.\nallowed_tools: [Read]\ninputs:\n  required:\n    - name: input\n      description: doc\nprompt_template: '{prompt}'\n"
        )
    };
    write(
        d,
        ".orchestration/templates/json-check.yaml",
        &tpl(r#"Review {input}. Answer like {{"verdict": "PASS"}}."#),
    );
    // One broken template does not stop the others.
    write(
        d,
        ".orchestration/templates/typo.yaml",
        &tpl("Review {inptu}.").replace("json-check", "typo"),
    );
    let server = FakeServer::start_blocking();
    let out = crit(d, &server, None)
        .args(["review", "json-check", "slice.md", "--print-prompt"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        printed.contains(r#"Review slice.md. Answer like {"verdict": "PASS"}."#),
        "{printed}"
    );
    let list = crit(d, &server, None)
        .args(["review", "list"])
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&list.stdout);
    assert_eq!(list.status.code(), Some(0));
    assert!(listed.contains("json-check"), "{listed}");
    assert!(listed.contains("typo"), "{listed}");
    assert!(
        listed.contains("`{inptu}`, which is not a declared input"),
        "{listed}"
    );
    let used = crit(d, &server, None)
        .args(["review", "typo", "slice.md"])
        .output()
        .unwrap();
    assert_eq!(used.status.code(), Some(2));
    assert!(stderr(&used).contains("typo.yaml:"), "{}", stderr(&used));
    assert!(stderr(&used).contains("{inptu}"), "{}", stderr(&used));
    // The built-ins still work beside it.
    server.push(Reply::json(
        json!({"verdict": "PASS", "summary": "ok", "findings": []}),
    ));
    let ok = crit(d, &server, None)
        .args([
            "review",
            "arch",
            "slice.md",
            "--against",
            "arch.md",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(json_out(&ok)["verdict"], "PASS");
}

#[test]
fn templates_dir_adds_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    docs(d);
    write(d, ".crit/config.yaml", "templates_dir: review/templates\n");
    write(
        d,
        "review/templates/brief.yaml",
        "name: brief\ndescription: Brief review\nsystem_prompt: Review briefly.\nallowed_tools: [Read]\ninputs:\n  required:\n    - name: input\n      description: doc\nprompt_template: Review {input}\n",
    );
    let server = FakeServer::start_blocking();
    let list = crit(d, &server, None)
        .args(["review", "list"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&list.stdout).contains("brief  project   Brief review"),
        "{}",
        String::from_utf8_lossy(&list.stdout)
    );
}

#[test]
fn output_modes_and_a_bad_one_before_any_model_call() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    docs(d);
    let server = FakeServer::start_blocking();
    for bad in [&["--output", "yaml"][..], &["--output", "file"][..]] {
        let out = crit(d, &server, None)
            .args(["review", "arch", "slice.md", "--against", "arch.md"])
            .args(bad)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(stderr(&out).contains("--output"), "{}", stderr(&out));
    }
    assert!(server.model_requests().is_empty(), "a model was asked");
    server.push(Reply::text(MARKDOWN_ANSWER));
    let out = crit(d, &server, None)
        .args([
            "review",
            "arch",
            "slice.md",
            "--against",
            "arch.md",
            "--output",
            "file",
            "out/r.json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let saved: Value =
        serde_json::from_slice(&std::fs::read(d.join("out/r.json")).unwrap()).unwrap();
    assert_eq!(saved["verdict"], "CONCERNS");
    server.push(Reply::text(MARKDOWN_ANSWER));
    let out = crit(d, &server, None)
        .args([
            "review",
            "arch",
            "slice.md",
            "--against",
            "arch.md",
            "--output",
            "terminal",
        ])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.starts_with("CONCERNS"), "{shown}");
}

/// A repository whose `main..HEAD` changes `src/app.py` and `docs/notes.md`.
fn two_file_change() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, "src/app.py", "x = 1\n");
    write(d, "docs/notes.md", "# Notes\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    git(d, &["checkout", "-q", "-b", "work"]);
    write(d, "src/app.py", "x = eval(input())\n");
    write(d, "docs/notes.md", "# Notes\nmore\n");
    git(d, &["commit", "-q", "-am", "change"]);
    dir
}

#[test]
fn the_designs_code_template_with_diff_and_files_together() {
    let dir = two_file_change();
    let d = dir.path();
    write(d, ".orchestration/templates/code.yaml", SEED_CODE);
    let server = FakeServer::start_blocking();
    server.push(Reply::text("## Summary\nFAIL\n\n## Findings\n\n### [FAIL] eval of input\nsrc/app.py:1 evaluates input.\n"));
    let out = crit(d, &server, None)
        .args([
            "review",
            "code",
            "--cwd",
            ".",
            "--diff",
            "main",
            "--files",
            "src/**/*.py",
            "--json",
            "--verify",
            "off",
        ])
        .output()
        .unwrap();
    let r = json_out(&out);
    assert_eq!(r["verdict"], "FAIL", "{r}");
    let user = server.model_requests()[0].body["messages"][0].to_string();
    assert!(user.contains("src/app.py"), "{user}");
    assert!(
        !user.contains("docs/notes.md"),
        "--files limits the change: {user}"
    );
    // A glob that matches none of the change: nothing to review, PASS.
    let out = crit(d, &server, None)
        .args([
            "review", "code", "--diff", "main", "--files", "*.rs", "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(json_out(&out)["verdict"], "PASS");
    assert_eq!(server.model_requests().len(), 1);
}

#[test]
fn the_designs_error_cases() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    docs(d);
    let server = FakeServer::start_blocking();
    let run = |args: &[&str]| crit(d, &server, None).args(args).output().unwrap();
    let e = run(&["review", "nope"]);
    assert_eq!(e.status.code(), Some(2));
    assert!(
        stderr(&e).contains("available: arch, code, tasks"),
        "{}",
        stderr(&e)
    );
    let e = run(&["review", "tasks", "tasks.md"]);
    assert_eq!(e.status.code(), Some(2));
    assert!(stderr(&e).contains("--against"), "{}", stderr(&e));
    write(
        d,
        ".orchestration/templates/both.yaml",
        "name: both\ndescription: d\nsystem_prompt: s\nallowed_tools: [Read]\nprompt_template: x\nprompt_builder: code\n",
    );
    let e = run(&["review", "both"]);
    assert_eq!(e.status.code(), Some(2));
    assert!(
        stderr(&e).contains("set prompt_template or prompt_builder, not both"),
        "{}",
        stderr(&e)
    );
    assert!(server.model_requests().is_empty());
}

/// The design's `display_result`: `--output json` is `result.to_dict()` on
/// stdout, `--output file PATH` the same JSON in PATH. With `--compat
/// squadron` that is the design's `to_dict()`, not crit's document.
#[test]
fn output_json_and_file_with_compat_squadron_are_the_designs_to_dict() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    docs(d);
    write(d, ".orchestration/templates/arch.yaml", SEED_ARCH);
    let server = FakeServer::start_blocking();
    crit(d, &server, None)
        .args(["trust", "--yes"])
        .assert()
        .success();
    let review = |output: &[&str]| {
        server.push(Reply::text(MARKDOWN_ANSWER));
        crit(d, &server, None)
            .args(["review", "arch", "slice.md", "--against", "arch.md"])
            .args(output)
            .args(["--compat", "squadron"])
            .output()
            .unwrap()
    };
    let to_dict = |r: &Value| {
        assert_eq!(r["verdict"], "CONCERNS", "{r}");
        assert_eq!(r["template_name"], "arch");
        assert_eq!(
            r["input_files"],
            json!({"input": "slice.md", "against": "arch.md", "cwd": "."})
        );
        assert_eq!(r["raw_output"], MARKDOWN_ANSWER);
        assert!(r["timestamp"].is_string());
        assert_eq!(
            r["findings"],
            json!([
                {"severity": "CONCERN", "title": "Slice reaches into the storage layer",
                 "description": "slice.md:12 reads the users table directly instead of going through the repository.",
                 "file_ref": "slice.md:12"},
                {"severity": "PASS", "title": "Dependencies point downwards",
                 "description": "Nothing depends on the CLI.", "file_ref": null}
            ]),
            "{r}"
        );
        // Nothing of crit's own document.
        assert!(
            r.get("passed").is_none() && r.get("review").is_none(),
            "{r}"
        );
    };
    let out = review(&["--output", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    to_dict(&json_out(&out));

    // A template written in the original's format: its `--output json` and
    // `--output file PATH` are the original's JSON without `--compat`, as its
    // users' scripts read them; `--json` stays crit's document.
    for args in [
        &["--output", "json"][..],
        &["--output", "file", "reviews/plain.json"][..],
    ] {
        server.push(Reply::text(MARKDOWN_ANSWER));
        let out = crit(d, &server, None)
            .args(["review", "arch", "slice.md", "--against", "arch.md"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        match args.len() {
            2 => to_dict(&json_out(&out)),
            _ => to_dict(
                &serde_json::from_slice(&std::fs::read(d.join("reviews/plain.json")).unwrap())
                    .unwrap(),
            ),
        }
    }
    server.push(Reply::text(MARKDOWN_ANSWER));
    let out = crit(d, &server, None)
        .args([
            "review",
            "arch",
            "slice.md",
            "--against",
            "arch.md",
            "--json",
        ])
        .output()
        .unwrap();
    let own = json_out(&out);
    assert_eq!(own["passed"], true, "{own}");
    assert_eq!(own["findings"][0]["severity"], "P2", "{own}");

    let out = review(&["--output", "file", "reviews/arch.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    let saved: Value =
        serde_json::from_slice(&std::fs::read(d.join("reviews/arch.json")).unwrap()).unwrap();
    to_dict(&saved);

    // The report for people and the original's JSON at once: refused before
    // any model call.
    let asked = server.model_requests().len();
    let out = crit(d, &server, None)
        .args(["review", "arch", "slice.md", "--against", "arch.md"])
        .args(["--output", "terminal", "--compat", "squadron"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--output terminal"),
        "{}",
        stderr(&out)
    );
    assert_eq!(server.model_requests().len(), asked);
}

/// Every finding-shaped block of a markdown answer is kept, and the result
/// says what was not understood: findings with no `## Summary` (UNKNOWN,
/// never a pass, the findings kept), and a `### Title` with no severity tag
/// under a `## Summary` of PASS (kept as a CONCERN).
#[test]
fn markdown_blocks_the_format_does_not_place_are_kept_and_said() {
    let no_summary =
        "### [CONCERN] Slice reaches into the storage layer\nslice.md:3 reads the users table.\n";
    let untagged = "## Summary\nPASS\n\n## Findings\n\n### Something odd\nslice.md:2 reads the table directly.\n";
    for project_template in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        docs(d);
        let server = FakeServer::start_blocking();
        if project_template {
            // The original's arch template (its markdown format), else crit's
            // built-in one (asked for the findings JSON, answered in markdown).
            write(d, ".orchestration/templates/arch.yaml", SEED_ARCH);
            crit(d, &server, None)
                .args(["trust", "--yes"])
                .assert()
                .success();
        }
        let review = |answer: &str| {
            server.push(Reply::text(answer));
            if !project_template {
                // Asked for its answer through crit's tool, it answers in text again.
                server.push(Reply::text(answer));
            }
            let out = crit(d, &server, None)
                .args([
                    "review",
                    "arch",
                    "slice.md",
                    "--against",
                    "arch.md",
                    "--json",
                ])
                .output()
                .unwrap();
            json_out(&out)
        };
        let r = review(no_summary);
        assert_eq!(r["verdict"], "UNKNOWN", "{r}");
        assert_eq!(r["passed"], false, "{r}");
        let found = r["findings"].as_array().unwrap();
        assert_eq!(found.len(), 1, "{r}");
        assert_eq!(
            found[0]["title"], "Slice reaches into the storage layer",
            "{r}"
        );
        assert_eq!(found[0]["location"]["path"], "slice.md", "{r}");
        let warnings = r["warnings"].to_string();
        assert!(warnings.contains("no verdict"), "{r}");

        let r = review(untagged);
        let found = r["findings"].as_array().unwrap();
        assert_eq!(found.len(), 1, "{r}");
        assert_eq!(found[0]["title"], "Something odd", "{r}");
        assert_eq!(found[0]["severity"], "P2", "{r}");
        let warnings = r["warnings"].to_string();
        assert!(
            warnings.contains(
                "finding `Something odd` has no [PASS|CONCERN|FAIL] tag: kept as a CONCERN"
            ),
            "{r}"
        );
    }
}
